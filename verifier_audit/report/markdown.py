"""A Markdown summary of an audit, for a pull-request comment: the verifiers side by side,
then per verifier the categories over their allowance with one example each (false
acceptances first, worst first; each example clipped around its answer, never through it)
and a count in every header."""

from __future__ import annotations

from ..metrics import remote_words
from ..models import Report
from .exploitability import worst_first
from .terminal import authority_words, out_of_range_line
from .text import excerpt

EXAMPLE = 100  # characters of an example in a table cell


def _cell(text: str, width: int = 80, focus: str = "") -> str:
    """One table cell: one printable line of at most ``width`` characters that keeps
    ``focus`` (an example's answer) whole and hides neither end (report.text.excerpt),
    pipes escaped and backticks made quotes."""
    return excerpt(text, width, focus=focus).replace("|", "\\|").replace("`", "'")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def to_markdown(reports: list[Report]) -> str:
    n = reports[0].n_candidates if reports else 0
    out = [
        f"## verifier-audit ({_plural(len(reports), 'verifier')}, {n} candidates)",
        "",
        "| verifier | coverage debt | 95% CI | false acceptance | false rejection | errors | security | gate |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        gate = "not enforced" if not r.gate.enforced else ("passed" if r.gate.passed else "**failed**")
        out.append(
            f"| `{r.verifier}` | {r.coverage_debt:.3f} | [{r.coverage_debt_ci.low:.3f}, {r.coverage_debt_ci.high:.3f}] "
            f"| {100 * r.false_acceptance_rate:.1f}% | {100 * r.false_rejection_rate:.1f}% | {r.errors} "
            f"| {len(r.security_findings)} | {gate} |"
        )
    formats = [r for r in reports if r.formats is not None]
    if formats:
        out += [
            "",
            (
                f"Answer formats read ({_plural(len(formats), 'verifier')} probed; the references written in "
                "each format, scored by the verifier):"
            ),
            "",
        ]
        for r in formats:
            audited = (
                f" {r.formats.rewritten} candidates rewritten into it, {r.formats.kept} shown as written, "
                f"{r.formats.left_out} left out."
                if r.formats.audited_in
                else ""
            )
            # The summary is ours (format names in backticks), not candidate text: written as is.
            out.append(f"- `{r.verifier}`: {' '.join(r.formats.summary.split())}.{audited}")
    for r in reports:
        s = r.settings
        over = [
            c
            for c in r.categories
            if c.n
            and c.rate > (s.get("max_category", 0.5) if c.label == "incorrect" else s.get("max_false_rejection", 0.1))
        ]
        retried = r.remote is not None and bool(r.remote.retried or r.remote.failed)
        if (
            not over
            and not r.security_findings
            and not r.gate.reasons
            and not r.errors
            and not r.out_of_range.calls
            and not retried
            and not (r.authority is not None and r.authority.paid)
        ):
            continue
        said = [
            _plural(len(r.gate.reasons), "gate reason"),
            f"{len(over)} of {len(r.categories)} categories over their allowance",
            _plural(len(r.security_findings), "security finding"),
            _plural(r.errors, "error"),
        ]
        out += ["", f"### `{r.verifier}` ({', '.join(said)})", ""]
        out += [f"- {_cell(reason, 200)}" for reason in r.gate.reasons]
        out += [f"- note: {_cell(note, 200)}" for note in r.gate.notes]
        if r.out_of_range.calls:
            out.append(f"- {_cell(out_of_range_line(r), 300)}")
        if retried:
            out.append(f"- remote: {_cell(remote_words(r.remote), 300)}")
        if r.authority is not None and r.authority.paid:
            out.append(f"- authority: {_cell(authority_words(r), 300)}")
        out += [f"- error: `{_cell(m, 160)}`" for messages in r.error_messages.values() for m in messages[:1]]
        if over:
            out += [
                "",
                "| category | severity | truth | rate | n | example | reference |",
                "|---|---|---|---|---|---|---|",
            ]
            # Paid wrong answers before refused right ones; within each, worst first.
            for c in sorted(over, key=lambda c: (c.label != "incorrect", *worst_first(c))):
                ex = c.examples[0] if c.examples else None
                out.append(
                    f"| `{c.name}` | {c.severity.value} | {c.label} | {100 * c.rate:.0f}% | {c.n} "
                    f"| {_cell(ex.text, EXAMPLE, ex.answer) if ex else ''} "
                    f"| {_cell(ex.reference, 40) if ex else ''} |"
                )
        for f in r.security_findings[:10]:
            out.append(f"- **security**: {_cell(f.detail, 400)}")
        if len(r.security_findings) > 10:
            out.append(f"- and {len(r.security_findings) - 10} more security findings (the JSON or HTML report)")
    scanned = [r for r in reports if r.source_findings]
    if scanned:
        found = _plural(sum(len(r.source_findings) for r in scanned), "finding")
        out += [
            "",
            f"Source (`verifier-audit scan`, {found}; confirmed: the audit saw the hole the code suggests):",
            "",
        ]
        for r in scanned:
            for f in r.source_findings[:10]:
                status = {True: "**confirmed**", False: "not confirmed", None: "unknown"}[f.confirmed]
                out.append(
                    f"- `{r.verifier}` `{_cell(f.file.rpartition('/')[2], 80)}:{f.line}` {f.rule} "
                    f"({f.severity.value}): {status}; {_cell(f.message, 200)}"
                )
    out += [
        "",
        f"<sub>suite `{reports[0].suite if reports else '?'}`, {n} candidates, seed {reports[0].seed if reports else 0}; "
        "false acceptance = wrong answers paid for, false rejection = right answers refused.</sub>",
        "",
    ]
    return "\n".join(out)
