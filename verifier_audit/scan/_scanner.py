"""Parse the files of a target (never import them) and run every rule on every function."""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

from ..models import SourceFinding
from ._facts import FunctionInfo, ModuleInfo, build_module, passed_to
from ._imports import MAX_DEPTH, MAX_FILES, Reference, reexported, references
from ._rule import Hit, Rule
from ._rules import RULES
from ._targets import ScanError, resolve_target, shown

_CODE_WIDTH = 160


@dataclass
class Scan:
    """What a scan found and what it read: the target's files first, then those its
    imports led to (``_imports.py``), each as findings name it."""

    findings: list[SourceFinding]
    files: list[str]
    unfollowed: list[str] = field(default_factory=list)  # imports left for the bounds, "name (why)"


def scan_source(path_or_module: str, follow_imports: bool = True) -> list[SourceFinding]:
    """Findings in a .py file, a directory, or an importable module (by name, not
    imported), each optionally narrowed to one function: ``FILE.py:fn``, ``pkg.mod:fn``;
    with ``follow_imports``, also in the code of other files the scanned functions
    reference (``scan_target`` says which files were read). Raises ScanError (an
    InputError) naming the target when it cannot be read or parsed."""
    return scan_target(path_or_module, follow_imports).findings


def scan_target(path_or_module: str, follow_imports: bool = True) -> Scan:
    """``scan_source``, with the files read."""
    target = resolve_target(path_or_module)
    findings: dict[tuple[str, int, str], SourceFinding] = {}
    files: list[str] = []
    read: set[tuple[Path, str | None]] = set()
    queue: list[tuple[ModuleInfo, list[FunctionInfo], str, int]] = []  # (module, scanned, via, depth)
    for source in target.files:
        module = _parse(_read(source.path, source.display), source.display, source.path)
        selected = _selected(module, target.function)
        _add(findings, _check(module, selected))
        files.append(source.display)
        read.add((source.path.resolve(), target.function))
        queue.append((module, selected, "", 0))
    search = sorted({str(s.path.resolve().parent) for s in target.files})
    unfollowed: list[str] = []
    followed: set[Path] = set()
    while follow_imports and queue:
        module, selected, via, depth = queue.pop(0)
        refs = references(module, selected, search)
        while refs:
            ref = refs.pop(0)
            key = (ref.path.resolve(), ref.qualname)
            if key in read or key[0] in {r[0] for r in read if r[1] is None}:
                continue
            if depth >= MAX_DEPTH or (key[0] not in followed and len(followed) >= MAX_FILES):
                unfollowed.append(f"{ref.name} ({'depth' if depth >= MAX_DEPTH else 'file'} limit)")
                continue
            read.add(key)
            display = shown(ref.path)
            imported = _parse(_read(ref.path, display), display, ref.path, ref)
            chosen = _selected(imported, ref.qualname, missing_ok=True)
            if not chosen:
                # Not a function or class of that file: a re-export (a package's __init__.py)
                # is followed to its home at the same hop; anything else (a constant) is no code.
                moved = reexported(imported, ref, search)
                if moved is not None:
                    refs.insert(0, moved)
                continue
            origin = via or (f"{module.display}:{ref.top}" if ref.top else module.display)
            _add(findings, [f.model_copy(update={"via": origin}) for f in _check(imported, chosen)])
            if key[0] not in followed:
                followed.add(key[0])
                files.append(display)
            queue.append((imported, chosen, origin, depth + 1))
    return Scan(list(findings.values()), files, unfollowed)


def _add(found: dict[tuple[str, int, str], SourceFinding], new: list[SourceFinding]) -> None:
    for f in new:
        found.setdefault((f.file, f.line, f.rule), f)


def _read(path: Path, display: str) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ScanError(f"{display}: cannot read: {exc.strerror}") from None
    try:
        return importlib.util.decode_source(data)  # honours a coding: line, like the interpreter
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        raise ScanError(f"{display}: cannot decode: {exc}; save it as UTF-8 (or fix its coding: line)") from None


def scan_file(path: Path | str, function: str | None = None, display: str | None = None) -> list[SourceFinding]:
    path = Path(path)
    display = display or str(path)
    return scan_text(_read(path, display), display, function=function, path=path)


def scan_text(
    text: str, filename: str = "<source>", function: str | None = None, path: Path | None = None
) -> list[SourceFinding]:
    """Findings in Python source ``text``, named ``filename`` in messages."""
    module = _parse(text, filename, path)
    return _check(module, _selected(module, function))


def _check(module: ModuleInfo, selected: list[FunctionInfo]) -> list[SourceFinding]:
    """Every rule on every selected function: one finding per rule and line."""
    findings: dict[tuple[int, str], SourceFinding] = {}
    for fn in selected:
        for rule in RULES:
            try:
                hits = list(rule.check(fn, module))
            except RecursionError:  # an expression nested deeper than the rules walk
                raise ScanError(f"{module.display}: {fn.display} is too deeply nested to analyse") from None
            for hit in hits:
                finding = _finding(rule, hit, fn, module)
                # One finding per rule and line: exec(compile(x)) is one hole, not two.
                key = (finding.line, finding.rule)
                if key not in findings or finding.col < findings[key].col:
                    findings[key] = finding
    return sorted(findings.values(), key=lambda f: (f.line, f.col, f.rule))


def _parse(text: str, filename: str, path: Path | None, caller: Reference | None = None) -> ModuleInfo:
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


def _selected(module: ModuleInfo, function: str | None, missing_ok: bool = False) -> list[FunctionInfo]:
    """Every function, or ``function``, what is nested in it and the module's functions it
    calls by name (``helper(...)``, ``self.helper(...)``), one level deep. A class name
    stands for its methods (the scan following an import of a grader class)."""
    if function is None:
        return module.functions
    entry = module.function(function)
    if entry is None and any(f.qualname.startswith(function + ".") for f in module.functions):
        methods = [f for f in module.functions if f.qualname.startswith(function + ".")]
        return [
            f
            for m in methods
            if m.qualname.count(".") == function.count(".") + 1
            for f in _selected(module, m.qualname)
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


def _finding(rule: Rule, hit: Hit, fn: FunctionInfo, module: ModuleInfo) -> SourceFinding:
    line = getattr(hit.node, "lineno", 1) or 1
    code = module.lines[line - 1].strip() if 0 < line <= len(module.lines) else ""
    if len(code) > _CODE_WIDTH:
        code = code[: _CODE_WIDTH - 3] + "..."
    return SourceFinding(
        rule=rule.id,
        title=rule.title,
        severity=hit.severity or rule.severity,
        file=module.display,
        line=line,
        col=getattr(hit.node, "col_offset", 0) + 1,
        code=code,
        message=hit.message,
        categories=list(rule.categories),
        function=fn.qualname,
        scope=module.scope_of(fn),
        confidence=hit.confidence,
    )
