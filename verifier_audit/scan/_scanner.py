"""Parse the files of a target (never import them) and run every rule on every function."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from ..models import SourceFinding
from ._facts import FunctionInfo, ModuleInfo, build_module
from ._rule import Hit, Rule
from ._rules import RULES
from ._targets import ScanError, resolve_target

_CODE_WIDTH = 160


def scan_source(path_or_module: str) -> list[SourceFinding]:
    """Findings in a .py file, a directory, or an importable module (by name, not
    imported), each optionally narrowed to one function: ``FILE.py:fn``, ``pkg.mod:fn``.
    Raises ScanError (an InputError) naming the target when it cannot be read or parsed."""
    target = resolve_target(path_or_module)
    findings: list[SourceFinding] = []
    for source in target.files:
        findings += scan_file(source.path, function=target.function, display=source.display)
    return findings


def scan_file(path: Path | str, function: str | None = None, display: str | None = None) -> list[SourceFinding]:
    path = Path(path)
    display = display or str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ScanError(f"{display}: cannot read: {exc.strerror}") from None
    try:
        text = importlib.util.decode_source(data)  # honours a coding: line, like the interpreter
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        raise ScanError(f"{display}: cannot decode: {exc}; save it as UTF-8 (or fix its coding: line)") from None
    return scan_text(text, display, function=function, path=path)


def scan_text(
    text: str, filename: str = "<source>", function: str | None = None, path: Path | None = None
) -> list[SourceFinding]:
    """Findings in Python source ``text``, named ``filename`` in messages."""
    module = _parse(text, filename, path)
    findings: dict[tuple[int, str], SourceFinding] = {}
    for fn in _selected(module, function):
        for rule in RULES:
            try:
                hits = list(rule.check(fn, module))
            except RecursionError:  # an expression nested deeper than the rules walk
                raise ScanError(f"{filename}: {fn.display} is too deeply nested to analyse") from None
            for hit in hits:
                finding = _finding(rule, hit, fn, module)
                # One finding per rule and line: exec(compile(x)) is one hole, not two.
                key = (finding.line, finding.rule)
                if key not in findings or finding.col < findings[key].col:
                    findings[key] = finding
    return sorted(findings.values(), key=lambda f: (f.line, f.col, f.rule))


def _parse(text: str, filename: str, path: Path | None) -> ModuleInfo:
    try:
        tree = ast.parse(text, filename=filename)
        return build_module(path or Path(filename), filename, text, tree)
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


def _selected(module: ModuleInfo, function: str | None) -> list[FunctionInfo]:
    """Every function, or ``function``, what is nested in it and the module's functions it
    calls by name (``helper(...)``, ``self.helper(...)``), one level deep."""
    if function is None:
        return module.functions
    entry = module.function(function)
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
