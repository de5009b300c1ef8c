"""Which imported code a scanned function reaches: the one import follower (issue 33), read
by the scan (``_scanner.scan_target``: findings) and by the exploit search's literal
reader (``_literals.compared_literals``: what a verifier compares completions against).

A wrapper ``reward.py`` that does ``from graders.mathy import grade`` and calls it holds no
finding of its own: the grader is where ``parse_expr(completion)`` is. So the walk
(``walk``) reads, besides the target, what the read functions *reference* through an
import -- a name (``grade``, ``prime_math.compute_score``) that resolves to a function or
class of a Python file -- and, in that file, that function and the helpers it calls, then
follows theirs, bounded (``Reach``: import hops and files; each reader has its own).
Found without importing anything (``_targets.module_location``), first in the target's
folder (as Python puts a script's folder first on ``sys.path``), then the working
directory and ``sys.path``; relative imports (``from .grader import math_equal``) from the
importing file's package.

Not followed: the standard library, the libraries the rules know by their calls
(``_LIBRARIES``: sympy's ``parse_expr`` is a sink to flag where a grader calls it, not a
grader to read; sqlglot and duckdb are the engines a SQL grader runs, not its logic), this package itself (the audit's oracle is not the code under review),
a module the code imports but never references, and, where the reader asks for the user's
own code only (``Reach.installed`` off), installed packages (site-packages).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from ._facts import FunctionInfo, ModuleInfo, build_module, passed_to
from ._targets import ScanError, Target, module_location, shown

MAX_DEPTH = 3  # the scan's import hops from the target: wrapper -> grader -> its helpers' module
MAX_FILES = 12  # the scan's files read beyond the target's own
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
_INSTALLED = ("site-packages", "dist-packages")


@dataclass(frozen=True)
class Reach:
    """How far a walk follows imports; each reader passes its own (the scan's are the
    defaults: it reads installed graders too, 3 hops, 12 files)."""

    depth: int = MAX_DEPTH  # import hops from the target
    files: int = MAX_FILES  # files read beyond the target's own
    installed: bool = True  # into installed packages too, or the user's own modules only


@dataclass
class Code:
    """What the walk read in one file: a target file's selected functions, or the function
    (class) a reference led to with what it calls."""

    module: ModuleInfo
    functions: list[FunctionInfo]
    via: str  # "" in the target; else the target (and function) whose imports led here
    first: bool  # the first code read from a followed file (a target's own: always)


@dataclass
class Walk:
    code: list[Code]  # the target's files first, then what their imports led to, breadth first
    unfollowed: list[str]  # references left for the bounds, "name (why)"


def walk(target: Target, reach: Reach | None) -> Walk:
    """The code of ``target`` and, unless ``reach`` is None, what its functions reference
    through imports, within ``reach``. Raises ScanError when a file read cannot be parsed."""
    code: list[Code] = []
    read: set[tuple[Path, str | None]] = set()
    queue: list[tuple[ModuleInfo, list[FunctionInfo], str, int]] = []  # (module, read, via, depth)
    for source in target.files:
        module = parse_module(read_source(source.path, source.display), source.display, source.path)
        selected = select(module, target.function)
        code.append(Code(module, selected, "", True))
        read.add((source.path.resolve(), target.function))
        queue.append((module, selected, "", 0))
    search = sorted({str(s.path.resolve().parent) for s in target.files})
    unfollowed: list[str] = []
    followed: set[Path] = set()
    while reach is not None and queue:
        module, selected, via, depth = queue.pop(0)
        refs = references(module, selected, search, reach.installed)
        while refs:
            ref = refs.pop(0)
            key = (ref.path.resolve(), ref.qualname)
            if key in read or key[0] in {r[0] for r in read if r[1] is None}:
                continue
            if depth >= reach.depth or (key[0] not in followed and len(followed) >= reach.files):
                unfollowed.append(f"{ref.name} ({'depth' if depth >= reach.depth else 'file'} limit)")
                continue
            read.add(key)
            display = shown(ref.path)
            imported = parse_module(read_source(ref.path, display), display, ref.path, ref)
            chosen = select(imported, ref.qualname, missing_ok=True)
            if not chosen:
                # Not a function or class of that file: a re-export (a package's __init__.py)
                # is followed to its home at the same hop; anything else (a constant) is no code.
                moved = reexported(imported, ref, search, reach.installed)
                if moved is not None:
                    refs.insert(0, moved)
                continue
            origin = via or (f"{module.display}:{ref.top}" if ref.top else module.display)
            code.append(Code(imported, chosen, origin, key[0] not in followed))
            followed.add(key[0])
            queue.append((imported, chosen, origin, depth + 1))
    return Walk(code, unfollowed)


def read_source(path: Path, display: str) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ScanError(f"{display}: cannot read: {exc.strerror}") from None
    try:
        return importlib.util.decode_source(data)  # honours a coding: line, like the interpreter
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        raise ScanError(f"{display}: cannot decode: {exc}; save it as UTF-8 (or fix its coding: line)") from None


def parse_module(text: str, filename: str, path: Path | None, caller: Reference | None = None) -> ModuleInfo:
    """The module's facts; ``caller``: the reference that led here, whose calls seed the
    taint of the function they call (``grade(completion)``: its first parameter is model
    output, whatever its name)."""
    try:
        tree = ast.parse(text, filename=filename)
        return build_module(path or Path(filename), filename, text, tree, _seeds(tree, caller))
    except SyntaxError as exc:
        where = filename + "".join(f":{n}" for n in (exc.lineno, exc.offset) if n) if exc.lineno else filename
        raise ScanError(
            f"{where}: cannot parse: {exc.msg} (scan reads Python 3.10+ source; fix the file, or scan "
            "the files around it)"
        ) from None
    except ValueError as exc:  # "source code string cannot contain null bytes" (3.11)
        raise ScanError(f"{filename}: cannot parse: {exc}") from None
    except (RecursionError, MemoryError):
        raise ScanError(f"{filename}: too deeply nested to analyse") from None


def _seeds(tree: ast.Module, caller: Reference | None) -> dict[str, dict[str, set[str]]]:
    if caller is None or "." in caller.qualname:
        return {}
    callee = next(
        (s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == caller.qualname),
        None,
    )
    if callee is None:
        return {}
    out: dict[str, set[str]] = {}
    for call, fn in caller.calls:
        for param, labels in passed_to(callee, call, fn).items():
            out.setdefault(param, set()).update(labels)
    return {callee.name: out} if out else {}


def select(module: ModuleInfo, function: str | None, missing_ok: bool = False) -> list[FunctionInfo]:
    """Every function, or ``function``, what is nested in it and the module's functions it
    calls by name (``helper(...)``, ``self.helper(...)``), one level deep. A class name
    stands for its methods (the scan following an import of a grader class)."""
    if function is None:
        return module.functions
    entry = module.function(function)
    if entry is None and any(f.qualname.startswith(function + ".") for f in module.functions):
        methods = [f for f in module.functions if f.qualname.startswith(function + ".")]
        return [
            f for m in methods if m.qualname.count(".") == function.count(".") + 1 for f in select(module, m.qualname)
        ]
    if entry is None and missing_ok:
        return []
    if entry is None:
        names = [
            *module.top_level,
            *(
                f"{c.name}.{m.name}"
                for c in module.tree.body
                if isinstance(c, ast.ClassDef)
                for m in c.body
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
            ),
        ]
        shown = ", ".join(names[:15]) + (f" and {len(names) - 15} more" if len(names) > 15 else "")
        raise ScanError(f"{module.display}: no function {function!r} (functions there: {shown or 'none'})")
    inside = [f for f in module.functions if f is entry or f.qualname.startswith(entry.qualname + ".")]
    called: set[str] = set()
    owner = entry.qualname.rpartition(".")[0]  # the class of a method
    for fn in inside:
        for node in fn.nodes:
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name) and node.func.id in module.top_level:
                called.add(node.func.id)
            elif (
                owner
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in ("self", "cls")
            ):
                called.add(f"{owner}.{node.func.attr}")
    helpers = [
        f
        for f in module.functions
        if f not in inside
        and f.qualname
        and any(f.qualname == name or f.qualname.startswith(name + ".") for name in called)
    ]
    return inside + helpers


@dataclass
class Reference:
    """A function (or class) of another file that scanned code references."""

    path: Path
    qualname: str  # "grade", "Grader" (its methods), "compute_score"
    name: str  # as the code wrote it, resolved: "graders.mathy.grade", ".grader.math_equal"
    line: int  # where it is referenced
    top: str  # the referencing function's top-level function ("" at module level)
    calls: list[tuple[ast.Call, FunctionInfo]] = field(default_factory=list)  # its calls, for the taint


def references(
    module: ModuleInfo, functions: list[FunctionInfo], search: list[str], installed: bool = True
) -> list[Reference]:
    """What ``functions`` of ``module`` reference through imports, resolved to files, in
    the order first referenced; ``search``: the folders to look in before ``sys.path``;
    ``installed``: files of installed packages too."""
    found: dict[tuple[Path, str], Reference] = {}
    for fn in functions:
        # Its decorators too: Math-Verify's @timeout (math_verify/utils.py) arms SIGALRM.
        decorators = getattr(fn.node, "decorator_list", [])
        for node in [*fn.nodes, *(n for d in decorators for n in ast.walk(d))]:
            if not isinstance(node, (ast.Name, ast.Attribute)) or isinstance(getattr(node, "ctx", None), ast.Store):
                continue
            resolved = _resolve(node, module, search, installed)
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


def reexported(module: ModuleInfo, ref: Reference, search: list[str], installed: bool = True) -> Reference | None:
    """Where ``ref`` really is when ``module`` only imports it (a package's ``__init__.py``:
    ``from math_verify import verify`` is math_verify/grader.py's ``verify``); else None."""
    if "." in ref.qualname:
        return None
    resolved = _resolve(ast.Name(id=ref.qualname, ctx=ast.Load()), module, search, installed)
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


def _resolve(expr: ast.AST, module: ModuleInfo, search: list[str], installed: bool) -> tuple[Path, str, str] | None:
    """(file, qualname in it, the name as resolved) for a reference to a function or class
    defined in a Python file the walk may read; None for anything else."""
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
        if _OURS in path.resolve().parents or (not installed and _is_installed(path)):
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


def _is_installed(path: Path) -> bool:
    """Whether ``path`` is in an installed package or the standard library, not the user's own."""
    path = path.resolve()
    if any(part in _INSTALLED for part in path.parts):
        return True
    libraries = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return any(path.is_relative_to(Path(lib).resolve()) for lib in libraries)
