"""One self-contained HTML page for an audit that leads with the verdict: first one card per
verifier (the gate's verdict, the coverage debt, the three worst holes each with one
example clipped around its answer, the security findings), then everything else per
verifier in collapsed <details>: false acceptance per failure category before false
rejection (SVG bar charts with 95% intervals and every misjudged example), security
findings, errors, answer formats, exploitability, mutant survival, the run's settings and
(optionally) a security review checklist. Nothing is said twice: each gate reason appears
once, in the card.

The page is meant to be attached to a CI run or mailed around, so it loads nothing: CSS is
inline, charts are SVG drawn here, and there is no JavaScript at all (a Content-Security-
Policy says so, in case an escaping bug ever slipped through). Candidate text is hostile by
construction (NULs, lone surrogates, ``</script>``, megabytes of output): every string goes
through ``_html.esc``, which clips, replaces what cannot be shown and escapes. The output holds
no dates and depends only on the reports, so the same reports give byte-identical pages.
It fits a 1280-pixel-wide window without a horizontal scroll bar: unbroken text wraps
anywhere inside its block, and a verifier's path breaks after its slashes.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from ..metrics import duration, latency_words, nondeterminism_words, remote_words
from ..models import CategoryResult, Example, Report
from ._html import ci as _ci
from ._html import esc as _esc
from ._html import num as _num
from ._html import page_head
from ._html import percent as _pct
from ._html import table as _table
from .exploitability import concentrated_holes, search_lines, weighted_line, worst_holes
from .source import source_lines
from .terminal import authority_words
from .text import excerpt

WORST = 3  # holes a card shows, each with one example
EXCERPT = 140  # characters of a card's example: one line of the card, clipped around the answer
FINDINGS = 3  # security findings a card lists (all of them are counted)


def _more(summary: str, body: str, cls: str = "") -> str:
    """A collapsed block: everything but the cards waits behind one of these."""
    return f'<details class="va-more {cls}"><summary>{summary}</summary>\n{body}\n</details>'


def _limits(report: Report) -> tuple[float, float, set[str], dict[str, float]]:
    """The gate's allowances as the run recorded them: max_category, max_false_rejection,
    the waived categories, and per-category limits (a waiver with an accepted rate)."""
    s = report.settings
    own = {str(k): float(v) for k, v in (s.get("category_limits") or {}).items()}
    return (
        float(s.get("max_category", 0.5)),
        float(s.get("max_false_rejection", 0.1)),
        set(s.get("waived_categories") or ()),
        own,
    )


def _path(name: str) -> str:
    """A verifier's path or spec for a header: escaped, free to break after each '/' and
    ':' (where a reader expects the break), never one letter per line."""
    return re.sub(r"([/:])", r"\1<wbr>", _esc(name, 400))


def verdict(report: Report) -> tuple[str, str]:
    """(state, words): the gate's verdict as the card's first line says it."""
    if not report.gate.enforced:
        return "no-gate", "no gate: the demo of the reference verifiers; audit yours with --verifier"
    return ("passed", "gate passed") if report.gate.passed else ("failed", "gate failed")


def _verdict(report: Report) -> str:
    """The verdict, and the gate's reasons (each said once, here) folded under it."""
    state, words = verdict(report)
    cls = {"passed": "va-pass", "failed": "va-fail"}.get(state, "va-muted")
    shown = f'<span class="{cls}">{_esc(words, 200)}</span>'
    reasons = report.gate.reasons
    if not reasons:
        return f'<div class="va-verdict">{shown}</div>'
    items = "".join(f"<li>{_esc(r, 400)}</li>" for r in reasons)
    counted = f"{len(reasons)} reason{'s' if len(reasons) != 1 else ''}"
    if state == "no-gate":  # the demo: what the run's gate settings would say, folded
        counted = f"a gate would fail it on {counted}"
    return (
        f'<details class="va-verdict"><summary>{shown} <span class="va-muted">({counted})</span></summary>'
        f'<ul class="va-reasons">{items}</ul></details>'
    )


def _mini(report: Report, c: CategoryResult) -> str:
    """A small bar of the category's rate, red over its allowance, grey when waived."""
    max_cat, _, waived, own = _limits(report)
    state = " va-mini-waived" if c.name in waived else (" va-mini-over" if c.rate > own.get(c.name, max_cat) else "")
    width = 120 * min(max(c.rate, 0.0), 1.0)
    return (
        f'<svg class="va-mini" xmlns="http://www.w3.org/2000/svg" width="120" height="12" viewBox="0 0 120 12">'
        f'<rect class="va-mini-bg" width="120" height="12"/>'
        f'<rect class="va-mini-bar{state}" width="{width:.1f}" height="12"/></svg>'
    )


def _hole(report: Report, c: CategoryResult) -> str:
    _, _, waived, _ = _limits(report)
    head = (
        f"{_mini(report, c)}<code>{_esc(c.name, 200)}</code> · {c.severity.value} · paid {_pct(c.rate)} of {c.n} "
        f'<span class="va-muted">{_ci(c.ci.low, c.ci.high)}{" · waived" if c.name in waived else ""}</span>'
    )
    ex = c.examples[0] if c.examples else None
    if ex is None:
        body = '<div class="va-muted">no example kept</div>'
    else:
        body = (
            f'<pre class="va-excerpt">\n{_esc(excerpt(ex.text, EXCERPT, focus=ex.answer))}</pre>'
            f'<div class="va-muted">reference <code>{_esc(ex.reference, 200)}</code> · '
            f"{_esc(ex.note, 300)}</div>"
        )
    return f'<div class="va-hole" data-category="{_esc(c.name, 200)}">{head}{body}</div>'


def _findings(findings: list, cls: str = "") -> str:
    return (
        f'<ul class="{cls}">'
        + "".join(
            f'<li class="va-finding"><b>{_esc(f.kind, 200)}</b> <code>{_esc(f.candidate_id, 200)}</code> '
            f"task <code>{_esc(f.task_id, 200)}</code>: {_esc(f.detail, 1000)}</li>"
            for f in findings
        )
        + "</ul>"
    )


def _card_security(report: Report) -> str:
    """Counted by kind, the first few listed; the rest are under "Security findings"."""
    found = report.security_findings
    if not found:
        return '<p class="va-muted">Security: no canary fired.</p>'
    kinds = sorted(Counter(f.kind for f in found).items(), key=lambda kv: (-kv[1], kv[0]))
    rest = len(found) - FINDINGS
    return (
        f'<h3 class="va-fail">Security findings ({len(found)}: '
        + ", ".join(f"{_esc(k, 200)} {n}" for k, n in kinds)
        + ")</h3>"
        + _findings(found[:FINDINGS], "va-card-findings")
        + (f'<p class="va-muted">and {rest} more (under "Security findings" below)</p>' if rest > 0 else "")
    )


def _card(report: Report) -> str:
    """The verifier at a glance: verdict, debt, the worst holes with an example, security."""
    state, _ = verdict(report)
    holes = worst_holes(report)
    fa = [c for c in report.categories if c.label == "incorrect"]
    numbers = (
        f"coverage debt <b>{report.coverage_debt:.3f}</b> "
        f'<span class="va-muted">{_ci(report.coverage_debt_ci.low, report.coverage_debt_ci.high, False)}</span>'
        f" · false acceptance {_pct(report.false_acceptance_rate)} "
        f'<span class="va-muted">{_ci(report.false_acceptance_ci.low, report.false_acceptance_ci.high)}</span>'
        f" · false rejection {_pct(report.false_rejection_rate)} "
        f'<span class="va-muted">{_ci(report.false_rejection_ci.low, report.false_rejection_ci.high)}</span>'
        f" · errors {report.errors} ({_pct(report.error_rate)})"
    )
    if holes:
        worst = (
            f"<h3>Worst holes ({min(WORST, len(holes))} of {len(holes)} failure categories paid for; "
            f"{len(fa)} audited)</h3>" + "".join(_hole(report, c) for c in holes[:WORST])
        )
    else:
        worst = f'<p class="va-pass">No wrong answer was paid for ({len(fa)} failure categories).</p>'
    notes = "".join(f'<div class="va-muted">note: {_esc(n, 400)}</div>' for n in report.gate.notes)
    if report.remote is not None:
        notes += f'<div class="va-remote">remote: {_esc(remote_words(report.remote), 400)}</div>'
    probe = report.checks.nondeterminism if report.checks is not None else None
    if probe is not None:
        cls = "va-over" if probe.flipped else "va-muted"
        notes += f'<div class="{cls} va-nondeterminism">nondeterminism: {_esc(nondeterminism_words(probe), 600)}</div>'
    if report.latency is not None:
        notes += f'<div class="va-muted va-latency">latency: {_esc(latency_words(report.latency), 600)}</div>'
        if report.latency.warning:
            notes += f'<div class="va-over va-latency-warning">warning: {_esc(report.latency.warning, 400)}</div>'
    return "\n".join(
        [
            f'<section class="va-card va-card-{state}" data-verifier="{_esc(report.verifier, 200)}" data-verdict="{state}">',
            f'<h2 class="va-path"><code>{_path(report.verifier)}</code></h2>',
            _verdict(report),
            f"<div>{numbers}</div>",
            notes,
            worst,
            _card_security(report),
            "</section>",
        ]
    )


def _chart(
    report: Report, cats: list[CategoryResult], kind: str, limit: float, waived: set[str], own: dict[str, float]
) -> str:
    """Horizontal bars, one per category: the rate, its 95% interval as an error bar, the
    allowance as a dashed line (a category with its own limit gets a tick in its row).
    Classes and data-* attributes are a contract with tests."""
    label_w, bar_w, right, row_h, top = 340, 600, 110, 20, 24
    height = top + row_h * len(cats) + 8

    def x(rate: float) -> float:  # clamped: a rate or bound outside [0, 1] must not draw off the chart
        return label_w + bar_w * min(max(rate, 0.0), 1.0)

    out = [
        (
            f'<svg class="va-chart" xmlns="http://www.w3.org/2000/svg" data-verifier="{_esc(report.verifier, 200)}" '
            f'data-kind="{kind}" width="{label_w + bar_w + right}" height="{height}" '
            f'viewBox="0 0 {label_w + bar_w + right} {height}" role="img">'
        )
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(
            f'<line class="va-grid" x1="{x(tick):.1f}" y1="{top - 4}" x2="{x(tick):.1f}" y2="{height - 6}"/>'
            f'<text class="va-value" x="{x(tick):.1f}" y="{top - 8}" text-anchor="middle">{100 * tick:.0f}%</text>'
        )
    for i, c in enumerate(cats):
        y = top + i * row_h
        cap = own.get(c.name, limit)
        state = " va-waived" if c.name in waived else (" va-over" if c.n and c.rate > cap else "")
        name = _esc(c.name, 200)
        shown = name if len(c.name) <= 44 else _esc(c.name[:43] + "…", 200)
        note = (
            " (waived)"
            if c.name in waived
            else f" (limit {_pct(cap)})"
            if c.name in own
            else " (no verdicts)"
            if c.n == 0
            else ""
        )
        if c.name in own:
            out.append(
                f'<path class="va-allowance-own" data-category="{name}" data-limit="{_num(cap)}" '
                f'd="M{x(cap):.1f} {y + 1}V{y + row_h - 1}"/>'
            )
        out.append(
            f'<text class="va-label{" va-waived-label" if c.name in waived else ""}" x="{label_w - 8}" '
            f'y="{y + 14}" text-anchor="end"><title>{name}</title>{shown}{note}</text>'
        )
        out.append(
            f'<rect class="va-bar{state}" data-category="{name}" data-rate="{_num(c.rate)}" '
            f'data-low="{_num(c.ci.low)}" data-high="{_num(c.ci.high)}" x="{label_w}" y="{y + 3}" '
            f'width="{x(c.rate) - label_w:.1f}" height="{row_h - 6}"/>'
        )
        lo, hi, mid = x(c.ci.low), x(c.ci.high), y + row_h / 2
        out.append(
            f'<path class="va-ci" data-category="{name}" fill="none" '
            f'd="M{lo:.1f} {mid:.1f}H{hi:.1f}M{lo:.1f} {mid - 4:.1f}V{mid + 4:.1f}M{hi:.1f} {mid - 4:.1f}V{mid + 4:.1f}"/>'
        )
        out.append(f'<text class="va-value" x="{label_w + bar_w + 8}" y="{y + 14}">{_pct(c.rate)} of {c.n}</text>')
    out.append(
        f'<line class="va-allowance" data-limit="{_num(limit)}" x1="{x(limit):.1f}" y1="{top - 4}" '
        f'x2="{x(limit):.1f}" y2="{height - 6}"><title>allowance {_pct(limit)}</title></line></svg>'
    )
    return "\n".join(out)


KINDS = (
    ("incorrect", "fa", "False acceptance", "failure", "paid for although wrong"),
    ("correct", "fr", "False rejection", "equivalent", "refused although right"),
)


def _categories(report: Report, label: str) -> str:
    """One collapsed block per kind: its chart, then every misjudged example, worst first."""
    max_cat, max_fr, waived, own = _limits(report)
    _, kind, title, what, verb = next(k for k in KINDS if k[0] == label)
    limit = max_cat if label == "incorrect" else max_fr
    cats = sorted((c for c in report.categories if c.label == label), key=lambda c: c.name)
    if not cats:
        return ""
    misjudged = sorted((c for c in cats if c.examples), key=lambda c: (-c.rate, c.name))
    bad = sum(1 for c in cats if c.n and c.accepted != (c.n if label == "correct" else 0))
    out = [
        (
            f"<h4>{title} per {what} category (allowance {_pct(limit)}, dashed; bars over it in red, waived in "
            "grey; whiskers: 95% interval)</h4>"
        ),
        _chart(report, cats, kind, limit, waived, own if label == "incorrect" else {}),
    ]
    for c in misjudged:
        out.append(
            f"<h4><code>{_esc(c.name, 200)}</code> — {verb}: {_pct(c.rate)} of {c.n} "
            f"{_ci(c.ci.low, c.ci.high)}, severity {c.severity.value}</h4>"
        )
        out += [_example(c, ex) for ex in c.examples]
    return _more(f"{title}: {bad} of {len(cats)} {what} categories {verb}", "\n".join(out), f"va-{kind}")


def _example(c: CategoryResult, ex: Example) -> str:
    # The newline after <pre> is eaten by every HTML parser; without it a candidate that
    # starts with a newline would lose it.
    score = "-" if ex.score is None else f"{ex.score:.3g}"
    return (
        f'<div class="va-example" data-category="{_esc(c.name, 200)}" data-candidate="{_esc(ex.candidate_id, 200)}">'
        f"<div><code>{_esc(ex.candidate_id, 200)}</code> task <code>{_esc(ex.task_id, 200)}</code> "
        f'score {score} <span class="va-muted">{_esc(ex.note, 400)}</span></div>'
        f'<div class="va-pair"><div><h4>candidate</h4><pre class="va-text">\n{_esc(ex.text)}</pre></div>'
        f'<div><h4>reference</h4><pre class="va-ref">\n{_esc(ex.reference)}</pre></div></div></div>'
    )


def _survival(report: Report) -> str:
    m = report.mutant_survival
    if m is None:
        return ""
    totals = _table(
        ["generated", "equivalent (dropped)", "judged", "survived", "rate before filtering", "rate after filtering"],
        [
            [
                f'<td class="n">{v}</td>'
                for v in (
                    m.generated,
                    m.equivalent,
                    m.judged,
                    m.survived,
                    _pct(m.rate_before_filtering),
                    _pct(m.rate_after_filtering),
                )
            ]
        ],
        "va-survival",
    )
    tasks = [t for t in m.tasks if t.survivors]
    rows = "".join(
        f"<li><code>{_esc(t.task_id, 200)}</code> ({len(t.survivors)} of {t.judged}): "
        + "; ".join(_esc(s, 400) for s in t.survivors)
        + "</li>"
        for t in tasks
    )
    return _more(
        f"Mutant survival ({m.survived} of {m.judged} judged mutants survive)",
        totals + (f'<ul class="va-survivors">{rows}</ul>' if rows else '<p class="va-muted">No surviving mutant.</p>'),
    )


def _security_rest(report: Report) -> str:
    """The findings the card did not list (it lists the first FINDINGS)."""
    rest = report.security_findings[FINDINGS:]
    return (
        _more(
            f"Security findings ({len(rest)} more of {len(report.security_findings)})", _findings(rest, "va-findings")
        )
        if rest
        else ""
    )


def _errors(report: Report) -> str:
    """Error kinds with their messages, categories never measured, the oracle's drops."""
    out = []
    if report.error_kinds:
        kinds = sorted(report.error_kinds.items(), key=lambda kv: (-kv[1], kv[0]))
        out.append(
            _table(
                ["kind", "count", "messages"],
                [
                    [
                        _esc(k, 400),
                        f'<td class="n">{n}</td>',
                        "<br>".join(f"<code>{_esc(m, 300)}</code>" for m in report.error_messages.get(k, [])),
                    ]
                    for k, n in kinds
                ],
                "va-errors",
            )
        )
    blind = [c.name for c in report.categories if not c.measured]
    if blind:
        out.append(
            '<p class="va-over">Not measured (every call errored): '
            + ", ".join(f"<code>{_esc(n, 200)}</code>" for n in blind)
            + "</p>"
        )
    if report.dropped:
        out.append(
            "<p>Dropped by the oracle (never scored): "
            + ", ".join(f"{_esc(k, 200)} {n}" for k, n in sorted(report.dropped.items()))
            + "</p>"
        )
    return _more(f"Errors ({report.errors}, {_pct(report.error_rate)})", "\n".join(out)) if out else ""


def _latency(report: Report) -> str:
    """Call times per category, slowest p99 first, and the slowest calls (Report.latency)."""
    lat = report.latency
    if lat is None or not lat.categories:
        return ""
    rows = [
        [
            f"<code>{_esc(c.category, 200)}</code>",
            f'<td class="n">{c.calls}</td>',
            f'<td class="n">{duration(c.p50)}</td>',
            f'<td class="n">{duration(c.p99)}</td>',
            f'<td class="n">{duration(c.max)}</td>',
        ]
        for c in lat.categories
    ]
    slow = [
        [
            f"<code>{_esc(s.candidate_id, 200)}</code>",
            f"<code>{_esc(s.category, 200)}</code>",
            f'<td class="n">{duration(s.seconds)}</td>',
            _esc(s.error or "", 100),
        ]
        for s in lat.slowest
    ]
    body = _table(["category", "calls", "p50", "p99", "max"], rows, "va-latency") + _table(
        ["slowest candidate", "category", "time", "error"], slow, "va-slowest"
    )
    return _more(f"Latency (p50 {duration(lat.p50)}, p99 {duration(lat.p99)})", body)


def _authority(report: Report) -> str:
    """The candidates that write outside the paths their task allows, per category, and how
    many of them the verifier paid (Report.authority); nothing for a domain without them."""
    a = report.authority
    if a is None:
        return ""
    rows = [
        [
            f"<code>{_esc(r.category, 200)}</code>",
            _esc(r.origin, 40),
            f'<td class="n">{r.outside} of {r.n}</td>',
            f'<td class="n">{r.paid}</td>',
            f'<td class="n">{r.errors or ""}</td>',
            "<br>".join(f"<code>{_esc(e, 200)}</code>" for e in r.examples),
        ]
        for r in sorted(a.categories, key=lambda r: (-r.paid, r.category))
    ]
    body = f"<p>{_esc(authority_words(report), 600)}</p>" + (
        _table(["category", "origin", "write outside", "paid", "errors", "examples"], rows, "va-authority")
        if rows
        else ""
    )
    return _more(f"Authority ({a.paid} of {a.outside} writing outside the allowed paths paid)", body)


def _formats(report: Report) -> str:
    """Which answer formats the verifier reads (the probe's references, per format) and
    what the audit showed it (Report.formats)."""
    f = report.formats
    if f is None:
        return ""
    read = {True: "read", False: "not read", None: "unknown"}
    rows = [
        [
            f"<code>{_esc(p.shows, 200)}</code>",
            f'<td class="n">{p.accepted} of {p.sampled}</td>',
            f'<td class="n">{p.errors}</td>',
            _esc(read[p.read], 40),
        ]
        for p in f.probes
    ]
    out = [
        f"<p>{_esc(f.summary, 1000)}</p>",
        _table(["format", "references accepted", "errors", ""], rows, "va-formats"),
    ]
    if f.audited_in:
        out.append(
            f"<p>Candidates rewritten into <code>{_esc(f.audited_in, 200)}</code>: {f.rewritten}; shown as "
            f"written: {f.kept}; left out: {f.left_out} (tasks whose reference it can write: "
            f"{f.tasks_in_scope} of {f.tasks_total})"
            + (f"; dropped, label not confirmed: {sum(f.relabelled.values())}" if f.relabelled else "")
            + ".</p>"
        )
    shown = ", ".join(f"{_esc(k, 200)} {n}" for k, n in f.candidates.items())
    out.append(f'<p class="va-muted">Candidates audited per format: {shown}</p>')
    return _more(f"Answer formats (reads {len(f.read)} of {len(f.probes)} probed)", "\n".join(out))


def _exploitability(report: Report) -> str:
    """The holes a slice hides from the pooled rates, the exploitable-task rate per origin
    and the reweighted debt (report/exploitability.py words them)."""
    holes = concentrated_holes(report)
    rows = [
        [
            _esc(e.origin, 40),
            f'<td class="n">{e.exploitable} of {e.tasks}</td>',
            f'<td class="n">{_pct(e.rate)}</td>',
            _esc(_ci(e.ci.low, e.ci.high), 40),
        ]
        for e in report.exploitable_tasks
    ]
    scanned = source_lines(report)
    if not holes and not rows and report.search is None and not scanned:
        return ""
    out = []
    if holes:
        out.append(
            '<p>Holes confined to a slice (the pooled rate hides them):</p><ul class="va-slice-holes">'
            + "".join(f"<li>{_esc(h, 400)}</li>" for h in holes)
            + "</ul>"
        )
    if rows:
        out.append(
            "<p>Tasks on which a wrong answer is paid:</p>"
            + _table(["origin", "exploitable tasks", "rate", "95% CI"], rows, "va-exploitable")
        )
    weighted = weighted_line(report)
    if weighted:
        out.append(f"<p>{_esc(' '.join(weighted.split()), 1000)}</p>")
    searched = [line.strip() for line in search_lines(report) if line.strip()]
    if searched:
        out.append(
            '<p>Exploit search:</p><ul class="va-search">'
            + "".join(f"<li>{_esc(line, 600)}</li>" for line in searched)
            + "</ul>"
        )
    if scanned:
        out.append(
            '<p>Source (verifier-audit scan):</p><ul class="va-source">'
            + "".join(f"<li>{_esc(line.strip(), 800)}</li>" for line in scanned if line.strip())
            + "</ul>"
        )
    return _more(f"Exploitability ({len(holes)} holes confined to a slice)", "\n".join(out))


def _settings(report: Report) -> str:
    def show(v: Any) -> str:
        return v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)

    return _more(
        f"Settings ({len(report.settings)})",
        _table(
            ["setting", "value"],
            [
                [f"<code>{_esc(k, 200)}</code>", f"<code>{_esc(show(v), 1000)}</code>"]
                for k, v in report.settings.items()
            ],
            "va-settings",
        ),
    )


def _checklist(items: list) -> str:
    """Duck-typed items (key, title, status, evidence): the checklist module is not ours."""
    rows, open_ = [], 0
    for item in items:
        status = str(getattr(item, "status", "unknown"))
        cls = status if status in ("checked", "open", "unknown") else "unknown"
        open_ += cls == "open"
        key, title, evidence = (getattr(item, f, "") or "" for f in ("key", "title", "evidence"))
        rows.append(
            [
                f'<td><span class="va-check va-check-{cls}">{_esc(status, 40)}</span></td>',
                f"<code>{_esc(key, 200)}</code>",
                _esc(title, 400),
                _esc(evidence, 2000),
            ]
        )
    return _more(
        f"Security review checklist ({len(rows)} items, {open_} open)",
        _table(["status", "key", "item", "evidence"], rows, "va-checklist"),
    )


def _slug(i: int, name: str) -> str:
    return f"v{i}-" + re.sub(r"[^A-Za-z0-9_-]+", "-", name)[:60]


def _verifier(i: int, report: Report, checklist: list | None) -> str:
    """Everything the card leaves out, collapsed, false acceptance first."""
    return "\n".join(
        [
            f'<section class="va-verifier" id="{_slug(i, report.verifier)}" data-verifier="{_esc(report.verifier, 200)}">',
            f'<h2 class="va-path"><code>{_path(report.verifier)}</code></h2>',
            f'<p class="va-muted">style {_esc(report.style, 40)}, threshold {_num(report.threshold)}</p>',
            _categories(report, "incorrect"),
            _categories(report, "correct"),
            _security_rest(report),
            _errors(report),
            _latency(report),
            _authority(report),
            _formats(report),
            _exploitability(report),
            _survival(report),
            _settings(report),
            _checklist(checklist) if checklist is not None else "",
            "</section>",
        ]
    )


def to_html(reports: list[Report], checklists: dict[str, list] | None = None) -> str:
    """The whole page as one string (write it with encoding="utf-8")."""
    first = reports[0] if reports else None
    title = "verifier-audit: " + ", ".join(r.verifier for r in reports)
    head = (
        '<p class="va-muted">No report.</p>'
        if first is None
        else f'<p class="va-header">verifier-audit {_esc(first.tool_version, 40)} · suite <code>{_esc(first.suite, 200)}</code>'
        f" · seed {first.seed} · split {_esc(first.split or 'all', 40)} · {first.n_candidates} candidates"
        f" · {len(reports)} verifier{'s' if len(reports) != 1 else ''}</p>"
    )
    parts = [*page_head(title), "<h1>verifier-audit report</h1>", head]
    if reports:
        parts += [_card(r) for r in reports]
        parts.append(
            '<p class="va-muted">False acceptance: wrong candidates the verifier paid for. False rejection: '
            "right candidates it refused. Coverage debt: severity-weighted mean of the failure categories' "
            "false acceptance (0 is best). A hole: a failure category on which a wrong answer was paid; worst "
            "first by severity, then rate. Details per verifier follow, collapsed.</p>"
        )
    parts += [_verifier(i, r, (checklists or {}).get(r.verifier)) for i, r in enumerate(reports)]
    parts.append("</body></html>\n")
    return "\n".join(parts)
