"""The command run for real, for any test folder: ``from cli_support import ROOT, run_cli``.

It lives outside conftest.py because each test folder may hold a conftest.py of its own, and
pytest imports them all under the one module name ``conftest``: ``from conftest import`` would
get whichever folder's was loaded last (pyproject's ``pythonpath = ["tests"]`` makes this
module importable from every folder)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args, timeout=600, env=None, **kw):
    """Run the real command in a subprocess (so kill -9 and exit codes are real); ``env``:
    variables set on top of this process's (a module-scoped fixture, which runs outside
    the per-test cache of conftest.py, names its own VERIFIER_AUDIT_CACHE)."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "verifier_audit", *args],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )
