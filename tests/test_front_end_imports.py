"""Building the parser of ``verifier-audit --help`` imports none of the heavy dependencies
(the subcommands import them when they run). Which way the imports go, and that no circle
exists, is tests/test_layers.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_parser_imports_no_heavy_dependency():
    code = (
        "import sys; from verifier_audit.cli import build_parser; build_parser(); "
        "print(sorted(m for m in ('numpy', 'sympy', 'duckdb', 'torch', 'matplotlib', 'transformers') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
