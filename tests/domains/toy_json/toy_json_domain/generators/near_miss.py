"""Near misses: the reference object with one plausible mistake, each a wrong answer."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from verifier_audit.domains.kit import make_candidates, sample_kinds
from verifier_audit.models import Candidate, Task

from ..oracle import reference_object

MAX_PER_TASK = 5
KINDS = {
    "dropped_key": ("high", "one key of the object left out"),
    "extra_key": ("medium", "a key the record does not have added"),
    "off_by_one": ("high", "an integer one off"),
    "number_as_string": ("medium", "a number written as a string ('36' for 36)"),
    "bool_for_number": ("medium", "0 or 1 written as false or true"),
    "changed_string": ("high", "a string value in another case"),
    "flipped_bool": ("high", "a boolean the other way"),
    "truncated": ("low", "the object cut before its closing brace"),
}


def _leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, value) of every scalar in the object, depth first, keys in order."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path, value


def replaced(obj: Any, path: tuple, new: Any) -> Any:
    """A copy of ``obj`` with the value at ``path`` replaced."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        return {k: replaced(v, rest, new) if k == head else v for k, v in obj.items()}
    return [replaced(v, rest, new) if i == head else v for i, v in enumerate(obj)]


def mutants(obj: dict) -> Iterator[tuple[str, Any, str]]:
    """Every (kind, wrong object or text, note) that fits the object, in a fixed order."""
    for key in obj:
        yield "dropped_key", {k: v for k, v in obj.items() if k != key}, f"without {key!r}"
    if "extracted" not in obj:
        yield "extra_key", {**obj, "extracted": True}, "with an 'extracted' key"
    for path, value in _leaves(obj):
        where = "/".join(map(str, path))
        if isinstance(value, bool):
            yield "flipped_bool", replaced(obj, path, not value), f"{where} flipped"
        elif isinstance(value, int):
            yield "off_by_one", replaced(obj, path, value + 1), f"{where} + 1"
            yield "number_as_string", replaced(obj, path, str(value)), f"{where} as a string"
            if value in (0, 1):
                yield "bool_for_number", replaced(obj, path, bool(value)), f"{where} as a bool"
        elif isinstance(value, float):
            yield "number_as_string", replaced(obj, path, str(value)), f"{where} as a string"
        elif isinstance(value, str) and value.upper() != value:
            yield "changed_string", replaced(obj, path, value.upper()), f"{where} upper-cased"
    text = json.dumps(obj)
    yield "truncated", text[: text.rindex("}")], "no closing brace"


def as_text(wrong: Any) -> str:
    return wrong if isinstance(wrong, str) else json.dumps(wrong)


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    chosen = sample_kinds(list(mutants(reference_object(task))), rng, cap=MAX_PER_TASK, per_kind=1, kind=lambda m: m[0])
    texts = [(kind, as_text(wrong), note) for kind, wrong, note in chosen]
    return make_candidates("toy_json", task.id, texts, origin="near_miss", label="incorrect", kinds=KINDS)
