"""How the alarms read a noisy series: a rolling median (``smooth``), a least-squares slope
with its t-statistic (``trend``) and where a condition starts to hold for good
(``first_persistent``). ``fit.py`` smooths with the same ``smooth`` so that its fit and the
alarms see the same curve."""

from __future__ import annotations

import math

import numpy as np

from .run import Series

_T_CAP = 1e6  # |t| is capped so evidence stays finite (a noiseless line has t = inf)


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


def first_persistent(mask: np.ndarray, need: int) -> int | None:
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
