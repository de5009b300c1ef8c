"""Determinism with power and latency (issue 34; docs/grader-behaviour.md): the flip-prone
candidates are scored again REPEATS times and a flip fails the gate (--max-nondeterminism,
default 0); the call times per category rank the slow kind of input first and name its
candidate (--max-call-seconds gates their p99, off by default)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.config import load_config
from verifier_audit.engine.audit import AuditOptions, Prepared, default_cache_dir, prepare
from verifier_audit.engine.probes import REPEATS, flip_prone
from verifier_audit.loading import resolve
from verifier_audit.metrics import gate, percentile
from verifier_audit.models import Candidate, CategoryLatency, GateConfig, Latency, SlowCall, Task, Verdict
from verifier_audit.plan import audit, audit_options
from verifier_audit.report.build import LatencyTally
from verifier_audit.report.checklist import evaluate
from verifier_audit.report.html import to_html
from verifier_audit.report.terminal import render_report
from verifier_audit.suites import load_suite, select

GRADERS = Path(__file__).resolve().parents[1] / "fixtures" / "behaviour_graders.py"
STRONG = "verifier_audit.domains.math.verifiers:strong"


def _made_up(scores: dict[str, list[float]]) -> tuple[Prepared, dict[str, Verdict]]:
    """One task; per category, wrong candidates (near-misses in "m.near.*") with these scores."""
    task = Task(id="t", domain="math", prompt="p", reference="1")
    candidates, verdicts = [], {}
    for cat, values in scores.items():
        for k, score in enumerate(values):
            c = Candidate(
                id=f"{cat}/{k}",
                task_id="t",
                text=str(k),
                origin="near_miss" if ".near." in cat else "known_bad",
                category=cat,
                label="incorrect",
            )
            candidates.append(c)
            verdicts[c.id] = Verdict(verifier="v", candidate_id=c.id, status="ok", score=score)
    return Prepared("s", "h", "math", [task], candidates, []), verdicts


def test_flip_prone_takes_partial_scores_then_the_worst_categories_then_near_misses():
    prepared, verdicts = _made_up(
        {
            "m.bad.often": [1.0, 1.0, 0.0],  # 2 of 3 paid: the worst category
            "m.bad.once": [1.0, 0.0, 0.0, 0.0],
            "m.near.x": [0.0, 0.0],
            "m.near.partial": [0.4, 0.9],  # right on some cases: first, nearest the threshold first
        }
    )
    ids = [prepared.candidates[i].id for i in flip_prone(prepared, verdicts, 6, threshold=0.5)]
    assert ids == [
        "m.near.partial/0",
        "m.near.partial/1",
        "m.bad.often/0",
        "m.bad.once/0",
        "m.bad.often/1",
        "m.near.x/0",
    ]
    assert flip_prone(prepared, verdicts, 0, threshold=0.5) == []


@given(st.lists(st.floats(0, 1000, allow_nan=False), min_size=1, max_size=50), st.sampled_from([50, 99, 100]))
@settings(max_examples=50, deadline=None)
def test_percentile_is_a_value_with_that_share_at_or_below_it(values, q):
    ordered = sorted(values)
    p = percentile(ordered, q)
    assert p in ordered
    assert sum(v <= p for v in ordered) >= q / 100 * len(ordered)  # at least q% at or below
    assert sum(v < p for v in ordered) < q / 100 * len(ordered)  # and the smallest such value


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """One task of the math suite. The planted random grader and the strong verifier as the
    control side by side, probed (probe_sample 2 keeps the other probes small; the flip
    probe repeats its own candidates whatever the sample); the planted slow grader alone,
    unprobed: its latency comes from the verdicts. No answer-format probe: not under test."""
    base = AuditOptions(cache_dir=default_cache_dir(), progress=False, workers=2, probe_sample=2, answer_formats=False)
    suite = load_suite("math")
    prepared = prepare(suite.name, suite.content_hash, select(suite, None, 1), base, limit=1)
    work = tmp_path_factory.mktemp("flips")
    probed = audit(
        prepared,
        [resolve(f"{GRADERS}:pays_a_third"), resolve(STRONG)],
        dataclasses.replace(base, results=work / "probed.jsonl"),
    )
    slow = audit(
        prepared,
        [resolve(f"{GRADERS}:slow_on_two_boxes")],
        dataclasses.replace(base, results=work / "slow.jsonl", probe_sample=0),
    )
    return dict(zip(("random", "strong", "slow"), probed + slow, strict=True)), prepared


def test_a_grader_paying_a_third_of_wrong_answers_is_caught_and_fails_the_gate(reports):
    by_name, _ = reports
    probe = by_name["random"].checks.nondeterminism
    # The flip-prone candidates are near-misses and misjudged ones: answers strong rejects,
    # which this grader pays 1 call in 3. Each of >= 8 of them is scored 1 + REPEATS = 9
    # times; all 9 alike has probability (1/3)**9 + (2/3)**9 = 0.026, so missing every one
    # is 0.026**8 < 1e-12 (the bound the test asks for: < 1e-6).
    assert REPEATS == 8 and probe.repeats == REPEATS
    assert probe.calls >= 2 + 8 * REPEATS and probe.candidates >= 8  # the sample of 2, then the repeats
    assert probe.flipped >= 1 and probe.rate == round(probe.flipped / probe.candidates, 6)
    assert probe.ci.low <= probe.rate <= probe.ci.high and probe.ci.low > 0
    reasons = by_name["random"].gate.reasons
    assert not by_name["random"].gate.passed
    assert any(r.startswith("nondeterminism ") and "> max-nondeterminism 0" in r for r in reasons)
    assert {i.key: i for i in evaluate(by_name["random"])}["deterministic"].status == "open"


def test_the_sound_control_shows_no_flip_and_no_nondeterminism_reason(reports):
    by_name, _ = reports
    probe = by_name["strong"].checks.nondeterminism
    assert probe.candidates >= 8 and probe.calls >= 8 * REPEATS
    assert probe.flipped == 0 and probe.rate == 0.0 and probe.ci.low == 0.0 and probe.examples == []
    assert not any("nondeterminism" in r for r in by_name["strong"].gate.reasons)
    checked = {i.key: i for i in evaluate(by_name["strong"])}["deterministic"]
    assert checked.status == "checked" and f"{probe.candidates} candidates scored again" in checked.evidence


def test_latency_ranks_the_slow_kind_of_input_first_and_names_its_candidate(reports):
    by_name, prepared = reports
    text = {c.id: c.text for c in prepared.candidates}
    two_boxes = {c.category for c in prepared.candidates if c.text.count("\\boxed") >= 2}
    latency = by_name["slow"].latency
    assert latency.calls == by_name["slow"].n_candidates
    assert latency.categories[0].category in two_boxes  # the slowest p99 first
    slowest = latency.slowest[0]
    assert text[slowest.candidate_id].count("\\boxed") >= 2 and slowest.category in two_boxes
    assert [s.seconds for s in latency.slowest] == sorted((s.seconds for s in latency.slowest), reverse=True)
    for row in latency.categories:
        assert row.p50 <= row.p99 <= row.max and row.calls >= 1


def test_max_call_seconds_gates_the_p99_only_when_set(reports):
    by_name, _ = reports
    assert by_name["strong"].gate.passed  # the default: not gated
    # Call times given, not measured: the gate reads the p99s it is handed.
    latency = Latency(
        calls=6,
        p50=0.2,
        p99=3.0,
        categories=[
            CategoryLatency(category="math.a", calls=3, p50=1.0, p99=3.0, max=3.0),
            CategoryLatency(category="math.b", calls=3, p50=0.1, p99=0.2, max=0.2),
        ],
        slowest=[SlowCall(candidate_id="t/math.a/0", category="math.a", seconds=3.0)],
    )
    assert gate(0.0, [], 0.0, 0, GateConfig(), latency=latency).passed
    assert gate(0.0, [], 0.0, 0, GateConfig(max_call_seconds=5.0), latency=latency).passed
    failed = gate(0.0, [], 0.0, 0, GateConfig(max_call_seconds=0.5), latency=latency)
    assert not failed.passed
    assert failed.reasons[0].startswith("p99 call time over max-call-seconds 0.5 in 1 ")
    assert "t/math.a/0" in failed.reasons[0]


def test_the_two_gates_are_read_from_the_project_file(tmp_path):
    project = tmp_path / "pyproject.toml"
    project.write_text("[tool.verifier_audit.gate]\nmax_nondeterminism = 0.25\nmax_call_seconds = 2.5\n")
    options = audit_options({}, load_config(project))[0]
    assert (options.gate.max_nondeterminism, options.gate.max_call_seconds) == (0.25, 2.5)
    flags = audit_options({"max_nondeterminism": 0.5, "max_call_seconds": 0.1}, None)[0]
    assert (flags.gate.max_nondeterminism, flags.gate.max_call_seconds) == (0.5, 0.1)
    assert (GateConfig().max_nondeterminism, GateConfig().max_call_seconds) == (0.0, None)


def test_the_terminal_and_the_html_card_say_both_lines(reports):
    by_name, _ = reports
    random_text = render_report(by_name["random"], verdict=False)
    line = next(x for x in random_text.splitlines() if x.startswith("nondeterminism: "))
    probe = by_name["random"].checks.nondeterminism
    assert line.startswith(f"nondeterminism: {probe.flipped} of {probe.candidates} candidates changed score")
    slow = by_name["slow"]
    latency_line = next(x for x in render_report(slow, verdict=False).splitlines() if x.startswith("latency: "))
    assert slow.latency.slowest[0].candidate_id in latency_line
    page = to_html([by_name["random"], slow])
    assert 'class="va-over va-nondeterminism"' in page and '<table class="va-slowest">' in page
    assert slow.latency.categories[0].category in page


def _candidate(i: int, category: str) -> Candidate:
    return Candidate(id=f"c{i}", task_id="t", text="x", origin="known_bad", category=category, label="incorrect")


def test_a_p99_over_a_second_warns_and_ties_go_to_the_earlier_candidate():
    tally = LatencyTally()
    times = [("a.fast", 0.001)] * 98 + [("a.slow", 1.5), ("a.slow", 1.5)]
    for i, (category, spent) in enumerate(times):
        tally.count(
            _candidate(i, category), Verdict(verifier="v", candidate_id=f"c{i}", status="ok", score=0.0, seconds=spent)
        )
    latency = tally.result()
    assert latency.calls == 100 and latency.p50 == 0.001 and latency.p99 == 1.5
    assert [c.category for c in latency.categories] == ["a.slow", "a.fast"]
    assert [s.candidate_id for s in latency.slowest[:2]] == ["c98", "c99"]  # equal times: the earlier first
    assert latency.warning is not None and latency.warning.startswith("p99 call time 1.50 s > 1 s")
    quick = LatencyTally()
    quick.count(_candidate(0, "a.fast"), Verdict(verifier="v", candidate_id="c0", status="ok", score=0.0, seconds=0.2))
    assert quick.result().warning is None and LatencyTally().result() is None
