"""verl's reward function: ``compute_score(data_source, solution_str, ground_truth, extra_info)``.

verl's reward managers call it one sample at a time (``NaiveRewardManager``) or batched
(``BatchRewardManager``: ``compute_score(data_sources=[...], solution_strs=[...],
ground_truths=[...], extra_infos=[...])`` returning one score per sample); either may
return a number or a dict with ``"score"``. The ``data_source`` routes the sample to a
grader in verl's own ``default_compute_score``, so the audit sends the one training
would: the task's ``data_source`` field, else the ``data_source`` option, else the
domain. ``extra_info`` is the task's metadata with its id and split, as verl's datasets
carry ``extra_info`` per row.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from ..models import Task

_SINGLE = ("data_source", "solution_str", "ground_truth")
_BATCHED = ("data_sources", "solution_strs", "ground_truths")


def detect(target: Any) -> bool:
    names = _names(target)
    return any(n in names for n in _SINGLE[:2]) or "solution_strs" in names


def _names(target: Any) -> set[str]:
    try:
        return set(inspect.signature(target).parameters) if callable(target) else set()
    except (TypeError, ValueError):
        return set()


def make_caller(fn: Callable, spec: Any) -> Callable[[str, Task], Any]:
    fixed_source = spec.opts.get("data_source")
    batched = spec.opts.get("batched", "auto")
    is_batched = "solution_strs" in _names(fn) if batched == "auto" else batched in ("1", "true", "yes")

    def source(task: Task) -> str:
        return str(task.metadata.get("data_source") or fixed_source or task.domain)

    def extra(task: Task) -> dict:
        return {"task_id": task.id, "split": task.split, **task.metadata}

    if not is_batched:
        return lambda text, task: fn(source(task), text, task.reference, extra(task))

    def call(text: str, task: Task) -> Any:
        out = fn(data_sources=[source(task)], solution_strs=[text], ground_truths=[task.reference],
                 extra_infos=[extra(task)])
        if not isinstance(out, (list, tuple)) or len(out) != 1:
            raise TypeError(f"a batched compute_score must return one score per sample, got {out!r:.80}")
        return out[0]

    return call
