"""``verifier-audit diff old.json new.json``: what got better and what got worse between two
audits of a verifier (a PR review of a reward-function change)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Union

from pydantic import ValidationError

from ..audit_files import output_edited
from ..errors import InputError
from ..models import Report, ReportSet

# A category's rate must move by more than this to count as a change (noise of re-runs is
# zero for the same seed; this only hides float formatting).
EPSILON = 1e-9


def load_reports(path: Path) -> dict[str, Report]:
    """verifier -> Report from a report or report-set JSON file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    edited = output_edited(path)
    if edited is not None:
        print(f"verifier-audit: warning: {edited}", file=sys.stderr)
    for model in (Report, ReportSet):
        try:
            loaded: Union[Report, ReportSet] = model.model_validate_json(text)
        except ValidationError:
            continue
        reports = [loaded] if isinstance(loaded, Report) else loaded.reports
        return {r.verifier: r for r in reports}
    raise InputError(f"{path}: not a verifier-audit report (write one with `verifier-audit run --json PATH`)")


def diff(old: Report, new: Report) -> dict:
    before = {c.name: c for c in old.categories}
    after = {c.name: c for c in new.categories}
    worse, better = [], []
    for name in sorted(set(before) | set(after)):
        a, b = before.get(name), after.get(name)
        ra, rb = (a.rate if a else 0.0), (b.rate if b else 0.0)
        if rb > ra + EPSILON:
            worse.append((name, ra, rb))
        elif rb < ra - EPSILON:
            better.append((name, ra, rb))
    old_sec = {(f.kind, f.candidate_id) for f in old.security_findings}
    new_sec = {(f.kind, f.candidate_id) for f in new.security_findings}
    return {
        "debt": (old.coverage_debt, new.coverage_debt),
        "false_acceptance": (old.false_acceptance_rate, new.false_acceptance_rate),
        "false_rejection": (old.false_rejection_rate, new.false_rejection_rate),
        "worse": worse, "better": better,
        "new_security": sorted(new_sec - old_sec), "fixed_security": sorted(old_sec - new_sec),
        "regressed": new.coverage_debt > old.coverage_debt + EPSILON or bool(worse) or bool(new_sec - old_sec),
    }


def render_diff(verifier: str, d: dict) -> str:
    def move(pair: tuple) -> str:
        a, b = pair
        return f"{a:.3f} -> {b:.3f}" + ("" if abs(b - a) <= EPSILON else f" ({b - a:+.3f})")

    out = [f"{verifier}", f"  coverage debt     {move(d['debt'])}",
           f"  false acceptance  {move(d['false_acceptance'])}", f"  false rejection   {move(d['false_rejection'])}"]
    for title, rows in (("worse", d["worse"]), ("better", d["better"])):
        if rows:
            out.append(f"  {title} ({len(rows)}):")
            out += [f"    {name}: {a:.3f} -> {b:.3f}" for name, a, b in rows]
    for kind, cid in d["new_security"]:
        out.append(f"  NEW SECURITY FINDING: {kind} on {cid}")
    for kind, cid in d["fixed_security"]:
        out.append(f"  fixed security finding: {kind} on {cid}")
    if not (d["worse"] or d["better"] or d["new_security"] or d["fixed_security"]):
        out.append("  no category changed")
    return "\n".join(out)
