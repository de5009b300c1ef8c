"""Why a verifier failed its gate, written like a good assertion message: the gate's
reasons, the worst escaped categories with one example each beside the reference, and the
command that reproduces the audit."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence

from ..models import CategoryResult, Report
from .text import one_line

MAX_REASONS = 6  # gate reasons shown; the report has them all


def display_spec(spec: str) -> str:
    """A verifier spec as the user would type it here: a file below the current directory
    relative to it (shorter, and still right from here)."""
    target, sep, attr = spec.rpartition(":")
    if os.path.isabs(target) and target.startswith(os.getcwd() + os.sep):
        return f"{os.path.relpath(target)}{sep}{attr}"
    return spec


def reproduce_command(report: Report, flags: Sequence[str] = ()) -> str | None:
    """The ``verifier-audit run`` line that redoes this audit; None for an unnamed callable.
    ``flags``: the options the caller gave that the report does not record (a field
    mapping, a gate given in code), as ``config.option_flags`` writes them."""
    spec = display_spec(report.verifier)
    if "<locals>" in spec or spec.startswith(("?:", "__main__:")):
        return None
    s = report.settings
    parts = ["verifier-audit", "run", "--verifier", spec, "--suite", str(report.suite)]
    if report.style:
        parts += ["--style", report.style]
    if s.get("split"):
        parts += ["--split", str(s["split"])]
    if s.get("limit"):
        parts += ["--limit", str(s["limit"])]
    if report.seed:
        parts += ["--seed", str(report.seed)]
    for origin in s.get("origins") or ():
        parts += ["--only", origin]
    return shlex.join([*parts, *flags])


def _worst(report: Report, label: str, n: int) -> list[CategoryResult]:
    rows = [c for c in report.categories if c.label == label and c.n and c.rate > 0 and c.examples]
    return sorted(rows, key=lambda c: (-c.rate, -c.n, c.name))[:n]


def _example_lines(c: CategoryResult, verb: str) -> list[str]:
    e = c.examples[0]
    return [
        f"  {c.name} ({c.severity.value}): {verb} {round(c.rate * c.n)} of {c.n} ({100 * c.rate:.1f}%)",
        f"    candidate: {one_line(e.text, 100)}",
        f"    reference: {one_line(e.reference, 100)}" + (f"   [{e.note}]" if e.note else ""),
    ]


def explain_failure(report: Report, *, categories: int = 3, flags: Sequence[str] = ()) -> str:
    """The assertion message of a failed gate; ``flags`` go to the ``reproduce:`` line."""
    s = report.settings
    tasks = f", {s['limit']} tasks" if s.get("limit") else ""
    lines = [
        f"{display_spec(report.verifier)} failed its verifier-audit gate on suite {report.suite}{tasks} (seed {report.seed}):",
        f"  coverage debt {report.coverage_debt:.3f} [{report.coverage_debt_ci.low:.3f}, "
        f"{report.coverage_debt_ci.high:.3f}]; false acceptance {100 * report.false_acceptance_rate:.1f}%; "
        f"false rejection {100 * report.false_rejection_rate:.1f}%",
    ]
    lines += [f"  - {reason}" for reason in report.gate.reasons[:MAX_REASONS]]
    if len(report.gate.reasons) > MAX_REASONS:
        lines.append(f"  - ... and {len(report.gate.reasons) - MAX_REASONS} more (see the report)")
    lines += [f"  note: {note}" for note in report.gate.notes]
    escaped = _worst(report, "incorrect", categories)
    if escaped:
        lines.append("worst escaped categories (wrong answers it accepted):")
        for c in escaped:
            lines += _example_lines(c, "accepted")
    refused = _worst(report, "correct", categories)
    if refused and report.false_rejection_rate > s.get("max_false_rejection", 1.0):
        lines.append("worst false rejections (right answers it refused):")
        for c in refused:
            lines += _example_lines(c, "refused")
    for f in report.security_findings[:3]:
        lines.append(f"security: {f.detail}")
    command = reproduce_command(report, flags)
    lines.append(
        f"reproduce: {command}"
        if command
        else "reproduce: give the verifier as 'path/to/file.py:function' to rerun it with verifier-audit run"
    )
    return "\n".join(lines)
