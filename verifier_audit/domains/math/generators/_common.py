"""Helpers shared by the math generators: seeded randomness, completion prose and the
reference read once (candidates and sampling are the kit's, ``verifier_audit.domains.kit``)."""

from __future__ import annotations

import random

from ...kit import rng_for  # noqa: F401 - shared seeding, used across this package
from ..answer import Answer, ParseError

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


def parse_reference(text: str) -> Answer | None:
    """The task's gold as an Answer, or None when it cannot be read (no candidates then)."""
    from ..latex import parse_answer  # imported late: the parser is the heavy part

    try:
        return parse_answer(text)
    except (ParseError, ValueError, RecursionError):
        return None
