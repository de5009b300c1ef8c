"""Helpers shared by the math generators: seeded randomness, completion prose, ids,
and wrapping chosen answers into candidates."""

from __future__ import annotations

import random
from typing import Iterable, Optional

from ....models import Candidate, Severity
from ..answer import Answer, ParseError
from ....generation import rng_for  # noqa: F401 - shared seeding, used across this package

# Prose around the final answer. It holds no digits, so that a "last number" grader reads
# the boxed answer and nothing else, and no second answer, so the label is the box's.
_OPENINGS = (
    "Let me work through this step by step.",
    "We set up the problem carefully and simplify.",
    "First, identify what is being asked, then compute.",
    "Solving directly:",
    "Working... Combining the given quantities and simplifying each step,",
    "Here is my reasoning. I organise the information and carry out the computation.",
)
_CLOSINGS = (
    "The final answer is $\\boxed{%s}$.",
    "Therefore, the answer is $\\boxed{%s}$.",
    "So the final answer is\n$$\\boxed{%s}$$",
    "Final answer: $\\boxed{%s}$",
    "Hence the result is $\\boxed{%s}$.",
)




def boxed_completion(answer_latex: str, rng: random.Random) -> str:
    """A realistic completion ending with ``\\boxed{answer}``; the prose varies with rng."""
    return rng.choice(_OPENINGS) + "\n\n" + rng.choice(_CLOSINGS) % answer_latex


def candidate_id(task_id: str, category: str, index: int) -> str:
    return f"{task_id}/{category}/{index}"


def make_candidates(task_id: str, chosen: Iterable[tuple[str, str, str]], *, origin: str, label: str,
                    kinds: dict[str, tuple[Severity, str]]) -> list[Candidate]:
    """One Candidate per chosen ``(kind, completion text, note)``, in order.

    The category is ``math.<origin>.<kind>``; ids number the candidates of one category
    from 0. ``kinds`` maps a kind to its (severity, description).
    """
    counters: dict[str, int] = {}
    out = []
    for kind, text, note in chosen:
        category = f"math.{origin}.{kind}"
        index = counters.get(category, 0)
        counters[category] = index + 1
        out.append(Candidate(
            id=candidate_id(task_id, category, index),
            task_id=task_id,
            text=text,
            origin=origin,
            category=category,
            severity=kinds[kind][0],
            label=label,
            note=note,
        ))
    return out


def parse_reference(text: str) -> Optional[Answer]:
    """The task's gold as an Answer, or None when it cannot be read (no candidates then)."""
    from ..latex import parse_answer  # imported late: the parser is the heavy part

    try:
        return parse_answer(text)
    except (ParseError, ValueError, RecursionError):
        return None
