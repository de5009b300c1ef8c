"""Where a run starts and ends, where an alarm fell in it, the canonical order of metrics.

The report (``report.py``), its words (``verdict.py``) and its plots (``plots.py``) all need
these, so they live below all three.
"""

from __future__ import annotations

import math
from typing import Optional

from .alarms import Alarm
from .run import CANONICAL, Run


def span(run: Run) -> tuple[float, float]:
    firsts = [float(s.steps[0]) for s in run.metrics.values() if len(s)]
    lasts = [float(s.steps[-1]) for s in run.metrics.values() if len(s)]
    return (min(firsts), max(lasts)) if firsts else (0.0, 0.0)


def _metric_order(name: str) -> tuple[int, str]:
    names = list(CANONICAL)
    return (names.index(name), name) if name in names else (len(names), name)


def _ev(alarm: Alarm, key: str) -> Optional[float]:
    v = alarm.evidence.get(key) if isinstance(alarm.evidence, dict) else None
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None


def _at(run: Run, alarm: Alarm) -> float:
    at = _ev(alarm, "at_fraction")
    if at is not None:
        return at
    lo, hi = span(run)
    return (alarm.step - lo) / (hi - lo) if hi > lo else 0.0
