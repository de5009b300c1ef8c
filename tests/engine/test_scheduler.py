"""``run_lanes`` is a small scheduler class (``pool._Schedule``): its state is attributes,
its steps methods, and no closure shares ``nonlocal`` state. What it schedules, and how
every failure becomes an outcome, is tests/engine/test_pool.py."""

from __future__ import annotations

import inspect
from collections import deque

from verifier_audit.engine import pool


def _nested_functions(fn) -> list[str]:
    """Functions defined inside ``fn`` (comprehensions and generator expressions aside)."""
    return [c.co_name for c in fn.__code__.co_consts if inspect.iscode(c) and not c.co_name.startswith("<")]


def test_run_lanes_and_the_schedule_hold_no_closures():
    assert _nested_functions(pool.run_lanes) == []
    methods = [m for _, m in inspect.getmembers(pool._Schedule, inspect.isfunction)]
    assert len(methods) >= 8 and all(_nested_functions(m) == [] for m in methods)
    assert "nonlocal" not in inspect.getsource(pool)


class Double:
    def setup(self):
        pass

    def __call__(self, i):
        return 2 * i


def test_the_schedule_counts_down_to_nothing_left_and_stops_its_workers():
    lanes = [pool.Lane(Double(), range(5)), pool.Lane(Double(), range(3))]
    schedule = pool._Schedule(
        lanes,
        [deque(lane.items) for lane in lanes],
        workers=2,
        timeout=30,
        memory_mb=1024,
        chunk=2,
        quiet=True,
        setup_timeout=120,
        on_restart=None,
        on_wait=None,
        spare=None,
        file_mb=None,
        max_processes=None,
    )
    assert schedule.left == 8
    seen = []
    for lane, outcome in schedule.outcomes():
        seen.append((lane, outcome.index, outcome.value))
        assert schedule.left == 8 - len(seen)  # counted off as each outcome is handed out
    assert sorted(seen) == [(0, i, 2 * i) for i in range(5)] + [(1, i, 2 * i) for i in range(3)]
    assert schedule.started_lanes == 2
    assert not any(w.proc.is_alive() for w in schedule.pool + schedule.retired)


def test_an_empty_schedule_starts_no_worker():
    assert list(pool.run_lanes([pool.Lane(Double(), [])], workers=2)) == []
