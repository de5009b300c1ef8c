"""The runs' curves as inline SVG, with the alarms at their steps, by the rules of
report/_html.py (no JavaScript, every string escaped).

What each plot shows is described once (``run_panels``, ``comparison_panels``: a
``report.chart.LinePanel`` per plot) and drawn twice from that description: here as SVG
(``run_plots``, ``comparison_plots``, for the HTML page) and by ``png.py`` with matplotlib.
The reward-vs-entropy fit (``_fit_plot``) is drawn in the HTML only.
"""

from __future__ import annotations

import math

import numpy as np

from ..metrics import wilson
from ..report.chart import Band, Line, LinePanel, Mark, reduce_points
from .alarms import Alarm
from .models import FitInfo
from .paid import LABELLED, PAID_WRONG, windows
from .run import REWARD_FN_PREFIX, Run
from .verdict import _g, _step, law

PALETTE = ("#3b7dd8", "#d35400", "#1e7b34", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d", "#b7950b")
SERIES_COLOR = {
    "entropy": "#8e44ad",
    "reward": "#1e7b34",
    "reward_std": "#1e7b34",
    "frac_reward_zero_std": "#7f8c8d",
    "kl": "#c0392b",
    "length": "#3b7dd8",
    "val_accuracy": "#d35400",
}
ALARM_COLOR = "#b02a1a"
SVG_POINTS = 600  # the most points an SVG curve keeps (report.chart.reduce_points); the PNGs keep 2,000


def _h():
    from ..report import _html as H

    return H


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(1, n - 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    ticks = []
    t = first
    while t <= hi + 1e-9 * step and len(ticks) < 12:
        ticks.append(round(t, 12))
        t += step
    return ticks


class _Frame:
    """Coordinates of one plot: steps on x, values on y."""

    W, HGT, LEFT, RIGHT, TOP, BOTTOM = 560, 230, 58, 14, 26, 34

    def __init__(self, x0: float, x1: float, y0: float, y1: float):
        if not x1 > x0:
            x0, x1 = x0 - 0.5, x0 + 0.5
        if not y1 > y0:
            pad = abs(y0) * 0.1 or 1.0
            y0, y1 = y0 - pad, y1 + pad
        else:
            pad = (y1 - y0) * 0.06
            y0, y1 = y0 - pad, y1 + pad
        self.x0, self.x1, self.y0, self.y1 = x0, x1, y0, y1
        self.pw = self.W - self.LEFT - self.RIGHT
        self.ph = self.HGT - self.TOP - self.BOTTOM

    def x(self, s) -> np.ndarray:
        return self.LEFT + self.pw * (np.asarray(s, dtype=np.float64) - self.x0) / (self.x1 - self.x0)

    def y(self, v) -> np.ndarray:
        v = np.clip(np.asarray(v, dtype=np.float64), self.y0, self.y1)
        return self.TOP + self.ph * (1 - (v - self.y0) / (self.y1 - self.y0))


def _path(xs: np.ndarray, ys: np.ndarray) -> str:
    return "M" + " L".join(f"{x:.1f} {y:.1f}" for x, y in zip(xs, ys))


def _svg_plot(panel: LinePanel) -> str:
    """One line plot from its description: the lines (reduced to ``SVG_POINTS``, a spike's
    envelope shaded; dots for sparse series), the bands, the marks as dashed vertical lines
    with their kind, a legend in the title row when there is more than one line."""
    H = _h()
    e = H.esc
    values = [np.asarray(d.ys) for d in panel.lines if len(d.ys)]
    values += [np.asarray(b.low) for b in panel.bands] + [np.asarray(b.high) for b in panel.bands]
    allv = np.concatenate(values) if values else np.zeros(1)
    allv = allv[np.isfinite(allv)]
    x_range = panel.x_range or (0.0, 1.0)
    fr = _Frame(
        x_range[0], x_range[1], float(allv.min()) if len(allv) else 0.0, float(allv.max()) if len(allv) else 1.0
    )
    out = [
        f'<svg class="vm-plot" xmlns="http://www.w3.org/2000/svg" data-plot="{e(panel.plot, 60)}" '
        f'data-run="{e(panel.run, 200)}" width="{fr.W}" height="{fr.HGT}" viewBox="0 0 {fr.W} {fr.HGT}" '
        f'role="img"><title>{e(panel.title, 300)}</title>',
        f'<text x="{fr.LEFT}" y="15" style="font-weight:600">{e(panel.title, 120)}</text>',
    ]
    for t in _nice_ticks(fr.y0, fr.y1):
        yy = float(fr.y(t))
        out.append(
            f'<line class="vm-grid" x1="{fr.LEFT}" y1="{yy:.1f}" x2="{fr.LEFT + fr.pw}" y2="{yy:.1f}"/>'
            f'<text x="{fr.LEFT - 5}" y="{yy + 4:.1f}" text-anchor="end">{e(_g(t), 20)}</text>'
        )
    for t in _nice_ticks(fr.x0, fr.x1, 6):
        xx = float(fr.x(t))
        out.append(f'<text x="{xx:.1f}" y="{fr.TOP + fr.ph + 14}" text-anchor="middle">{e(_step(t), 20)}</text>')
    out.append(
        f'<text x="{fr.LEFT + fr.pw / 2:.1f}" y="{fr.HGT - 4}" text-anchor="middle">{e(panel.x_label, 40)}</text>'
    )
    if panel.y_label:
        out.append(
            f'<text x="12" y="{fr.TOP + fr.ph / 2:.1f}" text-anchor="middle" '
            f'transform="rotate(-90 12 {fr.TOP + fr.ph / 2:.1f})">{e(panel.y_label, 40)}</text>'
        )
    for b in panel.bands:
        st, lo, _ = reduce_points(b.xs, b.low, SVG_POINTS)
        _, hi, _ = reduce_points(b.xs, b.high, SVG_POINTS)
        if len(st) < 2:
            continue
        pts = [f"{x:.1f},{y:.1f}" for x, y in zip(fr.x(st), fr.y(hi))]
        pts += [f"{x:.1f},{y:.1f}" for x, y in zip(fr.x(st[::-1]), fr.y(lo[::-1]))]
        out.append(
            f'<polygon class="vm-band" data-series="{e(b.series, 80)}" fill="{b.color}" '
            f'points="{" ".join(pts)}"><title>{e(b.label, 200)}</title></polygon>'
        )
    for d in panel.lines:
        vals = np.asarray(d.ys)
        if not len(vals):
            continue
        st, va, env = reduce_points(d.xs, vals, SVG_POINTS)
        if env is not None:
            pts = [f"{x:.1f},{y:.1f}" for x, y in zip(fr.x(st), fr.y(env[1]))]
            pts += [f"{x:.1f},{y:.1f}" for x, y in zip(fr.x(st[::-1]), fr.y(env[0][::-1]))]
            out.append(f'<polygon class="vm-env" fill="{d.color}" points="{" ".join(pts)}"/>')
        xs, ys = fr.x(st), fr.y(va)
        out.append(
            f'<path class="vm-line" data-series="{e(d.series, 80)}" data-points="{len(vals)}" '
            f'data-first="{H.num(float(vals[0]))}" data-last="{H.num(float(vals[-1]))}" '
            f'stroke="{d.color}" d="{_path(xs, ys)}"><title>{e(d.label, 200)}</title></path>'
        )
        if d.dots:
            out.append(
                "".join(
                    f'<circle class="vm-dot" fill="{d.color}" cx="{x:.1f}" cy="{y:.1f}" r="2.5"/>'
                    for x, y in zip(xs, ys)
                )
            )
    for i, m in enumerate(panel.marks):
        xx = float(fr.x(min(max(m.at, fr.x0), fr.x1)))
        out.append(
            f'<line class="vm-alarm" data-kind="{e(m.kind, 60)}" data-step="{H.num(m.at)}" '
            f'data-run="{e(m.who, 200)}" x1="{xx:.1f}" y1="{fr.TOP}" x2="{xx:.1f}" y2="{fr.TOP + fr.ph}" '
            f'style="stroke:{m.color}"><title>{e(f"{m.who}: {m.label} at step {_step(m.at)}", 300)}</title></line>'
            f'<text class="vm-alarm-label" x="{xx + 3:.1f}" y="{fr.TOP + 10 + 11 * (i % 4):.1f}">'
            f"{e(m.label, 40)}</text>"
        )
    legend = [(d.label, d.color) for d in panel.lines if len(d.ys)]
    if len(legend) > 1:  # right-aligned in the title row, last entry rightmost
        rx = fr.LEFT + fr.pw
        for label, color in reversed(legend[:6]):
            shown = label if len(label) <= 22 else label[:21] + "…"
            out.append(
                f'<text x="{rx}" y="15" text-anchor="end" class="vm-legend">{e(shown, 60)}'
                f"<title>{e(label, 200)}</title></text>"
            )
            rx -= 6.2 * len(shown) + 4
            out.append(f'<rect x="{rx - 12:.1f}" y="9" width="10" height="4" fill="{color}"/>')
            rx -= 22
    out.append(
        f'<line class="vm-axis" x1="{fr.LEFT}" y1="{fr.TOP + fr.ph}" x2="{fr.LEFT + fr.pw}" '
        f'y2="{fr.TOP + fr.ph}"/><line class="vm-axis" x1="{fr.LEFT}" y1="{fr.TOP}" x2="{fr.LEFT}" '
        f'y2="{fr.TOP + fr.ph}"/>'
    )
    out.append("\n</svg>")  # the blank line before </svg>: the pages' bytes as before
    return "\n".join(out)


def _marks(alarms: list[Alarm], color: str = ALARM_COLOR) -> list[Mark]:
    return [Mark(a.kind, a.step, color, a.kind.replace("_", " "), a.run) for a in alarms]


def _line(run: Run, key: str, color: str | None = None, label: str | None = None, dots: bool = False) -> Line:
    s = run.metrics[key]
    return Line(
        series=key,
        label=label or key,
        xs=s.steps,
        ys=s.values,
        color=color or SERIES_COLOR.get(key, "#333"),
        dots=dots or len(s) <= 40,
    )


def run_panels(run: Run, alarms: list[Alarm]) -> list[LinePanel]:
    """What one run's plots show: entropy, reward (its spread as a band, validation), group
    spread, KL, length, reward terms, the live watch's paid-but-wrong share (with its Wilson
    interval as a band); every alarm of the run marked on each."""
    xr = run.span()
    every = _marks(alarms)

    def panel(plot: str, title: str, lines: list[Line], bands: list[Band] | None = None) -> LinePanel:
        return LinePanel(plot, title, lines, bands or [], every, x_range=xr, run=run.name)

    out = []
    if run.has("entropy"):
        out.append(panel("entropy", "entropy (nats)", [_line(run, "entropy")]))
    if run.has("reward") or run.has("val_accuracy"):
        lines, bands = [], []
        if run.has("reward"):
            lines.append(_line(run, "reward", label="training reward"))
            if run.has("reward_std"):
                r, sd = run.metrics["reward"], run.metrics["reward_std"]
                common, ir, isd = np.intersect1d(r.steps, sd.steps, assume_unique=True, return_indices=True)
                if len(common) >= 2:
                    low, high = r.values[ir] - sd.values[isd], r.values[ir] + sd.values[isd]
                    bands.append(Band("reward_std", "reward ± group std", common, low, high, SERIES_COLOR["reward"]))
        if run.has("val_accuracy"):
            lines.append(_line(run, "val_accuracy", label="validation accuracy", dots=True))
        title = "reward ± group std, validation" if bands else "reward and validation"
        out.append(panel("reward", title, lines, bands))
    spread = {"reward_std": "group reward std", "frac_reward_zero_std": "fraction of zero-std groups"}
    if any(run.has(k) for k in spread):
        lines = [_line(run, k, label=label) for k, label in spread.items() if run.has(k)]
        out.append(panel("spread", "group reward spread", lines))
    if run.has("kl"):
        out.append(panel("kl", "KL to the reference", [_line(run, "kl")]))
    if run.has("length"):
        out.append(panel("length", "completion length (tokens)", [_line(run, "length")]))
    fns = [f for f in run.reward_functions() if run.has(REWARD_FN_PREFIX + f)]
    if fns:
        lines = [_line(run, REWARD_FN_PREFIX + f, PALETTE[i % len(PALETTE)], f) for i, f in enumerate(fns)]
        out.append(panel("reward_fns", "reward terms (mean per function)", lines))
    if run.has(LABELLED) and run.has(PAID_WRONG):
        steps, k, n = windows(run)
        if len(steps):
            ci = [wilson(int(a), int(b)) for a, b in zip(k, n)]
            low, high = np.array([c.low for c in ci]), np.array([c.high for c in ci])
            share = Line(PAID_WRONG, "paid but wrong", steps, k / n, ALARM_COLOR, dots=len(steps) <= 40)
            band = Band(PAID_WRONG, "95% Wilson interval", steps, low, high, ALARM_COLOR)
            out.append(panel("paid_wrong", "paid but wrong: share of the watch's labelled rollouts", [share], [band]))
    return out


def run_plots(run: Run, alarms: list[Alarm], fit: FitInfo | None) -> list[str]:
    """The SVG plots of one run: its panels (``run_panels``) and entropy vs reward with the fit."""
    out = [_svg_plot(p) for p in run_panels(run, alarms)]
    if fit is not None and run.has("entropy") and run.has("reward"):
        out.append(_fit_plot(run, fit))
    return out


def _fit_plot(run: Run, fit: FitInfo) -> str:
    """Reward against entropy (points: steps logging both) with R = -a exp(H) + b and the
    ceiling at H = 0."""
    H = _h()
    e = H.esc
    h, r = run.metrics["entropy"], run.metrics["reward"]
    common, ih, ir = np.intersect1d(h.steps, r.steps, assume_unique=True, return_indices=True)
    hv, rv = h.values[ih], r.values[ir]
    if len(common) > 400:
        pick = np.linspace(0, len(common) - 1, 400).astype(np.int64)
        hv, rv = hv[pick], rv[pick]
    xmax = float(max(hv.max(), 1e-9)) if len(hv) else 1.0
    grid = np.linspace(0.0, xmax, 80)
    curve = -fit.a * np.exp(grid) + fit.b
    ys = np.concatenate([rv, curve, [fit.ceiling]])
    W, Hh, L, R_, T, B = 560, 230, 58, 14, 26, 34
    pw, ph = W - L - R_, Hh - T - B
    y0, y1 = float(ys.min()), float(ys.max())
    pad = (y1 - y0) * 0.06 or 0.1
    y0, y1 = y0 - pad, y1 + pad

    def X(v):
        return L + pw * np.asarray(v) / xmax

    def Y(v):
        return T + ph * (1 - (np.clip(np.asarray(v), y0, y1) - y0) / (y1 - y0))

    title = f"reward vs entropy: {law(fit.a, fit.b)}, R² {fit.r2:.2f}"
    out = [
        f'<svg class="vm-plot" xmlns="http://www.w3.org/2000/svg" data-plot="fit" data-run="{e(run.name, 200)}" '
        f'data-a="{H.num(fit.a)}" data-b="{H.num(fit.b)}" data-ceiling="{H.num(fit.ceiling)}" width="{W}" '
        f'height="{Hh}" viewBox="0 0 {W} {Hh}" role="img"><title>{e(title, 300)}</title>',
        f'<text x="{L}" y="15" style="font-weight:600">{e(title, 120)}</text>',
    ]
    for t in _nice_ticks(y0, y1):
        out.append(
            f'<line class="vm-grid" x1="{L}" y1="{float(Y(t)):.1f}" x2="{L + pw}" y2="{float(Y(t)):.1f}"/>'
            f'<text x="{L - 5}" y="{float(Y(t)) + 4:.1f}" text-anchor="end">{e(_g(t), 20)}</text>'
        )
    for t in _nice_ticks(0.0, xmax, 6):
        out.append(f'<text x="{float(X(t)):.1f}" y="{T + ph + 14}" text-anchor="middle">{e(_g(t), 20)}</text>')
    out.append(f'<text x="{L + pw / 2:.1f}" y="{Hh - 4}" text-anchor="middle">entropy H (nats)</text>')
    out.append(
        "".join(
            f'<circle class="vm-dot" fill="{SERIES_COLOR["reward"]}" opacity=".5" cx="{x:.1f}" cy="{y:.1f}" r="2"/>'
            for x, y in zip(X(hv), Y(rv))
        )
    )
    out.append(f'<path class="vm-fit" d="{_path(X(grid), Y(curve))}"><title>fit</title></path>')
    yc = float(Y(fit.ceiling))
    out.append(
        f'<line class="vm-ceiling" x1="{L}" y1="{yc:.1f}" x2="{L + pw}" y2="{yc:.1f}"/>'
        f'<text x="{L + pw - 4}" y="{yc - 4:.1f}" text-anchor="end">ceiling {e(_g(fit.ceiling), 20)} '
        f"(distance {e(_g(fit.gap), 20)})</text>"
    )
    out.append(
        f'<line class="vm-axis" x1="{L}" y1="{T + ph}" x2="{L + pw}" y2="{T + ph}"/>'
        f'<line class="vm-axis" x1="{L}" y1="{T}" x2="{L}" y2="{T + ph}"/></svg>'
    )
    return "\n".join(out)


def comparison_panels(runs: list[Run], fired: dict[str, list[Alarm]]) -> list[LinePanel]:
    """One panel per metric with every run that logged it, each run in its colour, its
    alarms as dashed lines in the same colour."""
    out = []
    lo = min(r.span()[0] for r in runs)
    hi = max(r.span()[1] for r in runs)
    for key, title in (
        ("entropy", "entropy (nats)"),
        ("reward", "training reward"),
        ("reward_std", "group reward std"),
        ("kl", "KL to the reference"),
        ("length", "completion length"),
        ("val_accuracy", "validation accuracy"),
    ):
        have = [(i, r) for i, r in enumerate(runs) if r.has(key)]
        if not have:
            continue
        lines = [_line(r, key, PALETTE[i % len(PALETTE)], r.name) for i, r in have]
        marks = [m for i, r in have for m in _marks(fired.get(r.name, []), PALETTE[i % len(PALETTE)])]
        out.append(LinePanel(key, title, lines, [], marks, x_range=(lo, hi), run="all"))
    return out


def comparison_plots(runs: list[Run], fired: dict[str, list[Alarm]]) -> list[str]:
    """The SVG of ``comparison_panels``."""
    return [_svg_plot(p) for p in comparison_panels(runs, fired)]
