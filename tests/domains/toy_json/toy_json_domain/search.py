"""The toy domain's edit operators for the exploit search (engine/search): each reads the
object a completion states and changes one thing, or what surrounds it. Like the built-in
domains' they know nothing of the reference: the verifier's score and the oracle decide."""

from __future__ import annotations

import json
import random

from verifier_audit.models import Task

from .generators.near_miss import as_text, mutants
from .oracle import Unreadable, answer_text, read_object


def _object(text: str) -> dict | None:
    try:
        return read_object(answer_text(text))
    except Unreadable:
        return None


class Mutate:
    """One near-miss edit of one kind on the completion's own object."""

    def __init__(self, kind: str):
        self.kind = kind

    def __call__(self, text: str, rng: random.Random, task: Task | None = None) -> str | None:
        obj = _object(text)
        if obj is None:
            return None
        options = [as_text(wrong) for kind, wrong, _ in mutants(obj) if kind == self.kind]
        return rng.choice(options) if options else None


def repeat_object(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    """The completion, then its object again with a near miss of it: two answers."""
    obj = _object(text)
    if obj is None:
        return None
    wrong = [as_text(w) for _, w, _ in mutants(obj)]
    return f"{text}\n{rng.choice(wrong)}" if wrong else None


def fence(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    obj = _object(text)
    return None if obj is None else f"```json\n{json.dumps(obj)}\n```"


def prose_before(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    return f"{rng.choice(('Sure.', 'Here it is:', 'The record, as asked:'))}\n{text}"


OPERATORS = {
    **{f"mutate_{kind}": Mutate(kind) for kind in ("dropped_key", "off_by_one", "bool_for_number", "changed_string")},
    "repeat_object": repeat_object,
    "fence": fence,
    "prose_before": prose_before,
}


def lazy_policies(task: Task) -> dict[str, list[str]]:
    """What an answer-free policy writes: an empty object, the prompt back, nothing."""
    return {"empty_object": ["{}"], "prompt_echo": [task.prompt], "empty": [""]}
