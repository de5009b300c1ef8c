"""The acceptance criteria of the foundation, through the real command line.

Each command line here starts an audit (a clean server, its workers: seconds of start-up
on a loaded machine), so each run is as small as what it asserts needs: the default run
is whole (it is the README's demo), the gate's and the errors' runs take a few tasks
(``--limit``), and what the subprocess does not add (printing the catalog) runs in-process."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_support import run_cli

from verifier_audit.cli import main
from verifier_audit.models import Report, ReportSet

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_default_run_compares_the_reference_verifiers(cli, tmp_path):
    out = tmp_path / "all.json"
    r = cli("run", "--no-progress", "--json", str(out))
    assert r.returncode == 0, r.stderr
    for name in ("substring", "last_number", "last_box_exact", "strong"):
        assert name in r.stdout
    reports = {rep.verifier.rpartition(":")[2]: rep for rep in ReportSet.model_validate_json(out.read_text()).reports}
    assert reports["substring"].coverage_debt >= 0.3
    assert reports["last_number"].coverage_debt >= 0.1
    assert reports["strong"].coverage_debt <= 0.02
    assert reports["strong"].false_rejection_rate <= 0.05
    assert reports["strong"].errors == 0


def test_weak_verifier_fails_the_gate_and_strong_passes(cli, tmp_path):
    out = tmp_path / "weak.json"
    r = cli(
        "run",
        "--verifier",
        "examples/math_verifiers.py:substring",
        "--suite",
        "math",
        "--limit",
        "20",
        "--json",
        str(out),
        "--no-progress",
    )
    assert r.returncode == 1, r.stderr
    report = Report.model_validate_json(out.read_text())
    assert not report.gate.passed and "gate: FAILED" in r.stdout
    assert report.coverage_debt >= 0.3
    r = cli(
        "run",
        "--verifier",
        "examples/math_verifiers.py:strong",
        "--suite",
        "math",
        "--limit",
        "20",
        "--json",
        str(out),
        "--no-progress",
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert Report.model_validate_json(out.read_text()).gate.passed


def test_one_open_category_fails_through_max_category(cli, tmp_path):
    out = tmp_path / "hole.json"
    r = cli(
        "run",
        "--verifier",
        "examples/one_hole_verifier.py:times_ten_hole",
        "--limit",
        "20",
        "--json",
        str(out),
        "--no-progress",
    )
    assert r.returncode == 1, r.stderr
    report = Report.model_validate_json(out.read_text())
    assert report.coverage_debt <= 0.05  # the debt alone would let it through...
    assert len(report.gate.reasons) == 1  # ...the one wide-open category does not
    assert "math.near_miss.times_ten" in report.gate.reasons[0]
    assert "max-category" in report.gate.reasons[0]


def test_a_verifier_that_executes_model_output_is_a_security_finding(cli, tmp_path):
    out = tmp_path / "exec.json"
    r = cli(
        "run",
        "--verifier",
        "examples/executes_output.py:sympify_grader",
        "--json",
        str(out),
        "--no-progress",
        "--limit",
        "8",
    )
    report = Report.model_validate_json(out.read_text())
    assert report.security_findings, r.stdout
    assert r.returncode == 1 and any("security" in reason for reason in report.gate.reasons)


HOSTILE_LIMIT = 1  # math-0001: 96 candidates, 4 of them with the trigger word


@pytest.fixture(scope="module")
def triggered(tmp_path_factory):
    """How many candidates the hostile verifiers' runs audit, and how many of them contain
    the trigger word (one ``generate`` for the three verifiers: it depends on none)."""
    sys.path.insert(0, str(ROOT / "examples"))
    from hostile_verifiers import TRIGGER

    path = tmp_path_factory.mktemp("hostile") / "cands.jsonl"
    cache = tmp_path_factory.getbasetemp() / "va-cache"  # conftest's, set per test only
    r = run_cli("generate", "--limit", str(HOSTILE_LIMIT), "--out", str(path), env={"VERIFIER_AUDIT_CACHE": str(cache)})
    assert r.returncode == 0, r.stderr
    cands = [json.loads(line) for line in path.read_text().splitlines()]
    return len(cands), sum(TRIGGER in c["text"] for c in cands)


@pytest.mark.parametrize(
    "verifier,kind,timeout",
    [
        ("loops_forever", "timeout", "1"),
        ("exits_process", "crash", "1"),
        ("uses_signal_alarm", "TimeoutError", "4"),  # its own 1 s alarm must fire before ours
    ],
)
def test_hostile_verifiers_complete_with_exact_error_counts(cli, tmp_path, triggered, verifier, kind, timeout):
    total, expected = triggered
    assert 0 < expected < total
    out = tmp_path / "h.json"
    r = cli(
        "run",
        "--verifier",
        f"examples/hostile_verifiers.py:{verifier}",
        "--limit",
        str(HOSTILE_LIMIT),
        "--timeout",
        timeout,
        "--json",
        str(out),
        "--no-progress",
    )
    assert r.returncode in (0, 1), r.stderr
    report = Report.model_validate_json(out.read_text())
    assert report.n_candidates == total
    assert report.errors == expected
    assert report.error_kinds == {kind: expected}


def test_kill_9_then_resume_gives_the_same_report(cli, tmp_path):
    # No probes: they run after the verdicts, and what is checked here is the verdicts' file.
    args = [
        "run",
        "--verifier",
        "examples/hostile_verifiers.py:slow",
        "--limit",
        "12",
        "--no-progress",
        "--probe-sample",
        "0",
    ]
    whole = tmp_path / "whole.json"
    r = cli(*args, "--results", str(tmp_path / "whole.jsonl"), "--json", str(whole))
    assert r.returncode in (0, 1), r.stderr

    results = tmp_path / "cut.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "verifier_audit", *args, "--results", str(results)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if results.exists() and results.read_text().count("\n") > 150:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = results.read_text().count("\n") - 1
    total = Report.model_validate_json(whole.read_text()).n_candidates
    assert 0 < done_before < total, "the kill must land mid-audit"

    resumed = tmp_path / "resumed.json"
    r = cli(*args, "--results", str(results), "--resume", "--json", str(resumed))
    assert r.returncode in (0, 1), r.stderr
    # The same report but for the call times of the calls made again (Report.latency).
    assert {**json.loads(resumed.read_text()), "latency": None} == {**json.loads(whole.read_text()), "latency": None}
    lines = results.read_text().splitlines()
    ids = [json.loads(line)["candidate_id"] for line in lines[1:]]
    assert len(ids) == len(set(ids)) == total  # nothing redone twice, nothing lost


def test_resume_refuses_other_settings(cli, tmp_path):
    results = tmp_path / "r.jsonl"
    base = [
        "run",
        "--verifier",
        "examples/math_verifiers.py:substring",
        "--limit",
        "1",
        "--no-progress",
        "--probe-sample",
        "0",
        "--no-format-probe",
        "--results",
        str(results),
    ]
    assert cli(*base).returncode == 1
    r = cli(*base, "--seed", "7", "--resume")
    assert r.returncode == 2 and "settings that differ" in r.stderr and "seed" in r.stderr


def test_wrong_verifier_spec_is_exit_2_with_what_was_found(cli):
    r = cli("run", "--verifier", "examples/math_verifiers.py:nope")
    assert r.returncode == 2
    assert "has no 'nope'" in r.stderr and "strong" in r.stderr


def test_catalog_lists_categories_with_rationale(capsys):
    assert main(["catalog"]) == 0
    out = capsys.readouterr().out
    assert "math.near_miss.sign_flip" in out and "known_bad" in out


@pytest.mark.parametrize("domain", ["math", "sql", "code"])
def test_catalog_of_every_domain_prints(capsys, domain):
    # The code domain's kind tables spell severities as strings; this once crashed (exit 3).
    code = main(["catalog", "--domain", domain])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert f"{domain}.near_miss." in captured.out and f"{domain}.equivalent." in captured.out
