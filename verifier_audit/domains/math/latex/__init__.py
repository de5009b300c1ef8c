"""Read a final answer written in LaTeX or plain text into an :class:`Answer`.

Our own recursive-descent parser, in steps, one module each::

    normalise     _normalise(text): Unicode and wrappers ($...$, \\boxed{...}) -> plain LaTeX-ish string
    tokens        _tokenize(text) -> list of _Tok (numbers, letters, words, commands, operators)
    values        sympy values built directly and size-checked (_scalar, _power, _relation, ...)
    parser/atoms  _Parser: tokens -> Answer holding sympy objects built directly
    whole_answer  _parse_cached: hedges and prose first, then the parser; memoised per string

Why not ``sympify`` / ``parse_expr`` / ``parse_latex``: the first two ``eval`` their input
(model output is hostile), and the LaTeX parsers we measured are slower and fail on common
answer forms (percent, intervals, sets, thousands separators); see docs/math-oracle.md.

Hostile input is bounded before any work (the caps are in :mod:`.limits`): a length cap, a
bracket-depth cap checked in one linear pass, no control characters or lone surrogates, and
exact numbers larger than ``MAX_BITS`` are refused (ParseError) instead of being computed,
so ``5^{5^{5^{5^5}}}`` costs microseconds.
"""

from __future__ import annotations

from .limits import MAX_BITS, MAX_DEPTH, MAX_ITEMS, MAX_LEN, ROOT_BITS
from .tokens import FILLER, FUNCTIONS, GREEK, HEDGE_CMDS, HEDGE_WORDS, SHORT_UNITS
from .whole_answer import _parse_cached, parse_answer  # noqa: F401 - _parse_cached: benchmarks/ bypass the memo

__all__ = [
    "parse_answer",
    "MAX_LEN",
    "MAX_DEPTH",
    "MAX_BITS",
    "MAX_ITEMS",
    "ROOT_BITS",
    "FUNCTIONS",
    "GREEK",
    "HEDGE_WORDS",
    "HEDGE_CMDS",
    "FILLER",
    "SHORT_UNITS",
]
