"""The pytest plugin, through pytester: the fixture, the marker, the options, the terminal
summary, the failure message's text, and pytest-xdist."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "verifier-repo"

CONFIG = """
[tool.verifier_audit]
suite = "tasks.jsonl"
workers = 2

[tool.verifier_audit.gate]
max_category = 0.25
"""


@pytest.fixture
def repo(pytester):
    """A verifier repository: two reward functions (one sound, one with a hole), six tasks."""
    shutil.copy(EXAMPLE / "rewards.py", pytester.path / "rewards.py")
    lines = (EXAMPLE / "data" / "gsm_style.jsonl").read_text().splitlines()
    (pytester.path / "tasks.jsonl").write_text("\n".join(lines[:6]) + "\n")
    pytester.makepyprojecttoml(CONFIG)
    return pytester


FIXTURE_TESTS = """
def test_sound(verifier_audit):
    report = verifier_audit.assert_coverage("rewards.py:accuracy_reward")
    assert report.gate.passed and report.n_candidates > 50

def test_hole(verifier_audit):
    verifier_audit.assert_coverage("rewards.py:last_number_reward")
"""


def test_fixture_passes_the_sound_verifier_and_fails_the_hole_with_a_readable_message(repo):
    repo.makepyfile(test_rewards=FIXTURE_TESTS)
    result = repo.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*rewards.py:last_number_reward failed its verifier-audit gate on suite tasks.jsonl (seed 0):",
            "*coverage debt 0.* false acceptance *%; false rejection *%",
            "*- category math.*: false acceptance 1.00 (*) > max-category 0.25",
            "worst escaped categories (wrong answers it accepted):",
            "  math.*(high): accepted * of * (100.0%)",
            "    candidate: *boxed*",
            "    reference: *",
            "reproduce: verifier-audit run --verifier rewards.py:last_number_reward --suite tasks.jsonl --style pair",
        ]
    )
    out = result.stdout.str()
    assert "Traceback" not in out and "pytest_plugin.py" not in out  # no plugin internals in the message
    assert "\\boxed{1445 \\text{ or } 1444}" in out and "reference: 1444" in out  # the example, beside the reference


def test_terminal_summary_lists_every_audited_verifier_once(repo):
    repo.makepyfile(
        test_rewards=FIXTURE_TESTS
        + """
def test_hole_again(verifier_audit):
    assert verifier_audit.audit("rewards.py:last_number_reward").coverage_debt > 0.1
"""
    )
    result = repo.runpytest("-q")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*= verifier-audit =*",
            "*rewards.py:accuracy_reward on tasks.jsonl (* candidates): coverage debt 0.000 *gate passed",
            "*rewards.py:last_number_reward on tasks.jsonl (* candidates): coverage debt 0.* gate FAILED",
        ]
    )
    # The session caches audits: the second test on the same verifier did not audit again.
    assert result.stdout.str().count("last_number_reward on tasks.jsonl") == 1


def test_marker_audits_the_declared_verifier(repo):
    repo.makepyfile(
        test_marked="""
import pytest

@pytest.mark.verifier_audit("rewards.py:accuracy_reward", max_debt=0.01)
def test_sound(verifier_audit):
    assert verifier_audit.report.coverage_debt <= 0.01

@pytest.mark.verifier_audit(verifier="rewards.py:last_number_reward")
def test_hole():
    raise AssertionError("not reached: the audit fails first")

@pytest.mark.verifier_audit(suite="math")
def test_no_verifier():
    pass
"""
    )
    result = repo.runpytest()
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert "last_number_reward failed its verifier-audit gate" in out and "not reached" not in out
    assert "@pytest.mark.verifier_audit needs the verifier" in out


def test_x_and_k_select_and_stop_as_usual(repo):
    repo.makepyfile(
        test_rewards=FIXTURE_TESTS
        + """
def test_hole_twice(verifier_audit):
    verifier_audit.assert_coverage("rewards.py:last_number_reward")
"""
    )
    result = repo.runpytest("-x")
    result.assert_outcomes(passed=1, failed=1)  # stopped after the first failure
    result = repo.runpytest("-k", "sound", "-q")
    result.assert_outcomes(passed=1, deselected=2)
    assert "last_number_reward" not in result.stdout.str()


def test_report_dir_and_quick_limit(repo, tmp_path):
    repo.makepyfile(
        test_rewards="""
def test_count(verifier_audit):
    print("N", verifier_audit.audit("rewards.py:accuracy_reward").n_candidates)
"""
    )
    full = repo.runpytest("-s")
    quick = repo.runpytest("-s", "--verifier-audit-limit", "2", "--verifier-audit-report", str(tmp_path / "reports"))
    assert 0 < _n(quick) < _n(full)
    written = sorted(p.name for p in (tmp_path / "reports").iterdir() if p.name != ".verifier-audit-keys")  # signatures
    assert len(written) == 2 and written[0].endswith(".json") and written[1].endswith(".md")
    report = json.loads((tmp_path / "reports" / written[0]).read_text())
    assert report["n_candidates"] == _n(quick) and report["settings"]["limit"] == 2


def _n(result) -> int:
    return int(re.search(r"\bN (\d+)", result.stdout.str()).group(1))


def test_a_waiver_in_the_config_applies_to_the_plugin_too(repo):
    repo.makepyfile(
        test_rewards="""
def test_waived(verifier_audit):
    report = verifier_audit.audit("rewards.py:last_number_reward")
    assert "math.trap.last_number" in report.settings["waived_categories"]
    assert not any("math.trap.last_number" in r for r in report.gate.reasons)
"""
    )
    repo.makepyprojecttoml(
        CONFIG
        + """
[[tool.verifier_audit.waivers]]
category = "math.trap.last_number"
reason = "tracked in issue 12"
expires = 2999-12-31
"""
    )
    repo.runpytest().assert_outcomes(passed=1)


def test_bad_config_is_a_clear_usage_error(repo):
    repo.makepyprojecttoml(CONFIG.replace("workers = 2", "workrs = 2"))
    repo.makepyfile(test_rewards=FIXTURE_TESTS)
    result = repo.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [("*unknown key tool.verifier_audit.workrs (did you mean workers?); allowed keys here: suite*")] * 2
    )
    assert "Traceback" not in result.stdout.str()


def test_the_reproduce_line_reproduces_the_audit_and_its_gate(repo, tmp_path):
    """Issue 31 item 5: a suite whose fields are named otherwise, mapped in the test's own
    call (and a gate given there): the printed ``reproduce:`` line, run as it is with the
    real command from the same directory, audits the same candidates and fails the same
    gate for the same reasons (before, it left out --field and exited 2)."""
    rows = [json.loads(line) for line in (repo.path / "tasks.jsonl").read_text().splitlines()]
    for row in rows:
        row["question"], row["final"] = row.pop("prompt"), row.pop("reference")
    (repo.path / "tasks.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    repo.makepyfile(
        test_rewards="""
def test_hole(verifier_audit):
    verifier_audit.assert_coverage("rewards.py:last_number_reward", max_debt=0.2, probe_sample=0,
                                   fields=["prompt=question", "reference=final"])
"""
    )
    reports = tmp_path / "reports"
    result = repo.runpytest("--verifier-audit-limit", "2", "--verifier-audit-report", str(reports))
    result.assert_outcomes(failed=1)
    line = next(x for x in result.stdout.lines if x.startswith("reproduce: "))
    assert "--field prompt=question --field reference=final" in line and "--max-debt 0.2" in line
    plugin = json.loads(next(reports.glob("*.json")).read_text())
    words = shlex.split(line.removeprefix("reproduce: "))
    assert words[:2] == ["verifier-audit", "run"]
    out = tmp_path / "cli.json"
    run = subprocess.run(
        [sys.executable, "-m", "verifier_audit", *words[1:], "--no-progress", "--json", str(out)],
        cwd=repo.path,
        env={**os.environ, "PYTHONPATH": str(EXAMPLE.parent.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1, run.stderr[-3000:]  # the gate failed, as in the test; not a usage error
    cli = json.loads(out.read_text())
    assert cli["n_candidates"] == plugin["n_candidates"] and cli["settings"]["limit"] == 2
    assert cli["gate"] == plugin["gate"] and not cli["gate"]["passed"]


def test_a_misspelt_option_fails_the_test_with_the_option_meant(repo):
    """Before, ``max_dept=0.1`` was ignored without a word and the default gate applied."""
    repo.makepyfile(
        test_rewards="""
def test_typo(verifier_audit):
    verifier_audit.assert_coverage("rewards.py:accuracy_reward", max_dept=0.1)
"""
    )
    result = repo.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*verifier-audit: verifier_audit: unknown option max_dept (did you mean max_debt?)*"])
    assert "Traceback" not in result.stdout.str()


def test_under_xdist_the_controller_prints_the_workers_audits(repo):
    pytest.importorskip("xdist")
    repo.makepyfile(test_rewards=FIXTURE_TESTS)
    result = repo.runpytest_subprocess("-n", "2", "-p", "xdist")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*= verifier-audit =*",
            "*accuracy_reward on tasks.jsonl*gate passed",
        ]
    )
    assert "last_number_reward on tasks.jsonl" in result.stdout.str()
