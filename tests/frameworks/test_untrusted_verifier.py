"""The verifier under audit is not trusted: nothing it does at import time or while it
scores can change the verdicts or the report (docs/threat-model.md)."""

import json
import os
from pathlib import Path

import pytest

from verifier_audit.api import audit
from verifier_audit.loading import resolve

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


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


@pytest.mark.skipif(os.geteuid() != 0, reason="the PID namespace that shields the audit needs root")
def test_a_verifier_cannot_stop_or_kill_the_audit(cli, tmp_path):
    out = tmp_path / "report.json"
    r = cli(
        "run",
        "--verifier",
        f"{FIXTURES / 'liars.py'}:stops_the_audit",
        "--limit",
        "2",
        "--no-progress",
        "--no-config",
        "--no-cache",
        "--probe-sample",
        "0",
        "--json",
        str(out),
        timeout=600,
    )
    assert r.returncode in (0, 1), r.stderr
    report = json.loads(out.read_text())
    assert report["n_candidates"] > 50 and report["errors"] == 0
