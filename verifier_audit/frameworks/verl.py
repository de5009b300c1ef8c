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
from collections.abc import Callable
from typing import Any

from ..models import Task
from ._binding import Call

#: What verl passes: positionally one sample at a time, by keyword when batched.
SINGLE = ("data_source", "solution_str", "ground_truth", "extra_info")
BATCHED = ("data_sources", "solution_strs", "ground_truths", "extra_infos")
#: The parameter names that make ``auto`` pick this style.
_DETECTED_BY = ("data_source", "solution_str", "solution_strs")


def detect(target: Any) -> bool:
    return bool(_detected_by(target))


def _detected_by(target: Any) -> list[str]:
    names = _names(target)
    return [n for n in _DETECTED_BY if n in names]


def detect_reason(target: Any) -> str:
    """How ``auto`` picked this style, for the call-boundary check's message."""
    names = _detected_by(target)
    return f"picked by its parameter name{'s' if len(names) > 1 else ''} {', '.join(names)} (verl's)"


def _names(target: Any) -> set[str]:
    try:
        return set(inspect.signature(target).parameters) if callable(target) else set()
    except (TypeError, ValueError):
        return set()


def make_caller(fn: Callable, spec: Any) -> Callable[[str, Task], Any]:
    fixed_source = spec.opts.get("data_source")
    is_batched = _is_batched(_names(fn), spec.opts)

    def source(task: Task) -> str:
        return str(task.metadata.get("data_source") or fixed_source or task.domain)

    def extra(task: Task) -> dict:
        return {"task_id": task.id, "split": task.split, **task.metadata}

    if not is_batched:
        return lambda text, task: fn(source(task), text, task.reference, extra(task))

    def call(text: str, task: Task) -> Any:
        out = fn(**dict(zip(BATCHED, ([source(task)], [text], [task.reference], [extra(task)]))))
        if not isinstance(out, (list, tuple)) or len(out) != 1:
            raise TypeError(f"a batched compute_score must return one score per sample, got {out!r:.80}")
        return out[0]

    return call


def _is_batched(names: set[str], options: dict[str, str]) -> bool:
    batched = options.get("batched", "auto")
    return "solution_strs" in names if batched == "auto" else batched in ("1", "true", "yes")


def call_of(spec: Any, signature: inspect.Signature, tasks: list[Task]) -> Call:
    """What ``make_caller`` passes (frameworks/_binding.py)."""
    if _is_batched(set(signature.parameters), spec.opts):
        return Call(keywords=BATCHED)
    return Call(positional=SINGLE)
