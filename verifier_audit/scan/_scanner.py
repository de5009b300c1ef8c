"""Parse the files of a target (never import them) and run every rule on every function."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..models import SourceFinding
from ._facts import FunctionInfo, ModuleInfo
from ._imports import Reach, parse_module, read_source, select, walk
from ._rule import Hit, Rule
from ._rules import RULES
from ._targets import ScanError, resolve_target

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
    walked = walk(resolve_target(path_or_module), Reach() if follow_imports else None)
    findings: dict[tuple[str, int, str], SourceFinding] = {}
    for code in walked.code:
        found = _check(code.module, code.functions)
        _add(findings, [f.model_copy(update={"via": code.via}) for f in found] if code.via else found)
    files = [code.module.display for code in walked.code if code.first]
    return Scan(list(findings.values()), files, walked.unfollowed)


def _add(found: dict[tuple[str, int, str], SourceFinding], new: list[SourceFinding]) -> None:
    for f in new:
        found.setdefault((f.file, f.line, f.rule), f)


def scan_file(path: Path | str, function: str | None = None, display: str | None = None) -> list[SourceFinding]:
    path = Path(path)
    display = display or str(path)
    return scan_text(read_source(path, display), display, function=function, path=path)


def scan_text(
    text: str, filename: str = "<source>", function: str | None = None, path: Path | None = None
) -> list[SourceFinding]:
    """Findings in Python source ``text``, named ``filename`` in messages."""
    module = parse_module(text, filename, path)
    return _check(module, select(module, function))


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
