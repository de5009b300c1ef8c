"""A Markdown summary of an audit, for a pull-request comment: the verifiers side by side,
then per verifier the categories over their allowance with one example each."""

from __future__ import annotations

from ..metrics import remote_words
from ..models import Report
from .terminal import out_of_range_line


def _cell(text: str, width: int = 80) -> str:
    """One table cell: no newlines or pipes, printable, cut to ``width``."""
    flat = " ".join(text.split()).replace("|", "\\|").replace("`", "'")
    flat = "".join(ch if ch.isprintable() else "\ufffd" for ch in flat)
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def to_markdown(reports: list[Report]) -> str:
    out = ["## verifier-audit", "",
           "| verifier | coverage debt | 95% CI | false acceptance | false rejection | errors | security | gate |",
           "|---|---|---|---|---|---|---|---|"]
    for r in reports:
        gate = "not enforced" if not r.gate.enforced else ("passed" if r.gate.passed else "**failed**")
        out.append(f"| `{r.verifier}` | {r.coverage_debt:.3f} | [{r.coverage_debt_ci.low:.3f}, {r.coverage_debt_ci.high:.3f}] "
                   f"| {100 * r.false_acceptance_rate:.1f}% | {100 * r.false_rejection_rate:.1f}% | {r.errors} "
                   f"| {len(r.security_findings)} | {gate} |")
    formats = [r for r in reports if r.formats is not None]
    if formats:
        out += ["", "Answer formats read (the references written in each format, scored by the verifier):", ""]
        for r in formats:
            audited = (f" {r.formats.rewritten} candidates rewritten into it, {r.formats.kept} shown as written, "
                       f"{r.formats.left_out} left out." if r.formats.audited_in else "")
            # The summary is ours (format names in backticks), not candidate text: written as is.
            out.append(f"- `{r.verifier}`: {' '.join(r.formats.summary.split())}.{audited}")
    for r in reports:
        s = r.settings
        over = [c for c in r.categories if c.n and c.rate > (s.get("max_category", 0.5) if c.label == "incorrect"
                                                              else s.get("max_false_rejection", 0.1))]
        retried = r.remote is not None and bool(r.remote.retried or r.remote.failed)
        if (not over and not r.security_findings and not r.gate.reasons and not r.errors and not r.out_of_range.calls
                and not retried):
            continue
        out += ["", f"### `{r.verifier}`", ""]
        out += [f"- {_cell(reason, 200)}" for reason in r.gate.reasons]
        if r.out_of_range.calls:
            out.append(f"- {_cell(out_of_range_line(r), 300)}")
        if retried:
            out.append(f"- remote: {_cell(remote_words(r.remote), 300)}")
        out += [f"- error: `{_cell(m, 160)}`" for messages in r.error_messages.values() for m in messages[:1]]
        if over:
            out += ["", "| category | severity | truth | rate | n | example | reference |", "|---|---|---|---|---|---|---|"]
            for c in sorted(over, key=lambda c: (-c.rate, c.name)):
                ex = c.examples[0] if c.examples else None
                out.append(f"| `{c.name}` | {c.severity.value} | {c.label} | {100 * c.rate:.0f}% | {c.n} "
                           f"| {_cell(ex.text) if ex else ''} | {_cell(ex.reference, 40) if ex else ''} |")
        for f in r.security_findings[:10]:
            out.append(f"- **security**: {_cell(f.detail, 200)}")
    scanned = [r for r in reports if r.source_findings]
    if scanned:
        out += ["", "Source (`verifier-audit scan`; confirmed: the audit saw the hole the code suggests):", ""]
        for r in scanned:
            for f in r.source_findings[:10]:
                status = {True: "**confirmed**", False: "not confirmed", None: "unknown"}[f.confirmed]
                out.append(f"- `{r.verifier}` `{_cell(f.file.rpartition('/')[2], 80)}:{f.line}` {f.rule} "
                           f"({f.severity.value}): {status}; {_cell(f.message, 200)}")
    n = reports[0].n_candidates if reports else 0
    out += ["", f"<sub>suite `{reports[0].suite if reports else '?'}`, {n} candidates, seed {reports[0].seed if reports else 0}; "
            "false acceptance = wrong answers paid for, false rejection = right answers refused.</sub>", ""]
    return "\n".join(out)
