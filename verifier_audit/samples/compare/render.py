"""How a ``CompareReport`` is shown: plain text, one self-contained HTML page (inline SVG
plots, no JavaScript) and PNGs (matplotlib, optional). The figures themselves are computed
in ``pipeline``; nothing here changes them. Each plot is described once (``passk_panel``,
``support_chart``, ``entropy_chart``, ``entropy_splits_chart``, ``kl_chart``) and drawn from
that description as SVG here and as PNG by ``report.png``."""

from __future__ import annotations

import math
from pathlib import Path

from ...report.chart import Band, Bar, BarChart, Line, LinePanel, Mark, StackedBars
from ...report.png import draw_bars, draw_lines, draw_stacked, pyplot, save
from .. import metrics as M
from .models import CompareReport, Figure, ModelEntropy
from .verdict import signed_points

# --------------------------------------------------------------------------------------
# Plain text
# --------------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _ci_pts(f: Figure) -> str:
    if f.low is None or f.high is None:
        return ""
    return f" [{100 * f.low:+.1f}, {100 * f.high:+.1f}]"


def _num(x: float | None, fmt: str = ".3f") -> str:
    return "n/a" if x is None else format(x, fmt)


def _ci(f: Figure, fmt: str = ".3f") -> str:
    if f.low is None or f.high is None:
        return _num(f.value, fmt)
    return f"{_num(f.value, fmt)} [{format(f.low, fmt)}, {format(f.high, fmt)}]"


def shown_ks(k_max: int) -> list[int]:
    """Powers of two up to k_max, and k_max itself."""
    ks, k = [], 1
    while k < k_max:
        ks.append(k)
        k *= 2
    return ks + [k_max]


def token_entropy_text(e: ModelEntropy) -> str:
    if e.token_low is None:
        return "tokens: n/a (no top-K logprobs)"
    if e.token_exact:
        return f"tokens: {e.token_low:.3f} (exact, {e.logprobs_kind or 'unknown'} logprobs)"
    hi = "unbounded (give --vocab-size)" if e.token_high is None else f"{e.token_high:.3f}"
    return f"tokens: [{e.token_low:.3f}, {hi}] (top-K bounds, {e.logprobs_kind or 'unknown'} logprobs)"


def render_text(r: CompareReport) -> str:
    out = [
        f"verifier-audit compare: base {r.base.model} ({r.base.path}) vs RL {r.rl.model} ({r.rl.path})",
        f"{r.problems} problems compared, suite {r.suite}; samples per problem: base {r.base.n_min}"
        f"{'' if r.base.n_min == r.base.n_max else '-' + str(r.base.n_max)}, RL {r.rl.n_min}"
        f"{'' if r.rl.n_min == r.rl.n_max else '-' + str(r.rl.n_max)}; correctness: {r.labels}",
        "",
        f"pass@k (mean over problems; 95% paired bootstrap over problems, {r.n_boot} replicates, seed {r.seed})",
        f"  {'k':>5}  {'base':<22}{'RL':<22}base - RL (points)",
    ]
    p = r.pass_at_k
    for k in shown_ks(r.k_max):
        i = k - 1
        out.append(
            f"  {k:>5}  {_pct(p.base[i]) + f' [{100 * p.base_low[i]:.1f}, {100 * p.base_high[i]:.1f}]':<22}"
            f"{_pct(p.rl[i]) + f' [{100 * p.rl_low[i]:.1f}, {100 * p.rl_high[i]:.1f}]':<22}"
            f"{100 * p.diff[i]:+.1f} [{100 * p.diff_low[i]:+.1f}, {100 * p.diff_high[i]:+.1f}]"
        )
    x = r.crossover
    interval = "" if x.low is None else f"; 95% interval {x.low} to {x.high if x.high is not None else f'> {r.k_max}'}"
    out.append(
        f"crossover k* (base >= RL): {x.k if x.k is not None else f'none within k <= {r.k_max}'} "
        f"(the base catches up in {100 * x.bootstrap_support:.0f}% of replicates{interval})"
    )
    k = r.compression.k
    out.append(f"pass@{k} base - pass@1 RL: {signed_points(r.headroom.value)} points{_ci_pts(r.headroom)}")
    c = r.compression
    out.append(
        f"compression ratio at k={k}: {_ci(c.ratio, '.2f')}"
        + (f" ({c.reason})" if c.reason else "  (pass@1 gain / base's pass@k - pass@1 gap)")
    )
    s = r.support
    out += [
        "",
        f"support (alpha {s.alpha:g}; epsilon = 1 - alpha^(1/n): base {s.epsilon_base:.4f}, RL "
        f"{s.epsilon_rl:.4f}; rule: {s.rule})",
    ]
    for label, sc in (("problems", s.problems), ("answers", s.answers)):
        out.append(
            f"  {label:<9} preservation {sc.preservation}, shrinkage {sc.shrinkage}, expansion {sc.expansion}, "
            f"out of support {sc.out_of_support}; SRR {_ci(sc.srr)}, NDR {_ci(sc.ndr)}, SDS {_ci(sc.sds)}, "
            f"NSCR {_ci(sc.nscr)}"
        )
    out.append(
        "  planner: "
        + "; ".join(f"epsilon {row.epsilon:g} needs {row.samples}" for row in s.plan)
        + f" samples per problem (confidence {1 - s.alpha:g})"
    )
    out += ["", "entropy (nats; answers: mean over problems; tokens: mean over tokens)"]
    for name, e in (("base", r.entropy.base), ("RL", r.entropy.rl)):
        out.append(
            f"  {name:<5} answers {_num(e.answer_plugin)} plug-in, {_num(e.answer_miller_madow)} Miller-Madow, "
            f"unparseable {_pct(e.unparseable_rate)}; {token_entropy_text(e)}"
        )
    out.append("")
    kl = r.kl
    if kl.available:
        out.append(
            f"KL(RL || base) from {kl.sequences} RL samples, {kl.tokens} tokens: per token k1 "
            f"{_ci(kl.per_token_k1, '.4f')}, k3 {_ci(kl.per_token_k3, '.4f')}; per sequence k1 "
            f"{_ci(kl.per_sequence_k1, '.3f')}, k3 {_ci(kl.per_sequence_k3, '.3f')}"
        )
        out += [f"  note: {n}" for n in kl.notes]
    else:
        out.append(f"KL(RL || base): not computed: {kl.reason}")
    out += authority_text(r)
    if r.splits:
        out += [
            "",
            f"by split (delta = RL - base, points; k = {r.compression.k} or the split's fewest samples)",
            f"  {'split':<9}{'problems':>8}  {'pass@1 base/RL':<16}{'delta':>7}  {'pass@k base/RL':<16}{'delta':>7}"
            f"  {'vs train':>8}  {'P/S/E/O':<13}{'NSCR':>7}  {'H_ans base/RL':<14}",
        ]
        for sp in r.splits:
            out.append(
                f"  {sp.split:<9}{sp.problems:>8}  {f'{100 * sp.pass1_base:.1f}/{100 * sp.pass1_rl:.1f}':<16}"
                f"{signed_points(sp.delta_pass1.value):>7}  {f'{100 * sp.passk_base:.1f}/{100 * sp.passk_rl:.1f}':<16}"
                f"{signed_points(sp.delta_passk.value):>7}  {signed_points(sp.delta_pass1_vs_train) if sp.delta_pass1_vs_train is not None else '':>8}"
                f"  {f'{sp.preservation}/{sp.shrinkage}/{sp.expansion}/{sp.out_of_support}':<13}{_num(sp.nscr, '+.3f'):>7}"
                f"  {_num(sp.answer_entropy_base, '.2f')}/{_num(sp.answer_entropy_rl, '.2f')}"
            )
    if r.warnings:
        out += [""] + [f"warning: {w}" for w in r.warnings]
    out += ["", "verdict: " + r.verdict.text]
    return "\n".join(out) + "\n"


def authority_text(r: CompareReport) -> list[str]:
    """The authority block (tool-call samples only; samples/authority.py)."""
    from .. import authority as A

    a = r.authority
    if a is None:
        return []
    out = [
        "",
        "authority (tool calls; the task's policy: read < write < delete < admin; shares of readable samples, "
        "Wilson 95%)",
    ]
    for name, f in (("base", a.base), ("RL", a.rl)):
        out.append(f"  {name:<5} {A.figures_line(f)}")
    out.append(f"  change: {a.change.text}")
    for ch in a.split_changes:
        out.append(
            f"  {ch.split:<9} {A.WHAT} {A.pct(ch.base_rate)} → {A.pct(ch.rl_rate)} ({A.points(ch.diff)} points"
            + ("" if ch.low is None else f", 95% CI [{A.points(ch.low)}, {A.points(ch.high)}]")
            + f"); pass@1 {signed_points(ch.delta_pass1)} points"
        )
    return out


def authority_html(r: CompareReport) -> str:
    H = _h()
    e = H.esc
    from .. import authority as A

    a = r.authority
    if a is None:
        return ""
    rows = []
    for f in (a.base, a.rl, *a.splits):
        unp = f"{f.unparseable}" + (
            f" ({', '.join(f'{k} {v}' for k, v in list(f.unparseable_reasons.items())[:3])})" if f.unparseable else ""
        )
        rows.append(
            [
                e("base" if f.role == "base" else "RL"),
                e(f.split),
                f'<td class="n">{f.samples}</td>',
                f'<td class="n">{f.parsed}</td>',
                e(unp, 400),
                *(
                    f'<td class="n" data-level="{lv}">{H.percent(f.highest_share.get(lv, 0.0))}</td>'
                    for lv in A.HIGHEST
                ),
                f'<td class="n" data-rate="{H.num(f.violation_rate)}">{H.percent(f.violation_rate)} ({f.violating}/'
                f"{f.parsed}) {H.ci(f.violation_ci.low, f.violation_ci.high)}</td>",
                e(A.tools_text(f), 600),
            ]
        )
    table = H.table(
        [
            "model",
            "split",
            "samples",
            "readable",
            "unparseable",
            *A.HIGHEST,
            "outside the policy [95% CI]",
            "tools (level, calls)",
        ],
        rows,
        "vc-authority",
    )
    changes = H.table(
        ["split", "base", "RL", "RL - base (points) [95% CI]", "pass@1 RL - base (points)"],
        [
            [
                e(ch.split),
                e(A.pct(ch.base_rate)),
                e(A.pct(ch.rl_rate)),
                f'<td class="n" data-direction="{e(ch.direction, 20)}">{e(A.points(ch.diff))}'
                + ("" if ch.low is None else f" [{e(A.points(ch.low))}, {e(A.points(ch.high))}]")
                + "</td>",
                e(signed_points(ch.delta_pass1)),
            ]
            for ch in (a.change, *a.split_changes)
        ],
        "vc-authority-change",
    )
    return (
        '<h2>Authority</h2><p class="va-muted">Tool-call samples: the privilege of the tools called (the task\'s '
        "policy: read &lt; write &lt; delete &lt; admin; columns read to none: share of readable samples whose "
        "highest level is that one) and the share of readable samples with a call outside the task's policy "
        "(Wilson 95%). Unparseable samples are counted apart. The change: 95% paired bootstrap over problems."
        f'</p><p id="authority-change" data-direction="{e(a.change.direction, 20)}">{e(a.change.text, 600)}</p>'
        + table
        + changes
    )


# --------------------------------------------------------------------------------------
# HTML: one self-contained page, inline SVG, no JavaScript (the rules of report/html.py,
# whose escaping helpers and style sheet are reused, not copied)
# --------------------------------------------------------------------------------------

COLORS = {"base": "#3b7dd8", "rl": "#d35400"}
SEGMENTS = {"preservation": "#2e8b57", "shrinkage": "#c0392b", "expansion": "#8e44ad", "out_of_support": "#b5b5b5"}
EXTRA_CSS = (
    ".vc-plot text{font:11px system-ui,sans-serif;fill:#333}.vc-axis{stroke:#888}.vc-grid{stroke:#e4e4e4}"
    ".vc-band{stroke:none;opacity:.22}.vc-line{fill:none;stroke-width:2}.vc-base{fill:#3b7dd8;stroke:#3b7dd8}"
    ".vc-rl{fill:#d35400;stroke:#d35400}.vc-line.vc-base,.vc-line.vc-rl{fill:none}.vc-cross{stroke:#555;"
    "stroke-dasharray:4 3}.vc-whisker{stroke:#222;stroke-width:1.2;fill:none}.vc-unbounded{stroke:#222;"
    "stroke-dasharray:2 2}.vc-verdict{font-size:15px;background:#f5f8ff;border-left:4px solid #3b7dd8;padding:8px 12px}"
    ".vc-warn{color:#8a5300}" + "".join(f".vc-seg-{k}{{fill:{v}}}" for k, v in SEGMENTS.items())
)


def _h():
    from ...report import _html as H

    return H


def _svg_open(plot: str, width: int, height: int, title: str) -> str:
    H = _h()
    return (
        f'<svg class="vc-plot" data-plot="{plot}" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img"><title>{H.esc(title, 300)}</title>'
    )


# What each plot shows, said once (``report.chart``): the SVG functions below and
# ``write_pngs`` draw these descriptions, nothing else.

SERIES_NAMES = {"base": "base", "rl": "RL"}


def passk_panel(r: CompareReport) -> LinePanel:
    """Both pass@k curves with their 95% bootstrap bands on a log2 k axis; the crossover
    as a mark."""
    p = r.pass_at_k
    sides = (("base", r.base.model, p.base, p.base_low, p.base_high), ("rl", r.rl.model, p.rl, p.rl_low, p.rl_high))
    kmax = max(p.ks)
    return LinePanel(
        plot="passk",
        title="pass@k with 95% bootstrap bands, log k axis",
        lines=[Line(s, SERIES_NAMES[s], p.ks, mean, COLORS[s], name=model) for s, model, mean, _, _ in sides],
        bands=[Band(s, f"{SERIES_NAMES[s]}, 95% band", p.ks, lo, hi, COLORS[s]) for s, _, _, lo, hi in sides],
        marks=[] if r.crossover.k is None else [Mark("crossover", r.crossover.k, "#555", f"k* = {r.crossover.k}")],
        x_label="k (samples per problem, log scale)",
        y_label="pass@k",
        x_ticks=shown_ks(kmax),
        log2_x=kmax > 1,
        y_range=(0.0, 1.0),
    )


def support_chart(r: CompareReport) -> StackedBars:
    """The four support categories stacked, for problems and for answers, with each level's NSCR."""
    rows = []
    for level, sc in (("problems", r.support.problems), ("answers", r.support.answers)):
        nscr = "n/a" if sc.nscr.value is None else f"{sc.nscr.value:+.3f}"
        rows.append((level, {c: getattr(sc, c) for c in M.CATEGORIES}, f"NSCR {nscr}"))
    return StackedBars(
        plot="support",
        title="empirical support: preservation, shrinkage, expansion, out of support",
        categories={c: SEGMENTS[c] for c in M.CATEGORIES},
        rows=rows,
        caption=f"alpha {r.support.alpha:g}, rule {r.support.rule}",
    )


def _bars(plot: str, title: str, rows: list[tuple[str, list[Bar]]]) -> BarChart:
    return BarChart(plot, title, rows, "nats", SERIES_NAMES, COLORS)


def entropy_chart(r: CompareReport) -> BarChart:
    """Answer entropy (plug-in, Miller-Madow) and token entropy (its bounds) per model."""
    eb, er = r.entropy.base, r.entropy.rl

    def tok(e: ModelEntropy, series: str) -> Bar:
        if e.token_low is None:
            return Bar(series, None)
        if e.token_exact:
            return Bar(series, e.token_low)
        low = e.token_low if e.token_high is not None else None
        return Bar(series, e.token_low, low, e.token_high, e.token_high is None)

    rows = [
        ("answers, plug-in", [Bar("base", eb.answer_plugin), Bar("rl", er.answer_plugin)]),
        ("answers, Miller-Madow", [Bar("base", eb.answer_miller_madow), Bar("rl", er.answer_miller_madow)]),
        ("tokens (lower bound, range)", [tok(eb, "base"), tok(er, "rl")]),
    ]
    return _bars("entropy", "entropy in nats: answer level (mean over problems) and token level (bounds)", rows)


def entropy_splits_chart(r: CompareReport) -> BarChart:
    rows = [(s.split, [Bar("base", s.answer_entropy_base), Bar("rl", s.answer_entropy_rl)]) for s in r.splits]
    return _bars("entropy-splits", "answer entropy (Miller-Madow, nats) per split", rows)


def kl_chart(r: CompareReport) -> BarChart:
    k3, k1 = r.kl.per_token_k3, r.kl.per_token_k1
    rows = [
        ("all, k3 per token", [Bar("rl", k3.value, k3.low, k3.high)]),
        ("all, k1 per token", [Bar("rl", k1.value, k1.low, k1.high)]),
    ]
    rows += [(f"{s.split}, k3 per token", [Bar("rl", s.kl_k3_per_token)]) for s in r.splits]
    return _bars("kl", "KL(RL || base) per token, nats", rows)


def svg_pass_at_k(r: CompareReport) -> str:
    """``passk_panel`` as SVG: fixed 0-100% grid, the legend at the right with each model's
    name shortened (in full in its tooltip)."""
    H = _h()
    panel = passk_panel(r)
    W, Hh, left, right, top, bottom = 800, 360, 56, 190, 16, 44
    pw, ph = W - left - right, Hh - top - bottom
    kmax = max(max(line.xs) for line in panel.lines)
    span = math.log2(kmax) if panel.log2_x else 1.0

    def x(k: float) -> float:
        return left + pw * (math.log2(k) / span if panel.log2_x else 0.5)

    def y(v: float) -> float:
        return top + ph * (1 - min(max(v, 0.0), 1.0))

    out = [_svg_open(panel.plot, W, Hh, panel.title)]
    for t in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(
            f'<line class="vc-grid" x1="{left}" y1="{y(t):.1f}" x2="{left + pw}" y2="{y(t):.1f}"/>'
            f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{100 * t:.0f}%</text>'
        )
    for k in panel.x_ticks or []:
        out.append(
            f'<line class="vc-grid" x1="{x(k):.1f}" y1="{top}" x2="{x(k):.1f}" y2="{top + ph}"/>'
            f'<text x="{x(k):.1f}" y="{top + ph + 16}" text-anchor="middle">{k}</text>'
        )
    out.append(f'<text x="{left + pw / 2:.1f}" y="{Hh - 6}" text-anchor="middle">{H.esc(panel.x_label, 80)}</text>')
    for band, line in zip(panel.bands, panel.lines):
        pts_hi = [f"{x(k):.1f},{y(v):.1f}" for k, v in zip(band.xs, band.high)]
        pts_lo = [f"{x(k):.1f},{y(v):.1f}" for k, v in zip(reversed(band.xs), reversed(band.low))]
        out.append(
            f'<polygon class="vc-band vc-{band.series}" data-series="{band.series}" '
            f'points="{" ".join(pts_hi + pts_lo)}"/>'
        )
        d = "M" + " L".join(f"{x(k):.1f} {y(v):.1f}" for k, v in zip(line.xs, line.ys))
        out.append(
            f'<path class="vc-line vc-{line.series}" data-series="{line.series}" data-points="{len(line.xs)}" '
            f'data-pass1="{H.num(line.ys[0])}" data-passk="{H.num(line.ys[-1])}" d="{d}"/>'
        )
    for m in panel.marks:
        xc = x(m.at)
        out.append(
            f'<line class="vc-cross" data-k="{m.at}" x1="{xc:.1f}" y1="{top}" x2="{xc:.1f}" '
            f'y2="{top + ph}"><title>crossover {m.label}</title></line>'
        )
    out.append(
        f'<line class="vc-axis" x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}"/>'
        f'<line class="vc-axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}"/>'
    )
    for i, line in enumerate(panel.lines):
        ly, name = top + 14 + 20 * i, line.name
        out.append(
            f'<rect class="vc-{line.series}" x="{left + pw + 10}" y="{ly - 9}" width="12" height="10"/>'
            f'<text x="{left + pw + 26}" y="{ly}">{line.label}: '
            f"{H.esc(name if len(name) <= 24 else name[:23] + '…', 40)}<title>{H.esc(name, 300)}</title></text>"
        )
    for m in panel.marks:
        out.append(f'<text x="{left + pw + 10}" y="{top + 60}">{m.label}</text>')
    out.append("</svg>")
    return "\n".join(out)


def svg_support(r: CompareReport) -> str:
    """``support_chart`` as SVG: the legend on top, the count in each wide enough segment."""
    H = _h()
    chart = support_chart(r)
    W, label_w, bar_w, row_h, top = 760, 90, 520, 30, 28
    Hh = top + row_h * len(chart.rows) + 30
    out = [_svg_open(chart.plot, W, Hh, chart.title)]
    for i, cat in enumerate(chart.categories):
        lx = label_w + i * 150
        out.append(
            f'<rect class="vc-seg-{cat}" x="{lx}" y="6" width="12" height="10"/>'
            f'<text x="{lx + 16}" y="15">{chart.label(cat)}</text>'
        )
    for j, (level, counts, note) in enumerate(chart.rows):
        y = top + j * row_h
        total = sum(counts.values())
        out.append(f'<text x="{label_w - 8}" y="{y + 16}" text-anchor="end">{level}</text>')
        xpos = float(label_w)
        for cat in chart.categories:
            w = bar_w * counts[cat] / total if total else 0.0
            out.append(
                f'<rect class="vc-seg vc-seg-{cat}" data-level="{level}" data-category="{cat}" '
                f'data-count="{counts[cat]}" x="{xpos:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 8}">'
                f"<title>{level}: {chart.label(cat)} {counts[cat]}</title></rect>"
            )
            if w >= 22:
                out.append(
                    f'<text x="{xpos + w / 2:.1f}" y="{y + 17}" text-anchor="middle" fill="#fff">{counts[cat]}</text>'
                )
            xpos += w
        out.append(f'<text x="{label_w + bar_w + 8}" y="{y + 16}">{note}</text>')
    out.append(f'<text x="{label_w}" y="{Hh - 6}">{H.esc(chart.caption, 80)}</text></svg>')
    return "\n".join(out)


def _svg_hbars(chart: BarChart) -> str:
    """A ``BarChart`` as SVG: grouped horizontal bars, a whisker for an interval, a dashed
    whisker to the edge for an unknown upper bound."""
    H = _h()
    W, label_w, bar_w, bar_h, gap, top = 760, 190, 470, 12, 10, 24
    rows = chart.rows
    values = [v for _, bars in rows for b in bars for v in (b.value, b.low, b.high) if v is not None]
    vmax = max([v for v in values if math.isfinite(v)] + [1e-9]) * 1.1
    n_bars = max((len(b) for _, b in rows), default=1)
    row_h = n_bars * (bar_h + 2) + gap
    Hh = top + row_h * len(rows) + 10

    def x(v: float) -> float:
        return label_w + bar_w * min(max(v, 0.0), vmax) / vmax

    out = [_svg_open(chart.plot, W, Hh, chart.title)]
    for i, series in enumerate(chart.series()):
        out.append(
            f'<rect class="vc-{series}" x="{label_w + 120 * i}" y="6" width="12" height="10"/>'
            f'<text x="{label_w + 16 + 120 * i}" y="15">{chart.names[series]}</text>'
        )
    for t in range(5):
        v = vmax * t / 4
        out.append(f'<line class="vc-grid" x1="{x(v):.1f}" y1="{top - 2}" x2="{x(v):.1f}" y2="{Hh - 8}"/>')
    for j, (label, bars) in enumerate(rows):
        y0 = top + j * row_h
        out.append(f'<text x="{label_w - 8}" y="{y0 + bar_h + 2}" text-anchor="end">{H.esc(label, 60)}</text>')
        for i, b in enumerate(bars):
            y = y0 + i * (bar_h + 2)
            if b.value is None:
                out.append(f'<text x="{label_w + 4}" y="{y + bar_h - 2}" data-series="{b.series}">n/a</text>')
                continue
            val = b.value
            out.append(
                f'<rect class="vc-bar vc-{b.series}" data-series="{b.series}" data-row="{H.esc(label, 60)}" '
                f'data-value="{H.num(val)}" x="{label_w}" y="{y}" width="{x(val) - label_w:.1f}" '
                f'height="{bar_h}"><title>{H.esc(label, 60)}, {b.series}: {val:.4g} {chart.unit}</title></rect>'
            )
            mid = y + bar_h / 2
            if b.low is not None and b.high is not None:
                lo, hi = b.low, b.high
                out.append(
                    f'<path class="vc-whisker" d="M{x(lo):.1f} {mid:.1f}H{x(hi):.1f}M{x(lo):.1f} {mid - 4:.1f}'
                    f'V{mid + 4:.1f}M{x(hi):.1f} {mid - 4:.1f}V{mid + 4:.1f}"/>'
                )
            elif b.unbounded:
                out.append(
                    f'<path class="vc-unbounded" d="M{x(val):.1f} {mid:.1f}H{label_w + bar_w:.1f}">'
                    f"<title>upper bound unknown (no vocabulary size)</title></path>"
                )
            out.append(f'<text x="{label_w + bar_w + 6}" y="{y + bar_h - 2}">{val:.3g}</text>')
    out.append("</svg>")
    return "\n".join(out)


def svg_entropy(r: CompareReport) -> str:
    return _svg_hbars(entropy_chart(r))


def svg_entropy_splits(r: CompareReport) -> str:
    return _svg_hbars(entropy_splits_chart(r))


def svg_kl(r: CompareReport) -> str:
    return _svg_hbars(kl_chart(r))


def render_html(r: CompareReport) -> str:
    """The page as one string (write it with encoding="utf-8")."""
    H = _h()
    e = H.esc
    p = r.pass_at_k
    title = f"verifier-audit compare: {r.base.model} vs {r.rl.model}"
    rows = []
    for k in shown_ks(r.k_max):
        i = k - 1
        rows.append(
            [
                f'<td class="n">{k}</td>',
                f'<td class="n">{H.percent(p.base[i])} {H.ci(p.base_low[i], p.base_high[i])}</td>',
                f'<td class="n">{H.percent(p.rl[i])} {H.ci(p.rl_low[i], p.rl_high[i])}</td>',
                f'<td class="n">{100 * p.diff[i]:+.1f} [{100 * p.diff_low[i]:+.1f}, {100 * p.diff_high[i]:+.1f}]</td>',
            ]
        )
    passk_table = H.table(["k", "base", "RL", "base - RL (points)"], rows, "vc-passk")
    x = r.crossover
    figures = H.table(
        ["figure", "value"],
        [
            [
                "crossover k*",
                e(
                    f"{x.k if x.k is not None else 'none within k <= ' + str(r.k_max)} (the base catches up "
                    f"in {100 * x.bootstrap_support:.0f}% of replicates)"
                ),
            ],
            [
                e(f"pass@{r.compression.k} base - pass@1 RL"),
                e(f"{signed_points(r.headroom.value)} points{_ci_pts(r.headroom)}"),
            ],
            [
                e(f"compression ratio at k={r.compression.k}"),
                e(_ci(r.compression.ratio, ".2f") + (f" ({r.compression.reason})" if r.compression.reason else "")),
            ],
        ],
        "vc-figures",
    )
    s = r.support
    sup_rows = [
        [
            e(level),
            *(f'<td class="n">{getattr(sc, c)}</td>' for c in M.CATEGORIES),
            *(e(_ci(getattr(sc, m))) for m in ("srr", "ndr", "sds", "nscr")),
        ]
        for level, sc in (("problems", s.problems), ("answers", s.answers))
    ]
    sup_table = H.table(
        ["level", "preservation", "shrinkage", "expansion", "out of support", "SRR", "NDR", "SDS", "NSCR"],
        sup_rows,
        "vc-support",
    )
    plan = "; ".join(f"epsilon {row.epsilon:g}: {row.samples} samples" for row in s.plan)
    ent_rows = [
        [
            e(name),
            e(_num(en.answer_plugin)),
            e(_num(en.answer_miller_madow)),
            e(_pct(en.unparseable_rate)),
            e(token_entropy_text(en).removeprefix("tokens: ")),
        ]
        for name, en in (("base", r.entropy.base), ("RL", r.entropy.rl))
    ]
    ent_table = H.table(
        ["model", "answers, plug-in", "answers, Miller-Madow", "unparseable", "tokens"], ent_rows, "vc-entropy"
    )
    kl = r.kl
    if kl.available:
        kl_html = (
            H.table(
                ["estimate", "per token", "per sequence"],
                [
                    ["k1 = -log r", e(_ci(kl.per_token_k1, ".4f")), e(_ci(kl.per_sequence_k1, ".3f"))],
                    ["k3 = (r - 1) - log r", e(_ci(kl.per_token_k3, ".4f")), e(_ci(kl.per_sequence_k3, ".3f"))],
                ],
                "vc-kl",
            )
            + f'<p class="va-muted">{kl.sequences} RL samples, {kl.tokens} tokens; r = p_base(x) / p_rl(x)</p>'
            + "".join(f'<p class="vc-warn">{e(n, 1000)}</p>' for n in kl.notes)
            + svg_kl(r)
        )
    else:
        kl_html = f'<p class="vc-kl-missing">Not computed: {e(kl.reason, 1000)}</p>'
    split_rows = [
        [
            e(sp.split),
            f'<td class="n">{sp.problems}</td>',
            e(f"{100 * sp.pass1_base:.1f} / {100 * sp.pass1_rl:.1f}"),
            e(signed_points(sp.delta_pass1.value) + _ci_pts(sp.delta_pass1)),
            e(f"{100 * sp.passk_base:.1f} / {100 * sp.passk_rl:.1f}"),
            e(signed_points(sp.delta_passk.value) + _ci_pts(sp.delta_passk)),
            e(signed_points(sp.delta_pass1_vs_train) if sp.delta_pass1_vs_train is not None else ""),
            e(f"{sp.preservation}/{sp.shrinkage}/{sp.expansion}/{sp.out_of_support}"),
            e(_num(sp.nscr, "+.3f")),
            e(f"{_num(sp.answer_entropy_base, '.2f')} / {_num(sp.answer_entropy_rl, '.2f')}"),
            e(_num(sp.kl_k3_per_token, ".4f")),
        ]
        for sp in r.splits
    ]
    split_table = H.table(
        [
            "split",
            "problems",
            "pass@1 base / RL",
            "delta",
            f"pass@{r.compression.k} base / RL",
            "delta",
            "delta pass@1 vs train",
            "P/S/E/O",
            "NSCR",
            "answer entropy base / RL",
            "KL k3 / token",
        ],
        split_rows,
        "vc-splits",
    )
    limit = 500
    prob_rows = [
        [
            f"<code>{e(pr.task_id, 200)}</code>",
            e(pr.split),
            e(f"{pr.c_base}/{pr.n_base}"),
            e(f"{pr.c_rl}/{pr.n_rl}"),
            e(pr.category.replace("_", " ")),
            e("; ".join(f"{a}: {c.replace('_', ' ')}" for a, c in pr.answers.items()), 1000),
            e(_num(pr.entropy_base, ".2f")),
            e(_num(pr.entropy_rl, ".2f")),
        ]
        for pr in r.problem_rows[:limit]
    ]
    prob_table = H.table(
        ["task", "split", "base correct", "RL correct", "support", "correct answers", "H base", "H RL"],
        prob_rows,
        "vc-problems",
    )
    more = (
        f'<p class="va-muted">{len(r.problem_rows) - limit} more problems in the JSON.</p>'
        if len(r.problem_rows) > limit
        else ""
    )
    parts = [
        *H.page_head(title, EXTRA_CSS),
        "<h1>verifier-audit compare</h1>",
        f'<p class="va-header">verifier-audit {e(r.tool_version, 40)} · base <code>{e(r.base.model, 200)}</code> '
        f"({e(r.base.path, 300)}) vs RL <code>{e(r.rl.model, 200)}</code> ({e(r.rl.path, 300)}) · suite "
        f"<code>{e(r.suite, 200)}</code> · {r.problems} problems · correctness: {e(r.labels, 300)}</p>",
        f'<p class="vc-verdict" id="verdict" data-kind="{e(r.verdict.kind, 60)}">{e(r.verdict.text, 3000)}</p>',
        "".join(f'<p class="vc-warn">warning: {e(w, 1000)}</p>' for w in r.warnings),
        f'<h2>pass@k</h2><p class="va-muted">Mean over problems of the unbiased estimator; bands: 95% paired '
        f"bootstrap over problems ({r.n_boot} replicates, seed {r.seed}).</p>",
        svg_pass_at_k(r),
        passk_table,
        figures,
        f'<h2>Empirical support</h2><p class="va-muted">epsilon = 1 - alpha^(1/n): base {s.epsilon_base:.4f}, RL '
        f"{s.epsilon_rl:.4f} (alpha {s.alpha:g}, rule {e(s.rule, 20)}). Planner: {e(plan, 500)}.</p>",
        svg_support(r),
        sup_table,
        "<h2>Entropy</h2>",
        svg_entropy(r),
        ent_table,
        "<h3>Answer entropy per split</h3>",
        svg_entropy_splits(r),
        "<h2>KL(RL || base)</h2>",
        kl_html,
        authority_html(r),
        "<h2>By split</h2>",
        split_table,
        "<h2>Problems</h2>",
        prob_table,
        more,
        "</body></html>\n",
    ]
    return "\n".join(parts)


# --------------------------------------------------------------------------------------
# PNG (matplotlib, optional)
# --------------------------------------------------------------------------------------


def write_pngs(r: CompareReport, out_dir) -> list[Path]:
    """The HTML's plots as PNG files in ``out_dir``, drawn from the same descriptions:
    passk.png, support.png, entropy.png (per model, then per split) and, when KL was
    computed, kl.png. Raises InputError when matplotlib is missing."""
    plt = pyplot()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    fig, ax = plt.subplots(figsize=(7, 4))
    draw_lines(ax, passk_panel(r))
    written.append(save(fig, out_dir / "passk.png", dpi=110))
    fig, ax = plt.subplots(figsize=(7, 2.6))
    draw_stacked(ax, support_chart(r))
    written.append(save(fig, out_dir / "support.png", dpi=110))
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 5.6))
    draw_bars(a1, entropy_chart(r))
    draw_bars(a2, entropy_splits_chart(r))
    written.append(save(fig, out_dir / "entropy.png", dpi=110))
    if r.kl.available:
        fig, ax = plt.subplots(figsize=(7, 3))
        draw_bars(ax, kl_chart(r))
        written.append(save(fig, out_dir / "kl.png", dpi=110))
    return written
