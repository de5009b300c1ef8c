"""The training-health report: the figures of each run and the pydantic models of the JSON.

``build_report(runs, thresholds)`` runs the alarms (``alarms.check``) and the entropy-reward
fit (``fit.fit_entropy_reward``) on each run and says in plain words what they mean
(``verdict.py``). ``MonitorReport`` is the JSON (``to_json``). The renderings live in their
own modules and are re-exported here, the one place a user imports from: ``render_text``
(text.py, what the command prints), ``render_html`` (html.py, the runs' curves as inline SVG
from plots.py) and ``write_pngs`` (png.py, the same with matplotlib).
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
from pydantic import BaseModel, Field

from .. import __version__
from .alarms import Alarm, Thresholds, check, missing_metrics, not_checked
from .facts import _at, _metric_order
from .fit import fit_entropy_reward
from .html import render_html
from .png import write_pngs
from .run import Run, Series
from .text import render_text
from .verdict import verdict

# What a user imports, renderers included. The renderers need this module's models only as
# annotations, so they never import it at run time: it sits above them and cannot cycle.
__all__ = ["AlarmInfo", "FitInfo", "MetricInfo", "MonitorReport", "RunReport", "build_report", "render_html",
           "render_text", "to_json", "write_pngs"]

FORMAT = "verifier-audit-monitor"
FORMAT_VERSION = 1
NARROWING = ("entropy_collapse", "reward_variance_collapse")


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
    at_fraction: Optional[float] = None  # where in the run (0 first logged step, 1 last)
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
    fit: Optional[FitInfo] = None
    metrics: list[MetricInfo]
    missing: list[str]  # canonical metrics the log lacks
    not_checked: dict[str, str]  # alarm kind -> why it could not run
    notes: list[str]


class MonitorReport(BaseModel):
    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    tool_version: str = __version__
    thresholds: dict
    config: Optional[str] = None  # the pyproject.toml the thresholds came from
    runs: list[RunReport]
    alarms: int  # alarms fired, all runs together
    exit_code: int  # 0 no alarm, 1 an alarm fired


# --------------------------------------------------------------------------------------
# Figures


def _edge(values: np.ndarray) -> int:
    return min(len(values), max(3, math.ceil(0.05 * len(values))))


def _start_end(s: Series) -> tuple[float, float]:
    k = _edge(s.values)
    return float(np.median(s.values[:k])), float(np.median(s.values[-k:]))


def _metrics(run: Run) -> list[MetricInfo]:
    out = []
    for name in sorted(run.metrics, key=_metric_order):
        s = run.metrics[name]
        if not len(s):
            continue
        a, b = _start_end(s)
        out.append(MetricInfo(name=name, logged_as=run.original_names.get(name, name), points=len(s),
                              first_step=float(s.steps[0]), last_step=float(s.steps[-1]), start=a, end=b))
    return out


def _finite_dict(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, float) and not math.isfinite(v):
            out[str(k)] = None
        elif isinstance(v, (str, int, float, bool)) or v is None:
            out[str(k)] = v
        else:
            out[str(k)] = str(v)
    return out


def build_report(runs: list[Run], thresholds: Optional[Thresholds] = None, config: Optional[str] = None
                 ) -> tuple[MonitorReport, dict[str, list[Alarm]]]:
    """The report, and the alarms per run name (for the plots)."""
    th = thresholds or Thresholds()
    out, fired = [], {}
    for run in runs:
        alarms = check(run, th)
        fired[run.name] = alarms
        fit = fit_entropy_reward(run, smooth_window=th.smooth_window, max_points=th.max_points)
        metrics = _metrics(run)
        skipped = not_checked(run, th)
        lo, hi = run.span()
        fit_info = None
        if fit is not None:
            fit_info = FitInfo(a=fit.a, b=fit.b, r2=fit.r2, n=fit.n, ceiling=fit.ceiling, gap=fit.gap,
                               last_reward=fit.ceiling - fit.gap)
        out.append(RunReport(
            name=run.name, source=run.source, format=getattr(run, "format", "") or "", first_step=lo, last_step=hi,
            healthy=not alarms, verdict=verdict(run, alarms, fit, metrics, skipped),
            alarms=[AlarmInfo(kind=a.kind, step=a.step, at_fraction=_at(run, a), message=a.message,
                              evidence=_finite_dict(dict(a.evidence))) for a in alarms],
            fit=fit_info, metrics=metrics, missing=missing_metrics(run), not_checked=skipped,
            notes=list(getattr(run, "notes", []) or [])))
    n_alarms = sum(len(a) for a in fired.values())
    report = MonitorReport(thresholds=th.model_dump(), config=config, runs=out, alarms=n_alarms,
                           exit_code=1 if n_alarms else 0)
    return report, fired


def to_json(report: MonitorReport) -> str:
    import json

    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=True) + "\n"
