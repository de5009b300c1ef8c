"""Alarms that the reward climbs where it should not: training reward rising while
validation does not, or one reward term climbing alone. Both compare normalised trends
over the last part of the run."""

from __future__ import annotations

import numpy as np

from .kinds import Alarm
from .readings import at_fraction, fmt, fmt_step, json_float, reward_fns
from .run import REWARD_FN_PREFIX, Run, Series
from .smoothing import smooth, trend
from .thresholds import Thresholds


def _value_range(values: np.ndarray) -> float:
    return float(values.max() - values.min()) if len(values) else 0.0


def _norm_trend(s: Series, lo: float, hi: float, th: Thresholds) -> dict | None:
    """Trend of a series between steps lo and hi: slope, t, rise over the window, the rise
    normalised by the range of the smoothed series over the whole run, and where the
    window's smoothed mean sits in that range (0 = bottom, 1 = top)."""
    inside = (s.steps >= lo) & (s.steps <= hi)
    if inside.sum() < 3:
        return None
    steps, sm = smooth(s, th.smooth_window, th.max_points)
    rng = _value_range(sm)
    slope, t = trend(s.steps[inside], s.values[inside])
    rise = slope * (hi - lo)
    win = (steps >= lo) & (steps <= hi)
    mean = float(sm[win].mean()) if win.any() else float(s.values[inside].mean())
    return {
        "slope": slope,
        "t": t,
        "rise": rise,
        "norm_rise": rise / rng if rng > 0 else 0.0,
        "position": (mean - float(sm.min())) / rng if rng > 0 else 0.5,
        "range": rng,
        "points": int(inside.sum()),
        "smoothed": (steps, sm),
    }


def train_val_window(run: Run, th: Thresholds) -> tuple[float, float] | None:
    """The steps compared: the last ``divergence_window`` of where reward and val_accuracy
    overlap; None when they do not. ``not_checked`` calls it too, so that the alarm is
    reported as not run rather than silently finding nothing."""
    r, v = run.metrics["reward"], run.metrics["val_accuracy"]
    lo = max(float(r.steps[0]), float(v.steps[0]))
    hi = min(float(r.steps[-1]), float(v.steps[-1]))
    if not hi > lo:
        return None
    return hi - th.divergence_window * (hi - lo), hi


def train_val_divergence(run: Run, th: Thresholds) -> list[Alarm]:
    win = train_val_window(run, th)
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
    at = at_fraction(run, step)
    why = "falls" if va["t"] <= -2.0 else ("stalls" if stalled else "lags (the gap widens)")
    ev = {
        "window_from_step": json_float(lo),
        "window_to_step": json_float(hi),
        "train_rise": json_float(tr["rise"]),
        "train_norm_rise": json_float(tr["norm_rise"]),
        "train_t": json_float(tr["t"]),
        "val_rise": json_float(va["rise"]),
        "val_norm_rise": json_float(va["norm_rise"]),
        "val_t": json_float(va["t"]),
        "val_points": va["points"],
        "val_peak": json_float(vsm[peak]) if len(inw) else 0.0,
        "val_peak_step": json_float(vsteps[peak]) if len(inw) else 0.0,
        "reason": why,
        "at_fraction": json_float(at),
    }
    msg = (
        f"Training reward rose by {fmt(tr['rise'])} (t = {tr['t']:.1f}) from step {fmt_step(lo)} to "
        f"{fmt_step(hi)} while validation accuracy {why}: {va['rise']:+.4g} over {va['points']} "
        f"evaluations (t = {va['t']:.1f}), best {fmt(ev['val_peak'])} at step "
        f"{fmt_step(ev['val_peak_step'])}."
    )
    return [Alarm("train_val_divergence", run.name, step, msg, ev)]


def reward_fn_divergence(run: Run, th: Thresholds) -> list[Alarm]:
    names = [n for n in reward_fns(run) if len(run.metrics[REWARD_FN_PREFIX + n]) >= th.min_points]
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
        return (not rising(st)) and st["norm_rise"] >= -th.reward_fn_flat and st["position"] >= th.reward_fn_saturated

    climbers = [n for n, st in stats.items() if climbing(st)]
    if len(climbers) != 1:
        return []
    up = climbers[0]
    others = [n for n in stats if n != up]
    held = [n for n in others if not rising(stats[n]) and not saturated(stats[n])]
    if not held or any(rising(stats[n]) for n in others):
        return []
    step = float(lo)
    at = at_fraction(run, step)
    ev = {
        "climbing": up,
        "held_back": ",".join(held),
        "saturated": ",".join(n for n in others if n not in held),
        "window_from_step": json_float(lo),
        "window_to_step": json_float(hi),
        "at_fraction": json_float(at),
    }
    for n, st in stats.items():
        ev[f"{n}.rise"] = json_float(st["rise"])
        ev[f"{n}.norm_rise"] = json_float(st["norm_rise"])
        ev[f"{n}.t"] = json_float(st["t"])
    others_txt = ", ".join(f"{n} {stats[n]['norm_rise']:+.2f}" for n in held)
    msg = (
        f"Reward term {up!r} climbs alone from step {fmt_step(lo)} (normalised rise "
        f"{stats[up]['norm_rise']:+.2f}, t = {stats[up]['t']:.1f}) while the other terms stay "
        f"flat or fall ({others_txt}), a sign {up!r} is being gamed."
    )
    return [Alarm("reward_fn_divergence", run.name, step, msg, ev)]
