"""Alarms that the policy drifted far from where it started: KL to the reference still
climbing at the end, completions grown or shrunk by a large factor."""

from __future__ import annotations

import numpy as np

from .kinds import Alarm
from .readings import at_fraction, fmt, fmt_step, initial, json_float, persistence_need
from .run import Run
from .smoothing import first_persistent, smooth, trend
from .thresholds import Thresholds


def kl_drift(run: Run, th: Thresholds) -> list[Alarm]:
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
    at = at_fraction(run, step)
    ev = {
        "level": json_float(sm[-1]),
        "threshold": th.kl_level,
        "slope_per_100_steps": json_float(per100),
        "slope_t": json_float(t),
        "tail_from_step": json_float(start),
        "above_since_step": json_float(step),
        "at_fraction": json_float(at),
        "kl_slope": th.kl_slope,
    }
    msg = (
        f"KL to the reference has been above {fmt(th.kl_level)} since step {fmt_step(step)} "
        f"({at:.0%} into the run), reaches {fmt(sm[-1])} and is still rising by "
        f"{fmt(per100)} per 100 steps over the last {th.kl_window:.0%} of the run (t = {t:.1f})."
    )
    return [Alarm("kl_drift", run.name, step, msg, ev)]


def length_alarms(run: Run, th: Thresholds, kinds: set[str]) -> list[Alarm]:
    """Length blow-up and collapse, whichever of ``kinds`` can run: both read the same
    smoothed length and initial value, so they share one pass."""
    s = run.metrics["length"]
    l0 = initial(s, th)
    if not l0 > 0:
        return []
    steps, sm = smooth(s, th.smooth_window, th.max_points)
    need = persistence_need(th, len(sm))
    out = []
    for kind, mask, factor, verb in (
        ("length_blowup", sm >= th.length_blowup_factor * l0, th.length_blowup_factor, "grew"),
        ("length_collapse", sm <= l0 / th.length_collapse_factor, th.length_collapse_factor, "shrank"),
    ):
        if kind not in kinds:
            continue
        i = first_persistent(mask, need)
        if i is None:
            continue
        step = float(steps[i])
        at = at_fraction(run, step)
        line = l0 * factor if kind == "length_blowup" else l0 / factor
        ev = {
            "initial": json_float(l0),
            "threshold": json_float(line),
            "value": json_float(sm[i]),
            "final": json_float(sm[-1]),
            "ratio": json_float(sm[i] / l0),
            "final_ratio": json_float(sm[-1] / l0),
            "at_fraction": json_float(at),
            "factor": factor,
        }
        msg = (
            f"Completion length {verb} from {fmt(l0)} to {fmt(sm[i])} tokens (x{sm[i] / l0:.2f}; "
            f"alarm at {'x' if kind == 'length_blowup' else '/'}{fmt(factor)}) by step {fmt_step(step)}, "
            f"{at:.0%} into the run, and stayed there (x{sm[-1] / l0:.2f} at the end)."
        )
        out.append(Alarm(kind, run.name, step, msg, ev))
    return out
