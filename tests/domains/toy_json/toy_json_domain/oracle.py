"""The toy domain's oracle: the object a completion states, read strictly, against the
task's reference object.

The answer is the body of the completion's last ```json fence, else what follows its last
``Answer:``, else the whole text. It is right when it is one JSON object equal to the
reference's: the same keys, strings equal, numbers equal as numbers (``36`` and ``36.0``
are one JSON number; ``"36"`` is a string; ``true`` is no number), arrays in order. A
repeated key, ``NaN`` or anything but a single object is wrong: two parsers would read
it two ways.
"""

from __future__ import annotations

import json
import re
from typing import Any

from verifier_audit.domains.base import OracleLabel
from verifier_audit.models import Task

_FENCE = re.compile(r"```json[ \t]*\n(.*?)\n?```", re.DOTALL)
_ANSWER = re.compile(r"^Answer:[ \t]*(.*)$", re.MULTILINE | re.DOTALL)


class Unreadable(ValueError):
    """The answer is no single JSON object we read one way only."""


def answer_text(text: str) -> str:
    """The part of ``text`` read as its answer (see the module's docstring)."""
    fences = _FENCE.findall(text)
    if fences:
        return fences[-1].strip()
    answers = list(_ANSWER.finditer(text))
    return (answers[-1].group(1) if answers else text).strip()


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise Unreadable(f"a key given twice: {sorted(k for k in set(keys) if keys.count(k) > 1)}")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise Unreadable(f"{name} is no JSON number")


def read_object(text: str) -> dict[str, Any]:
    """The one JSON object ``text`` is, or ``Unreadable`` with the reason."""
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise Unreadable(f"not JSON: {exc.msg}") from None
    if not isinstance(value, dict):
        raise Unreadable(f"a JSON {type(value).__name__}, not an object")
    return value


def same(a: Any, b: Any) -> bool:
    """JSON equality: numbers as numbers (``36`` is ``36.0``), but a bool is never a number
    (Python's ``True == 1`` is not JSON's), and other values equal only their own type."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def reference_object(task: Task) -> dict[str, Any]:
    return read_object(task.reference)


def check_task(task: Task) -> str | None:
    try:
        reference_object(task)
    except Unreadable as exc:
        return f"task {task.id}: the reference is unusable ({exc})"
    return None


def label_completion(text: str, task: Task) -> OracleLabel:
    try:
        want = reference_object(task)
    except Unreadable as exc:
        return OracleLabel(None, f"the reference is unusable ({exc})")
    try:
        got = read_object(answer_text(text))
    except Unreadable as exc:
        return OracleLabel("incorrect", str(exc))
    if same(got, want):
        return OracleLabel("correct", "the same object")
    return OracleLabel("incorrect", "another object")
