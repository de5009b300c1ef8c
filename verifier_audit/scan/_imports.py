"""Which imported code a scanned function reaches: the scan follows imports (issue 33).

A wrapper ``reward.py`` that does ``from graders.mathy import grade`` and calls it holds no
finding of its own: the grader is where ``parse_expr(completion)`` is. So the scan reads,
besides the target, what the scanned functions *reference* through an import -- a name
(``grade``, ``prime_math.compute_score``) that resolves to a function or class of a Python
file -- and, in that file, that function and the helpers it calls, then follows theirs,
bounded (``MAX_DEPTH`` hops, ``MAX_FILES`` files). Found without importing anything
(``_targets.module_location``), first in the target's folder (as Python puts a script's
folder first on ``sys.path``), then the working directory and ``sys.path``; relative
imports (``from .grader import math_equal``) from the importing file's package.

Not followed: the standard library, the libraries the rules know by their calls
(``_LIBRARIES``: sympy's ``parse_expr`` is a sink to flag where a grader calls it, not a
grader to read; sqlglot and duckdb are the engines a SQL grader runs, not its logic), this package itself (the audit's oracle is not the code under review),
and a module the code imports but never references.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ._facts import FunctionInfo, ModuleInfo
from ._targets import module_location

MAX_DEPTH = 3  # import hops from the target: wrapper -> grader -> its helpers' module
MAX_FILES = 12  # files read beyond the target's own
_LIBRARIES = frozenset(
    {
        "sympy",
        "mpmath",
        "numpy",
        "scipy",
        "torch",
        "pandas",
        "regex",
        "antlr4",
        "pylatexenc",
        "latex2sympy2",
        "latex2sympy2_extended",
        "transformers",
        "datasets",
        "pydantic",
        "sqlglot",
        "sqlparse",
        "duckdb",
        "verifier_audit",
    }
)
_OURS = Path(__file__).resolve().parents[1]  # verifier_audit/


@dataclass
class Reference:
    """A function (or class) of another file that scanned code references."""

    path: Path
    qualname: str  # "grade", "Grader" (its methods), "compute_score"
    name: str  # as the code wrote it, resolved: "graders.mathy.grade", ".grader.math_equal"
    line: int  # where it is referenced
    top: str  # the referencing function's top-level function ("" at module level)
    calls: list[tuple[ast.Call, FunctionInfo]] = field(default_factory=list)  # its calls, for the taint


def references(module: ModuleInfo, functions: list[FunctionInfo], search: list[str]) -> list[Reference]:
    """What ``functions`` of ``module`` reference through imports, resolved to files, in
    the order first referenced; ``search``: the folders to look in before ``sys.path``."""
    found: dict[tuple[Path, str], Reference] = {}
    for fn in functions:
        # Its decorators too: Math-Verify's @timeout (math_verify/utils.py) arms SIGALRM.
        decorators = getattr(fn.node, "decorator_list", [])
        for node in [*fn.nodes, *(n for d in decorators for n in ast.walk(d))]:
            if not isinstance(node, (ast.Name, ast.Attribute)) or isinstance(getattr(node, "ctx", None), ast.Store):
                continue
            resolved = _resolve(node, module, search)
            if resolved is None:
                continue
            path, qualname, name = resolved
            ref = found.setdefault(
                (path, qualname), Reference(path, qualname, name, getattr(node, "lineno", 0), fn.top)
            )
            for call in fn.nodes:
                if isinstance(call, ast.Call) and call.func is node:
                    ref.calls.append((call, fn))
    return list(found.values())


def reexported(module: ModuleInfo, ref: Reference, search: list[str]) -> Reference | None:
    """Where ``ref`` really is when ``module`` only imports it (a package's ``__init__.py``:
    ``from math_verify import verify`` is math_verify/grader.py's ``verify``); else None."""
    if "." in ref.qualname:
        return None
    resolved = _resolve(ast.Name(id=ref.qualname, ctx=ast.Load()), module, search)
    if resolved is None:
        return None
    path, qualname, name = resolved
    return Reference(path, qualname, name, ref.line, ref.top, ref.calls)


def _dotted(expr: ast.AST, module: ModuleInfo) -> tuple[int, str] | None:
    """(relative level, dotted name) an imported name or attribute chain stands for."""
    if isinstance(expr, ast.Name):
        if expr.id in module.imports.names:
            return 0, module.imports.names[expr.id]
        return module.imports.relative.get(expr.id)
    if isinstance(expr, ast.Attribute):
        base = _dotted(expr.value, module)
        return None if base is None else (base[0], f"{base[1]}.{expr.attr}")
    return None


def _resolve(expr: ast.AST, module: ModuleInfo, search: list[str]) -> tuple[Path, str, str] | None:
    """(file, qualname in it, the name as resolved) for a reference to a function or class
    defined in a Python file the scan may read; None for anything else."""
    dotted = _dotted(expr, module)
    if dotted is None:
        return None
    level, name = dotted
    parts = name.split(".")
    if not level and (parts[0] in sys.stdlib_module_names or parts[0] in _LIBRARIES):
        return None
    if not level and module_location(name, search)[0] is not None:
        return None  # a module itself: what the code uses of it is an attribute, resolved there
    for i in range(len(parts) - 1, 0, -1):
        path = _relative_file(module.path, level, parts[:i]) if level else _absolute_file(parts[:i], search)
        if path is None:
            continue
        if _OURS in path.resolve().parents:
            return None
        return path, ".".join(parts[i:]), "." * level + name
    return None


def _absolute_file(parts: list[str], search: list[str]) -> Path | None:
    origin, _ = module_location(".".join(parts), search)
    return Path(origin) if origin is not None and origin.endswith(".py") else None


def _relative_file(importer: Path, level: int, parts: list[str]) -> Path | None:
    base = importer.parent
    for _ in range(level - 1):
        base = base.parent
    for candidate in (base.joinpath(*parts[:-1], parts[-1] + ".py"), base.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None
