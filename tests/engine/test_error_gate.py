"""Errors never pass for a clean result: a verifier whose calls error fails the gate, the
reason quotes the error, and a category nothing was measured in is gated, never dropped."""

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.metrics import gate, wilson
from verifier_audit.models import CategoryResult, GateConfig, Severity

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "process_verifiers.py"


def _category(name: str, n: int, errors: int, accepted: int = 0) -> CategoryResult:
    return CategoryResult(
        name=name,
        origin="near_miss",
        severity=Severity.medium,
        label="incorrect",
        n=n,
        accepted=accepted,
        rate=accepted / n if n else 0.0,
        ci=wilson(accepted, n),
        errors=errors,
        measured=n > 0 or errors == 0,
        error_kinds={"ValueError": errors} if errors else {},
    )


def test_a_verifier_that_errors_on_every_call_fails_and_the_reason_quotes_the_error(cli, tmp_path):
    out = tmp_path / "report.json"
    r = cli(
        "run",
        "--verifier",
        f"{FIXTURES}:broken_import",
        "--limit",
        "3",
        "--no-progress",
        "--no-config",
        "--json",
        str(out),
        "--probe-sample",
        "0",
    )
    assert r.returncode == 1, r.stderr
    report = json.loads(out.read_text())
    assert report["error_rate"] == 1.0
    reason = report["gate"]["reasons"][0]
    assert reason.startswith("no successful call") and "verifier_audit_no_such_module" in reason
    assert "ModuleNotFoundError" in report["error_messages"]
    assert all(not c["measured"] for c in report["categories"])
    assert "verifier_audit_no_such_module" in r.stdout  # said on the terminal, not only in files


def test_a_category_whose_calls_all_errored_is_not_measured_and_gated(cli, tmp_path):
    out = tmp_path / "report.json"
    r = cli(
        "run",
        "--verifier",
        f"{FIXTURES}:errors_on_two_boxes",
        "--limit",
        "8",
        "--no-progress",
        "--no-config",
        "--json",
        str(out),
        "--probe-sample",
        "0",
        "--max-error-rate",
        "1",
    )
    report = json.loads(out.read_text())
    blind = [c for c in report["categories"] if not c["measured"]]
    assert blind and all(c["n"] == 0 and c["errors"] > 0 for c in blind)
    for c in blind:  # every one of them is a reason of its own
        assert any(x.startswith(f"category {c['name']}: not measured") for x in report["gate"]["reasons"])
    assert r.returncode == 1
    assert "not measured" in r.stdout
    assert report["error_messages"]["ValueError"] == ["ValueError: cannot grade two answers"]


def test_waiving_a_category_silences_its_not_measured_reason():
    cats = [_category("math.a", 0, 5), _category("math.b", 20, 0)]
    config = GateConfig(max_error_rate=1.0, waived_categories=["math.a"])
    assert gate(0.0, cats, 0.0, 0, config, errors=5, calls=25).passed
    assert not gate(0.0, cats, 0.0, 0, GateConfig(max_error_rate=1.0), errors=5, calls=25).passed


@given(errors=st.integers(0, 200), ok=st.integers(0, 200), limit=st.sampled_from([0.0, 0.05, 0.2, 1.0]))
def test_the_error_gate_fails_exactly_over_its_limit(errors, ok, limit):
    calls = errors + ok
    cats = [_category("math.x", ok, errors)]
    result = gate(
        0.0, cats, 0.0, 0, GateConfig(max_error_rate=limit), errors=errors, calls=calls, first_error="KeyError: 'x'"
    )
    over = calls > 0 and errors / calls > limit
    all_errored = calls > 0 and errors == calls
    assert result.passed == (not over and not all_errored)
    if all_errored:
        assert result.reasons == [
            f"no successful call: all {calls} verifier calls errored (first error: \"KeyError: 'x'\")"
        ]
