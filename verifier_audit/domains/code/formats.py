"""Code answer formats: the program bare (what the generators write), in a ```python fence,
or in prose around a fence (how chat models answer). Graders that exec the whole completion
read only bare code; graders that cut out a fence read only fenced code.

=========  ==========================================================  ======================
name       the program written as                                      read by
=========  ==========================================================  ======================
bare       the source alone (canonical)                                exec-the-output graders
fenced     ```python ... ``` and nothing else                          fence extractors
prose      a sentence, the fenced source, a sentence                   chat-style answers
=========  ==========================================================  ======================
"""

from __future__ import annotations

import random

from ...models import Task
from ..formats import AnswerFormat, identity


def _fenced(text: str) -> str | None:
    if "```" in text or not text.strip():
        return None  # already fenced (not canonical), or nothing to fence
    return f"```python\n{text.rstrip()}\n```"


def _prose(text: str) -> str | None:
    fenced = _fenced(text)
    if fenced is None:
        return None
    return f"Here is my solution.\n\n{fenced}\n\nIt handles the edge cases described in the docstring."


CANONICAL = "bare"
FORMATS: list[AnswerFormat] = [
    AnswerFormat(CANONICAL, "the source alone", identity),
    AnswerFormat("fenced", "```python ... ```", _fenced),
    AnswerFormat("prose", "prose around a ```python fence", _prose),
]


def reference_completion(task: Task, rng: random.Random) -> str:
    return task.reference


def format_of(text: str) -> str | None:
    if "```" not in text:
        return CANONICAL if text.strip() else None
    head, _, rest = text.partition("```")
    return "prose" if head.strip() or rest.rpartition("```")[2].strip() else "fenced"
