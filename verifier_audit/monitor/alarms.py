"""Training-health alarms read from a ``Run``'s canonical metrics.

Every alarm follows the same recipe (``docs/monitor-alarms.md`` has the table):

* **smoothing** — a centred rolling median over ``smooth_window`` of the series' points
  (at least 3, odd; truncated at both ends). A median removes isolated spikes instead of
  smearing them, and on a monotone stretch it returns the value at the centre of the
  window, so the step where a smoothed curve crosses a line is where the trend crossed it.
  Series longer than ``max_points`` are first reduced to ``max_points`` equal-count bins
  (median value, mean step), which keeps a 1,000,000-row log cheap;
* **initial value** — the median of the raw values in the first ``initial_window`` of the
  points (at least 3);
* **persistence** — a condition counts only when the smoothed series meets it for
  ``persistence`` of the smoothed points in a row (at least 3), or from some point to the
  end of the log (at least half that many points);
* **trends** — least-squares slope of the raw points in a window of the run, its
  t-statistic, and the *normalised rise*: slope x window length / the range of the smoothed
  series over the whole run (so terms on different scales compare);
* **"how early"** — a step's position in the run's span (0 = first logged step of any
  metric, 1 = last).

``check(run)`` returns the alarms that fired, sorted by step; ``missing_metrics(run)`` the
canonical metrics the run lacks; ``not_checked(run)`` why each alarm kind could not run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from .run import CANONICAL, REWARD_FN_PREFIX, Run, Series

KINDS = (
    "entropy_collapse",
    "reward_variance_collapse",
    "kl_drift",
    "length_blowup",
    "length_collapse",
    "train_val_divergence",
    "reward_fn_divergence",
)

# What each alarm reads, in words (for a report's "could not run" line).
REQUIRES: dict[str, str] = {
    "entropy_collapse": "entropy",
    "reward_variance_collapse": "reward_std or frac_reward_zero_std",
    "kl_drift": "kl",
    "length_blowup": "length",
    "length_collapse": "length",
    "train_val_divergence": "reward and val_accuracy",
    "reward_fn_divergence": f"two or more {REWARD_FN_PREFIX}<name>",
}

_T_CAP = 1e6  # |t| is capped so evidence stays finite (a noiseless line has t = inf)


@dataclass(frozen=True)
class Alarm:
    kind: str  # one of KINDS
    run: str  # Run.name
    step: float  # where it fired
    message: str  # one sentence with the numbers behind it
    evidence: dict = field(hash=False)  # the numbers (JSON-able: floats, ints, strings)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "run": self.run, "step": self.step, "message": self.message,
                "evidence": dict(self.evidence)}


class Thresholds(BaseModel):
    """Every threshold of the alarms. Fractions of a run are fractions of its points
    (smoothing, persistence, initial value) or of its step span (windows, "how early")."""

    model_config = ConfigDict(extra="forbid")

    # --- shared ---------------------------------------------------------------------
    smooth_window: float = Field(0.05, gt=0.0, le=1.0, description=(
        "Rolling-median window, as a fraction of the series' points (at least 3)."))
    persistence: float = Field(0.10, gt=0.0, le=1.0, description=(
        "A condition must hold on this fraction of the smoothed points in a row (at least 3), "
        "or from where it starts to the end of the log (at least half as many)."))
    initial_window: float = Field(0.05, gt=0.0, le=1.0, description=(
        "The initial value is the median of this fraction of the first raw points (at least 3)."))
    min_points: int = Field(10, ge=3, description=(
        "A series with fewer points is too short for an alarm (it is reported as not checked)."))
    max_points: int = Field(2000, ge=50, description=(
        "Longer series are reduced to this many equal-count bins (median) before smoothing."))
    slope_t: float = Field(3.0, gt=0.0, description=(
        "A slope is significant when its t-statistic (least squares on the raw points) is at "
        "least this."))

    # --- entropy collapse -------------------------------------------------------------
    entropy_loss: float = Field(0.70, gt=0.0, lt=1.0, description=(
        "Fire when the smoothed entropy falls below (1 - entropy_loss) x its initial value."))
    entropy_within: float = Field(1.0, gt=0.0, le=1.0, description=(
        "... and the fall happens within this fraction of the run (1.0: any time)."))

    # --- reward-variance collapse ------------------------------------------------------
    reward_std_fraction: float = Field(0.30, gt=0.0, lt=1.0, description=(
        "Fire when the smoothed group reward std falls to this fraction of its initial value..."))
    zero_std_level: float = Field(0.50, gt=0.0, le=1.0, description=(
        "... or the smoothed fraction of zero-std groups rises to this level..."))
    variance_within: float = Field(0.50, gt=0.0, le=1.0, description=(
        "... within this fraction of the run (early: later, a solved task set is expected)."))

    # --- KL drift ---------------------------------------------------------------------
    kl_level: float = Field(0.10, description=(
        "Fire when the smoothed KL at the end of the log is at least this (nats)..."))
    kl_slope: float = Field(0.01, ge=0.0, description=(
        "... and still rising over the tail: slope per 100 steps at least this, and significant."))
    kl_window: float = Field(0.25, gt=0.0, le=1.0, description=(
        "The tail whose slope is measured, as a fraction of the KL series' step span."))

    # --- length -----------------------------------------------------------------------
    length_blowup_factor: float = Field(3.0, gt=1.0, description=(
        "Fire when the smoothed completion length reaches this multiple of its initial value."))
    length_collapse_factor: float = Field(2.0, gt=1.0, description=(
        "Fire when the smoothed completion length falls to its initial value / this."))

    # --- train reward vs validation ------------------------------------------------------
    divergence_window: float = Field(0.50, gt=0.0, le=1.0, description=(
        "The last fraction of the steps where reward and val_accuracy overlap that is compared."))
    train_min_rise: float = Field(0.20, gt=0.0, description=(
        "The training reward must rise significantly by at least this normalised rise."))
    val_max_t: float = Field(0.0, description=(
        "Validation counts as stalled or falling when the t-statistic of its slope is at most "
        "this (0: its slope is not positive; 2 also flags a rise that is not significant, which "
        "with a handful of evaluations is common on healthy runs)..."))
    val_stall_ratio: float = Field(0.25, ge=0.0, lt=1.0, description=(
        "... or its normalised rise is at most this fraction of the training reward's (the gap "
        "widens)."))
    val_min_points: int = Field(4, ge=3, description="Validation points needed in the window.")

    # --- per-reward-function divergence -----------------------------------------------------
    reward_fn_window: float = Field(0.50, gt=0.0, le=1.0, description=(
        "The last fraction of the run over which reward terms' trends are compared."))
    reward_fn_min_rise: float = Field(0.30, gt=0.0, description=(
        "A term climbs when its slope is significant and its normalised rise is at least this."))
    reward_fn_flat: float = Field(0.10, ge=0.0, description=(
        "Another term is flat or falling unless its slope is significant and its normalised "
        "rise exceeds this."))
    reward_fn_saturated: float = Field(0.80, gt=0.0, le=1.0, description=(
        "A flat term (normalised rise within +-reward_fn_flat) whose window mean sits at least "
        "this high in its own range is saturated (learnt already): it does not count against "
        "the climbing one."))


# ----------------------------------------------------------------------------------------
# Smoothing and trends (also used by fit.py)


def _odd_window(frac: float, m: int) -> int:
    w = max(3, int(round(frac * m)))
    return w if w % 2 else w + 1


def smooth(series: Series, window: float = 0.05, max_points: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """(steps, smoothed values): equal-count bins (median) when longer than ``max_points``,
    then a centred rolling median over ``window`` of the points (at least 3, odd), the
    window truncated at both ends of the series."""
    steps = np.asarray(series.steps, dtype=np.float64)
    values = np.asarray(series.values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return steps.copy(), values.copy()
    if n > max_points:
        size = -(-n // max_points)
        pad = (-n) % size
        s = np.concatenate([steps, np.full(pad, np.nan)]).reshape(-1, size)
        v = np.concatenate([values, np.full(pad, np.nan)]).reshape(-1, size)
        steps, values = np.nanmean(s, axis=1), np.nanmedian(v, axis=1)
    m = len(values)
    if m < 3:
        return steps, values.copy()
    half = min(_odd_window(window, m) // 2, (m - 1) // 2)
    if half < 1:
        return steps, values.copy()
    padded = np.concatenate([np.full(half, np.nan), values, np.full(half, np.nan)])
    view = np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1)
    return steps, np.nanmedian(view, axis=1)


def trend(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope of y on x and its t-statistic (capped at +-1e6; 0 when fewer than
    3 points or x is constant)."""
    n = len(x)
    if n < 3:
        return 0.0, 0.0
    xm = x - x.mean()
    sxx = float(xm @ xm)
    if sxx <= 0.0:
        return 0.0, 0.0
    ym = y - y.mean()
    slope = float(xm @ ym) / sxx
    resid = ym - slope * xm
    s2 = float(resid @ resid) / (n - 2)
    se = math.sqrt(s2 / sxx) if s2 > 0 else 0.0
    # a residual at rounding level is no noise at all
    if se <= 1e-12 * max(abs(slope), 1e-300):
        t = _T_CAP if slope > 0 else (-_T_CAP if slope < 0 else 0.0)
    else:
        t = max(-_T_CAP, min(_T_CAP, slope / se))
    return slope, t


def _first_persistent(mask: np.ndarray, need: int) -> Optional[int]:
    """First index from which ``mask`` holds ``need`` times in a row, or to the end of the
    array for at least ceil(need / 2) (and 3) points; None when never."""
    m = len(mask)
    if m == 0:
        return None
    tail_need = max(3, -(-need // 2))
    run = 0
    lengths = np.zeros(m, dtype=np.int64)
    for i in range(m - 1, -1, -1):
        run = run + 1 if mask[i] else 0
        lengths[i] = run
    idx = np.arange(m)
    to_end = lengths == (m - idx)
    ok = (lengths >= need) | (to_end & (lengths >= tail_need))
    hits = np.flatnonzero(ok)
    return int(hits[0]) if len(hits) else None


def _initial(series: Series, th: Thresholds) -> float:
    k = min(len(series), max(3, math.ceil(th.initial_window * len(series))))
    return float(np.median(series.values[:k]))


def _need(th: Thresholds, m: int) -> int:
    return max(3, math.ceil(th.persistence * m))


def _span(run: Run) -> tuple[float, float]:
    firsts = [float(s.steps[0]) for s in run.metrics.values() if len(s)]
    lasts = [float(s.steps[-1]) for s in run.metrics.values() if len(s)]
    return (min(firsts), max(lasts)) if firsts else (0.0, 0.0)


def _at(run: Run, step: float) -> float:
    lo, hi = _span(run)
    return (step - lo) / (hi - lo) if hi > lo else 0.0


def _range(values: np.ndarray) -> float:
    return float(values.max() - values.min()) if len(values) else 0.0


def _g(x: float) -> str:
    return f"{x:.4g}"


def _s(step: float) -> str:
    """A step as written in messages: 1250, 1000000, 249.5 (never 1e+06)."""
    return f"{float(step):.10g}"


def _r(x: float) -> float:
    """A JSON-able float, rounded for reading."""
    return float(round(float(x), 6)) if math.isfinite(x) else 0.0


# ----------------------------------------------------------------------------------------
# What can run


def missing_metrics(run: Run) -> list[str]:
    """The canonical metrics (``CANONICAL`` order) the run lacks or holds no points of."""
    return [name for name in CANONICAL if not run.has(name)]


def _reward_fns(run: Run) -> list[str]:
    return [n for n in run.reward_functions() if run.has(REWARD_FN_PREFIX + n)]


def not_checked(run: Run, thresholds: Thresholds | None = None) -> dict[str, str]:
    """Alarm kind -> why it could not run on this run (a missing metric, a series too
    short, reward and validation not overlapping). Kinds that ran are absent."""
    th = thresholds or Thresholds()
    out: dict[str, str] = {}

    def short(name: str, need: int) -> Optional[str]:
        if not run.has(name):
            return f"no {name} metric"
        if len(run.metrics[name]) < need:
            return f"{name} has {len(run.metrics[name])} points (at least {need} needed)"
        return None

    for kind, name in (("entropy_collapse", "entropy"), ("kl_drift", "kl"),
                       ("length_blowup", "length"), ("length_collapse", "length")):
        why = short(name, th.min_points)
        if why:
            out[kind] = why
    var = [short("reward_std", th.min_points), short("frac_reward_zero_std", th.min_points)]
    if all(var):
        out["reward_variance_collapse"] = "; ".join(r for r in var if r)
    # evaluations are sparse: val_accuracy is held to val_min_points, not min_points
    tv = [r for r in (short("reward", th.min_points), short("val_accuracy", th.val_min_points)) if r]
    if not tv and _tv_window(run, th) is None:
        tv = ["reward and val_accuracy do not overlap in steps"]
    if tv:
        out["train_val_divergence"] = "; ".join(tv)
    have = _reward_fns(run)
    long_enough = [n for n in have if len(run.metrics[REWARD_FN_PREFIX + n]) >= th.min_points]
    if len(long_enough) < 2:
        out["reward_fn_divergence"] = (
            f"{len(have)} reward function metric(s) ({REWARD_FN_PREFIX}<name>), {len(long_enough)} "
            f"with at least {th.min_points} points; two are needed")
    return {k: out[k] for k in KINDS if k in out}


# ----------------------------------------------------------------------------------------
# The alarms


def _entropy(run: Run, th: Thresholds) -> list[Alarm]:
    s = run.metrics["entropy"]
    h0 = _initial(s, th)
    if not h0 > 0:
        return []
    steps, sm = smooth(s, th.smooth_window, th.max_points)
    line = (1.0 - th.entropy_loss) * h0
    i = _first_persistent(sm < line, _need(th, len(sm)))
    if i is None:
        return []
    step = float(steps[i])
    at = _at(run, step)
    if at > th.entropy_within + 1e-12:
        return []
    lost, final_lost = 1.0 - sm[i] / h0, 1.0 - sm[-1] / h0
    ev = {"initial": _r(h0), "threshold": _r(line), "value": _r(sm[i]), "final": _r(sm[-1]),
          "loss": _r(lost), "final_loss": _r(final_lost), "at_fraction": _r(at),
          "entropy_loss": th.entropy_loss}
    msg = (f"Entropy fell below {_g(line)} ({1 - th.entropy_loss:.0%} of its initial {_g(h0)}) at "
           f"step {_s(step)}, {at:.0%} into the run, and stayed there: {lost:.0%} lost then, "
           f"{final_lost:.0%} by the end ({_g(sm[-1])}).")
    return [Alarm("entropy_collapse", run.name, step, msg, ev)]


def _variance(run: Run, th: Thresholds) -> list[Alarm]:
    hits = []  # (step, at, detail, evidence)
    s = run.metrics.get("reward_std")
    if s is not None and len(s) >= th.min_points:
        r0 = _initial(s, th)
        if r0 > 0:
            steps, sm = smooth(s, th.smooth_window, th.max_points)
            line = th.reward_std_fraction * r0
            i = _first_persistent(sm <= line, _need(th, len(sm)))
            if i is not None and _at(run, steps[i]) <= th.variance_within + 1e-12:
                at = _at(run, steps[i])
                hits.append((float(steps[i]), at,
                             f"group reward std fell to {_g(sm[i])} ({sm[i] / r0:.0%} of its initial "
                             f"{_g(r0)}; alarm at {th.reward_std_fraction:.0%})",
                             {"trigger": "reward_std", "initial": _r(r0), "threshold": _r(line),
                              "value": _r(sm[i]), "final": _r(sm[-1]), "at_fraction": _r(at)}))
    z = run.metrics.get("frac_reward_zero_std")
    if z is not None and len(z) >= th.min_points:
        steps, sm = smooth(z, th.smooth_window, th.max_points)
        i = _first_persistent(sm >= th.zero_std_level, _need(th, len(sm)))
        if i is not None and _at(run, steps[i]) <= th.variance_within + 1e-12:
            at = _at(run, steps[i])
            z0 = _initial(z, th)
            hits.append((float(steps[i]), at,
                         f"the fraction of groups with zero reward std rose to {_g(sm[i])} "
                         f"(from {_g(z0)}; alarm at {_g(th.zero_std_level)})",
                         {"trigger": "frac_reward_zero_std", "initial": _r(z0),
                          "threshold": th.zero_std_level, "value": _r(sm[i]), "final": _r(sm[-1]),
                          "at_fraction": _r(at)}))
    if not hits:
        return []
    hits.sort(key=lambda h: h[0])
    step, at, detail, ev = hits[0]
    ev = dict(ev)
    ev["triggers"] = ",".join(h[3]["trigger"] for h in hits)
    if len(hits) > 1:
        other = hits[1]
        ev["also"] = other[2]
    msg = (f"Reward variance collapsed early: by step {_s(step)} ({at:.0%} into the run) {detail}"
           + (f", and {hits[1][2]} at step {_s(hits[1][0])}" if len(hits) > 1 else "") + ".")
    return [Alarm("reward_variance_collapse", run.name, step, msg, ev)]


def _kl(run: Run, th: Thresholds) -> list[Alarm]:
    s = run.metrics["kl"]
    steps, sm = smooth(s, th.smooth_window, th.max_points)
    if not sm[-1] >= th.kl_level:
        return []
    lo, hi = float(s.steps[0]), float(s.steps[-1])
    start = hi - th.kl_window * (hi - lo)
    tail = s.steps >= start
    slope, t = trend(s.steps[tail], s.values[tail])
    per100 = slope * 100.0
    if not (per100 >= th.kl_slope and per100 > 0 and t >= th.slope_t):
        return []
    below = np.flatnonzero(sm < th.kl_level)
    i = int(below[-1]) + 1 if len(below) else 0
    step = float(steps[i])
    at = _at(run, step)
    ev = {"level": _r(sm[-1]), "threshold": th.kl_level, "slope_per_100_steps": _r(per100),
          "slope_t": _r(t), "tail_from_step": _r(start), "above_since_step": _r(step),
          "at_fraction": _r(at), "kl_slope": th.kl_slope}
    msg = (f"KL to the reference has been above {_g(th.kl_level)} since step {_s(step)} "
           f"({at:.0%} into the run), reaches {_g(sm[-1])} and is still rising by "
           f"{_g(per100)} per 100 steps over the last {th.kl_window:.0%} of the run (t = {t:.1f}).")
    return [Alarm("kl_drift", run.name, step, msg, ev)]


def _length(run: Run, th: Thresholds, kinds: set[str]) -> list[Alarm]:
    s = run.metrics["length"]
    l0 = _initial(s, th)
    if not l0 > 0:
        return []
    steps, sm = smooth(s, th.smooth_window, th.max_points)
    need = _need(th, len(sm))
    out = []
    for kind, mask, factor, verb in (
            ("length_blowup", sm >= th.length_blowup_factor * l0, th.length_blowup_factor, "grew"),
            ("length_collapse", sm <= l0 / th.length_collapse_factor, th.length_collapse_factor,
             "shrank")):
        if kind not in kinds:
            continue
        i = _first_persistent(mask, need)
        if i is None:
            continue
        step = float(steps[i])
        at = _at(run, step)
        line = l0 * factor if kind == "length_blowup" else l0 / factor
        ev = {"initial": _r(l0), "threshold": _r(line), "value": _r(sm[i]), "final": _r(sm[-1]),
              "ratio": _r(sm[i] / l0), "final_ratio": _r(sm[-1] / l0), "at_fraction": _r(at),
              "factor": factor}
        msg = (f"Completion length {verb} from {_g(l0)} to {_g(sm[i])} tokens (x{sm[i] / l0:.2f}; "
               f"alarm at {'x' if kind == 'length_blowup' else '/'}{_g(factor)}) by step {_s(step)}, "
               f"{at:.0%} into the run, and stayed there (x{sm[-1] / l0:.2f} at the end).")
        out.append(Alarm(kind, run.name, step, msg, ev))
    return out


def _norm_trend(s: Series, lo: float, hi: float, th: Thresholds) -> Optional[dict]:
    """Trend of a series between steps lo and hi: slope, t, rise over the window, the rise
    normalised by the range of the smoothed series over the whole run, and where the
    window's smoothed mean sits in that range (0 = bottom, 1 = top)."""
    inside = (s.steps >= lo) & (s.steps <= hi)
    if inside.sum() < 3:
        return None
    steps, sm = smooth(s, th.smooth_window, th.max_points)
    rng = _range(sm)
    slope, t = trend(s.steps[inside], s.values[inside])
    rise = slope * (hi - lo)
    win = (steps >= lo) & (steps <= hi)
    mean = float(sm[win].mean()) if win.any() else float(s.values[inside].mean())
    return {"slope": slope, "t": t, "rise": rise, "norm_rise": rise / rng if rng > 0 else 0.0,
            "position": (mean - float(sm.min())) / rng if rng > 0 else 0.5, "range": rng,
            "points": int(inside.sum()), "smoothed": (steps, sm)}


def _tv_window(run: Run, th: Thresholds) -> Optional[tuple[float, float]]:
    r, v = run.metrics["reward"], run.metrics["val_accuracy"]
    lo = max(float(r.steps[0]), float(v.steps[0]))
    hi = min(float(r.steps[-1]), float(v.steps[-1]))
    if not hi > lo:
        return None
    return hi - th.divergence_window * (hi - lo), hi


def _train_val(run: Run, th: Thresholds) -> list[Alarm]:
    win = _tv_window(run, th)
    if win is None:
        return []
    lo, hi = win
    tr = _norm_trend(run.metrics["reward"], lo, hi, th)
    va = _norm_trend(run.metrics["val_accuracy"], lo, hi, th)
    if tr is None or va is None or va["points"] < th.val_min_points:
        return []
    climbing = tr["t"] >= th.slope_t and tr["norm_rise"] >= th.train_min_rise
    if not climbing:
        return []
    stalled = va["t"] <= th.val_max_t
    widening = va["norm_rise"] <= th.val_stall_ratio * tr["norm_rise"]
    if not (stalled or widening):
        return []
    # fire where validation peaked inside the window (the window start if it peaks at the end)
    vsteps, vsm = va["smoothed"]
    inw = np.flatnonzero((vsteps >= lo) & (vsteps <= hi))
    peak = int(inw[np.argmax(vsm[inw])]) if len(inw) else -1
    step = float(vsteps[peak]) if len(inw) and peak != inw[-1] else float(lo)
    at = _at(run, step)
    why = "falls" if va["t"] <= -2.0 else ("stalls" if stalled else "lags (the gap widens)")
    ev = {"window_from_step": _r(lo), "window_to_step": _r(hi), "train_rise": _r(tr["rise"]),
          "train_norm_rise": _r(tr["norm_rise"]), "train_t": _r(tr["t"]),
          "val_rise": _r(va["rise"]), "val_norm_rise": _r(va["norm_rise"]), "val_t": _r(va["t"]),
          "val_points": va["points"], "val_peak": _r(vsm[peak]) if len(inw) else 0.0,
          "val_peak_step": _r(vsteps[peak]) if len(inw) else 0.0, "reason": why,
          "at_fraction": _r(at)}
    msg = (f"Training reward rose by {_g(tr['rise'])} (t = {tr['t']:.1f}) from step {_s(lo)} to "
           f"{_s(hi)} while validation accuracy {why}: {va['rise']:+.4g} over {va['points']} "
           f"evaluations (t = {va['t']:.1f}), best {_g(ev['val_peak'])} at step "
           f"{_s(ev['val_peak_step'])}.")
    return [Alarm("train_val_divergence", run.name, step, msg, ev)]


def _reward_fn(run: Run, th: Thresholds) -> list[Alarm]:
    names = [n for n in _reward_fns(run) if len(run.metrics[REWARD_FN_PREFIX + n]) >= th.min_points]
    if len(names) < 2:
        return []
    series = {n: run.metrics[REWARD_FN_PREFIX + n] for n in names}
    lo_all = min(float(s.steps[0]) for s in series.values())
    hi = max(float(s.steps[-1]) for s in series.values())
    lo = hi - th.reward_fn_window * (hi - lo_all)
    stats = {}
    for n, s in series.items():
        st = _norm_trend(s, lo, hi, th)
        if st is not None and st["range"] > 0:  # a constant term carries no signal: left out
            stats[n] = st
    if len(stats) < 2:
        return []

    def climbing(st):
        return st["t"] >= th.slope_t and st["norm_rise"] >= th.reward_fn_min_rise

    def rising(st):
        return st["t"] >= th.slope_t and st["norm_rise"] > th.reward_fn_flat

    def saturated(st):
        return (not rising(st)) and st["norm_rise"] >= -th.reward_fn_flat \
            and st["position"] >= th.reward_fn_saturated

    climbers = [n for n, st in stats.items() if climbing(st)]
    if len(climbers) != 1:
        return []
    up = climbers[0]
    others = [n for n in stats if n != up]
    held = [n for n in others if not rising(stats[n]) and not saturated(stats[n])]
    if not held or any(rising(stats[n]) for n in others):
        return []
    step = float(lo)
    at = _at(run, step)
    ev = {"climbing": up, "held_back": ",".join(held),
          "saturated": ",".join(n for n in others if n not in held),
          "window_from_step": _r(lo), "window_to_step": _r(hi), "at_fraction": _r(at)}
    for n, st in stats.items():
        ev[f"{n}.rise"] = _r(st["rise"])
        ev[f"{n}.norm_rise"] = _r(st["norm_rise"])
        ev[f"{n}.t"] = _r(st["t"])
    others_txt = ", ".join(f"{n} {stats[n]['norm_rise']:+.2f}" for n in held)
    msg = (f"Reward term {up!r} climbs alone from step {_s(lo)} (normalised rise "
           f"{stats[up]['norm_rise']:+.2f}, t = {stats[up]['t']:.1f}) while the other terms stay "
           f"flat or fall ({others_txt}), a sign {up!r} is being gamed.")
    return [Alarm("reward_fn_divergence", run.name, step, msg, ev)]


def check(run: Run, thresholds: Thresholds | None = None) -> list[Alarm]:
    """Every alarm that fires on the run, sorted by step then kind. Alarms whose metrics are
    missing or too short are skipped (``not_checked`` says which and why)."""
    th = thresholds or Thresholds()
    skip = not_checked(run, th)
    out: list[Alarm] = []
    if "entropy_collapse" not in skip:
        out += _entropy(run, th)
    if "reward_variance_collapse" not in skip:
        out += _variance(run, th)
    if "kl_drift" not in skip:
        out += _kl(run, th)
    length_kinds = {k for k in ("length_blowup", "length_collapse") if k not in skip}
    if length_kinds:
        out += _length(run, th, length_kinds)
    if "train_val_divergence" not in skip:
        out += _train_val(run, th)
    if "reward_fn_divergence" not in skip:
        out += _reward_fn(run, th)
    out.sort(key=lambda a: (a.step, KINDS.index(a.kind)))
    return out
