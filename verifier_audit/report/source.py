"""The report's source section: ``verifier-audit scan`` on the verifier's own code, each
finding confirmed, not confirmed or left unknown by the audit just made (scan/)."""

from __future__ import annotations

import inspect

from ..loading import VerifierSpec
from ..models import Report, SourceFinding
from .text import printable


def scan_targets(spec: VerifierSpec) -> list[str]:
    """What to scan for ``spec``: its function (``FILE:function``, ``pkg.mod:function``),
    each part of a composite reward, nothing for a reward with no source here (a server,
    a judge, reasoning-gym)."""
    if spec.function is not None:
        try:
            where = inspect.getsourcefile(spec.function)
        except TypeError:  # a builtin, a C function
            return []
        name = getattr(spec.function, "__qualname__", "")
        if where is None:
            return []
        return [f"{where}:{name}" if name and "<" not in name else where]
    if spec.remote or ":" not in spec.spec:
        return []
    module = spec.spec.rpartition(":")[0]
    if spec.part is not None:
        return [f"{module}:{spec.part}"]
    if spec.parts:
        return [f"{module}:{part}" for part in spec.parts]
    return [spec.spec]


def compared_literals(spec: VerifierSpec) -> list[tuple[str, str]]:
    """The literals ``spec``'s source compares completions against (``scan/_literals.py``),
    for the exploit search's source-guided operators; [] when there is no source to read.
    Read from the files, never imported: the search runs in the parent."""
    from ..scan import MAX_LITERALS, ScanError
    from ..scan import compared_literals as read

    found: list[tuple[str, str]] = []
    for target in scan_targets(spec):
        try:
            found += read(target)
        except ScanError:
            try:
                found += read(target.rpartition(":")[0])
            except ScanError:
                continue
    return list(dict.fromkeys(found))[:MAX_LITERALS]


def source_findings(spec: VerifierSpec, report: Report) -> tuple[list[SourceFinding] | None, list[str]]:
    """The findings in the verifier's source, held against ``report``, and the files read
    (the verifier's own, then those its imports led to: scan/_imports.py); (None, []) when
    there is no source to read. A target that names no function (a list of TRL rewards, an
    object) is scanned as its whole file."""
    from ..scan import ScanError, confirm, scan_target

    targets = scan_targets(spec)
    if not targets:
        return None, []
    found: list[SourceFinding] = []
    files: list[str] = []
    for target in targets:
        try:
            scan = scan_target(target)
        except ScanError:
            try:
                scan = scan_target(target.rpartition(":")[0])
            except ScanError:
                return None, []
        found += scan.findings
        files += [f for f in scan.files if f not in files]
    return confirm(found, report), files


def finding_status(finding: SourceFinding, report: Report) -> str:
    """CONFIRMED, not confirmed, or unknown -- but never "unknown" beside security findings
    the same report shows (issue 31): there it is "not checked" (by a finding of its kind)."""
    if finding.confirmed is None and report.security_findings:
        return "not checked"
    return {True: "CONFIRMED", False: "not confirmed", None: "unknown"}[finding.confirmed]


def source_lines(report: Report, limit: int = 10) -> list[str]:
    """Plain lines for the terminal, the Markdown and the HTML report: each finding with
    where it is and what the audit made of it; nothing when the source was not read."""
    found = report.source_findings
    if found is None:
        return []
    # Which files "nothing flagged" covers: the wrapper alone said nothing of the grader it
    # imports (issue 33); the scan follows imports and names what it read.
    of = f" of {printable(', '.join(report.source_files))}" if report.source_files else ""
    if not found:
        return [f"source (verifier-audit scan{of}): nothing flagged", ""]
    confirmed = sum(1 for f in found if f.confirmed)
    out = [f"source (verifier-audit scan{of}): {len(found)} finding(s), {confirmed} confirmed by the audit"]
    for f in found[:limit]:
        via = f" (reached from {f.via})" if f.via else ""
        out.append(f"  {f.file}:{f.line}: {f.rule} [{f.severity.value}] {finding_status(f, report)}: {f.message}{via}")
        if f.evidence:
            out.append(f"      {f.evidence}")
    if len(found) > limit:
        out.append(f"  and {len(found) - limit} more (verifier-audit scan lists them all)")
    return out + [""]
