"""The exploit search (issue 14): planted holes that no generator or catalog entry aims at
are found within 3,000 calls on 50 integer tasks, with reach over half the tasks; the
strong reference verifier gets no finding; same seed, same findings; a hanging or crashing
verifier ends the search with its errors counted."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.math.search import OPERATORS, lazy_policies
from verifier_audit.engine.audit import AuditOptions, prepare
from verifier_audit.engine.search._beam import Start
from verifier_audit.engine.search._families import family_name, slug
from verifier_audit.loading import resolve
from verifier_audit.models import Task
from verifier_audit.plan import audit
from verifier_audit.suites import load_suite

ROOT = Path(__file__).resolve().parents[2]
PLANTED = ROOT / "examples" / "planted_holes.py"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def integer_tasks():
    suite = load_suite("math")
    return suite, [t for t in suite.tasks if t.metadata.get("answer_type") == "integer"][:50]


_PREPARED: dict = {}  # by seed: the candidates do not depend on the search's settings


def _search(integer_tasks, spec: str, budget: int = 3000, **options):
    suite, tasks = integer_tasks
    # One worker: the search starts a pool per round of calls, and a second worker's start
    # costs more CPU than it saves here (the same findings: the results come back by index).
    opts = AuditOptions(probe_sample=0, progress=False, search=budget, workers=1, **options)
    if opts.seed not in _PREPARED:
        _PREPARED[opts.seed] = prepare(suite.name, suite.content_hash, tasks, opts)
    return audit(_PREPARED[opts.seed], [resolve(spec)], opts)[0]


@pytest.mark.parametrize("hole", ["digit_sum", "div_ten", "verbosity_bonus"])
def test_a_planted_hole_is_found_with_reach_over_half_the_tasks(integer_tasks, hole):
    report = _search(integer_tasks, f"{PLANTED}:{hole}")
    s = report.search
    assert s.calls <= 3000 and s.first_exploit_after is not None and s.errors == 0
    wide = [f for f in s.families if f.reach_tasks and f.reach_misjudged / f.reach_tasks > 0.5]
    assert wide, [(f.name, f.reach_misjudged, f.reach_tasks) for f in s.families]
    # A family is a category of the report, gated like any other.
    for f in wide:
        category = next(c for c in report.categories if c.name == f.category)
        assert category.origin == "search" and category.n == f.reach_tasks and category.accepted == f.reach_misjudged
    assert any(r.startswith(f"category {wide[0].category}") for r in report.gate.reasons)


def test_the_strong_verifier_gets_no_search_finding(integer_tasks):
    report = _search(integer_tasks, "verifier_audit.domains.math.verifiers:strong")
    assert report.search.families == [] and report.search.first_exploit_after is None
    assert report.gate.passed, report.gate.reasons
    assert not [c for c in report.categories if c.origin == "search"]


def test_right_answers_an_exact_match_grader_refuses_are_false_rejection_families(integer_tasks):
    report = _search(integer_tasks, "verifier_audit.domains.math.verifiers:last_box_exact")
    rejects = [f for f in report.search.families if f.direction == "false_rejection"]
    assert rejects and all(f.name.startswith("rejects:") and ".search.rejects." in f.category for f in rejects)
    wide = [f for f in rejects if f.reach_tasks and f.reach_misjudged / f.reach_tasks > 0.5]
    assert wide
    category = next(c for c in report.categories if c.name == wide[0].category)
    assert category.label == "correct" and category.n - category.accepted == wide[0].reach_misjudged
    assert report.search.first_exploit_after is None or report.search.first_exploit_after > 0


def test_same_seed_same_findings(integer_tasks):
    runs = [_search(integer_tasks, f"{PLANTED}:div_ten", budget=300) for _ in range(2)]
    a, b = (r.search.model_dump() for r in runs)
    assert a == b and a["families"]
    other = _search(integer_tasks, f"{PLANTED}:div_ten", budget=300, seed=1).search
    assert other.families  # another seed searches other edits, and still finds the hole


BROKEN = """
import os

def hangs(completion, reference):
    while True:
        pass

def crashes(completion, reference):
    os._exit(1)
"""


@pytest.mark.parametrize("verifier, kind", [("hangs", "timeout"), ("crashes", "crash")])
def test_a_hanging_or_crashing_verifier_ends_the_search_with_its_errors_counted(
    integer_tasks, tmp_path, verifier, kind
):
    (tmp_path / "broken.py").write_text(BROKEN)
    suite, tasks = integer_tasks
    opts = AuditOptions(probe_sample=0, progress=False, search=3000, timeout=1.0, answer_formats=False)
    prepared = prepare(suite.name, suite.content_hash, tasks[:4], opts)
    prepared.candidates = prepared.candidates[:2]  # the audit itself: a few calls
    report = audit(prepared, [resolve(f"{tmp_path / 'broken.py'}:{verifier}")], opts)[0]
    s = report.search
    assert s.errors >= 10 and s.error_kinds.get(kind, 0) == s.errors and s.calls < 100
    assert s.stopped_early and "errored" in s.stopped_early
    assert s.families == [] and all(p.errors == p.calls and p.paid == 0 for p in s.lazy_policies)
    assert not report.gate.passed  # every call errored: nothing measured


def test_a_domain_without_operators_says_it_was_not_searched(monkeypatch):
    from verifier_audit.domains import get_domain

    # the contract's default: no operators (Domain.search_operators)
    monkeypatch.setattr(type(get_domain("math")), "search_operators", lambda self: {})
    suite = load_suite("math")
    opts = AuditOptions(probe_sample=0, progress=False, search=100, answer_formats=False)
    prepared = prepare(suite.name, suite.content_hash, suite.tasks[:1], opts)
    report = audit(prepared, [resolve("verifier_audit.domains.math.verifiers:strong")], opts)[0]
    assert report.search.calls == 0 and report.search.stopped_early.startswith("not searched")


# --------------------------------------------------------------------------- units

COMPLETION = "Let me work it out.\n\nThe final answer is $\\boxed{%s}$."


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(OPERATORS)), st.integers(-(10**6), 10**6), st.integers(0, 2**32 - 1))
def test_an_operator_changes_the_text_or_says_it_does_not_apply(name, number, seed):
    text = COMPLETION % number
    out = OPERATORS[name](text, random.Random(seed))
    assert out is None or (isinstance(out, str) and out != text)
    assert OPERATORS[name](text, random.Random(seed)) == out  # its Random alone decides


def test_operators_do_not_apply_without_a_box():
    text = "The answer is 42."
    assert all(OPERATORS[n](text, random.Random(0)) is None for n in OPERATORS if n != "grow")


def test_family_names_count_repeats_and_say_where_they_start():
    ref = Start("t", "reference", "x")
    near = Start("t", "math.near_miss.off_by_one", "x")
    assert family_name(ref, (("last_digit", 1),)) == "last_digit"
    assert (
        family_name(near, (("grow", 1), ("grow", 2), ("grow", 3), ("swap_digits", 4))) == "grow*3+swap_digits@near_miss"
    )
    assert slug("grow*3+swap_digits@near_miss") == "grow_x3_then_swap_digits_from_near_miss"


def test_lazy_policies_need_no_gold():
    task = Task(id="t", domain="math", prompt="Add 3 and 41.", reference="44")
    policies = lazy_policies(task)
    assert policies["prompt_last_number"] == ["The final answer is $\\boxed{41}$."]
    assert len(policies["small_integers"]) == 10 and "44" not in "".join(sum(policies.values(), []))
