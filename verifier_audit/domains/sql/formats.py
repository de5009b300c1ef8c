"""SQL answer formats: the query in a ```sql fence (what the generators write), bare, or in
prose without a fence. Graders that run the whole completion as SQL read only the bare
query; graders that cut out a fenced block read only fences.

=========  ===========================================================  =====================
name       the query written as                                         read by
=========  ===========================================================  =====================
fenced     prose, then ```sql ... ``` (canonical)                       most text-to-SQL rewards
bare       the statements alone, nothing else                           "execute the output" graders
prose      the prose with the statements in it, unfenced                 bare-SQL extractors
=========  ===========================================================  =====================

A canonical completion is rewritten fence by fence. ``bare`` keeps only the fenced
statements: it drops the opening sentence, and it cannot write a completion whose prose
after a fence carries something (a note to the grader): the rewrite returns None there.
"""

from __future__ import annotations

import random
import re

from ...models import Task
from ..formats import AnswerFormat, identity
from .extract import _STARTS_WITH_KEYWORD

_SQL_FENCE = re.compile(r"```sql[ \t]*\n(.*?)\n?```", re.S)


def _fences(text: str) -> list[re.Match]:
    return list(_SQL_FENCE.finditer(text))


def _bare(text: str) -> str | None:
    fences = _fences(text)
    if not fences:
        return None
    between = [text[a.end() : b.start()] for a, b in zip(fences, fences[1:])] + [text[fences[-1].end() :]]
    if any(part.strip() for part in between):
        return None  # prose after a fence would be lost
    bodies = [m.group(1).strip() for m in fences]
    return "\n".join(b for b in bodies if b) or None


def _prose(text: str) -> str | None:
    fences = _fences(text)
    if not fences:
        return None
    out = _SQL_FENCE.sub(lambda m: m.group(1).strip(), text)
    return out if text[: fences[0].start()].strip() else "The query:\n\n" + out


CANONICAL = "fenced"
FORMATS: list[AnswerFormat] = [
    AnswerFormat(CANONICAL, "```sql ... ```", identity),
    AnswerFormat("bare", "the query alone", _bare),
    AnswerFormat("prose", "the query in prose, no fence", _prose),
]


def reference_completion(task: Task, rng: random.Random) -> str:
    """The task's gold query as the generators write a correct candidate."""
    from .generators._common import completion

    return completion(task.reference, rng)


def format_of(text: str) -> str | None:
    if "```" in text:
        return CANONICAL
    if _STARTS_WITH_KEYWORD.match(text):
        return "bare"
    return "prose" if text.strip() else None
