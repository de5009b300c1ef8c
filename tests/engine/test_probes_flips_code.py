"""The issue's code grader (issue 34; docs/grader-behaviour.md, "Nondeterminism"): a
held-out grader that checks 2 of its 5 cases at random per call pays a program wrong on
one case 6 calls in 10, and must be flagged by the flip probe with its defaults; the sound
grader that checks all 5 must not. One function task written for this test (five asserts,
one per branch and boundary, so that a mutant of the reference is wrong on some of them
and right on the others), its near-misses only: a few candidates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier_audit.engine.audit import AuditOptions, default_cache_dir, prepare
from verifier_audit.engine.probes import REPEATS
from verifier_audit.loading import resolve
from verifier_audit.plan import audit
from verifier_audit.suites import load_suite

GRADERS = Path(__file__).resolve().parents[1] / "fixtures" / "held_out_graders.py"
SIGNATURE = 'def clamp(x: int, lo: int, hi: int) -> int:\n    """x moved into [lo, hi] (lo <= hi)."""\n'
TASK = {
    "id": "clamp/0",
    "domain": "code",
    "prompt": SIGNATURE,
    "reference": SIGNATURE + "    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n",
    "entry_point": "clamp",
    "tests": "def check(candidate):\n"
    + "".join(
        f"    assert candidate({x}, 0, 10) == {want}\n" for x, want in ((-5, 0), (15, 10), (4, 4), (0, 0), (10, 10))
    ),
    "metadata": {"input_hints": {"lo": {"min": -5, "max": 5}, "hi": {"min": 6, "max": 20}}},
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    path = tmp_path_factory.mktemp("clamp") / "clamp.jsonl"
    path.write_text(json.dumps(TASK) + "\n", encoding="utf-8")
    options = AuditOptions(
        cache_dir=default_cache_dir(),
        progress=False,
        workers=2,
        probe_sample=1,
        answer_formats=False,
        origins=("near_miss",),
    )
    suite = load_suite(str(path), domain="code")
    prepared = prepare(suite.name, suite.content_hash, suite.tasks, options)
    assert len(prepared.candidates) >= 5  # the reference's mutants that the oracle confirms wrong
    made = audit(prepared, [resolve(f"{GRADERS}:checks_two_of_five"), resolve(f"{GRADERS}:checks_all_five")], options)
    return dict(zip(("two", "all"), made, strict=True))


def test_a_grader_checking_two_of_its_five_cases_at_random_is_flagged(reports):
    report = reports["two"]
    probe = report.checks.nondeterminism
    # Every near-miss is repeated; each wrong on 1 to 4 of the 5 cases flips per call with
    # probability >= 0.3 (paid 6 calls in 10 when wrong on one case), so all 9 of its calls
    # alike is at most 0.7**8 = 0.06; the test's bound needs two such candidates: 0.003.
    assert not probe.judged and probe.repeats == REPEATS and probe.candidates >= 5
    assert probe.flipped >= 1 and probe.ci.low > 0
    assert any(e.startswith("clamp/0/code.near_miss.") for e in probe.examples)
    assert not report.gate.passed
    assert any(r.startswith("nondeterminism ") and "> max-nondeterminism 0" in r for r in report.gate.reasons)


def test_the_grader_checking_all_five_is_not(reports):
    probe = reports["all"].checks.nondeterminism
    assert probe.candidates >= 5 and probe.calls >= 5 * REPEATS
    assert probe.flipped == 0 and probe.examples == [] and probe.errors == 0
    assert not any("nondeterminism" in r for r in reports["all"].gate.reasons)
