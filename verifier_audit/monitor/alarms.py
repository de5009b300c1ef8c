"""Training-health alarms read from a ``Run``'s canonical metrics.

Every alarm follows the same recipe (``docs/monitor-alarms.md`` has the table):

* **smoothing** — a centred rolling median over ``smooth_window`` of the series' points
  (at least 3, odd; truncated at both ends). A median removes isolated spikes instead of
  smearing them, and on a monotone stretch it returns the value at the centre of the
  window, so the step where a smoothed curve crosses a line is where the trend crossed it.
  Series longer than ``max_points`` are first reduced to ``max_points`` equal-count bins
  (median value, mean step), which keeps a 1,000,000-row log cheap;
* **initial value** — the median of the raw values in the first ``initial_window`` of the
  points (at least 3);
* **persistence** — a condition counts only when the smoothed series meets it for
  ``persistence`` of the smoothed points in a row (at least 3), or from some point to the
  end of the log (at least half that many points);
* **trends** — least-squares slope of the raw points in a window of the run, its
  t-statistic, and the *normalised rise*: slope x window length / the range of the smoothed
  series over the whole run (so terms on different scales compare);
* **"how early"** — a step's position in the run's span (0 = first logged step of any
  metric, 1 = last).

``check(run)`` returns the alarms that fired, sorted by step; ``missing_metrics(run)`` the
canonical metrics the run lacks; ``not_checked(run)`` why each alarm kind could not run.

This module is the entry point and the dispatch; the parts live one job a module:
``kinds`` (``Alarm``, ``KINDS``), ``thresholds``, ``smoothing`` (``smooth``, ``trend``),
``readings`` (initial value, persistence, "how early", number formats) and the detectors
by family: ``exploration`` (entropy, reward variance), ``drift`` (KL, length),
``divergence`` (train vs validation, reward terms); ``paid`` reads the live watch's labels
(``watch/`` counts) and runs only on a run that has them (``LABEL_KINDS``).
"""

from __future__ import annotations

from .divergence import reward_fn_divergence, train_val_divergence, train_val_window
from .drift import kl_drift, length_alarms
from .exploration import entropy_collapse, reward_variance_collapse
from .kinds import KINDS, LABEL_KINDS, REQUIRES, Alarm
from .paid import LABELLED, PAID_WRONG, paid_wrong_rising
from .readings import reward_fns
from .run import CANONICAL, REWARD_FN_PREFIX, WATCH_PREFIX, Run
from .smoothing import smooth, trend
from .thresholds import Thresholds

# the public names, also for callers that import them from here (fit.py: smooth; the report,
# config and CLI: Alarm, Thresholds)
__all__ = [
    "KINDS",
    "LABEL_KINDS",
    "REQUIRES",
    "Alarm",
    "Thresholds",
    "check",
    "missing_metrics",
    "not_checked",
    "smooth",
    "trend",
]


def missing_metrics(run: Run) -> list[str]:
    """The canonical metrics (``CANONICAL`` order) the run lacks or holds no points of."""
    return [name for name in CANONICAL if not run.has(name)]


def not_checked(run: Run, thresholds: Thresholds | None = None) -> dict[str, str]:
    """Alarm kind -> why it could not run on this run (a missing metric, a series too
    short, reward and validation not overlapping). Kinds that ran are absent."""
    th = thresholds or Thresholds()
    out: dict[str, str] = {}

    def short(name: str, need: int) -> str | None:
        if not run.has(name):
            return f"no {name} metric"
        if len(run.metrics[name]) < need:
            return f"{name} has {len(run.metrics[name])} points (at least {need} needed)"
        return None

    for kind, name in (
        ("entropy_collapse", "entropy"),
        ("kl_drift", "kl"),
        ("length_blowup", "length"),
        ("length_collapse", "length"),
    ):
        why = short(name, th.min_points)
        if why:
            out[kind] = why
    var = [short("reward_std", th.min_points), short("frac_reward_zero_std", th.min_points)]
    if all(var):
        out["reward_variance_collapse"] = "; ".join(r for r in var if r)
    # evaluations are sparse: val_accuracy is held to val_min_points, not min_points
    tv = [r for r in (short("reward", th.min_points), short("val_accuracy", th.val_min_points)) if r]
    if not tv and train_val_window(run, th) is None:
        tv = ["reward and val_accuracy do not overlap in steps"]
    if tv:
        out["train_val_divergence"] = "; ".join(tv)
    have = reward_fns(run)
    long_enough = [n for n in have if len(run.metrics[REWARD_FN_PREFIX + n]) >= th.min_points]
    if len(long_enough) < 2:
        out["reward_fn_divergence"] = (
            f"{len(have)} reward function metric(s) ({REWARD_FN_PREFIX}<name>), {len(long_enough)} "
            f"with at least {th.min_points} points; two are needed"
        )
    if any(k.startswith(WATCH_PREFIX) for k in run.metrics):
        have = [short(name, th.paid_wrong_min_windows) for name in (LABELLED, PAID_WRONG)]
        if any(have):
            out["paid_wrong_rising"] = "; ".join(r for r in have if r)
    return {k: out[k] for k in KINDS + LABEL_KINDS if k in out}


def check(run: Run, thresholds: Thresholds | None = None) -> list[Alarm]:
    """Every alarm that fires on the run, sorted by step then kind. Alarms whose metrics are
    missing or too short are skipped (``not_checked`` says which and why)."""
    th = thresholds or Thresholds()
    skip = not_checked(run, th)
    out: list[Alarm] = []
    if "entropy_collapse" not in skip:
        out += entropy_collapse(run, th)
    if "reward_variance_collapse" not in skip:
        out += reward_variance_collapse(run, th)
    if "kl_drift" not in skip:
        out += kl_drift(run, th)
    length_kinds = {k for k in ("length_blowup", "length_collapse") if k not in skip}
    if length_kinds:
        out += length_alarms(run, th, length_kinds)
    if "train_val_divergence" not in skip:
        out += train_val_divergence(run, th)
    if "reward_fn_divergence" not in skip:
        out += reward_fn_divergence(run, th)
    if any(k.startswith(WATCH_PREFIX) for k in run.metrics) and "paid_wrong_rising" not in skip:
        out += paid_wrong_rising(run, th)
    order = KINDS + LABEL_KINDS
    out.sort(key=lambda a: (a.step, order.index(a.kind)))
    return out
