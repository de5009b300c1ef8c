"""The entropy-reward law over a training run.

Cui et al. 2025, "The Entropy Mechanism of Reinforcement Learning for Reasoning Language
Models" (arXiv:2505.22617), observe that during RL of reasoning models, without entropy
intervention, the validation/training reward R and the policy entropy H follow

    R = -a * exp(H) + b

so performance is bought with entropy, and when entropy is exhausted (H = 0) the reward
tops out at the predicted ceiling -a + b. ``fit_entropy_reward`` fits a and b by least
squares and says how far the run's reward (smoothed, at its last logged step) is from that
ceiling: a small gap with entropy nearly spent means more of the same training will not buy
much more reward.

The fit is linear in x = exp(H): R = b - a x, solved in closed form (ordinary least
squares). Points are the steps where both entropy and reward were logged (when they share
fewer than ``FIT_MIN_POINTS`` steps, reward is interpolated at the entropy steps inside
their common span), reduced and smoothed exactly as the alarms smooth a series
(``alarms.smooth``: equal-count bins above ``max_points``, then a centred rolling median over
``smooth_window`` of the points), which keeps noise in H from biasing the slope.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .alarms import smooth
from .run import Run, Series

FIT_MIN_POINTS = 5  # paired (entropy, reward) points needed for a fit


@dataclass(frozen=True)
class EntropyRewardFit:
    a: float  # R = -a * exp(H) + b; a > 0 when reward rises as entropy falls
    b: float
    r2: float  # coefficient of determination on the smoothed points (0 when reward is constant)
    n: int  # paired (entropy, reward) log points the fit used
    ceiling: float  # -a + b: the predicted reward when entropy is exhausted (H = 0)
    gap: float  # ceiling - the last observed reward (smoothed)

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "r2": self.r2, "n": self.n, "ceiling": self.ceiling, "gap": self.gap}


def _pairs(h: Series, r: Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    common, ih, ir = np.intersect1d(h.steps, r.steps, assume_unique=True, return_indices=True)
    if len(common) >= FIT_MIN_POINTS:
        return common, h.values[ih], r.values[ir]
    lo, hi = max(h.steps[0], r.steps[0]), min(h.steps[-1], r.steps[-1])
    inside = (h.steps >= lo) & (h.steps <= hi)
    steps = h.steps[inside]
    return steps, h.values[inside], np.interp(steps, r.steps, r.values)


def fit_entropy_reward(run: Run, *, smooth_window: float = 0.05, max_points: int = 2000) -> EntropyRewardFit | None:
    """Fit R = -a exp(H) + b over the run. None when entropy or reward is missing, when they
    pair on fewer than ``FIT_MIN_POINTS`` (5) points, or when the smoothed entropy is
    constant (or so large exp(H) overflows) so no slope can be fitted."""
    if not (run.has("entropy") and run.has("reward")):
        return None
    h, r = run.metrics["entropy"], run.metrics["reward"]
    steps, hv, rv = _pairs(h, r)
    n = len(steps)
    if n < FIT_MIN_POINTS:
        return None
    _, hs = smooth(Series(steps, hv), smooth_window, max_points)
    _, rs = smooth(Series(steps, rv), smooth_window, max_points)
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.exp(hs)
    if not np.all(np.isfinite(x)):
        return None
    xm = x - x.mean()
    sxx = float(xm @ xm)
    if not sxx > 1e-15 * max(1.0, float(x.mean()) ** 2) * len(x):
        return None
    slope = float(xm @ (rs - rs.mean())) / sxx
    b = float(rs.mean()) - slope * float(x.mean())
    a = -slope
    resid = rs - (b + slope * x)
    sst = float(((rs - rs.mean()) ** 2).sum())
    r2 = 1.0 - float(resid @ resid) / sst if sst > 0 else 0.0
    _, rsm = smooth(r, smooth_window, max_points)
    ceiling = b - a
    gap = ceiling - float(rsm[-1])
    vals = (a, b, r2, ceiling, gap)
    if not all(math.isfinite(v) for v in vals):
        return None
    return EntropyRewardFit(a=a, b=b, r2=max(-1e9, r2), n=n, ceiling=ceiling, gap=gap)
