"""Plain-text reports for a terminal: one verifier in detail, or several side by side."""

from __future__ import annotations

from collections.abc import Callable

from ..metrics import latency_words, nondeterminism_words, remote_words, security_reason
from ..models import CategoryResult, Report
from .exploitability import exploitability_lines, exploitable_line, search_lines, weighted_line, worst_first
from .source import finding_status, source_lines
from .text import excerpt
from .text import one_line as _one_line
from .text import printable as _printable

FA_HELP = (
    "FA = false acceptance: a wrong answer the verifier paid for (a missed failure). "
    "FR = false rejection: a right answer it refused."
)
DEMO_VERDICT = "no gate: the demo; audit yours with --verifier"
SECURITY_SHOWN = 10  # security findings listed one per line; the rest counted ("and N more")
EXAMPLE_WIDTH = 90  # an example's completion, clipped around its answer (text.excerpt)
REFERENCE_WIDTH = 60  # its reference beside it

# ANSI SGR codes. Colour is decided by the front end (--color, NO_COLOR, FORCE_COLOR, a tty)
# and only ever reaches the terminal: the file renderers never call ``paint``.
RED, GREEN, BOLD = "31", "32", "1"


def paint(text: str, *codes: str, color: bool = False) -> str:
    """``text`` in these SGR attributes when ``color``, else as it is."""
    return f"\x1b[{';'.join(codes)}m{text}\x1b[0m" if color and codes else text


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _ci(lo: float, hi: float) -> str:
    return f"[{100 * lo:4.1f}, {100 * hi:5.1f}]"


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    lines = [fmt.format(*header), fmt.format(*["-" * w for w in widths])]
    lines += [fmt.format(*r) for r in rows]
    return lines


def _category_rows(categories: list[CategoryResult]) -> list[list[str]]:
    rows = []
    for c in categories:
        what = "FA" if c.label == "incorrect" else "FR"
        rate = f"{what} {_pct(c.rate)}" if c.measured else "not measured"
        rows.append(
            [
                c.name,
                c.severity.value,
                c.label,
                str(c.n),
                str(c.accepted),
                rate,
                _ci(c.ci.low, c.ci.high) if c.measured else "-",
                str(c.errors) if c.errors else "",
            ]
        )
    return rows


def render_report(
    report: Report, *, examples: int = 5, all_categories: bool = False, verdict: bool = True, color: bool = False
) -> str:
    """One verifier in detail: security findings first when there are any, the categories,
    the worst examples, the rates, the gate's reasons and -- with ``verdict`` -- the verdict
    line last (``run`` prints that itself, after the sections it adds)."""
    out = [
        f"verifier-audit {report.tool_version} — {report.verifier} (style {report.style}) on suite "
        f"{report.suite}{' / ' + report.split if report.split else ''}, seed {report.seed}",
        "",
    ]
    out += security_lines(report, color=color)
    out += format_lines(report)
    cats = report.categories if all_categories else [c for c in report.categories if c.rate > 0 or c.errors]
    if cats:
        out.append(
            f"Categories ({len(cats)} of {len(report.categories)}{'' if all_categories else ', misjudged or errored'}):"
        )
        out += _table(
            _category_rows(cats), ["category", "severity", "truth", "n", "accepted", "rate", "95% CI", "errors"]
        )
        hidden = len(report.categories) - len(cats)
        if hidden:
            out.append(f"({hidden} more categories with no misjudgement and no error; --all-categories shows them)")
    else:
        out.append(f"All {len(report.categories)} categories judged right.")
    out += ["", FA_HELP, ""]
    out += exploitability_lines(report)
    out += search_lines(report)
    out += source_lines(report)
    out += _worst_examples(report, "incorrect", "Worst escapes, wrong answers accepted", "accepted", examples)
    out += _worst_examples(report, "correct", "Worst false rejections, right answers refused", "refused", examples)
    if report.errors:
        out += _error_lines(report)
    if report.out_of_range.calls:
        out.append(out_of_range_line(report))
    if report.remote is not None:  # a reward server's or judge's requests: retries hide a sick server
        out.append(f"remote: {_printable(remote_words(report.remote))}")
    if report.authority is not None:
        out.append(f"authority: {authority_words(report)}")
    out += behaviour_lines(report)
    if report.dropped:
        out.append(
            "Dropped by the oracle (labels it could not confirm): "
            + ", ".join(f"{k} {n}" for k, n in report.dropped.items())
        )
    out += [
        "",
        f"coverage debt      {report.coverage_debt:.3f}  95% CI [{report.coverage_debt_ci.low:.3f}, {report.coverage_debt_ci.high:.3f}]",
        f"false acceptance   {_pct(report.false_acceptance_rate)}  {_ci(report.false_acceptance_ci.low, report.false_acceptance_ci.high)}",
        f"false rejection    {_pct(report.false_rejection_rate)}  {_ci(report.false_rejection_ci.low, report.false_rejection_ci.high)}",
        *[line for line in (exploitable_line(report), weighted_line(report)) if line],
        "",
    ]
    if report.gate.enforced and not report.gate.passed:
        reasons = report.gate.reasons
        out.append(f"Gate reasons ({len(reasons)}):")
        out += [f"  - {_printable(r)}" for r in reasons]
    if report.gate.enforced:  # what a waiver left out of a check, passed or not
        out += [f"note: {_printable(n)}" for n in report.gate.notes]
    if verdict:
        out.append(verdict_line([report], color=color))
    return "\n".join(out)


def behaviour_lines(report: Report) -> list[str]:
    """What a training run meets that one call does not show (docs/grader-behaviour.md):
    the repeat probe's flips, the call times and, when the p99 is over a second, a warning."""
    out = []
    probe = report.checks.nondeterminism if report.checks is not None else None
    if probe is not None:
        out.append(f"nondeterminism: {_printable(nondeterminism_words(probe))}")
    if report.latency is not None:
        out.append(f"latency: {_printable(latency_words(report.latency))}")
        if report.latency.warning:
            out.append(f"warning: {_printable(report.latency.warning)}")
    return out


def security_lines(report: Report, *, color: bool = False) -> list[str]:
    """The security findings, first in the report when there are any: what they add up to,
    the first ``SECURITY_SHOWN`` one per line, then "and N more"."""
    found = report.security_findings
    if not found:
        return []
    lines = [
        paint(
            f"SECURITY: {security_reason(found)}: the verifier let candidates through its walls; "
            f"this fails the gate whatever the rates",
            RED,
            BOLD,
            color=color,
        )
    ]
    lines += [paint(f"SECURITY: {f.kind}: {_printable(f.detail)}", RED, color=color) for f in found[:SECURITY_SHOWN]]
    if len(found) > SECURITY_SHOWN:
        lines.append(
            f"  and {len(found) - SECURITY_SHOWN} more (the report JSON's security_findings lists all {len(found)})"
        )
    return lines + [""]


def verdict_line(reports: list[Report], *, demo: bool = False, color: bool = False) -> str:
    """The one line a terminal run ends with: the gate's verdict with the debt and the worst
    reason; for several verifiers one line summing them; for the demo, that there is no gate.
    The reasons are the gate's own, in its order (security findings first)."""
    if demo:
        return DEMO_VERDICT
    if not reports or not any(r.gate.enforced for r in reports):
        return "no gate: not enforced (comparison run)"
    failed = [r for r in reports if r.gate.enforced and not r.gate.passed]
    if len(reports) == 1:
        r = reports[0]
        if not failed:
            return f"gate: {paint('PASSED', GREEN, BOLD, color=color)} (coverage debt {r.coverage_debt:.3f})"
        more = len(r.gate.reasons) - 1
        return (
            f"gate: {paint('FAILED', RED, BOLD, color=color)} (coverage debt {r.coverage_debt:.3f}): "
            f"{_first_reason(r)}{f'; and {more} more reason(s) above' if more > 0 else ''}"
        )
    worst = max(reports, key=lambda r: r.coverage_debt)
    if not failed:
        return (
            f"gate: {paint('PASSED', GREEN, BOLD, color=color)} for all {len(reports)} verifiers (worst "
            f"coverage debt {worst.coverage_debt:.3f}, {_printable(_short(worst.verifier))})"
        )
    first = max(failed, key=lambda r: (bool(r.security_findings), r.coverage_debt))
    return (
        f"gate: {paint('FAILED', RED, BOLD, color=color)} for {len(failed)} of {len(reports)} verifiers; worst "
        f"{_printable(_short(first.verifier))} (coverage debt {first.coverage_debt:.3f}): {_first_reason(first)}"
    )


def _first_reason(report: Report) -> str:
    return _printable(report.gate.reasons[0]) if report.gate.reasons else "no reason recorded"


def _short(spec: str) -> str:
    return spec.rpartition(":")[2] or spec


def authority_words(report: Report) -> str:
    """What ``Report.authority`` adds up to, in one line: the candidates that write outside
    the paths their task allows, how many were paid, and the categories paid most ("" when
    the report has no figures: a domain whose tasks limit no path)."""
    a = report.authority
    if a is None:
        return ""
    if not a.outside:
        text = f"no candidate of {a.n} writes outside the allowed paths"
    else:
        paid = sorted((r for r in a.categories if r.paid), key=lambda r: (-r.paid, r.category))
        text = f"{a.outside} of {a.n} candidates write outside the allowed paths, {a.paid} of them paid"
        if paid:
            shown = ", ".join(f"{r.category} {r.paid}/{r.outside}" for r in paid[:4])
            left = len(paid) - 4
            text += f": {shown}" + (f" and {left} more categor{'y' if left == 1 else 'ies'}" if left > 0 else "")
    if a.errors:
        text += f"; {a.errors} more ended in errors"
    return _printable(text)


def out_of_range_line(report: Report) -> str:
    """How many calls scored outside [0, 1], and how each was treated (models.OutOfRange)."""
    o = report.out_of_range
    parts = [
        f"{n} {what}"
        for n, what in (
            (o.above, f"above 1 (kept: accepted, >= threshold {report.threshold:g})"),
            (o.below, "below 0 (kept: rejected)"),
            (o.not_finite, "NaN or infinite (errors)"),
        )
        if n
    ]
    examples = f"; e.g. {', '.join(_printable(e) for e in o.examples)}" if o.examples else ""
    return f"Scores out of [0, 1]: {o.calls} of {report.n_candidates} calls: {', '.join(parts)}{examples}"


def _worst_examples(report: Report, label: str, title: str, verb: str, n: int) -> list[str]:
    """The ``n`` most misjudged categories of this truth, one candidate each beside its
    reference, both clipped to one escaped line (candidates are hostile text)."""
    misjudged = sorted(
        (c for c in report.categories if c.label == label and c.rate > 0 and c.examples), key=worst_first
    )
    worst = misjudged[:n]
    if not worst:
        return []
    lines = [
        (
            f"{title} ({len(worst)} of {len(misjudged)} categor{'y' if len(misjudged) == 1 else 'ies'}, "
            f"worst first: severity, then rate):"
        )
    ]
    for c in worst:
        ex = c.examples[0]
        lines.append(
            f"  {c.name} [{c.severity.value}] ({_pct(c.rate).strip()}): "
            f"reference {excerpt(ex.reference, REFERENCE_WIDTH)}"
        )
        lines.append(f"      {verb}: {excerpt(ex.text, EXAMPLE_WIDTH, focus=ex.answer)}")
    return lines + [""]


def format_lines(report: Report) -> list[str]:
    """The answer formats the verifier reads (one line) and, when its candidates were
    rewritten into one of them, what that did (Report.formats)."""
    f = report.formats
    if f is None:
        return []
    lines = [f"answer formats: {_printable(f.summary)}"]
    if f.audited_in:
        lines.append(
            f"  candidates rewritten into it: {f.rewritten}; shown as written: {f.kept}; left out: {f.left_out} "
            f"(right answers it cannot write, tasks whose reference it cannot write: "
            f"{f.tasks_total - f.tasks_in_scope} of {f.tasks_total})"
            + (f"; dropped, label not confirmed: {sum(f.relabelled.values())}" if f.relabelled else "")
        )
    return lines + [""]


def _error_lines(report: Report) -> list[str]:
    """How many calls errored, the messages (so a broken import is fixed without opening the
    results file) and the categories nothing was measured in."""
    kinds = ", ".join(f"{k} {n}" for k, n in report.error_kinds.items())
    out = [
        f"Errors: {report.errors} of {report.n_candidates} calls ({_pct(report.error_rate).strip()}): {kinds}. "
        "Counted apart, not as acceptances or rejections; over max-error-rate they fail the gate."
    ]
    for _kind, messages in report.error_messages.items():
        for m in messages:
            flat = " ".join(_printable(m).split())  # the head: where the exception says what
            out.append(f"  {flat[:157] + '...' if len(flat) > 160 else flat}")
    blind = [c.name for c in report.categories if not c.measured]
    if blind:
        out.append(
            f"Not measured ({len(blind)} categor{'y' if len(blind) == 1 else 'ies'}, every call errored): "
            f"{', '.join(blind)}"
        )
    return out


def render_gate(report: Report, *, color: bool = False) -> str:
    if not report.gate.enforced:
        return "gate: not enforced (comparison run)"
    notes = "".join(f"\n  note: {n}" for n in report.gate.notes)  # what a waiver left out of a check
    if report.gate.passed:
        return f"gate: {paint('PASSED', GREEN, color=color)}" + notes
    return f"gate: {paint('FAILED', RED, color=color)}\n" + "\n".join(f"  - {r}" for r in report.gate.reasons) + notes


def render_gate_failures(reports: list[Report], display: Callable[[str], str] = str, reasons: int = 3) -> list[str]:
    """One line per report that failed its gate: which verifier (as ``display`` writes its
    spec) and its first reasons. What an exit 1 prints on stderr, so the why is never only
    in a file or above the scroll."""
    lines = []
    for r in reports:
        if r.gate.passed:
            continue
        listed = r.gate.reasons
        shown = "; ".join(_printable(reason) for reason in listed[:reasons]) or "no reason recorded"
        more = f"; and {len(listed) - reasons} more" if len(listed) > reasons else ""
        lines.append(f"verifier-audit: gate FAILED for {_printable(display(r.verifier))}: {shown}{more}")
    return lines


def render_side_by_side(reports: list[Report], *, color: bool = False) -> str:
    """The demo view: one row per verifier, weakest first, plus where each one leaks most;
    above the table, one line per verifier with security findings (they come first)."""
    rows = []
    for r in reports:
        worst = min((c for c in r.categories if c.label == "incorrect" and c.rate > 0), key=worst_first, default=None)
        rows.append(
            [
                r.verifier.rpartition(":")[2],
                f"{r.coverage_debt:.3f}",
                f"[{r.coverage_debt_ci.low:.3f}, {r.coverage_debt_ci.high:.3f}]",
                _pct(r.false_acceptance_rate),
                _pct(r.false_rejection_rate),
                str(r.errors),
                str(len(r.security_findings)),
                f"{worst.name} {_pct(worst.rate).strip()}" if worst and worst.rate > 0 else "-",
            ]
        )
    n = reports[0].n_candidates if reports else 0
    head = [
        f"Audit of {len(reports)} verifiers on suite {reports[0].suite if reports else '?'} "
        f"({n} candidates, seed {reports[0].seed if reports else 0})",
        "",
    ]
    flagged = [r for r in reports if r.security_findings]
    head += [
        paint(
            f"SECURITY: {_printable(_short(r.verifier))}: {security_reason(r.security_findings)}",
            RED,
            BOLD,
            color=color,
        )
        for r in flagged
    ] + ([""] if flagged else [])
    lines = _table(rows, ["verifier", "debt", "95% CI", "FA", "FR", "errors", "security", "worst category"])
    tail = ["", FA_HELP, "debt = severity-weighted mean false acceptance over failure categories (0 is best)."]
    if reports and reports[0].dropped:
        tail.append("Dropped by the oracle: " + ", ".join(f"{k} {v}" for k, v in reports[0].dropped.items()))
    with_formats = [r for r in reports if r.formats is not None]
    if with_formats:
        tail += ["", "answer formats:"]
        width = max(len(r.verifier.rpartition(":")[2]) for r in with_formats)
        tail += [f"  {r.verifier.rpartition(':')[2]:<{width}}  {_printable(r.formats.summary)}" for r in with_formats]
    remote = [r for r in reports if r.remote is not None]
    if remote:
        tail += ["", "remote (requests to the reward server or judge):"]
        tail += [f"  {r.verifier.rpartition(':')[2]}  {_printable(remote_words(r.remote))}" for r in remote]
    limited = [r for r in reports if r.authority is not None]
    if limited:
        tail += ["", "authority (candidates that write outside the paths their task allows):"]
        width = max(len(_short(r.verifier)) for r in limited)
        tail += [f"  {_short(r.verifier):<{width}}  {authority_words(r)}" for r in limited]
    scanned = [r for r in reports if r.source_findings]
    if scanned:
        tail += ["", "source (verifier-audit scan; CONFIRMED: the audit saw the hole the code suggests):"]
        for r in scanned:
            tail += [
                f"  {r.verifier.rpartition(':')[2]}  {f.file.rpartition('/')[2]}:{f.line} {f.rule} "
                f"[{f.severity.value}] {finding_status(f, r)}"
                for f in r.source_findings[:5]
            ]
            if len(r.source_findings) > 5:
                tail.append(f"  and {len(r.source_findings) - 5} more (verifier-audit scan lists them all)")
    return "\n".join(head + lines + tail)


def render_survival(report: Report, *, by_task: bool = True, limit: int = 0) -> str:
    """The mutation analysis: survivors per task, then the totals."""
    ms = report.mutant_survival
    if ms is None:
        return ""
    name = report.verifier.rpartition(":")[2]
    out = [
        f"Mutant survival against {name} ({ms.judged} near-miss mutants judged):",
        (
            "  (a near miss is the reference solution with one small bug; a survivor is one the verifier still "
            "passes: a wrong program its tests cannot tell from the right one)"
        ),
    ]
    if by_task:
        shown = [t for t in ms.tasks if t.survivors]
        for t in shown[: limit or None]:
            out.append(
                f"  {t.task_id}: {len(t.survivors)} of {t.judged} mutants survive"
                + (f" ({t.equivalent} equivalent dropped)" if t.equivalent else "")
            )
            for s in t.survivors[:5]:
                out.append(f"      {_one_line(s, 90)}")
            if len(t.survivors) > 5:
                out.append(f"      ... {len(t.survivors) - 5} more")
        if limit and len(shown) > limit:
            out.append(f"  ... {len(shown) - limit} more tasks with survivors (the report JSON lists all)")
    out.append(
        f"  total: {ms.generated} mutants, {ms.equivalent} equivalent (dropped), {ms.judged} judged, "
        f"{ms.survived} survive: {_pct(ms.rate_after_filtering).strip()} after filtering equivalents, "
        f"{_pct(ms.rate_before_filtering).strip()} before"
    )
    return "\n".join(out)
