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
from ._binding import Call, bind_error

#: What verl passes: positionally one sample at a time, by keyword when batched.
SINGLE = ("data_source", "solution_str", "ground_truth", "extra_info")
BATCHED = ("data_sources", "solution_strs", "ground_truths", "extra_infos")


def detect(target: Any) -> bool:
    """By signature first, then by name (issue 33): verl's call must bind. One sample is
    four positional arguments, so ``compute_score(data_source, solution_str, ...)`` -- or a
    function whose second positional parameter is ``solution_str`` -- is verl when the four
    bind; batched, ``solution_strs`` with the four keyword lists binding. A name alone
    decides nothing: DeepScaleR's ``deepscaler_reward_fn(solution_str, ground_truth,
    enable_llm=False)`` and verl's own ``gsm8k.compute_score(solution_str, ground_truth,
    ...)`` take the pair call, and picked as verl every call raised TypeError."""
    return bool(_detected_by(target))


def _detected_by(target: Any) -> str:
    """How the signature fits verl's call, in words; "" when it does not."""
    try:
        sig = inspect.signature(target) if callable(target) else None
    except (TypeError, ValueError):
        sig = None
    if sig is None:
        return ""
    params = sig.parameters.values()
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if "solution_strs" in sig.parameters and bind_error(sig, Call(keywords=BATCHED)) is None:
        return "the keyword lists " + ", ".join(BATCHED)
    if positional[:1] == ["data_source"] or positional[1:2] == ["solution_str"]:
        if bind_error(sig, Call(positional=SINGLE)) is None:
            return f"four positional arguments, {', '.join(positional[:2])} first"
    return ""


def detect_reason(target: Any) -> str:
    """How ``auto`` picked this style, for the call-boundary check's message."""
    return f"picked by its signature (it takes verl's call: {_detected_by(target)})"


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
