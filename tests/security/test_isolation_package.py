"""Issue 32, item 3: the walls live in one package, ``verifier_audit/isolation/``, that
imports nothing but the standard library, with one table of isolation levels.

Why standard library only: the code sandbox's zygote loads the walls in a fresh
``python -I`` without the rest of ``verifier_audit`` (so that no fork carries pydantic or
sympy), and a wall must not depend on what it walls in. Checked twice: from the source
(``ast``, every import of every module) and by importing every module in a subprocess where
pydantic, sympy, DuckDB, sqlglot and numpy cannot be imported.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import typing
from pathlib import Path

import verifier_audit.isolation as walls
from verifier_audit import argtypes
from verifier_audit.config import ProjectConfig
from verifier_audit.domains.code import sandbox
from verifier_audit.isolation import _lockdown

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "verifier_audit" / "isolation"
# The bottom modules of ours the walls may use, themselves standard library only: where
# caches live (the workers' working directories), the workers' environment, the canaries'
# forms (what the tripwires and the witness look for).
BOTTOM = {"cache_dir", "canary", "environment"}
BLOCKED = ("pydantic", "sympy", "duckdb", "sqlglot", "numpy")


def _imports(path: Path) -> list[tuple[int, str, int]]:
    """(line, module, level) of every import in a file, those inside functions included;
    ``from .. import canary`` is the module ``canary``, two levels up."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is None:
            found += [(node.lineno, alias.name, node.level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, node.module, node.level))
    return found


def _outside_the_stdlib(path: Path, inside_the_package: bool) -> list[str]:
    bad = []
    for line, module, level in _imports(path):
        top = module.split(".")[0]
        if level == 0:
            if top != "__future__" and top not in sys.stdlib_module_names:
                bad.append(f"{path.name}:{line}: import {module}")
        elif inside_the_package and level == 2 and top in BOTTOM:
            continue
        elif not (inside_the_package and level == 1):
            bad.append(f"{path.name}:{line}: relative import {'.' * level}{module}")
    return bad


def test_every_module_of_the_package_imports_only_the_standard_library():
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) >= 12, modules
    bad = [b for path in modules for b in _outside_the_stdlib(path, inside_the_package=True)]
    bad += [b for name in sorted(BOTTOM) for b in _outside_the_stdlib(ROOT / "verifier_audit" / f"{name}.py", False)]
    assert not bad, "the walls import beyond the standard library:\n" + "\n".join(bad)


_IMPORT_ALONE = """
import importlib, importlib.abc, json, sys, types
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
root = types.ModuleType("verifier_audit"); root.__path__ = [PACKAGE_ROOT]; sys.modules["verifier_audit"] = root
for name in MODULES:
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("verifier_audit",) + BLOCKED)))
"""


def test_every_module_imports_alone_with_the_heavy_libraries_blocked():
    """As the sandbox's zygote does: the package root an empty stand-in (its ``__init__``
    would load the models, pydantic), the heavy libraries refused."""
    modules = ["verifier_audit.isolation"] + [
        f"verifier_audit.isolation.{p.stem}" for p in sorted(PACKAGE.glob("_*.py"))
    ]
    code = (
        f"BLOCKED = {BLOCKED!r}\nPACKAGE_ROOT = {str(ROOT / 'verifier_audit')!r}\nMODULES = {modules!r}\n"
        + _IMPORT_ALONE
    )
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert loaded == {"verifier_audit", *modules, *(f"verifier_audit.{name}" for name in BOTTOM)}, loaded


def test_the_public_face_names_what_it_exports():
    assert sorted(walls.__all__) == sorted(set(walls.__all__))
    missing = [name for name in walls.__all__ if not hasattr(walls, name)]
    assert not missing, missing


def test_one_table_of_levels_weakest_first():
    """The worker's levels (``--isolation``, the config, the lockdown) and the sandbox
    runs' levels (the code sandbox) are both read from the one table."""
    names = [level.name for level in walls.LEVELS]
    assert names == ["none", "process", "rlimits", "namespaces"]
    assert len(set(names)) == len(names)
    assert walls.WORKER_LEVELS == ("none", "process", "namespaces")
    assert walls.SANDBOX_LEVELS == ("process", "rlimits", "namespaces")
    for level in walls.LEVELS:
        assert level.worker is not None or level.sandbox is not None, level
        assert all(text is None or text.strip() for text in (level.worker, level.sandbox)), level
    assert argtypes.ISOLATION_LEVELS == walls.WORKER_LEVELS == _lockdown.LEVELS
    assert sandbox.LEVELS == walls.SANDBOX_LEVELS
    config_levels = typing.get_args(typing.get_args(ProjectConfig.model_fields["isolation"].annotation)[0])
    assert config_levels == walls.WORKER_LEVELS
    assert {row["level"] for row in sandbox.levels()} == set(walls.SANDBOX_LEVELS)


def test_a_level_outside_the_workers_column_is_refused_with_the_levels_named():
    for name in walls.SANDBOX_LEVELS:
        if name not in walls.WORKER_LEVELS:
            try:
                walls.resolve_level(name)
            except ValueError as err:
                assert all(level in str(err) for level in walls.WORKER_LEVELS), err
            else:
                raise AssertionError(f"{name!r} accepted as a worker's level")
    assert walls.resolve_level(None) in walls.WORKER_LEVELS
    assert walls.resolve_level("process") == "process"
