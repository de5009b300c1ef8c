"""How a ``CompareReport`` is shown: plain text, one self-contained HTML page (inline SVG
plots, no JavaScript) and PNGs (matplotlib, optional). The figures themselves are computed
in ``pipeline``; nothing here changes them."""

from __future__ import annotations

import math
from pathlib import Path

from ...report.png import pyplot
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


def svg_pass_at_k(r: CompareReport) -> str:
    """Both pass@k curves with their 95% bootstrap bands on a log2 k axis; the crossover
    as a dashed vertical line."""
    H = _h()
    W, Hh, left, right, top, bottom = 800, 360, 56, 190, 16, 44
    pw, ph = W - left - right, Hh - top - bottom
    p = r.pass_at_k
    kmax = max(p.ks)
    span = math.log2(kmax) if kmax > 1 else 1.0

    def x(k: float) -> float:
        return left + pw * (math.log2(k) / span if kmax > 1 else 0.5)

    def y(v: float) -> float:
        return top + ph * (1 - min(max(v, 0.0), 1.0))

    out = [_svg_open("passk", W, Hh, "pass@k with 95% bootstrap bands, log k axis")]
    for t in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(
            f'<line class="vc-grid" x1="{left}" y1="{y(t):.1f}" x2="{left + pw}" y2="{y(t):.1f}"/>'
            f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{100 * t:.0f}%</text>'
        )
    for k in shown_ks(kmax):
        out.append(
            f'<line class="vc-grid" x1="{x(k):.1f}" y1="{top}" x2="{x(k):.1f}" y2="{top + ph}"/>'
            f'<text x="{x(k):.1f}" y="{top + ph + 16}" text-anchor="middle">{k}</text>'
        )
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{Hh - 6}" text-anchor="middle">k (samples per problem, log scale)</text>'
    )
    for series, mean, lo, hi in (("base", p.base, p.base_low, p.base_high), ("rl", p.rl, p.rl_low, p.rl_high)):
        pts_hi = [f"{x(k):.1f},{y(v):.1f}" for k, v in zip(p.ks, hi)]
        pts_lo = [f"{x(k):.1f},{y(v):.1f}" for k, v in zip(reversed(p.ks), reversed(lo))]
        out.append(
            f'<polygon class="vc-band vc-{series}" data-series="{series}" points="{" ".join(pts_hi + pts_lo)}"/>'
        )
        d = "M" + " L".join(f"{x(k):.1f} {y(v):.1f}" for k, v in zip(p.ks, mean))
        out.append(
            f'<path class="vc-line vc-{series}" data-series="{series}" data-points="{len(p.ks)}" '
            f'data-pass1="{H.num(mean[0])}" data-passk="{H.num(mean[-1])}" d="{d}"/>'
        )
    if r.crossover.k is not None:
        xc = x(r.crossover.k)
        out.append(
            f'<line class="vc-cross" data-k="{r.crossover.k}" x1="{xc:.1f}" y1="{top}" x2="{xc:.1f}" '
            f'y2="{top + ph}"><title>crossover k* = {r.crossover.k}</title></line>'
        )
    out.append(
        f'<line class="vc-axis" x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}"/>'
        f'<line class="vc-axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}"/>'
    )
    for i, (series, name) in enumerate((("base", r.base.model), ("rl", r.rl.model))):
        ly = top + 14 + 20 * i
        out.append(
            f'<rect class="vc-{series}" x="{left + pw + 10}" y="{ly - 9}" width="12" height="10"/>'
            f'<text x="{left + pw + 26}" y="{ly}">{"base" if series == "base" else "RL"}: '
            f"{H.esc(name if len(name) <= 24 else name[:23] + '…', 40)}<title>{H.esc(name, 300)}</title></text>"
        )
    if r.crossover.k is not None:
        out.append(f'<text x="{left + pw + 10}" y="{top + 60}">k* = {r.crossover.k}</text>')
    out.append("</svg>")
    return "\n".join(out)


def svg_support(r: CompareReport) -> str:
    """Stacked bars of the four support categories, for problems and for answers."""
    H = _h()
    W, label_w, bar_w, row_h, top = 760, 90, 520, 30, 28
    rows = (("problems", r.support.problems), ("answers", r.support.answers))
    Hh = top + row_h * len(rows) + 30
    out = [_svg_open("support", W, Hh, "empirical support: preservation, shrinkage, expansion, out of support")]
    for i, cat in enumerate(M.CATEGORIES):
        lx = label_w + i * 150
        out.append(
            f'<rect class="vc-seg-{cat}" x="{lx}" y="6" width="12" height="10"/>'
            f'<text x="{lx + 16}" y="15">{cat.replace("_", " ")}</text>'
        )
    for j, (level, sc) in enumerate(rows):
        y = top + j * row_h
        counts = {c: getattr(sc, c) for c in M.CATEGORIES}
        total = sum(counts.values())
        out.append(f'<text x="{label_w - 8}" y="{y + 16}" text-anchor="end">{level}</text>')
        xpos = float(label_w)
        for cat in M.CATEGORIES:
            w = bar_w * counts[cat] / total if total else 0.0
            out.append(
                f'<rect class="vc-seg vc-seg-{cat}" data-level="{level}" data-category="{cat}" '
                f'data-count="{counts[cat]}" x="{xpos:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 8}">'
                f"<title>{level}: {cat.replace('_', ' ')} {counts[cat]}</title></rect>"
            )
            if w >= 22:
                out.append(
                    f'<text x="{xpos + w / 2:.1f}" y="{y + 17}" text-anchor="middle" fill="#fff">{counts[cat]}</text>'
                )
            xpos += w
        nscr = "n/a" if sc.nscr.value is None else f"{sc.nscr.value:+.3f}"
        out.append(f'<text x="{label_w + bar_w + 8}" y="{y + 16}">NSCR {nscr}</text>')
    out.append(
        f'<text x="{label_w}" y="{Hh - 6}">{H.esc(f"alpha {r.support.alpha:g}, rule {r.support.rule}", 80)}'
        f"</text></svg>"
    )
    return "\n".join(out)


def _svg_hbars(
    plot: str,
    title: str,
    rows: list[tuple[str, list[tuple[str, float | None, float | None, float | None, bool]]]],
    unit: str,
) -> str:
    """Grouped horizontal bars: rows of (label, [(series, value, low, high, unbounded)]).
    ``low``/``high`` draw a whisker; ``unbounded`` a dashed whisker to the edge."""
    H = _h()
    W, label_w, bar_w, bar_h, gap, top = 760, 190, 470, 12, 10, 24
    values = [v for _, bars in rows for (_, val, lo, hi, _) in bars for v in (val, lo, hi) if v is not None]
    vmax = max([v for v in values if math.isfinite(v)] + [1e-9]) * 1.1
    n_bars = max((len(b) for _, b in rows), default=1)
    row_h = n_bars * (bar_h + 2) + gap
    Hh = top + row_h * len(rows) + 10

    def x(v: float) -> float:
        return label_w + bar_w * min(max(v, 0.0), vmax) / vmax

    out = [_svg_open(plot, W, Hh, title)]
    present = {series for _, bars in rows for (series, *_) in bars}
    for i, (series, name) in enumerate((s, n) for s, n in (("base", "base"), ("rl", "RL")) if s in present):
        out.append(
            f'<rect class="vc-{series}" x="{label_w + 120 * i}" y="6" width="12" height="10"/>'
            f'<text x="{label_w + 16 + 120 * i}" y="15">{name}</text>'
        )
    for t in range(5):
        v = vmax * t / 4
        out.append(f'<line class="vc-grid" x1="{x(v):.1f}" y1="{top - 2}" x2="{x(v):.1f}" y2="{Hh - 8}"/>')
    for j, (label, bars) in enumerate(rows):
        y0 = top + j * row_h
        out.append(f'<text x="{label_w - 8}" y="{y0 + bar_h + 2}" text-anchor="end">{H.esc(label, 60)}</text>')
        for i, (series, val, lo, hi, unbounded) in enumerate(bars):
            y = y0 + i * (bar_h + 2)
            if val is None:
                out.append(f'<text x="{label_w + 4}" y="{y + bar_h - 2}" data-series="{series}">n/a</text>')
                continue
            out.append(
                f'<rect class="vc-bar vc-{series}" data-series="{series}" data-row="{H.esc(label, 60)}" '
                f'data-value="{H.num(val)}" x="{label_w}" y="{y}" width="{x(val) - label_w:.1f}" '
                f'height="{bar_h}"><title>{H.esc(label, 60)}, {series}: {val:.4g} {unit}</title></rect>'
            )
            mid = y + bar_h / 2
            if lo is not None and hi is not None:
                out.append(
                    f'<path class="vc-whisker" d="M{x(lo):.1f} {mid:.1f}H{x(hi):.1f}M{x(lo):.1f} {mid - 4:.1f}'
                    f'V{mid + 4:.1f}M{x(hi):.1f} {mid - 4:.1f}V{mid + 4:.1f}"/>'
                )
            elif unbounded:
                out.append(
                    f'<path class="vc-unbounded" d="M{x(val):.1f} {mid:.1f}H{label_w + bar_w:.1f}">'
                    f"<title>upper bound unknown (no vocabulary size)</title></path>"
                )
            out.append(f'<text x="{label_w + bar_w + 6}" y="{y + bar_h - 2}">{val:.3g}</text>')
    out.append("</svg>")
    return "\n".join(out)


def svg_entropy(r: CompareReport) -> str:
    eb, er = r.entropy.base, r.entropy.rl

    def tok(e: ModelEntropy, series: str):
        if e.token_low is None:
            return (series, None, None, None, False)
        if e.token_exact:
            return (series, e.token_low, None, None, False)
        return (
            series,
            e.token_low,
            e.token_low if e.token_high is not None else None,
            e.token_high,
            e.token_high is None,
        )

    rows = [
        (
            "answers, plug-in",
            [("base", eb.answer_plugin, None, None, False), ("rl", er.answer_plugin, None, None, False)],
        ),
        (
            "answers, Miller-Madow",
            [("base", eb.answer_miller_madow, None, None, False), ("rl", er.answer_miller_madow, None, None, False)],
        ),
        ("tokens (lower bound, range)", [tok(eb, "base"), tok(er, "rl")]),
    ]
    return _svg_hbars(
        "entropy", "entropy in nats: answer level (mean over problems) and token level (bounds)", rows, "nats"
    )


def svg_entropy_splits(r: CompareReport) -> str:
    rows = [
        (s.split, [("base", s.answer_entropy_base, None, None, False), ("rl", s.answer_entropy_rl, None, None, False)])
        for s in r.splits
    ]
    return _svg_hbars("entropy-splits", "answer entropy (Miller-Madow, nats) per split", rows, "nats")


def svg_kl(r: CompareReport) -> str:
    kl = r.kl
    rows = [
        ("all, k3 per token", [("rl", kl.per_token_k3.value, kl.per_token_k3.low, kl.per_token_k3.high, False)]),
        ("all, k1 per token", [("rl", kl.per_token_k1.value, kl.per_token_k1.low, kl.per_token_k1.high, False)]),
    ]
    rows += [(f"{s.split}, k3 per token", [("rl", s.kl_k3_per_token, None, None, False)]) for s in r.splits]
    return _svg_hbars("kl", "KL(RL || base) per token, nats", rows, "nats")


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
    """The HTML's plots as PNG files in ``out_dir``: passk.png, support.png, entropy.png
    and, when KL was computed, kl.png. Raises InputError when matplotlib is missing."""
    plt = pyplot()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(fig, name: str) -> None:
        path = out_dir / name
        fig.tight_layout()
        fig.savefig(path, dpi=110, metadata={"Software": None})
        plt.close(fig)
        written.append(path)

    p = r.pass_at_k
    fig, ax = plt.subplots(figsize=(7, 4))
    for series, label, mean, lo, hi in (
        ("base", f"base: {r.base.model}", p.base, p.base_low, p.base_high),
        ("rl", f"RL: {r.rl.model}", p.rl, p.rl_low, p.rl_high),
    ):
        ax.fill_between(p.ks, lo, hi, color=COLORS[series], alpha=0.2, linewidth=0)
        ax.plot(p.ks, mean, color=COLORS[series], label=label)
    if r.crossover.k is not None:
        ax.axvline(r.crossover.k, color="#555", linestyle="--", linewidth=1, label=f"k* = {r.crossover.k}")
    if max(p.ks) > 1:
        ax.set_xscale("log", base=2)
        ax.set_xticks(shown_ks(max(p.ks)), [str(k) for k in shown_ks(max(p.ks))])
    ax.set_ylim(0, 1)
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k")
    ax.set_title("pass@k with 95% bootstrap bands")
    ax.legend(loc="lower right")
    save(fig, "passk.png")

    fig, ax = plt.subplots(figsize=(7, 2.6))
    levels = (("problems", r.support.problems), ("answers", r.support.answers))
    for j, (_level, sc) in enumerate(levels):
        left = 0
        for cat in M.CATEGORIES:
            v = getattr(sc, cat)
            ax.barh(j, v, left=left, color=SEGMENTS[cat], label=cat.replace("_", " ") if j == 0 else None)
            left += v
    ax.set_yticks(range(len(levels)), [lv for lv, _ in levels])
    ax.set_xlabel("count")
    ax.set_title(f"empirical support (alpha {r.support.alpha:g})")
    ax.legend(ncol=4, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35))
    save(fig, "support.png")

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
    names = ["answers plug-in", "answers Miller-Madow", "tokens (lower)"]
    eb, er = r.entropy.base, r.entropy.rl
    for i, (series, en) in enumerate((("base", eb), ("rl", er))):
        vals = [en.answer_plugin, en.answer_miller_madow, en.token_low]
        a1.bar(
            [j + 0.38 * i for j in range(3)],
            [v or 0.0 for v in vals],
            width=0.38,
            color=COLORS[series],
            label="base" if series == "base" else "RL",
        )
        if en.token_low is not None and en.token_high is not None and not en.token_exact:
            a1.errorbar(
                [2 + 0.38 * i], [en.token_low], yerr=[[0], [en.token_high - en.token_low]], color="#222", capsize=3
            )
    a1.set_xticks([j + 0.19 for j in range(3)], names, fontsize=8)
    a1.set_ylabel("nats")
    a1.set_title("entropy")
    a1.legend()
    for i, series in enumerate(("base", "rl")):
        vals = [(s.answer_entropy_base if series == "base" else s.answer_entropy_rl) or 0.0 for s in r.splits]
        a2.bar([j + 0.38 * i for j in range(len(r.splits))], vals, width=0.38, color=COLORS[series])
    a2.set_xticks([j + 0.19 for j in range(len(r.splits))], [s.split for s in r.splits])
    a2.set_title("answer entropy per split (Miller-Madow)")
    save(fig, "entropy.png")

    if r.kl.available:
        fig, ax = plt.subplots(figsize=(7, 3))
        labels = ["all k1", "all k3"] + [f"{s.split} k3" for s in r.splits]
        vals = [r.kl.per_token_k1.value or 0.0, r.kl.per_token_k3.value or 0.0] + [
            s.kl_k3_per_token or 0.0 for s in r.splits
        ]
        ax.bar(range(len(vals)), vals, color=COLORS["rl"])
        ax.set_xticks(range(len(vals)), labels, fontsize=8)
        ax.set_ylabel("nats per token")
        ax.set_title("KL(RL || base)")
        save(fig, "kl.png")
    return written
