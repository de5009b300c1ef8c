"""What every detector reads off a run besides the smoothed curve: a series' initial value,
how many smoothed points make a condition persistent, where a step falls in the run, which
reward-function terms it logs, and how numbers are written into messages and evidence."""

from __future__ import annotations

import math

import numpy as np

from .run import REWARD_FN_PREFIX, Run, Series
from .thresholds import Thresholds


def initial(series: Series, th: Thresholds) -> float:
    k = min(len(series), max(3, math.ceil(th.initial_window * len(series))))
    return float(np.median(series.values[:k]))


def persistence_need(th: Thresholds, m: int) -> int:
    """Smoothed points in a row that make a condition persistent."""
    return max(3, math.ceil(th.persistence * m))


def at_fraction(run: Run, step: float) -> float:
    """How early: the step's position in the span of all the run's metrics (0 to 1)."""
    lo, hi = run.span()
    return (step - lo) / (hi - lo) if hi > lo else 0.0


def reward_fns(run: Run) -> list[str]:
    return [n for n in run.reward_functions() if run.has(REWARD_FN_PREFIX + n)]


def fmt(x: float) -> str:
    return f"{x:.4g}"


def fmt_step(step: float) -> str:
    """A step as written in messages: 1250, 1000000, 249.5 (never 1e+06)."""
    return f"{float(step):.10g}"


def json_float(x: float) -> float:
    """A JSON-able float, rounded for reading."""
    return float(round(float(x), 6)) if math.isfinite(x) else 0.0
