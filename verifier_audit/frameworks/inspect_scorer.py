"""Inspect AI scorers (``@scorer``) as verifiers.

A scorer is ``async score(state: TaskState, target: Target) -> Score``, made by a factory
decorated with ``@scorer`` (``match()``, ``includes()``, ``model_graded_qa()``, yours).
The spec may name the factory -- called with the ``arg.NAME=VALUE`` options, e.g.
``--verifier-option arg.location=end`` for ``match(location="end")`` -- or a scorer it
already made. Each candidate becomes the sample's final state: the task's prompt as the
input and user message, the candidate as the assistant's reply and the model output
(``state.output.completion``), the reference as the ``Target``, the task's metadata as the
sample's. The ``Score``'s value is read with Inspect's own ``value_to_float`` ("C" 1,
"I" 0, "P" 0.5, booleans, numbers); a dict of values needs ``key=NAME``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from ..models import Task
from ._registry import missing_extra

# The strings Inspect's value_to_float reads as a verdict, whatever their case.
_YES_NO = ("yes", "no", "true", "false")


def _registry_type(target: Any) -> str | None:
    try:
        from inspect_ai._util.registry import is_registry_object, registry_info
    except ImportError:
        return None
    return registry_info(target).type if is_registry_object(target) else None


def detect(target: Any) -> bool:
    # Only a scorer registered by Inspect's decorator: never guessed from a signature.
    return callable(target) and "inspect_ai" in _loaded_modules() and _registry_type(target) == "scorer"


def _loaded_modules() -> set[str]:
    import sys

    return {name.partition(".")[0] for name in sys.modules}


def _is_factory(target: Callable) -> bool:
    params = list(inspect.signature(target).parameters)
    return params[:2] != ["state", "target"]


def _make_scorer(target: Callable, options: dict[str, str]) -> Callable:
    if not _is_factory(target):
        return target
    args = {key[4:]: _value(value) for key, value in options.items() if key.startswith("arg.")}
    return target(**args)


def _value(text: str) -> Any:
    """An ``arg.`` option's value: JSON where it parses (numbers, booleans, lists), else the text."""
    import json

    try:
        return json.loads(text)
    except ValueError:
        return text


def make_caller(target: Any, spec: Any) -> Callable[[str, Task], Any]:
    try:
        from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
        from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, PARTIAL, Target, value_to_float
        from inspect_ai.solver import TaskState
    except ImportError as exc:
        raise missing_extra("inspect-ai", "inspect", exc) from exc
    options = spec.opts
    score_fn = _make_scorer(target, options)
    to_float = value_to_float()
    words = (CORRECT, INCORRECT, PARTIAL, NOANSWER)
    key = options.get("key")
    loop = asyncio.new_event_loop()  # one per worker: scorers may keep clients bound to it

    def call(text: str, task: Task) -> Any:
        state = TaskState(
            model="verifier-audit/candidate",
            sample_id=task.id,
            epoch=1,
            input=task.prompt,
            messages=[ChatMessageUser(content=task.prompt), ChatMessageAssistant(content=text)],
            target=Target(task.reference),
            output=ModelOutput.from_content("verifier-audit/candidate", text),
            metadata=dict(task.metadata),
            completed=True,
        )
        score = loop.run_until_complete(score_fn(state, Target(task.reference)))
        if score is None:
            raise TypeError("the scorer returned no Score")
        value = score.value
        if isinstance(value, dict):
            if key is None or key not in value:
                raise TypeError(
                    f"the Score holds several values ({', '.join(map(str, value))}): "
                    "pick one with --verifier-option key=NAME"
                )
            value = value[key]
        if isinstance(value, str):
            word = str.__str__(value)
            if word in words or word.lower() in _YES_NO:
                return to_float(word)  # Inspect's own verdict words, read by its value_to_float
        # A number (or a number in a str, which Inspect would convert and every other style
        # refuses): read by scores.read_score, as every style's score is.
        return value

    return call
