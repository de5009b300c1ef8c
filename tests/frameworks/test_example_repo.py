"""examples/verifier-repo, as a user runs it: `pytest` finds the hole in one reward
function and passes the other; a bare `verifier-audit run` gates from its config."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "verifier-repo"

pytestmark = pytest.mark.slow


@pytest.fixture
def example(tmp_path):
    copy = tmp_path / "verifier-repo"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("audit-report", ".pytest_cache", "__pycache__"))
    return copy


def _run(args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_pytest_in_the_example_finds_the_hole_and_passes_the_sound_reward(example):
    r = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider"], example)
    assert r.returncode == 1, r.stdout + r.stderr
    out = r.stdout
    assert "1 failed, 5 passed" in out
    assert "FAILED tests/test_rewards.py::test_last_number_reward_passes_the_audit" in out
    assert "rewards.py:last_number_reward failed its verifier-audit gate" in out
    assert "- category math.hedge.or: false acceptance 1.00" in out  # the category, named
    assert "candidate: The final answer is $\\boxed{" in out and "reference: " in out  # and an example
    assert "reproduce: verifier-audit run --verifier rewards.py:last_number_reward" in out
    assert "rewards.py:accuracy_reward on data/gsm_style.jsonl" in out and "gate passed" in out


def test_bare_run_in_the_example_gates_from_its_config(example):
    r = _run(["-m", "verifier_audit", "run", "--no-progress"], example)
    assert r.returncode == 1, r.stderr
    assert "config: " in r.stderr
    reports = json.loads((example / "audit-report" / "report.json").read_text())["reports"]
    by_name = {rep["verifier"].rpartition(":")[2]: rep for rep in reports}
    assert by_name["accuracy_reward"]["gate"]["passed"]
    assert not by_name["last_number_reward"]["gate"]["passed"]
    assert by_name["accuracy_reward"]["settings"]["waived_categories"] == ["math.hostile.giant_integer"]
    assert by_name["accuracy_reward"]["settings"]["max_category"] == 0.25  # from [tool.verifier_audit.gate]
    assert {p.name for p in (example / "audit-report").iterdir()} >= {
        "report.json",
        "report.md",
        "report.html",
        "report.sarif",
        "junit.xml",
    }
