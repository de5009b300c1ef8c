"""Judge-style verdicts in the flip probe (issue 34; docs/grader-behaviour.md,
"Nondeterminism"): a verifier whose style says a model may give its verdicts (``--style
judge``, ``--style http``: ``Style.judged``) has its repeats spread over the categories,
paid and refused, right and wrong -- a judge at temperature > 0 can flip on any answer,
not only on the near-misses a rule-based grader flips on. Audited against
tests/judge_server.py, a real server process whose stand-in judge answers at random on a
share of its calls (``--waver``)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reward_server import ServerProcess, run_audit

from verifier_audit.engine.audit import Prepared
from verifier_audit.engine.probes import REPEATS, flip_prone
from verifier_audit.loading import VerifierSpec
from verifier_audit.models import Candidate, Task, Verdict
from verifier_audit.report.checklist import evaluate
from verifier_audit.report.terminal import render_report

CELLS = (("correct", 1.0), ("incorrect", 0.0), ("incorrect", 1.0), ("correct", 0.0))


def _made_up(rows: list[tuple[str, str, float]]) -> tuple[Prepared, dict[str, Verdict]]:
    """One task; a candidate per (category, label, score) row, in that order."""
    task = Task(id="t", domain="math", prompt="p", reference="1")
    candidates, verdicts = [], {}
    for k, (category, label, score) in enumerate(rows):
        c = Candidate(
            id=f"c{k}",
            task_id="t",
            text=str(k),
            origin="equivalent" if label == "correct" else "known_bad",
            category=category,
            label=label,
        )
        candidates.append(c)
        verdicts[c.id] = Verdict(verifier="v", candidate_id=c.id, status="ok", score=score)
    return Prepared("s", "h", "math", [task], candidates, []), verdicts


def _cell(prepared: Prepared, verdicts: dict[str, Verdict], i: int) -> tuple[str, float]:
    c = prepared.candidates[i]
    return c.label, verdicts[c.id].score or 0.0


def test_a_judged_verifier_repeats_right_answers_it_pays_which_the_rule_based_order_never_picks():
    # Four categories; right answers paid in two of them, which no misjudged or near-miss
    # rule ever picks: a judge wavering on its right answers would go unseen.
    rows = [(f"m.right.{k}", "correct", 1.0) for k in range(2) for _ in range(3)]
    rows += [("m.bad.x", "incorrect", 0.0)] * 3 + [("m.bad.y", "incorrect", 1.0)] * 2
    rows += [("m.right.0", "correct", 0.0)]
    prepared, verdicts = _made_up(rows)
    rule = flip_prone(prepared, verdicts, 8, threshold=0.5)
    assert {_cell(prepared, verdicts, i) for i in rule} == {("incorrect", 1.0), ("correct", 0.0)}
    judged = flip_prone(prepared, verdicts, 8, threshold=0.5, judged=True)
    assert len(judged) == 8 and len(set(judged)) == 8
    # Every cell of label x verdict, two of each where it has two: the cells in turn.
    counts = Counter(_cell(prepared, verdicts, i) for i in judged)
    assert counts == {("correct", 1.0): 3, ("incorrect", 0.0): 2, ("incorrect", 1.0): 2, ("correct", 0.0): 1}
    # Within the right-paid cell, both of its categories (one per category in turn).
    assert {prepared.candidates[i].category for i in judged if _cell(prepared, verdicts, i) == ("correct", 1.0)} == {
        "m.right.0",
        "m.right.1",
    }
    assert flip_prone(prepared, verdicts, 8, threshold=0.5, judged=True, seed=1) != [] and judged == flip_prone(
        prepared, verdicts, 8, threshold=0.5, judged=True
    )  # seeded: the same again


@given(
    st.lists(st.tuples(st.sampled_from("abcde"), st.sampled_from(CELLS)), min_size=1, max_size=40),
    st.integers(0, 24),
    st.integers(0, 3),
)
@settings(max_examples=60, deadline=None)
def test_the_spread_takes_the_cells_and_their_categories_in_turn(rows, size, seed):
    prepared, verdicts = _made_up([(f"m.{cat}", label, score) for cat, (label, score) in rows])
    picked = flip_prone(prepared, verdicts, size, threshold=0.5, judged=True, seed=seed)
    assert len(picked) == len(set(picked)) == min(size, len(rows))
    members = Counter(_cell(prepared, verdicts, i) for i in range(len(rows)))
    taken = Counter(_cell(prepared, verdicts, i) for i in picked)
    for a in CELLS:  # a cell short of another by two or more has nothing left to give
        for b in CELLS:
            assert taken[a] >= min(members[a], taken[b] - 1), (a, b, taken, members)
    for cell in CELLS:  # the same between the categories within a cell
        have = Counter(
            prepared.candidates[i].category for i in range(len(rows)) if _cell(prepared, verdicts, i) == cell
        )
        got = Counter(prepared.candidates[i].category for i in picked if _cell(prepared, verdicts, i) == cell)
        for a in have:
            for b in have:
                assert got[a] >= min(have[a], got[b] - 1), (cell, a, b, got, have)


def test_the_remote_styles_say_a_model_may_judge_and_a_function_does_not():
    assert VerifierSpec("http://127.0.0.1:9/v1", "j", "judge").judged
    assert VerifierSpec("http://127.0.0.1:9/get_reward", "r", "http").judged
    assert not VerifierSpec("rewards.py:accuracy", "accuracy", "native").judged
    assert not VerifierSpec("reasoning-gym", "reasoning-gym", "reasoning-gym").judged


@pytest.fixture(scope="module")
def judged():
    """One math task, audited by the stand-in judge answering at random on half the calls
    its number rule decides, and by the same judge answering as it always does. A sample
    of 1 keeps the other probes small; the flip probe repeats its own 16 candidates."""
    out = {}
    for name, knobs in (("wavering", ("--waver", "0.5")), ("steady", ())):
        with ServerProcess("judge_server.py", *knobs) as server:
            out[name] = run_audit(
                server.url("/v1"), "judge", suite="math", limit=1, probe_sample=1, answer_formats=False, workers=2
            )
    return out


def test_a_judge_answering_at_random_on_a_share_of_calls_fails_the_default_gate(judged):
    report = judged["wavering"]
    probe = report.checks.nondeterminism
    # Spread over the cells, >= 8 of the 16 repeated candidates are decided by its number
    # rule, each flipping with probability 1/4 per call: all 9 calls of one alike at most
    # 0.75**8 = 0.1, of all eight 1e-8.
    assert probe.judged and probe.repeats == REPEATS and probe.candidates >= 16
    assert probe.flipped >= 1 and probe.ci.low > 0
    assert not report.gate.passed
    assert any(r.startswith("nondeterminism ") and "> max-nondeterminism 0" in r for r in report.gate.reasons)
    assert {i.key: i for i in evaluate(report)}["deterministic"].status == "open"
    line = next(x for x in render_report(report, verdict=False).splitlines() if x.startswith("nondeterminism: "))
    assert "for a judge, spread over the categories, paid and refused, 8 times each" in line


def test_a_judge_answering_the_same_every_time_shows_no_flip(judged):
    report = judged["steady"]
    probe = report.checks.nondeterminism
    assert probe.judged and probe.candidates >= 16 and probe.calls >= 16 * REPEATS
    assert probe.flipped == 0 and probe.errors == 0 and probe.examples == []
    assert not any("nondeterminism" in r for r in report.gate.reasons)
