import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    # One candidate cache for the whole test session, never the user's own.
    monkeypatch.setenv("VERIFIER_AUDIT_CACHE", str(tmp_path_factory.getbasetemp() / "va-cache"))


@pytest.fixture
def cli(tmp_path):
    """Run the real command in a subprocess (so kill -9 and exit codes are real)."""
    import subprocess

    def run(*args, timeout=600, **kw):
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return subprocess.run([sys.executable, "-m", "verifier_audit", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=timeout, **kw)

    return run
