"""A math task's slices: the kind of answer it has (integer, decimal, fraction, expression,
equation, interval, set, tuple, matrix, text) and, for plain numbers, its magnitude band.

Read from the reference itself (the parser's typed answer), not from suite metadata, so a
user's own tasks are sliced the same way as the built-in ones. The one reading the text
cannot settle, ``(-7, -4)`` as an interval or a pair, follows the suite's ``answer_type``.
Holes are often confined to one slice (a sign-blind comparison pays on plain numbers
only), and a training set is often one slice (GSM8K: all integers), so the report gives
false acceptance per category and slice.
"""

from __future__ import annotations

import sympy

from ...models import Task
from .answer import Answer, Kind, ParseError
from .latex import parse_answer

ANSWER_TYPES = (
    "integer",
    "decimal",
    "fraction",
    "expression",
    "equation",
    "interval",
    "set",
    "tuple",
    "matrix",
    "text",
)
# Magnitude bands of a plain number's absolute value: a hole in how a verifier reads
# numbers (digit grouping, float precision, tiny values) shows in one band.
BANDS = ((1, "<1"), (10**3, "1-999"), (10**6, "1e3-1e6"))
BAND_ABOVE = ">=1e6"


def task_slices(task: Task) -> list[str]:
    """``["answer:<type>", "magnitude:<band>"]`` (the band for plain numbers only); the
    first is the task's primary slice (what ``--weights-from`` weighs)."""
    try:
        answer = parse_answer(task.reference)
    except ParseError:
        return ["answer:unknown"]
    kind = answer_type(answer, (task.metadata or {}).get("answer_type", ""))
    out = [f"answer:{kind}"]
    if kind in ("integer", "decimal", "fraction"):
        out.append(f"magnitude:{magnitude_band(answer.value)}")
    return out


def answer_type(answer: Answer, declared: str = "") -> str:
    if answer.kind is Kind.NUMBER:
        value = answer.value
        if answer.approximate or answer.percent or isinstance(value, sympy.Float):
            return "decimal"
        if isinstance(value, sympy.Integer):
            return "integer"
        if isinstance(value, sympy.Rational):
            return "fraction"
        return "expression"  # 3\sqrt{5}, 144\pi: exact irrational numbers
    if answer.kind is Kind.TUPLE and declared == "interval":
        return "interval"
    return {
        Kind.EXPR: "expression",
        Kind.EQUATION: "equation",
        Kind.INTERVAL: "interval",
        Kind.SET: "set",
        Kind.LIST: "set",
        Kind.TUPLE: "tuple",
        Kind.MATRIX: "matrix",
        Kind.TEXT: "text",
    }.get(answer.kind, "unknown")


def magnitude_band(value) -> str:
    try:
        size = abs(float(value))
    except (TypeError, ValueError, OverflowError):
        return BAND_ABOVE
    for bound, name in BANDS:
        if size < bound:
            return name
    return BAND_ABOVE
