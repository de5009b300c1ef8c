"""The lint and type configuration in pyproject.toml holds on the package: the same commands
.ci/run runs, so a finding shows up in a local test run before CI (docs/architecture.md,
"Lint and types")."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _tool(name: str) -> list[str]:
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed (the test extra installs it)")
    return [sys.executable, "-m", name]


def test_ruff_selects_the_bug_rules_and_ignores_none_of_them():
    lint = CONFIG["tool"]["ruff"]["lint"]
    assert {"E", "F", "W", "I", "B", "UP"} <= set(lint["select"])
    # Ignored: style choices only, never a rule family that finds bugs (pyflakes, bugbear's
    # late-bound closures and unused loop names).
    assert not [r for r in lint["ignore"] if r.startswith("F") or r in ("B007", "B023")]


FOLDERS = ["verifier_audit", "tests", "scripts", "benchmarks", "examples"]  # as .ci/run


def test_ruff_finds_nothing_in_the_tree():
    done = subprocess.run([*_tool("ruff"), "check", *FOLDERS], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_tree_is_formatted():
    done = subprocess.run([*_tool("ruff"), "format", "--check", *FOLDERS], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr + "\nfix: ruff format " + " ".join(FOLDERS)


def test_mypy_passes_on_the_contract_the_walls_and_the_engine():
    files = CONFIG["tool"]["mypy"]["files"]
    checked = {"verifier_audit/models.py", "verifier_audit/domains/base.py", "verifier_audit/isolation"}
    assert checked | {"verifier_audit/engine", "verifier_audit/settings.py"} <= set(files)
    done = subprocess.run(_tool("mypy"), cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
