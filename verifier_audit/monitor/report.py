"""The training-health report: figures, verdict, text, JSON, HTML (inline SVG) and PNG.

``build_report(runs, thresholds)`` runs the alarms (``alarms.check``) and the entropy-reward
fit (``fit.fit_entropy_reward``) on each run and says in plain words what they mean.
``render_text`` is what the command prints; ``MonitorReport`` is the JSON; ``render_html``
draws the runs' curves with the alarms at their steps, by the rules of report/html.py (one
file, no JavaScript, a Content-Security-Policy, every string escaped); ``write_pngs`` draws
the same with matplotlib.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Optional

import numpy as np
from pydantic import BaseModel, Field

from .. import __version__
from ..report.png import pyplot
from .alarms import Alarm, Thresholds, check, missing_metrics, not_checked
from .fit import EntropyRewardFit, fit_entropy_reward
from .run import CANONICAL, REWARD_FN_PREFIX, Run, Series

FORMAT = "verifier-audit-monitor"
FORMAT_VERSION = 1
NARROWING = ("entropy_collapse", "reward_variance_collapse")


class MetricInfo(BaseModel):
    name: str  # canonical
    logged_as: str  # the name in the log
    points: int
    first_step: float
    last_step: float
    start: float  # median of the first 5% of the points (at least 3)
    end: float  # median of the last 5% of the points (at least 3)


class AlarmInfo(BaseModel):
    kind: str
    step: float
    at_fraction: Optional[float] = None  # where in the run (0 first logged step, 1 last)
    message: str
    evidence: dict = Field(default_factory=dict)


class FitInfo(BaseModel):
    """R = -a exp(H) + b (Cui et al. 2025)."""

    a: float
    b: float
    r2: float
    n: int
    ceiling: float  # -a + b: the reward predicted when entropy is spent (H = 0)
    gap: float  # ceiling - the last reward (smoothed): how far the run is from it
    last_reward: float


class RunReport(BaseModel):
    name: str
    source: str
    format: str
    first_step: float
    last_step: float
    healthy: bool  # no alarm fired
    verdict: str
    alarms: list[AlarmInfo]
    fit: Optional[FitInfo] = None
    metrics: list[MetricInfo]
    missing: list[str]  # canonical metrics the log lacks
    not_checked: dict[str, str]  # alarm kind -> why it could not run
    notes: list[str]


class MonitorReport(BaseModel):
    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    tool_version: str = __version__
    thresholds: dict
    config: Optional[str] = None  # the pyproject.toml the thresholds came from
    runs: list[RunReport]
    alarms: int  # alarms fired, all runs together
    exit_code: int  # 0 no alarm, 1 an alarm fired


# --------------------------------------------------------------------------------------
# Figures


def _edge(values: np.ndarray) -> int:
    return min(len(values), max(3, math.ceil(0.05 * len(values))))


def _start_end(s: Series) -> tuple[float, float]:
    k = _edge(s.values)
    return float(np.median(s.values[:k])), float(np.median(s.values[-k:]))


def span(run: Run) -> tuple[float, float]:
    firsts = [float(s.steps[0]) for s in run.metrics.values() if len(s)]
    lasts = [float(s.steps[-1]) for s in run.metrics.values() if len(s)]
    return (min(firsts), max(lasts)) if firsts else (0.0, 0.0)


def _metric_order(name: str) -> tuple[int, str]:
    names = list(CANONICAL)
    return (names.index(name), name) if name in names else (len(names), name)


def _metrics(run: Run) -> list[MetricInfo]:
    out = []
    for name in sorted(run.metrics, key=_metric_order):
        s = run.metrics[name]
        if not len(s):
            continue
        a, b = _start_end(s)
        out.append(MetricInfo(name=name, logged_as=run.original_names.get(name, name), points=len(s),
                              first_step=float(s.steps[0]), last_step=float(s.steps[-1]), start=a, end=b))
    return out


def _g(x: float) -> str:
    """A number for a sentence: 3 significant digits, no exponent for everyday sizes."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    if 1e-3 <= abs(x) < 1000:
        return f"{x:.3g}"
    if 1000 <= abs(x) < 1e7:
        return f"{x:.0f}"
    return f"{x:.2e}"


def law(a: float, b: float) -> str:
    """R = -a·exp(H) + b with the signs written out."""
    return f"R = {'-' if a >= 0 else ''}{_g(abs(a))}·exp(H) {'+' if b >= 0 else '-'} {_g(abs(b))}"


def _step(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e7 else f"{x:.3e}"


def _move(name: str, m: Optional[MetricInfo]) -> Optional[str]:
    """'reward rose 0.31 → 0.74' (or fell, or stayed at)."""
    if m is None:
        return None
    a, b = m.start, m.end
    scale = max(abs(a), abs(b), 1e-12)
    if abs(b - a) <= 0.02 * scale:
        return f"{name} stayed at {_g(b)}"
    return f"{name} {'rose' if b > a else 'fell'} {_g(a)} → {_g(b)}"


def _ev(alarm: Alarm, key: str) -> Optional[float]:
    v = alarm.evidence.get(key) if isinstance(alarm.evidence, dict) else None
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None


def _at(run: Run, alarm: Alarm) -> float:
    at = _ev(alarm, "at_fraction")
    if at is not None:
        return at
    lo, hi = span(run)
    return (alarm.step - lo) / (hi - lo) if hi > lo else 0.0


def _kinds_not_checked_words(skipped: dict[str, str]) -> str:
    return "; ".join(f"{k.replace('_', ' ')} ({why})" for k, why in skipped.items())


def verdict(run: Run, alarms: list[Alarm], fit: Optional[EntropyRewardFit], metrics: list[MetricInfo],
            skipped: dict[str, str]) -> str:
    """The run in one or two plain sentences, built from the alarms' numbers."""
    by = {m.name: m for m in metrics}
    first = {}
    for a in alarms:
        first.setdefault(a.kind, a)
    reward = _move("reward", by.get("reward"))
    parts = []
    if "entropy_collapse" in first:
        a = first["entropy_collapse"]
        loss = _ev(a, "loss")
        if loss is None and "entropy" in by:
            h0 = by["entropy"].start
            at_step = np.interp(a.step, run.metrics["entropy"].steps, run.metrics["entropy"].values)
            loss = 1 - float(at_step) / h0 if h0 else None
        final = _ev(a, "final_loss")
        clause = (f"entropy fell {loss:.0%}" if loss is not None else "entropy collapsed") + \
            f" by step {_step(a.step)} ({_at(run, a):.0%} of training)"
        if final is not None and loss is not None and final > loss + 0.05:
            clause += f" and {final:.0%} by the end"
        if reward:
            clause += f" while {reward}"
        if "reward_variance_collapse" in first:
            clause += " and group reward spread collapsed"
        clause += ": the policy is narrowing into a few trajectories"
        if fit is not None and fit.r2 >= 0.5:
            clause += "; " + _fit_words(fit)
        parts.append(clause)
    elif "reward_variance_collapse" in first:
        a = first["reward_variance_collapse"]
        clause = f"group reward spread collapsed by step {_step(a.step)} ({_at(run, a):.0%} of training)"
        if reward:
            clause += f" while {reward}"
        parts.append(clause + ": most groups now score all alike and carry no learning signal; the policy "
                              "is narrowing into a few trajectories")
    if "kl_drift" in first:
        a = first["kl_drift"]
        level, slope = _ev(a, "level"), _ev(a, "slope_per_100_steps")
        parts.append(f"KL to the reference climbed past {_g(_ev(a, 'threshold') or 0)} at step {_step(a.step)}"
                     + (f" and reached {_g(level)}" if level is not None else "")
                     + (f", still rising {_g(slope)} per 100 steps" if slope is not None else "")
                     + ": the policy is drifting away from the reference model")
    if "length_blowup" in first:
        a = first["length_blowup"]
        ratio = _ev(a, "ratio")
        grew = f"grew ×{ratio:.1f}" if ratio is not None else "blew up"
        parts.append(f"completion length {grew} by step {_step(a.step)}"
                     + ": completions are getting longer, which a verifier that pays for length (or for an "
                       "answer somewhere in a long text) would reward")
    if "length_collapse" in first:
        a = first["length_collapse"]
        ratio = _ev(a, "ratio")
        parts.append(f"completion length shrank to {ratio:.0%} of its start by step {_step(a.step)}"
                     if ratio is not None else f"completion length collapsed by step {_step(a.step)}")
        parts[-1] += ": the policy may be skipping its reasoning or answering in a bare format the verifier accepts"
    if "train_val_divergence" in first:
        a = first["train_val_divergence"]
        why = a.evidence.get("reason", "stalls") if isinstance(a.evidence, dict) else "stalls"
        val = _move("validation accuracy", by.get("val_accuracy"))
        parts.append(f"training reward keeps rising while validation accuracy {why} from step {_step(a.step)}"
                     + (f" ({val})" if val else "")
                     + ": the gains do not carry over to held-out problems, so the reward pays for something "
                       "other than the task")
    if "reward_fn_divergence" in first:
        a = first["reward_fn_divergence"]
        up = a.evidence.get("climbing", "one term") if isinstance(a.evidence, dict) else "one term"
        held = a.evidence.get("held_back", "") if isinstance(a.evidence, dict) else ""
        parts.append(f"reward term {up} climbs alone from step {_step(a.step)}"
                     + (f" while {held.replace(',', ', ')} stay flat" if held else "")
                     + f": {up} is probably being gamed")
    if parts:
        return f"run {run.name}: " + "; ".join(parts) + "."
    # no alarm
    moves = [m for m in (_move("entropy", by.get("entropy")), reward,
                         _move("validation accuracy", by.get("val_accuracy"))) if m]
    ran = [k for k in ("entropy_collapse", "reward_variance_collapse", "kl_drift", "length_blowup",
                       "train_val_divergence", "reward_fn_divergence") if k not in skipped]
    if not ran:
        return (f"run {run.name}: no alarm, but none could run: "
                f"{_kinds_not_checked_words(skipped)}. Log entropy, reward_std, kl and length to have them checked.")
    text = f"run {run.name}: healthy" + (f" ({', '.join(moves)})" if moves else "") + "."
    if skipped:
        missing = sorted({w for why in skipped.values() for w in re.findall(r"no (\S+) metric", why)},
                         key=_metric_order)
        if missing:
            text += f" Not checked for lack of {', '.join(missing)}."
        else:
            text += f" Not checked: {_kinds_not_checked_words(skipped)}."
    return text


def _fit_words(fit: EntropyRewardFit) -> str:
    last = fit.ceiling - fit.gap
    if fit.gap <= 0.02 * max(abs(fit.ceiling), 1e-9) + 1e-9:
        return (f"the reward has reached the ceiling the entropy–reward fit predicts ({_g(fit.ceiling)}; last "
                f"reward {_g(last)}): more training of this kind has little left to buy")
    return (f"the entropy–reward fit predicts a ceiling of {_g(fit.ceiling)}, {_g(fit.gap)} above the last "
            f"reward {_g(last)}")


def _finite_dict(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, float) and not math.isfinite(v):
            out[str(k)] = None
        elif isinstance(v, (str, int, float, bool)) or v is None:
            out[str(k)] = v
        else:
            out[str(k)] = str(v)
    return out


def build_report(runs: list[Run], thresholds: Optional[Thresholds] = None, config: Optional[str] = None
                 ) -> tuple[MonitorReport, dict[str, list[Alarm]]]:
    """The report, and the alarms per run name (for the plots)."""
    th = thresholds or Thresholds()
    out, fired = [], {}
    for run in runs:
        alarms = check(run, th)
        fired[run.name] = alarms
        fit = fit_entropy_reward(run, smooth_window=th.smooth_window, max_points=th.max_points)
        metrics = _metrics(run)
        skipped = not_checked(run, th)
        lo, hi = span(run)
        fit_info = None
        if fit is not None:
            fit_info = FitInfo(a=fit.a, b=fit.b, r2=fit.r2, n=fit.n, ceiling=fit.ceiling, gap=fit.gap,
                               last_reward=fit.ceiling - fit.gap)
        out.append(RunReport(
            name=run.name, source=run.source, format=getattr(run, "format", "") or "", first_step=lo, last_step=hi,
            healthy=not alarms, verdict=verdict(run, alarms, fit, metrics, skipped),
            alarms=[AlarmInfo(kind=a.kind, step=a.step, at_fraction=_at(run, a), message=a.message,
                              evidence=_finite_dict(dict(a.evidence))) for a in alarms],
            fit=fit_info, metrics=metrics, missing=missing_metrics(run), not_checked=skipped,
            notes=list(getattr(run, "notes", []) or [])))
    n_alarms = sum(len(a) for a in fired.values())
    report = MonitorReport(thresholds=th.model_dump(), config=config, runs=out, alarms=n_alarms,
                           exit_code=1 if n_alarms else 0)
    return report, fired


# --------------------------------------------------------------------------------------
# Text


def render_text(report: MonitorReport) -> str:
    lines = []
    for r in report.runs:
        lines.append(f"run {r.name}  ({r.format or 'log'}: {r.source}; steps {_step(r.first_step)}–{_step(r.last_step)})")
        if r.metrics:
            lines.append("  metrics:")
            w = max(len(m.name) for m in r.metrics)
            for m in r.metrics:
                shown = "" if m.logged_as == m.name else f"  (as {m.logged_as})"
                lines.append(f"    {m.name:<{w}}  {_g(m.start):>8} → {_g(m.end):<8} {m.points} points, steps "
                             f"{_step(m.first_step)}–{_step(m.last_step)}{shown}")
        if r.missing:
            lines.append(f"  missing: {', '.join(r.missing)}")
        for kind, why in r.not_checked.items():
            lines.append(f"  not checked: {kind} ({why})")
        for n in r.notes:
            lines.append(f"  note: {n}")
        if r.alarms:
            lines.append(f"  alarms ({len(r.alarms)}):")
            for a in r.alarms:
                lines.append(f"    step {_step(a.step)}  {a.kind}: {a.message}")
        else:
            lines.append("  alarms: none")
        if r.fit is not None:
            f = r.fit
            lines.append(f"  entropy–reward fit: {law(f.a, f.b)}  (R² {f.r2:.2f}, {f.n} points); "
                         f"ceiling -a + b = {_g(f.ceiling)}, last reward {_g(f.last_reward)}, distance {_g(f.gap)}")
        else:
            lines.append("  entropy–reward fit: not possible (needs entropy and reward at 5 shared steps or more, "
                         "and entropy that moves)")
        lines.append(f"  verdict: {r.verdict}")
        lines.append("")
    if len(report.runs) > 1:
        lines.append("side by side:")
        rows = [("run", "alarms", "entropy", "reward", "kl (end)", "fit ceiling / distance")]
        for r in report.runs:
            by = {m.name: m for m in r.metrics}

            def mv(n):
                return f"{_g(by[n].start)} → {_g(by[n].end)}" if n in by else "-"
            rows.append((r.name, ", ".join(f"{a.kind}@{_step(a.step)}" for a in r.alarms) or "none",
                         mv("entropy"), mv("reward"), _g(by["kl"].end) if "kl" in by else "-",
                         f"{_g(r.fit.ceiling)} / {_g(r.fit.gap)}" if r.fit else "-"))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        lines.append("")
    n = report.alarms
    lines.append(f"{n} alarm{'s' if n != 1 else ''} in {len(report.runs)} run{'s' if len(report.runs) != 1 else ''}"
                 f" (exit {report.exit_code})")
    return "\n".join(lines) + "\n"


def to_json(report: MonitorReport) -> str:
    import json

    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=True) + "\n"


# --------------------------------------------------------------------------------------
# HTML: inline SVG, no JavaScript (report/html.py's rules and helpers)

PALETTE = ("#3b7dd8", "#d35400", "#1e7b34", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d", "#b7950b")
SERIES_COLOR = {"entropy": "#8e44ad", "reward": "#1e7b34", "reward_std": "#1e7b34", "frac_reward_zero_std": "#7f8c8d",
                "kl": "#c0392b", "length": "#3b7dd8", "val_accuracy": "#d35400"}
ALARM_COLOR = "#b02a1a"
EXTRA_CSS = (
    ".vm-plot text{font:11px system-ui,sans-serif;fill:#333}.vm-axis{stroke:#888}.vm-grid{stroke:#ececec}"
    ".vm-line{fill:none;stroke-width:1.6}.vm-band{stroke:none;opacity:.18}.vm-env{stroke:none;opacity:.15}"
    ".vm-dot{stroke:none}.vm-alarm{stroke:#b02a1a;stroke-width:1.4;stroke-dasharray:5 3}"
    ".vm-alarm-label{fill:#b02a1a!important;font-size:10px!important}.vm-fit{fill:none;stroke:#222;stroke-width:1.4;"
    "stroke-dasharray:6 3}.vm-ceiling{stroke:#222;stroke-dasharray:2 3}"
    ".vm-verdict{font-size:15px;padding:8px 12px;border-left:4px solid #1e7b34;background:#f3faf4}"
    ".vm-verdict.vm-alarmed{border-left-color:#b02a1a;background:#fdf3f2}.vm-plots{display:flex;flex-wrap:wrap;gap:6px}"
    ".vm-note{color:#8a5300}.vm-legend{font-size:10px!important}"
)


def _h():
    from ..report import html as H

    return H


def _slug(i: int, name: str) -> str:
    return f"run{i}-" + re.sub(r"[^A-Za-z0-9_-]+", "-", name)[:60]


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


def _reduce(steps: np.ndarray, values: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray, Optional[tuple]]:
    """At most ``bins`` points: equal-count bins (mean step, mean value) with the bins'
    min and max as an envelope, so a spike stays visible. Short series pass unchanged."""
    n = len(values)
    if n <= bins:
        return steps, values, None
    size = -(-n // bins)
    pad = (-n) % size
    s = np.concatenate([steps, np.full(pad, np.nan)]).reshape(-1, size)
    v = np.concatenate([values, np.full(pad, np.nan)]).reshape(-1, size)
    return np.nanmean(s, axis=1), np.nanmean(v, axis=1), (np.nanmin(v, axis=1), np.nanmax(v, axis=1))


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


def _svg_plot(plot: str, run_label: str, title: str, lines: list[dict], x_range: tuple[float, float],
              alarms: list[tuple[str, float, str, str]], bands: Optional[list[dict]] = None,
              y_label: str = "", extra: str = "", frame: Optional[_Frame] = None) -> str:
    """One line plot. ``lines``: dicts with series (name), steps, values, color, label,
    dots (bool: draw points, for sparse series). ``bands``: series, steps, low, high, color.
    ``alarms``: (kind, step, color, run) drawn as dashed vertical lines with their kind."""
    H = _h()
    e = H._esc
    values = [np.asarray(d["values"]) for d in lines if len(d["values"])]
    values += [np.asarray(b["low"]) for b in bands or []] + [np.asarray(b["high"]) for b in bands or []]
    allv = np.concatenate(values) if values else np.zeros(1)
    allv = allv[np.isfinite(allv)]
    fr = frame or _Frame(x_range[0], x_range[1], float(allv.min()) if len(allv) else 0.0,
                         float(allv.max()) if len(allv) else 1.0)
    out = [f'<svg class="vm-plot" xmlns="http://www.w3.org/2000/svg" data-plot="{e(plot, 60)}" '
           f'data-run="{e(run_label, 200)}" width="{fr.W}" height="{fr.HGT}" viewBox="0 0 {fr.W} {fr.HGT}" '
           f'role="img"><title>{e(title, 300)}</title>',
           f'<text x="{fr.LEFT}" y="15" style="font-weight:600">{e(title, 120)}</text>']
    for t in _nice_ticks(fr.y0, fr.y1):
        yy = float(fr.y(t))
        out.append(f'<line class="vm-grid" x1="{fr.LEFT}" y1="{yy:.1f}" x2="{fr.LEFT + fr.pw}" y2="{yy:.1f}"/>'
                   f'<text x="{fr.LEFT - 5}" y="{yy + 4:.1f}" text-anchor="end">{e(_g(t), 20)}</text>')
    for t in _nice_ticks(fr.x0, fr.x1, 6):
        xx = float(fr.x(t))
        out.append(f'<text x="{xx:.1f}" y="{fr.TOP + fr.ph + 14}" text-anchor="middle">{e(_step(t), 20)}</text>')
    out.append(f'<text x="{fr.LEFT + fr.pw / 2:.1f}" y="{fr.HGT - 4}" text-anchor="middle">step</text>')
    if y_label:
        out.append(f'<text x="12" y="{fr.TOP + fr.ph / 2:.1f}" text-anchor="middle" '
                   f'transform="rotate(-90 12 {fr.TOP + fr.ph / 2:.1f})">{e(y_label, 40)}</text>')
    for b in bands or []:
        st, lo, _ = _reduce(np.asarray(b["steps"]), np.asarray(b["low"]), 600)
        _, hi, _ = _reduce(np.asarray(b["steps"]), np.asarray(b["high"]), 600)
        if len(st) < 2:
            continue
        pts = [f"{x:.1f},{y:.1f}" for x, y in zip(fr.x(st), fr.y(hi))]
        pts += [f"{x:.1f},{y:.1f}" for x, y in zip(fr.x(st[::-1]), fr.y(lo[::-1]))]
        out.append(f'<polygon class="vm-band" data-series="{e(b["series"], 80)}" fill="{b["color"]}" '
                   f'points="{" ".join(pts)}"><title>{e(b.get("label", ""), 200)}</title></polygon>')
    for d in lines:
        steps, vals = np.asarray(d["steps"]), np.asarray(d["values"])
        if not len(vals):
            continue
        st, va, env = _reduce(steps, vals, 600)
        if env is not None:
            pts = [f"{x:.1f},{y:.1f}" for x, y in zip(fr.x(st), fr.y(env[1]))]
            pts += [f"{x:.1f},{y:.1f}" for x, y in zip(fr.x(st[::-1]), fr.y(env[0][::-1]))]
            out.append(f'<polygon class="vm-env" fill="{d["color"]}" points="{" ".join(pts)}"/>')
        xs, ys = fr.x(st), fr.y(va)
        out.append(f'<path class="vm-line" data-series="{e(d["series"], 80)}" data-points="{len(vals)}" '
                   f'data-first="{H._num(float(vals[0]))}" data-last="{H._num(float(vals[-1]))}" '
                   f'stroke="{d["color"]}" d="{_path(xs, ys)}"><title>{e(d.get("label", d["series"]), 200)}</title></path>')
        if d.get("dots"):
            out.append("".join(f'<circle class="vm-dot" fill="{d["color"]}" cx="{x:.1f}" cy="{y:.1f}" r="2.5"/>'
                               for x, y in zip(xs, ys)))
    for i, (kind, step, color, who) in enumerate(alarms):
        xx = float(fr.x(min(max(step, fr.x0), fr.x1)))
        label = kind.replace("_", " ")
        out.append(f'<line class="vm-alarm" data-kind="{e(kind, 60)}" data-step="{H._num(step)}" '
                   f'data-run="{e(who, 200)}" x1="{xx:.1f}" y1="{fr.TOP}" x2="{xx:.1f}" y2="{fr.TOP + fr.ph}" '
                   f'style="stroke:{color}"><title>{e(f"{who}: {label} at step {_step(step)}", 300)}</title></line>'
                   f'<text class="vm-alarm-label" x="{xx + 3:.1f}" y="{fr.TOP + 10 + 11 * (i % 4):.1f}">'
                   f'{e(label, 40)}</text>')
    legend = [(d.get("label", d["series"]), d["color"]) for d in lines if len(d["values"])]
    if len(legend) > 1:  # right-aligned in the title row, last entry rightmost
        rx = fr.LEFT + fr.pw
        for label, color in reversed(legend[:6]):
            shown = label if len(label) <= 22 else label[:21] + "…"
            out.append(f'<text x="{rx}" y="15" text-anchor="end" class="vm-legend">{e(shown, 60)}'
                       f'<title>{e(label, 200)}</title></text>')
            rx -= 6.2 * len(shown) + 4
            out.append(f'<rect x="{rx - 12:.1f}" y="9" width="10" height="4" fill="{color}"/>')
            rx -= 22
    out.append(f'<line class="vm-axis" x1="{fr.LEFT}" y1="{fr.TOP + fr.ph}" x2="{fr.LEFT + fr.pw}" '
               f'y2="{fr.TOP + fr.ph}"/><line class="vm-axis" x1="{fr.LEFT}" y1="{fr.TOP}" x2="{fr.LEFT}" '
               f'y2="{fr.TOP + fr.ph}"/>')
    out.append(extra)
    out.append("</svg>")
    return "\n".join(out)


def _marks(alarms: list[Alarm], kinds: Optional[tuple[str, ...]] = None, color: str = ALARM_COLOR
           ) -> list[tuple[str, float, str, str]]:
    return [(a.kind, a.step, color, a.run) for a in alarms if kinds is None or a.kind in kinds]


def _line(run: Run, key: str, color: Optional[str] = None, label: Optional[str] = None, dots: bool = False) -> dict:
    s = run.metrics[key]
    return {"series": key, "steps": s.steps, "values": s.values, "color": color or SERIES_COLOR.get(key, "#333"),
            "label": label or key, "dots": dots or len(s) <= 40}


def run_plots(run: Run, alarms: list[Alarm], fit: Optional[FitInfo]) -> list[str]:
    """The SVG plots of one run: entropy, reward (its spread as a band, validation), group
    spread, KL, length, reward terms, entropy vs reward with the fit."""
    xr = span(run)
    out = []
    every = _marks(alarms)
    if run.has("entropy"):
        out.append(_svg_plot("entropy", run.name, "entropy (nats)", [_line(run, "entropy")], xr, every))
    if run.has("reward") or run.has("val_accuracy"):
        lines, bands = [], []
        if run.has("reward"):
            lines.append(_line(run, "reward", label="training reward"))
            if run.has("reward_std"):
                r, sd = run.metrics["reward"], run.metrics["reward_std"]
                common, ir, isd = np.intersect1d(r.steps, sd.steps, assume_unique=True, return_indices=True)
                if len(common) >= 2:
                    bands.append({"series": "reward_std", "steps": common, "low": r.values[ir] - sd.values[isd],
                                  "high": r.values[ir] + sd.values[isd], "color": SERIES_COLOR["reward"],
                                  "label": "reward ± group std"})
        if run.has("val_accuracy"):
            lines.append(_line(run, "val_accuracy", label="validation accuracy", dots=True))
        title = "reward ± group std, validation" if bands else "reward and validation"
        out.append(_svg_plot("reward", run.name, title, lines, xr, every, bands))
    spread = [k for k in ("reward_std", "frac_reward_zero_std") if run.has(k)]
    if spread:
        out.append(_svg_plot("spread", run.name, "group reward spread",
                             [_line(run, k, label={"reward_std": "group reward std",
                                                   "frac_reward_zero_std": "fraction of zero-std groups"}[k])
                              for k in spread], xr, every))
    if run.has("kl"):
        out.append(_svg_plot("kl", run.name, "KL to the reference", [_line(run, "kl")], xr, every))
    if run.has("length"):
        out.append(_svg_plot("length", run.name, "completion length (tokens)", [_line(run, "length")], xr, every))
    fns = [f for f in run.reward_functions() if run.has(REWARD_FN_PREFIX + f)]
    if fns:
        out.append(_svg_plot("reward_fns", run.name, "reward terms (mean per function)",
                             [_line(run, REWARD_FN_PREFIX + f, PALETTE[i % len(PALETTE)], f) for i, f in enumerate(fns)],
                             xr, every))
    if fit is not None and run.has("entropy") and run.has("reward"):
        out.append(_fit_plot(run, fit))
    return out


def _fit_plot(run: Run, fit: FitInfo) -> str:
    """Reward against entropy (points: steps logging both) with R = -a exp(H) + b and the
    ceiling at H = 0."""
    H = _h()
    e = H._esc
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
    out = [f'<svg class="vm-plot" xmlns="http://www.w3.org/2000/svg" data-plot="fit" data-run="{e(run.name, 200)}" '
           f'data-a="{H._num(fit.a)}" data-b="{H._num(fit.b)}" data-ceiling="{H._num(fit.ceiling)}" width="{W}" '
           f'height="{Hh}" viewBox="0 0 {W} {Hh}" role="img"><title>{e(title, 300)}</title>',
           f'<text x="{L}" y="15" style="font-weight:600">{e(title, 120)}</text>']
    for t in _nice_ticks(y0, y1):
        out.append(f'<line class="vm-grid" x1="{L}" y1="{float(Y(t)):.1f}" x2="{L + pw}" y2="{float(Y(t)):.1f}"/>'
                   f'<text x="{L - 5}" y="{float(Y(t)) + 4:.1f}" text-anchor="end">{e(_g(t), 20)}</text>')
    for t in _nice_ticks(0.0, xmax, 6):
        out.append(f'<text x="{float(X(t)):.1f}" y="{T + ph + 14}" text-anchor="middle">{e(_g(t), 20)}</text>')
    out.append(f'<text x="{L + pw / 2:.1f}" y="{Hh - 4}" text-anchor="middle">entropy H (nats)</text>')
    out.append("".join(f'<circle class="vm-dot" fill="{SERIES_COLOR["reward"]}" opacity=".5" cx="{x:.1f}" '
                       f'cy="{y:.1f}" r="2"/>' for x, y in zip(X(hv), Y(rv))))
    out.append(f'<path class="vm-fit" d="{_path(X(grid), Y(curve))}"><title>fit</title></path>')
    yc = float(Y(fit.ceiling))
    out.append(f'<line class="vm-ceiling" x1="{L}" y1="{yc:.1f}" x2="{L + pw}" y2="{yc:.1f}"/>'
               f'<text x="{L + pw - 4}" y="{yc - 4:.1f}" text-anchor="end">ceiling {e(_g(fit.ceiling), 20)} '
               f'(distance {e(_g(fit.gap), 20)})</text>')
    out.append(f'<line class="vm-axis" x1="{L}" y1="{T + ph}" x2="{L + pw}" y2="{T + ph}"/>'
               f'<line class="vm-axis" x1="{L}" y1="{T}" x2="{L}" y2="{T + ph}"/></svg>')
    return "\n".join(out)


def comparison_plots(runs: list[Run], fired: dict[str, list[Alarm]]) -> list[str]:
    """One plot per metric with every run that logged it, each run in its colour, its
    alarms as dashed lines in the same colour."""
    out = []
    lo = min(span(r)[0] for r in runs)
    hi = max(span(r)[1] for r in runs)
    for key, title, kinds in (("entropy", "entropy (nats)", None), ("reward", "training reward", None),
                              ("reward_std", "group reward std", None), ("kl", "KL to the reference", None),
                              ("length", "completion length", None), ("val_accuracy", "validation accuracy", None)):
        have = [(i, r) for i, r in enumerate(runs) if r.has(key)]
        if not have:
            continue
        lines = [_line(r, key, PALETTE[i % len(PALETTE)], r.name) for i, r in have]
        marks = [m for i, r in have for m in _marks(fired.get(r.name, []), kinds, PALETTE[i % len(PALETTE)])]
        out.append(_svg_plot(key, "all", title, lines, (lo, hi), marks))
    return out


def render_html(report: MonitorReport, runs: list[Run], fired: dict[str, list[Alarm]]) -> str:
    """The page as one string (write it with encoding="utf-8")."""
    H = _h()
    e = H._esc
    by_name = {r.name: r for r in runs}
    title = "verifier-audit monitor: " + ", ".join(r.name for r in report.runs)
    rows = []
    for i, r in enumerate(report.runs):
        alarms = "<br>".join(f"{e(a.kind.replace('_', ' '), 60)} @ {e(_step(a.step), 20)}" for a in r.alarms)
        rows.append([f'<a href="#{_slug(i, r.name)}">{e(r.name, 200)}</a>',
                     f'<span class="{"va-fail" if r.alarms else "va-pass"}">{len(r.alarms)}</span>'
                     + (f"<br>{alarms}" if alarms else ""),
                     e(f"{_g(r.fit.ceiling)} / {_g(r.fit.gap)}" if r.fit else "-", 60),
                     e(r.verdict, 2000)])
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
             f"<title>{e(title, 300)}</title><style>{H.CSS}{EXTRA_CSS}</style></head><body>",
             "<h1>verifier-audit monitor: training health</h1>",
             f'<p class="va-header">verifier-audit {e(report.tool_version, 40)} · {len(report.runs)} '
             f'run{"s" if len(report.runs) != 1 else ""} · {report.alarms} alarm{"s" if report.alarms != 1 else ""}'
             + (f" · thresholds from <code>{e(report.config, 300)}</code>" if report.config else "") + "</p>",
             "<h2>Summary</h2>",
             H._table(["run", "alarms", "fit ceiling / distance", "verdict"], rows, "vm-summary")]
    if len(runs) > 1:
        parts += ["<h2>Side by side</h2>", '<div class="vm-plots">', *comparison_plots(runs, fired), "</div>"]
    for i, r in enumerate(report.runs):
        run = by_name[r.name]
        parts.append(f'<section class="vm-run" id="{_slug(i, r.name)}" data-run="{e(r.name, 200)}" '
                     f'data-alarms="{len(r.alarms)}">')
        parts.append(f"<h2>{e(r.name, 200)}</h2>")
        parts.append(f'<p class="va-muted">{e(r.format, 40)} · <code>{e(r.source, 500)}</code> · steps '
                     f'{e(_step(r.first_step), 20)}–{e(_step(r.last_step), 20)}</p>')
        parts.append(f'<p class="vm-verdict{" vm-alarmed" if r.alarms else ""}">{e(r.verdict, 3000)}</p>')
        parts.append('<div class="vm-plots">' + "\n".join(run_plots(run, fired.get(r.name, []), r.fit)) + "</div>")
        if r.alarms:
            parts.append("<h3>Alarms</h3>" + H._table(
                ["step", "kind", "what the numbers say"],
                [[f'<td class="n">{e(_step(a.step), 20)}</td>', f"<code>{e(a.kind, 60)}</code>", e(a.message, 2000)]
                 for a in r.alarms], "vm-alarms"))
        if r.fit is not None:
            f = r.fit
            parts.append(f'<h3>Entropy–reward fit</h3><p class="vm-fit-text">{e(law(f.a, f.b), 100)} '
                         f'(R² {f.r2:.2f}, {f.n} points; Cui et al. 2025). Predicted ceiling '
                         f'at H = 0: <b>{e(_g(f.ceiling), 20)}</b>; last reward {e(_g(f.last_reward), 20)}; distance '
                         f'{e(_g(f.gap), 20)}.</p>')
        parts.append("<h3>Metrics</h3>" + H._table(
            ["metric", "in the log", "points", "steps", "start → end"],
            [[f"<code>{e(m.name, 100)}</code>", f"<code>{e(m.logged_as, 300)}</code>",
              f'<td class="n">{m.points}</td>', e(f"{_step(m.first_step)}–{_step(m.last_step)}", 60),
              e(f"{_g(m.start)} → {_g(m.end)}", 60)] for m in r.metrics], "vm-metrics"))
        if r.missing or r.not_checked:
            parts.append("<p>" + (f"Missing: {e(', '.join(r.missing), 500)}. " if r.missing else "")
                         + "".join(f"<br>Not checked: {e(k, 60)} ({e(why, 300)})" for k, why in r.not_checked.items())
                         + "</p>")
        for n in r.notes:
            parts.append(f'<p class="vm-note">note: {e(n, 1000)}</p>')
        parts.append("</section>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


# --------------------------------------------------------------------------------------
# PNG (matplotlib, optional)

def _file_slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:80] or "run"


def write_pngs(report: MonitorReport, runs: list[Run], fired: dict[str, list[Alarm]], out_dir) -> list[Path]:
    """One PNG per run (<run>.png: the HTML's panels) and, with several runs,
    comparison.png. Raises InputError when matplotlib is missing."""
    plt = pyplot()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    by_name = {r.name: r for r in runs}
    used: set[str] = set()

    def unique(stem: str) -> str:
        name, k = stem, 2
        while name in used:
            name, k = f"{stem}-{k}", k + 1
        used.add(name)
        return name

    def plot(ax, run: Run, key: str, color: str, label: str, dots: bool = False) -> None:
        s = run.metrics[key]
        st, va, env = _reduce(s.steps, s.values, 2000)
        if env is not None:
            ax.fill_between(st, env[0], env[1], color=color, alpha=0.15, linewidth=0)
        ax.plot(st, va, color=color, label=label, marker="o" if dots or len(s) <= 40 else None, markersize=3,
                linewidth=1.4)

    def marks(ax, alarms: list[Alarm], color: str = ALARM_COLOR) -> None:
        for a in alarms:
            ax.axvline(a.step, color=color, linestyle="--", linewidth=1)
            ax.annotate(a.kind.replace("_", " "), (a.step, 1), xycoords=("data", "axes fraction"), fontsize=7,
                        color=color, rotation=90, va="top", ha="right")

    for rep in report.runs:
        run = by_name[rep.name]
        alarms = fired.get(rep.name, [])
        panels = []
        if run.has("entropy"):
            panels.append(("entropy (nats)", [("entropy", SERIES_COLOR["entropy"], "entropy")]))
        if run.has("reward") or run.has("val_accuracy"):
            panels.append(("reward and validation", [(k, SERIES_COLOR[k], lbl) for k, lbl in
                                                     (("reward", "training reward"), ("val_accuracy", "validation"))
                                                     if run.has(k)]))
        spread = [(k, SERIES_COLOR[k], k) for k in ("reward_std", "frac_reward_zero_std") if run.has(k)]
        if spread:
            panels.append(("group reward spread", spread))
        for key, title in (("kl", "KL to the reference"), ("length", "completion length")):
            if run.has(key):
                panels.append((title, [(key, SERIES_COLOR[key], key)]))
        fns = [f for f in run.reward_functions() if run.has(REWARD_FN_PREFIX + f)]
        if fns:
            panels.append(("reward terms", [(REWARD_FN_PREFIX + f, PALETTE[i % len(PALETTE)], f)
                                            for i, f in enumerate(fns)]))
        if not panels:
            continue
        cols = 2 if len(panels) > 1 else 1
        nrows = -(-len(panels) // cols)
        fig, axes = plt.subplots(nrows, cols, figsize=(6 * cols, 2.8 * nrows), squeeze=False)
        for ax, (title, series) in zip(axes.flat, panels):
            for key, color, label in series:
                plot(ax, run, key, color, label, dots=key == "val_accuracy")
            if title == "reward and validation" and run.has("reward") and run.has("reward_std"):
                r, sd = run.metrics["reward"], run.metrics["reward_std"]
                common, ir, isd = np.intersect1d(r.steps, sd.steps, assume_unique=True, return_indices=True)
                st, lo, _ = _reduce(common, r.values[ir] - sd.values[isd], 2000)
                _, hi, _ = _reduce(common, r.values[ir] + sd.values[isd], 2000)
                ax.fill_between(st, lo, hi, color=SERIES_COLOR["reward"], alpha=0.15, linewidth=0,
                                label="± group std")
            marks(ax, alarms)
            ax.set_title(title, fontsize=10)
            ax.set_xlabel("step", fontsize=8)
            ax.tick_params(labelsize=8)
            if len(series) > 1 or title == "reward and validation":
                ax.legend(fontsize=7)
        for ax in list(axes.flat)[len(panels):]:
            ax.set_visible(False)
        fig.suptitle(f"{rep.name}: {len(alarms)} alarm{'s' if len(alarms) != 1 else ''}", fontsize=11)
        fig.tight_layout()
        path = out_dir / f"{unique(_file_slug(rep.name))}.png"
        fig.savefig(path, dpi=100, metadata={"Software": None})
        plt.close(fig)
        written.append(path)
    if len(runs) > 1:
        keys = [k for k in ("entropy", "reward", "kl", "length") if any(r.has(k) for r in runs)]
        if keys:
            fig, axes = plt.subplots(len(keys), 1, figsize=(8, 2.6 * len(keys)), squeeze=False)
            for ax, key in zip(axes[:, 0], keys):
                for i, run in enumerate(runs):
                    if run.has(key):
                        color = PALETTE[i % len(PALETTE)]
                        plot(ax, run, key, color, run.name)
                        marks(ax, fired.get(run.name, []), color)
                ax.set_title(key, fontsize=10)
                ax.tick_params(labelsize=8)
                ax.legend(fontsize=7)
            fig.tight_layout()
            path = out_dir / f"{unique('comparison')}.png"
            fig.savefig(path, dpi=100, metadata={"Software": None})
            plt.close(fig)
            written.append(path)
    return written
