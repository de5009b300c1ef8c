"""The verifier under audit is not trusted: nothing it does at import time or while it
scores can change the verdicts or the report (docs/threat-model.md)."""

from pathlib import Path

from verifier_audit.api import audit
from verifier_audit.loading import resolve

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_import_time_code_cannot_patch_the_report():
    spec = resolve(f"{FIXTURES / 'liars.py'}:always")
    assert spec.style == "pair"  # read by another interpreter
    report = audit(f"{FIXTURES / 'liars.py'}:always", limit=3, probe_sample=0, cache=False)
    assert report.false_acceptance_rate == 1.0
    assert not report.gate.passed
