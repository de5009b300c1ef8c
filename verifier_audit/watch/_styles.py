"""The wrapper per call style: the reward is called exactly as the trainer called it, its
return value handed back untouched, and the rollouts it scored (with the references the
trainer passed) given to the watch. The style is the audit's (``frameworks``): ``trl``
(``reward(prompts, completions, **columns) -> list``), ``verl`` (``compute_score(
data_source, solution_str, ground_truth, extra_info)``, one sample or batched lists), and
the plain ``pair`` (``fn(completion, reference)``) and ``native`` (``fn(completion, task)``)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..frameworks import trl as trl_style
from ..frameworks import verl as verl_style
from ._watch import Watch

STYLES = ("auto", "trl", "verl", "pair", "native")


def detect_style(reward: Callable) -> str:
    """The style ``auto`` picks: the audit's own detection of TRL and verl, else ``pair``."""
    if trl_style.detect(reward):
        return "trl"
    if verl_style.detect(reward):
        return "verl"
    return "pair"


def wrap(reward: Callable, watch: Watch, style: str, reference_field: str) -> Callable:
    if style not in STYLES:
        raise ValueError(f"watch(style={style!r}): choose from {', '.join(STYLES)}")
    style = detect_style(reward) if style == "auto" else style
    make = {"trl": _trl, "verl": _verl, "pair": _pair, "native": _native}[style]
    wrapper = make(reward, watch, reference_field)
    functools.update_wrapper(wrapper, reward)  # TRL logs rewards/<__name__>/mean: the same name
    wrapper.watch = watch  # type: ignore[attr-defined]
    wrapper.style = style  # type: ignore[attr-defined]
    return wrapper


def _trl(reward: Callable, watch: Watch, reference_field: str) -> Callable:
    def call(*args: Any, **kwargs: Any) -> Any:
        out = reward(*args, **kwargs)
        try:
            completions = kwargs["completions"] if "completions" in kwargs else args[1]
            picked = watch.draw(len(completions))
        except Exception:  # noqa: BLE001 -- a call the watch cannot read is the reward's business
            return out
        if not picked or inspect.isawaitable(out):
            return out  # the usual case: nothing sampled (an async reward's scores are not sampled)
        references = kwargs.get(reference_field)
        if references is None:
            watch.missing_reference(reference_field, sorted(k for k in kwargs if isinstance(kwargs[k], list)))
            return out
        prompts = kwargs["prompts"] if "prompts" in kwargs else (args[0] if args else [])
        state = kwargs.get("trainer_state")
        step = getattr(state, "global_step", None)
        # the rollouts of step N+1 are generated while global_step is N; TRL logs them at N+1
        at = watch.at_step(None if step is None else int(step) + 1)
        try:
            watch.take(at, picked, prompts, completions, references, out)
        except Exception as exc:  # noqa: BLE001 -- the watch never crashes the training
            watch.labeller.record(f"sampling a reward call failed: {type(exc).__name__}: {exc}")
        return out

    return call


def _verl(reward: Callable, watch: Watch, reference_field: str) -> Callable:
    def call(*args: Any, **kwargs: Any) -> Any:
        out = reward(*args, **kwargs)
        if "solution_strs" in kwargs:
            solutions, truths = kwargs["solution_strs"], kwargs.get("ground_truths") or []
            extras = kwargs.get("extra_infos") or [None] * len(solutions)
            watch.seen(watch.at_step(None), [_question(e) for e in extras], solutions, truths, out)
            return out
        bound = dict(zip(verl_style.SINGLE, args)) | kwargs
        if "solution_str" in bound and "ground_truth" in bound:
            prompt = _question(bound.get("extra_info"))
            watch.seen(watch.at_step(None), [prompt], [bound["solution_str"]], [bound["ground_truth"]], [out])
        return out

    return call


def _question(extra: Any) -> str:
    """The prompt, where verl's dataset row keeps it (``extra_info["question"]``)."""
    return str(extra.get("question", "")) if isinstance(extra, dict) else ""


def _pair(reward: Callable, watch: Watch, reference_field: str) -> Callable:
    def call(completion: Any, reference: Any, *args: Any, **kwargs: Any) -> Any:
        out = reward(completion, reference, *args, **kwargs)
        watch.seen(watch.at_step(None), [""], [completion], [reference], [out])
        return out

    return call


def _native(reward: Callable, watch: Watch, reference_field: str) -> Callable:
    def call(completion: Any, task: Any, *args: Any, **kwargs: Any) -> Any:
        out = reward(completion, task, *args, **kwargs)
        watch.seen(watch.at_step(None), [task.prompt], [completion], [task.reference], [out])
        return out

    return call
