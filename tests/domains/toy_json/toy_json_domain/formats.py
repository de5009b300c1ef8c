"""The toy domain's answer formats: the object bare (canonical), in a ```json fence, or
after ``Answer:``. A rewrite takes a completion that is exactly one object; anything with
more in it returns None, so a hostile candidate is shown as written."""

from __future__ import annotations

import random

from verifier_audit.domains.formats import AnswerFormat, identity
from verifier_audit.models import Task

from .oracle import Unreadable, read_object


def _object_only(text: str) -> str | None:
    try:
        read_object(text)
    except Unreadable:
        return None
    return text.strip()


def as_fenced(text: str) -> str | None:
    body = _object_only(text)
    return None if body is None else f"```json\n{body}\n```"


def as_answer_line(text: str) -> str | None:
    body = _object_only(text)
    return None if body is None or "\n" in body else f"Answer: {body}"


FORMATS = [
    AnswerFormat("bare", "{...}", identity),
    AnswerFormat("fenced", "```json {...} ```", as_fenced),
    AnswerFormat("answer_line", "Answer: {...}", as_answer_line),
]


def reference_completion(task: Task, rng: random.Random) -> str:
    return task.reference


def format_of(text: str) -> str | None:
    stripped = text.strip()
    if stripped.startswith("```json\n") and stripped.endswith("```") and stripped.count("```") == 2:
        return "fenced" if _object_only(stripped[len("```json\n") : -3]) is not None else None
    if stripped.startswith("Answer: "):
        return "answer_line" if _object_only(stripped[len("Answer: ") :]) is not None else None
    return "bare" if _object_only(stripped) is not None else None
