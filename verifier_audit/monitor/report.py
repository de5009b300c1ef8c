"""The training-health report: the figures of each run, filled into the models of the JSON.

``build_report(runs, thresholds)`` runs the alarms (``alarms.check``) and the entropy-reward
fit (``fit.fit_entropy_reward``) on each run and says in plain words what they mean
(``verdict.py``). ``MonitorReport`` (``models.py``) is the JSON (``to_json``). The
renderings live in their own modules and are re-exported here, the one place a user imports from: ``render_text``
(text.py, what the command prints), ``render_html`` (html.py, the runs' curves as inline SVG
from plots.py) and ``write_pngs`` (png.py, the same with matplotlib).
"""

from __future__ import annotations

import math

import numpy as np

from .alarms import Alarm, Thresholds, check, missing_metrics, not_checked
from .facts import _at, _metric_order
from .fit import fit_entropy_reward
from .html import render_html
from .models import AlarmInfo, FitInfo, MetricInfo, MonitorReport, RunReport
from .png import write_pngs
from .run import Run, Series
from .text import render_text
from .verdict import verdict

# What a user imports, renderers included. The models the renderers read are models.py,
# below them and this module, so the renderers never import this module back.
__all__ = [
    "AlarmInfo",
    "FitInfo",
    "MetricInfo",
    "MonitorReport",
    "RunReport",
    "build_report",
    "render_html",
    "render_text",
    "to_json",
    "write_pngs",
]

NARROWING = ("entropy_collapse", "reward_variance_collapse")


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
        out.append(
            MetricInfo(
                name=name,
                logged_as=run.original_names.get(name, name),
                points=len(s),
                first_step=float(s.steps[0]),
                last_step=float(s.steps[-1]),
                start=a,
                end=b,
            )
        )
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


def build_report(
    runs: list[Run], thresholds: Thresholds | None = None, config: str | None = None
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
            fit_info = FitInfo(
                a=fit.a,
                b=fit.b,
                r2=fit.r2,
                n=fit.n,
                ceiling=fit.ceiling,
                gap=fit.gap,
                last_reward=fit.ceiling - fit.gap,
            )
        out.append(
            RunReport(
                name=run.name,
                source=run.source,
                format=getattr(run, "format", "") or "",
                first_step=lo,
                last_step=hi,
                healthy=not alarms,
                verdict=verdict(run, alarms, fit, metrics, skipped),
                alarms=[
                    AlarmInfo(
                        kind=a.kind,
                        step=a.step,
                        at_fraction=_at(run, a),
                        message=a.message,
                        evidence=_finite_dict(dict(a.evidence)),
                    )
                    for a in alarms
                ],
                fit=fit_info,
                metrics=metrics,
                missing=missing_metrics(run),
                not_checked=skipped,
                notes=list(getattr(run, "notes", []) or []),
            )
        )
    n_alarms = sum(len(a) for a in fired.values())
    report = MonitorReport(
        thresholds=th.model_dump(), config=config, runs=out, alarms=n_alarms, exit_code=1 if n_alarms else 0
    )
    return report, fired


def to_json(report: MonitorReport) -> str:
    import json

    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=True) + "\n"
