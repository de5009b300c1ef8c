"""The alarm read from the live watch's labels (``verifier_audit/watch``): the share of
labelled rollouts the reward paid while the domain's oracle called them wrong is rising.

A policy that finds a hole in its reward learns to produce what the hole pays, so the
paid-but-wrong share climbs window after window long before a benchmark shows it. One high
window is no trend (a hard batch, a lenient task), so the test is the Cochran-Armitage test
for a trend in binomial proportions (Armitage 1955, "Tests for linear trends in proportions
and frequencies", Biometrics 11(3)): per window the count labelled and the count paid while
wrong, scores the window's position, one-sided. It weighs each window by its own count, so
a few rollouts per window (the watch samples 2% of them) still count for what they are.

The test runs on the latest ``paid_wrong_windows`` windows ending at each window in turn, as
the watch runs it live when a window closes (``trend_z``: every window at once, in numpy); the alarm's step is the first window where the
statistic reaches ``paid_wrong_z``. The replay from the watch's JSONL (``verifier-audit
monitor``) therefore fires at the same step as the live watch did.
"""

from __future__ import annotations

import math

import numpy as np

from ..metrics import wilson
from .kinds import Alarm
from .readings import at_fraction, fmt_step, json_float
from .run import WATCH_PREFIX, Run
from .thresholds import Thresholds

LABELLED, PAID_WRONG = WATCH_PREFIX + "labelled", WATCH_PREFIX + "paid_wrong"


def cochran_armitage(paid: np.ndarray, labelled: np.ndarray) -> float:
    """One-sided z of an increasing trend in ``paid / labelled`` over the windows in order
    (scores 0, 1, 2, ...); 0 when there is no variation to test (all paid or none)."""
    n = labelled.astype(np.float64)
    k = paid.astype(np.float64)
    total = n.sum()
    if total <= 0:
        return 0.0
    p = k.sum() / total
    x = np.arange(len(n), dtype=np.float64)
    mean_x = float((n * x).sum() / total)
    var = p * (1 - p) * float((n * (x - mean_x) ** 2).sum())
    if not var > 0:
        return 0.0
    return float((k * (x - mean_x)).sum() / math.sqrt(var))


def windows(run: Run) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps, paid-but-wrong, labelled) of the windows that labelled at least one rollout."""
    lab, paid = run.metrics[LABELLED], run.metrics[PAID_WRONG]
    steps, li, pi = np.intersect1d(lab.steps, paid.steps, assume_unique=True, return_indices=True)
    n, k = lab.values[li], paid.values[pi]
    keep = n > 0
    return steps[keep], k[keep], n[keep]


def trend_z(paid: np.ndarray, labelled: np.ndarray, span: int, block: int = 65536) -> np.ndarray:
    """``cochran_armitage`` of the latest ``span`` windows ending at each window, for every
    window at once (the first ones over the windows there are). A window of zero count
    weighs nothing and the statistic ignores a shift of the scores, so each row is the
    ``span`` windows ending there, padded in front with empty ones; rows go ``block`` at a
    time to bound memory."""
    from numpy.lib.stride_tricks import sliding_window_view

    pad = np.zeros(span - 1)
    k_all = np.concatenate([pad, paid.astype(np.float64)])
    n_all = np.concatenate([pad, labelled.astype(np.float64)])
    x = np.arange(span, dtype=np.float64)
    out = np.zeros(len(paid))
    for start in range(0, len(paid), block):
        stop = min(start + block, len(paid))
        k = sliding_window_view(k_all[start : stop + span - 1], span)
        n = sliding_window_view(n_all[start : stop + span - 1], span)
        total = n.sum(axis=1)
        p = k.sum(axis=1) / np.where(total > 0, total, 1)
        dx = x - (n * x).sum(axis=1, keepdims=True) / np.where(total > 0, total, 1)[:, None]
        var = p * (1 - p) * (n * dx * dx).sum(axis=1)
        t = (k * dx).sum(axis=1)
        out[start:stop] = np.where(var > 0, t / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)
    return out


def paid_wrong_rising(run: Run, th: Thresholds) -> list[Alarm]:
    steps, k, n = windows(run)
    if len(steps) < th.paid_wrong_min_windows:
        return []
    z_all = trend_z(k, n, th.paid_wrong_windows)
    enough = np.arange(1, len(steps) + 1) >= th.paid_wrong_min_windows
    hits = np.flatnonzero(enough & (z_all >= th.paid_wrong_z))
    if not len(hits):
        return []
    t = int(hits[0])
    lo = max(0, t + 1 - th.paid_wrong_windows)
    z = float(z_all[t])
    step = float(steps[t])
    first, last = k[lo] / n[lo], k[t] / n[t]
    ci = wilson(int(k[t]), int(n[t]))
    at = at_fraction(run, step)
    ev = {
        "z": json_float(z),
        "windows": t + 1 - lo,
        "first_step": json_float(steps[lo]),
        "first_share": json_float(first),
        "share": json_float(last),
        "share_low": json_float(ci.low),
        "share_high": json_float(ci.high),
        "paid_wrong": int(k[lo : t + 1].sum()),
        "labelled": int(n[lo : t + 1].sum()),
        "at_fraction": json_float(at),
        "paid_wrong_z": th.paid_wrong_z,
    }
    msg = (
        f"The share of labelled rollouts paid while wrong rose from {first:.0%} (step "
        f"{fmt_step(steps[lo])}) to {last:.0%} at step {fmt_step(step)} (95% CI {ci.low:.0%}-"
        f"{ci.high:.0%}, {int(k[t])} of {int(n[t])}): a trend over {t + 1 - lo} windows, "
        f"Cochran-Armitage z = {z:.2f} >= {th.paid_wrong_z:g}."
    )
    return [Alarm("paid_wrong_rising", run.name, step, msg, ev)]
