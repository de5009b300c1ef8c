"""Equivalent rewrites: the reference object written another way, each a right answer."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

from verifier_audit.domains.kit import make_candidates, sample_kinds
from verifier_audit.models import Candidate, Task

from ..oracle import reference_object
from .near_miss import _leaves, replaced

MAX_PER_TASK = 3
KINDS = {
    "reordered_keys": ("medium", "the keys in another order"),
    "pretty_printed": ("low", "indented over several lines"),
    "compact": ("low", "no space after ':' and ','"),
    "integer_as_float": ("medium", "an integer written with '.0' (one JSON number)"),
}


def rewrites(obj: dict) -> Iterator[tuple[str, str, str]]:
    """Every (kind, text, note) that fits the object, in a fixed order."""
    if len(obj) > 1:
        yield "reordered_keys", json.dumps(dict(reversed(list(obj.items())))), "keys reversed"
    yield "pretty_printed", json.dumps(obj, indent=2), "indent 2"
    yield "compact", json.dumps(obj, separators=(",", ":")), "separators ',' ':'"
    for path, value in _leaves(obj):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**53:  # a float holds it
            yield "integer_as_float", json.dumps(replaced(obj, path, float(value))), "/".join(map(str, path))
            break


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    chosen = sample_kinds(
        list(rewrites(reference_object(task))), rng, cap=MAX_PER_TASK, draw="sample", kind=lambda r: r[0]
    )
    return make_candidates("toy_json", task.id, chosen, origin="equivalent", label="correct", kinds=KINDS)
