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


def to_text(
    findings: list[SourceFinding], targets: Sequence[str], report: Path | None = None, files: Sequence[str] = ()
) -> str:
    """``files``: every file read (the targets' and those their imports led to), named on
    the summary line when the scan read more than the targets name."""
    lines = []
    for f in findings:
        confidence = ", low confidence" if f.confidence == "low" else ""
        via = f" (reached from {f.via})" if f.via else ""
        lines.append(
            _printable(f"{f.file}:{f.line}:{f.col}: {f.rule} [{f.severity.value}{confidence}] {f.message}{via}")
        )
        if report is not None:
            lines.append("    " + _printable(f.evidence or _STATUS[f.confirmed]))
    lines.append(_summary(findings, targets, report) + _printable(read_files(files)))
    return "\n".join(lines) + "\n"


def read_files(files: Sequence[str], limit: int = 6) -> str:
    """ "; read a.py, graders/b.py": the files a scan read, for a summary line ("" for none)."""
    if not files:
        return ""
    shown = ", ".join(files[:limit]) + (f" and {len(files) - limit} more" if len(files) > limit else "")
    return f"; read {shown}"


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
