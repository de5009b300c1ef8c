"""A run's verdict in plain words, and the number formats every rendering shares.

``verdict`` turns the alarms' evidence into one or two sentences; ``build_report`` stores them
in ``RunReport.verdict`` so the text, JSON and HTML say the same thing.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .alarms import Alarm
from .facts import _at, _ev, _metric_order
from .fit import EntropyRewardFit
from .models import MetricInfo
from .run import Run


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


def _move(name: str, m: MetricInfo | None) -> str | None:
    """'reward rose 0.31 → 0.74' (or fell, or stayed at)."""
    if m is None:
        return None
    a, b = m.start, m.end
    scale = max(abs(a), abs(b), 1e-12)
    if abs(b - a) <= 0.02 * scale:
        return f"{name} stayed at {_g(b)}"
    return f"{name} {'rose' if b > a else 'fell'} {_g(a)} → {_g(b)}"


def _kinds_not_checked_words(skipped: dict[str, str]) -> str:
    return "; ".join(f"{k.replace('_', ' ')} ({why})" for k, why in skipped.items())


def verdict(
    run: Run, alarms: list[Alarm], fit: EntropyRewardFit | None, metrics: list[MetricInfo], skipped: dict[str, str]
) -> str:
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
        clause = (
            f"entropy fell {loss:.0%}" if loss is not None else "entropy collapsed"
        ) + f" by step {_step(a.step)} ({_at(run, a):.0%} of training)"
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
        parts.append(
            clause + ": most groups now score all alike and carry no learning signal; the policy "
            "is narrowing into a few trajectories"
        )
    if "kl_drift" in first:
        a = first["kl_drift"]
        level, slope = _ev(a, "level"), _ev(a, "slope_per_100_steps")
        parts.append(
            f"KL to the reference climbed past {_g(_ev(a, 'threshold') or 0)} at step {_step(a.step)}"
            + (f" and reached {_g(level)}" if level is not None else "")
            + (f", still rising {_g(slope)} per 100 steps" if slope is not None else "")
            + ": the policy is drifting away from the reference model"
        )
    if "length_blowup" in first:
        a = first["length_blowup"]
        ratio = _ev(a, "ratio")
        grew = f"grew ×{ratio:.1f}" if ratio is not None else "blew up"
        parts.append(
            f"completion length {grew} by step {_step(a.step)}"
            + ": completions are getting longer, which a verifier that pays for length (or for an "
            "answer somewhere in a long text) would reward"
        )
    if "length_collapse" in first:
        a = first["length_collapse"]
        ratio = _ev(a, "ratio")
        parts.append(
            f"completion length shrank to {ratio:.0%} of its start by step {_step(a.step)}"
            if ratio is not None
            else f"completion length collapsed by step {_step(a.step)}"
        )
        parts[-1] += ": the policy may be skipping its reasoning or answering in a bare format the verifier accepts"
    if "train_val_divergence" in first:
        a = first["train_val_divergence"]
        why = a.evidence.get("reason", "stalls") if isinstance(a.evidence, dict) else "stalls"
        val = _move("validation accuracy", by.get("val_accuracy"))
        parts.append(
            f"training reward keeps rising while validation accuracy {why} from step {_step(a.step)}"
            + (f" ({val})" if val else "")
            + ": the gains do not carry over to held-out problems, so the reward pays for something "
            "other than the task"
        )
    if "reward_fn_divergence" in first:
        a = first["reward_fn_divergence"]
        up = a.evidence.get("climbing", "one term") if isinstance(a.evidence, dict) else "one term"
        held = a.evidence.get("held_back", "") if isinstance(a.evidence, dict) else ""
        parts.append(
            f"reward term {up} climbs alone from step {_step(a.step)}"
            + (f" while {held.replace(',', ', ')} stay flat" if held else "")
            + f": {up} is probably being gamed"
        )
    if "paid_wrong_rising" in first:
        a = first["paid_wrong_rising"]
        parts.append(
            f"the share of rollouts the reward paid while the domain's oracle called them wrong "
            f"rises to {_ev(a, 'share') or 0:.0%} by step {_step(a.step)}: the policy is finding a hole in the reward"
        )
    if parts:
        return f"run {run.name}: " + "; ".join(parts) + "."
    # no alarm
    moves = [
        m
        for m in (_move("entropy", by.get("entropy")), reward, _move("validation accuracy", by.get("val_accuracy")))
        if m
    ]
    ran = [
        k
        for k in (
            "entropy_collapse",
            "reward_variance_collapse",
            "kl_drift",
            "length_blowup",
            "train_val_divergence",
            "reward_fn_divergence",
        )
        if k not in skipped
    ]
    if not ran:
        return (
            f"run {run.name}: no alarm, but none could run: "
            f"{_kinds_not_checked_words(skipped)}. Log entropy, reward_std, kl and length to have them checked."
        )
    text = f"run {run.name}: healthy" + (f" ({', '.join(moves)})" if moves else "") + "."
    if skipped:
        missing = sorted(
            {w for why in skipped.values() for w in re.findall(r"no (\S+) metric", why)}, key=_metric_order
        )
        if missing:
            text += f" Not checked for lack of {', '.join(missing)}."
        else:
            text += f" Not checked: {_kinds_not_checked_words(skipped)}."
    return text


def _fit_words(fit: EntropyRewardFit) -> str:
    last = fit.ceiling - fit.gap
    if fit.gap <= 0.02 * max(abs(fit.ceiling), 1e-9) + 1e-9:
        return (
            f"the reward has reached the ceiling the entropy–reward fit predicts ({_g(fit.ceiling)}; last "
            f"reward {_g(last)}): more training of this kind has little left to buy"
        )
    return (
        f"the entropy–reward fit predicts a ceiling of {_g(fit.ceiling)}, {_g(fit.gap)} above the last "
        f"reward {_g(last)}"
    )
