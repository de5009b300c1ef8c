"""Where an alarm fell in a run, and the canonical order of metrics.

The report (``report.py``), its words (``verdict.py``) and its plots (``plots.py``) all need
these, so they live below all three.
"""

from __future__ import annotations

import math

from .alarms import Alarm
from .run import CANONICAL, Run


def _metric_order(name: str) -> tuple[int, str]:
    names = list(CANONICAL)
    return (names.index(name), name) if name in names else (len(names), name)


def _ev(alarm: Alarm, key: str) -> float | None:
    v = alarm.evidence.get(key) if isinstance(alarm.evidence, dict) else None
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None


def _at(run: Run, alarm: Alarm) -> float:
    at = _ev(alarm, "at_fraction")
    if at is not None:
        return at
    lo, hi = run.span()
    return (alarm.step - lo) / (hi - lo) if hi > lo else 0.0
