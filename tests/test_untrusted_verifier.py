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


def test_a_verifier_cannot_read_the_labels():
    """Workers hold candidate texts and task views only, and start from a clean server, so
    no frame or heap object in them carries a label: a label reader is just always-accept."""
    report = audit(f"{FIXTURES / 'liars.py'}:reads_labels", limit=3, probe_sample=0, cache=False)
    assert report.errors == 0, report.error_messages
    assert report.false_acceptance_rate == 1.0
    assert not report.gate.passed
