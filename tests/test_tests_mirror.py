"""The tests mirror the package (docs/architecture.md, "Tests mirror the package"): a test
file sits in the folder of the part it tests, the root keeps only what spans the package,
names stay unique across folders (the folders are not packages: pytest imports each file by
its bare name, and tests/conftest.py orders files by name), and no test imports from
``conftest`` (pytest loads every folder's conftest.py under that one module name, so the
import would get whichever was loaded last: shared helpers live in modules such as
cli_support.py)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT_TESTS = {"test_layers.py", "test_no_clock.py", "test_front_end_imports.py", "test_tests_mirror.py", "test_lint.py"}
FOLDERS = {"domains", "engine", "report", "samples", "monitor", "frameworks", "cli", "security", "watch"}


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if "fixtures" not in p.relative_to(TESTS).parts)


def test_the_root_keeps_only_the_cross_cutting_tests():
    assert {p.name for p in TESTS.glob("test_*.py")} == ROOT_TESTS


def test_every_test_file_sits_in_a_folder_of_the_package():
    stray = [
        str(p.relative_to(TESTS))
        for p in _test_files()
        if p.parent != TESTS and p.relative_to(TESTS).parts[0] not in FOLDERS
    ]
    assert stray == []


def test_test_file_names_are_unique_across_folders():
    twice = [name for name, n in Counter(p.name for p in _test_files()).items() if n > 1]
    assert twice == []


def test_no_test_imports_from_conftest():
    found = []
    for path in _test_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            if "conftest" in names:
                found.append(f"{path.relative_to(TESTS)}:{node.lineno}")
    assert found == []
