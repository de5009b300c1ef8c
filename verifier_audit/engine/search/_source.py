"""Source-guided operators: insert what the verifier itself looks for.

A verifier that pays a format bonus for a marker (``\\therefore`` before the box, an
``<answer>`` tag) is never climbed by edits that do not write the marker, whatever the
domain. The literals a verifier compares completions against are read from its source in
the parent (``scan/_literals.py``: parsed, never imported, following its imports into the
user's own modules) and become operators of every domain's search, beside the domain's own:

    src:<literal>:before   the literal at the start of the answer's line
    src:<literal>:after    the literal at the end of the completion
    src:<open>:wrap        a pair (a pattern's text around its group) around the answer

The engine may not import the scan (a layer above it), so the reader is named by ``plan``
on import (``set_literal_reader``), as ``loading`` gets its inspector from the package root.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

Literal = tuple[str, str]  # (text, closing): a needle ("\\therefore", ""), a pair ("<answer>", "</answer>")
LiteralReader = Callable[[object], list[Literal]]  # VerifierSpec -> its literals; [] when no source
_READER: list[LiteralReader] = []


def set_literal_reader(reader: LiteralReader) -> None:
    """Name what reads a verifier's literals (``plan`` names the scan's)."""
    _READER[:] = [reader]


def verifier_literals(spec) -> list[Literal]:
    """The literals of ``spec``'s source; [] when no reader is named or no source is read."""
    return _READER[0](spec) if _READER else []


def source_operators(literals: list[Literal], answer_span: Callable[[str], str]) -> dict[str, Callable]:
    """name -> operator ``(text, rng, task) -> text | None`` for each literal;
    ``answer_span`` is the domain's (where the answer is; "" when it cannot say: the last
    line stands for it)."""
    out: dict[str, Callable] = {}
    for text, closing in literals:
        base = _name(text, out)
        if closing:
            out[f"{base}:wrap"] = _wrap(text, closing, answer_span)
        else:
            out[f"{base}:before"] = _before(text, answer_span)
            out[f"{base}:after"] = _after(text)
    return out


def _name(text: str, taken: dict) -> str:
    """``src:therefore``: the literal's letters and digits, numbered when two share them."""
    word = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:20] or "mark"
    name, n = f"src:{word}", 2
    while any(k.startswith(name + ":") for k in taken):
        name, n = f"src:{word}{n}", n + 1
    return name


def _answer_at(text: str, answer_span: Callable[[str], str]) -> tuple[int, int]:
    """(start, end) of the answer in ``text``: its last occurrence, else the last non-empty line."""
    span = answer_span(text)
    at = text.rfind(span) if span else -1
    if at >= 0:
        return at, at + len(span)
    stripped = text.rstrip()
    start = stripped.rfind("\n") + 1
    return start, len(stripped)


def _before(literal: str, answer_span: Callable[[str], str]) -> Callable:
    def before(text: str, rng: random.Random, task=None) -> str | None:
        at, _ = _answer_at(text, answer_span)
        line = text.rfind("\n", 0, at) + 1
        return text[:line] + literal + " " + text[line:]

    return before


def _after(literal: str) -> Callable:
    def after(text: str, rng: random.Random, task=None) -> str | None:
        return text.rstrip() + "\n" + literal

    return after


def _wrap(opening: str, closing: str, answer_span: Callable[[str], str]) -> Callable:
    def wrap(text: str, rng: random.Random, task=None) -> str | None:
        at, end = _answer_at(text, answer_span)
        if at >= end:
            return None
        return text[:at] + opening + text[at:end] + closing + text[end:]

    return wrap
