"""TRL's GRPO reward functions, called and combined the way ``GRPOTrainer`` does.

A reward function takes ``completions`` (and ``prompts``, the dataset's columns, and the
trainer's ``trainer_state``, ``log_extra`` and ``log_metric``) as lists and returns one
score per completion, ``None`` meaning "does not apply to this sample". The trainer turns
``None`` into NaN, weights each function by ``GRPOConfig.reward_weights`` (default 1 each)
and sums with ``nansum``; a completion for which *every* function returned ``None`` is
unscorable (TRL >= 1.x masks it out of the advantage). We do the same per completion:
the combined reward is what training pays, and each function is also audited alone
(``name[function]``), because a hole may exist only in the sum -- a format bonus that
lifts a partly-credited wrong answer over the threshold.

The spec may name one function, a list of them, or a dict / object with ``reward_funcs``
and ``reward_weights`` (or ``args``: a ``trl.GRPOConfig`` whose ``reward_weights`` are
read). ``--verifier-option weights=1,0.5`` sets or overrides the weights;
``conversational=true`` passes prompts and completions as chat messages, as TRL does for
a conversational dataset; ``step=N`` is ``trainer_state.global_step``.
"""

from __future__ import annotations

import asyncio
import inspect
import math
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from ..errors import VerifierLoadError
from ..models import Task
from ..scores import Score, ScoreOutOfRange, read_score
from ._binding import Call

# Column names a reward function may ask for; all carry the task's reference.
REFERENCE_ALIASES = ("reference", "solution", "answer", "ground_truth", "gold", "target")
_TRAINER_KWARGS = ("trainer_state", "log_extra", "log_metric")


def detect(target: Any) -> bool:
    if type(target).__module__.partition(".")[0] == "verifiers":
        return False  # a verifiers Rubric has reward_funcs too: the verifiers style reads it
    try:
        funcs, _ = reward_funcs(target, {})
    except VerifierLoadError:
        return False
    return bool(funcs) and (not callable(target) or _takes(target, "completions"))


def detect_reason(target: Any) -> str:
    """How ``auto`` picked this style, for the call-boundary check's message."""
    return "picked by its parameter completions (TRL's)" if callable(target) else "picked as a list of reward functions"


def _takes(fn: Callable, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def reward_funcs(target: Any, options: dict[str, str]) -> tuple[list[Callable], list[float]]:
    """The functions and their weights, as ``GRPOTrainer(reward_funcs=..., args=...)`` reads them."""
    weights = None
    if callable(target) and not isinstance(target, type):
        funcs = [target]
    elif isinstance(target, (list, tuple)):
        funcs = list(target)
    else:
        get = target.get if isinstance(target, dict) else lambda key, default=None: getattr(target, key, default)
        funcs = get("reward_funcs")
        if funcs is None:
            raise VerifierLoadError(
                f"{type(target).__name__}: no reward functions (expected a function, a list of "
                "them, or reward_funcs with reward_weights)"
            )
        funcs = [funcs] if callable(funcs) else list(funcs)
        config = get("args") or get("config")
        weights = get("reward_weights") or (getattr(config, "reward_weights", None) if config is not None else None)
    for fn in funcs:
        if not callable(fn):
            raise VerifierLoadError(
                f"reward_funcs: {fn!r:.60} is not a function (a reward model named by a string "
                "is not audited; wrap its call in a function)"
            )
    if options.get("weights"):
        try:
            weights = [float(w) for w in options["weights"].split(",")]
        except ValueError:
            raise VerifierLoadError(
                f"--verifier-option weights={options['weights']}: expected numbers, e.g. 1,0.5"
            ) from None
    weights = [1.0] * len(funcs) if weights is None else [float(w) for w in weights]
    if len(weights) != len(funcs):
        # GRPOTrainer raises the same: one weight per function.
        raise VerifierLoadError(
            f"{len(weights)} reward weights for {len(funcs)} reward functions: give one per function"
        )
    return funcs, weights


def functions(target: Any, options: dict[str, str]) -> list[Callable]:
    """The functions this style calls (frameworks/_binding.py checks each)."""
    return reward_funcs(target, options)[0]


def parts(target: Any, options: dict[str, str]) -> list[str]:
    funcs, _ = reward_funcs(target, options)
    return _names(funcs) if len(funcs) > 1 else []


def _names(funcs: list[Callable]) -> list[str]:
    names, seen = [], {}
    for fn in funcs:
        base = getattr(fn, "__name__", type(fn).__name__)
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return names


def columns(task: Task) -> dict[str, Any]:
    """The dataset columns a row of this task would have: the reference under its usual names."""
    cols = {alias: task.reference for alias in REFERENCE_ALIASES}
    cols.update(task_id=task.id, split=task.split, domain=task.domain)
    cols.update({k: v for k, v in task.metadata.items() if k not in cols})
    return cols


def passed(params, names) -> list[str]:
    """Of the columns ``names``, those passed to a function with parameters ``params``:
    all of them to one that takes ``**kwargs``, else those it names (as TRL passes them)."""
    takes_all = any(p.kind is p.VAR_KEYWORD for p in params.values())
    return [n for n in names if takes_all or n in params]


def _one_call(fn: Callable, text: str, task: Task, options: dict[str, str]) -> Any:
    params = inspect.signature(fn).parameters
    if "completion_ids" in params:
        raise TypeError("the reward function asks for completion_ids (token ids), which an audit of texts cannot give")
    conversational = options.get("conversational", "false").lower() in ("1", "true", "yes")
    prompt: Any = [{"role": "user", "content": task.prompt}] if conversational else task.prompt
    completion: Any = [{"role": "assistant", "content": text}] if conversational else text
    state = SimpleNamespace(global_step=int(options.get("step", 0)), epoch=0.0, max_steps=0)
    cols = {
        "prompts": [prompt],
        **{k: [v] for k, v in columns(task).items()},
        "trainer_state": state,
        "log_extra": lambda *a, **k: None,
        "log_metric": lambda *a, **k: None,
    }
    out = fn(completions=[completion], **{k: cols[k] for k in passed(params, cols)})
    if inspect.isawaitable(out):  # TRL gathers async reward functions on its own loop
        out = asyncio.run(_wait(out))
    if not isinstance(out, (list, tuple)) or len(out) != 1:
        raise TypeError(f"a trl-style reward must return a list with one score per completion, got {out!r:.80}")
    return out[0]


async def _wait(awaitable):
    return await awaitable


def make_caller(target: Any, spec: Any) -> Callable[[str, Task], Any]:
    options = spec.opts
    funcs, weights = reward_funcs(target, options)
    if spec.part is not None:
        fn = dict(zip(_names(funcs), funcs)).get(spec.part)
        if fn is None:
            raise VerifierLoadError(f"no reward function {spec.part!r}; there are {', '.join(_names(funcs))}")
        return lambda text, task: _not_none(_one_call(fn, text, task, options), spec.part)
    if len(funcs) == 1 and weights == [1.0]:
        return lambda text, task: _one_call(funcs[0], text, task, options)

    def combined(text: str, task: Task) -> Score:
        # Each function's score read as training reads it (scores.read_score: the value a
        # float subclass holds, a str refused); what reading them found goes with the sum.
        total, scored, disguises = 0.0, 0, ()
        for fn, weight in zip(funcs, weights):
            value = _one_call(fn, text, task, options)
            if value is None:
                continue  # nansum: a function that does not apply adds nothing
            try:
                score = read_score(value)
            except ScoreOutOfRange as exc:
                if math.isnan(exc.value):
                    continue  # None becomes NaN in the trainer, and nansum skips both
                raise
            total += weight * score.value
            disguises += score.disguises
            scored += 1
        if not scored:
            raise TypeError("every reward function returned None: the trainer cannot score this completion")
        return Score(total, disguises)

    return combined


def _not_none(value: Any, name: str) -> Any:
    if value is None:
        raise TypeError(f"{name} returned None (does not apply): alone, nothing scores this completion")
    return value


def call_of(spec: Any, signature: inspect.Signature, tasks: list[Task]) -> Call:
    """What ``_one_call`` passes (frameworks/_binding.py): the completions, and of the
    columns any of ``tasks`` has, those the function takes."""
    names = list(dict.fromkeys(["prompts", *(k for t in tasks for k in columns(t))]))
    return Call(
        keywords=("completions", *passed(signature.parameters, [*names, *_TRAINER_KWARGS])),
        columns=tuple(names),
        fix='add the column to the "metadata" of every row of the suite (TRL\'s columns are the '
        "task's metadata beside prompts and the reference under its usual names), give the "
        "parameter a default, or map a field of the suite to it in a wrapper that takes **kwargs",
    )
