"""Findings as text, as a linter writes them: ``path:line:col: rule-id [severity] message``,
with ``--report`` a line under each saying whether the audit confirmed it, then one
summary line (the output of ``verifier-audit scan``, ``cli/scan.py``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..models import Severity, SourceFinding
from ..report.text import printable as _printable

_STATUS = {True: "confirmed", False: "not confirmed", None: "unknown"}


def to_text(findings: list[SourceFinding], targets: Sequence[str], report: Path | None = None) -> str:
    lines = []
    for f in findings:
        confidence = ", low confidence" if f.confidence == "low" else ""
        lines.append(_printable(f"{f.file}:{f.line}:{f.col}: {f.rule} [{f.severity.value}{confidence}] {f.message}"))
        if report is not None:
            lines.append("    " + _printable(f.evidence or _STATUS[f.confirmed]))
    lines.append(_summary(findings, targets, report))
    return "\n".join(lines) + "\n"


def _summary(findings: list[SourceFinding], targets: Sequence[str], report: Path | None) -> str:
    scanned = ", ".join(targets) if len(targets) <= 3 else f"{len(targets)} targets"
    if not findings:
        return _printable(f"verifier-audit scan: no findings in {scanned}")
    by_severity = Counter(f.severity for f in findings)
    severities = ", ".join(f"{by_severity[s]} {s.value}" for s in reversed(list(Severity)) if by_severity[s])
    files = len({f.file for f in findings})
    text = f"verifier-audit scan: {len(findings)} finding(s) ({severities}) in {files} file(s) of {scanned}"
    if report is not None:
        status = Counter(f.confirmed for f in findings)
        text += f"; against {report}: {status[True]} confirmed, {status[False]} not confirmed, {status[None]} unknown"
    return _printable(text)
