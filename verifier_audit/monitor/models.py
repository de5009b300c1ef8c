"""The training-health report as data: the pydantic models of ``monitor --json``
(``MonitorReport`` and the parts of it). ``report.build_report`` fills them; the renderers
(``text``, ``html``, ``plots``, ``png``) and the verdict read them. Nothing here imports the
rest of ``monitor``, so each of them can import it without a circle.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from .._version import __version__

FORMAT = "verifier-audit-monitor"
FORMAT_VERSION = 1


class MetricInfo(BaseModel):
    name: str  # canonical
    logged_as: str  # the name in the log
    points: int
    first_step: float
    last_step: float
    start: float  # median of the first 5% of the points (at least 3)
    end: float  # median of the last 5% of the points (at least 3)


class AlarmInfo(BaseModel):
    kind: str
    step: float
    at_fraction: float | None = None  # where in the run (0 first logged step, 1 last)
    message: str
    evidence: dict = Field(default_factory=dict)


class FitInfo(BaseModel):
    """R = -a exp(H) + b (Cui et al. 2025)."""

    a: float
    b: float
    r2: float
    n: int
    ceiling: float  # -a + b: the reward predicted when entropy is spent (H = 0)
    gap: float  # ceiling - the last reward (smoothed): how far the run is from it
    last_reward: float


class RunReport(BaseModel):
    name: str
    source: str
    format: str
    first_step: float
    last_step: float
    healthy: bool  # no alarm fired
    verdict: str
    alarms: list[AlarmInfo]
    fit: FitInfo | None = None
    metrics: list[MetricInfo]
    missing: list[str]  # canonical metrics the log lacks
    not_checked: dict[str, str]  # alarm kind -> why it could not run
    notes: list[str]


class MonitorReport(BaseModel):
    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    tool_version: str = __version__
    thresholds: dict
    config: str | None = None  # the pyproject.toml the thresholds came from
    runs: list[RunReport]
    alarms: int  # alarms fired, all runs together
    exit_code: int  # 0 no alarm, 1 an alarm fired
