"""Bounds on how work grows, measured against a baseline in the same test (never against a
wall-clock limit: the suite must pass on a fully loaded machine).

``growth(fn, build, n)`` is how many times longer ``fn(build(n))`` takes than
``fn(build(n // FACTOR))``, each the fastest of a few runs: about FACTOR when the work is
linear, FACTOR squared when it is quadratic, at most 1 when a size limit cuts it short. The
runs are timed in this process's CPU time, not wall time: on a loaded machine a run long
enough to lose its core waits for it, and a sub-millisecond baseline seldom does, so a wall
ratio grew with the load (a linear scan measured 103x at a sixteenth with 4 busy loops on 2
cores); CPU time counts only the work.
"""

from __future__ import annotations

import time
from collections.abc import Callable

FACTOR = 16
LINEAR = 4 * FACTOR  # the bound the tests use: room for noise on a loaded machine, far below a quadratic 256


def _fastest(fn: Callable, arg, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn(arg)
        best = min(best, time.process_time() - start)
    return max(best, 1e-7)


def growth(fn: Callable, build: Callable[[int], object], n: int, repeats: int = 3) -> float:
    small, large = build(max(1, n // FACTOR)), build(n)
    return _fastest(fn, large, repeats) / _fastest(fn, small, repeats)


def relative_cost(fn: Callable, arg, baseline, repeats: int = 1) -> float:
    """How many times longer ``fn(arg)`` takes than ``fn(baseline)``, a typical input
    measured in the same test (the fastest of three runs)."""
    return _fastest(fn, arg, repeats) / _fastest(fn, baseline, 3)
