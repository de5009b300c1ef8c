"""Alarms that the policy stopped exploring early: its entropy collapsed, or the reward
spread within a group vanished (nothing left to learn from)."""

from __future__ import annotations

from .kinds import Alarm
from .readings import at_fraction, fmt, fmt_step, initial, json_float, persistence_need
from .run import Run
from .smoothing import first_persistent, smooth
from .thresholds import Thresholds


def entropy_collapse(run: Run, th: Thresholds) -> list[Alarm]:
    s = run.metrics["entropy"]
    h0 = initial(s, th)
    if not h0 > 0:
        return []
    steps, sm = smooth(s, th.smooth_window, th.max_points)
    line = (1.0 - th.entropy_loss) * h0
    i = first_persistent(sm < line, persistence_need(th, len(sm)))
    if i is None:
        return []
    step = float(steps[i])
    at = at_fraction(run, step)
    if at > th.entropy_within + 1e-12:
        return []
    lost, final_lost = 1.0 - sm[i] / h0, 1.0 - sm[-1] / h0
    ev = {
        "initial": json_float(h0),
        "threshold": json_float(line),
        "value": json_float(sm[i]),
        "final": json_float(sm[-1]),
        "loss": json_float(lost),
        "final_loss": json_float(final_lost),
        "at_fraction": json_float(at),
        "entropy_loss": th.entropy_loss,
    }
    msg = (
        f"Entropy fell below {fmt(line)} ({1 - th.entropy_loss:.0%} of its initial {fmt(h0)}) at "
        f"step {fmt_step(step)}, {at:.0%} into the run, and stayed there: {lost:.0%} lost then, "
        f"{final_lost:.0%} by the end ({fmt(sm[-1])})."
    )
    return [Alarm("entropy_collapse", run.name, step, msg, ev)]


def reward_variance_collapse(run: Run, th: Thresholds) -> list[Alarm]:
    hits = []  # (step, at, detail, evidence)
    s = run.metrics.get("reward_std")
    if s is not None and len(s) >= th.min_points:
        r0 = initial(s, th)
        if r0 > 0:
            steps, sm = smooth(s, th.smooth_window, th.max_points)
            line = th.reward_std_fraction * r0
            i = first_persistent(sm <= line, persistence_need(th, len(sm)))
            if i is not None and at_fraction(run, steps[i]) <= th.variance_within + 1e-12:
                at = at_fraction(run, steps[i])
                hits.append(
                    (
                        float(steps[i]),
                        at,
                        f"group reward std fell to {fmt(sm[i])} ({sm[i] / r0:.0%} of its initial "
                        f"{fmt(r0)}; alarm at {th.reward_std_fraction:.0%})",
                        {
                            "trigger": "reward_std",
                            "initial": json_float(r0),
                            "threshold": json_float(line),
                            "value": json_float(sm[i]),
                            "final": json_float(sm[-1]),
                            "at_fraction": json_float(at),
                        },
                    )
                )
    z = run.metrics.get("frac_reward_zero_std")
    if z is not None and len(z) >= th.min_points:
        steps, sm = smooth(z, th.smooth_window, th.max_points)
        i = first_persistent(sm >= th.zero_std_level, persistence_need(th, len(sm)))
        if i is not None and at_fraction(run, steps[i]) <= th.variance_within + 1e-12:
            at = at_fraction(run, steps[i])
            z0 = initial(z, th)
            hits.append(
                (
                    float(steps[i]),
                    at,
                    f"the fraction of groups with zero reward std rose to {fmt(sm[i])} "
                    f"(from {fmt(z0)}; alarm at {fmt(th.zero_std_level)})",
                    {
                        "trigger": "frac_reward_zero_std",
                        "initial": json_float(z0),
                        "threshold": th.zero_std_level,
                        "value": json_float(sm[i]),
                        "final": json_float(sm[-1]),
                        "at_fraction": json_float(at),
                    },
                )
            )
    if not hits:
        return []
    hits.sort(key=lambda h: h[0])
    step, at, detail, ev = hits[0]
    ev = dict(ev)
    ev["triggers"] = ",".join(h[3]["trigger"] for h in hits)
    if len(hits) > 1:
        other = hits[1]
        ev["also"] = other[2]
    msg = (
        f"Reward variance collapsed early: by step {fmt_step(step)} ({at:.0%} into the run) {detail}"
        + (f", and {hits[1][2]} at step {fmt_step(hits[1][0])}" if len(hits) > 1 else "")
        + "."
    )
    return [Alarm("reward_variance_collapse", run.name, step, msg, ev)]
