"""The typed value of a math answer, shared by the parser, the oracle and the generators.

``latex.parse_answer(text) -> Answer`` builds one from LaTeX or plain text;
``oracle.equivalent(a, b)`` compares two; ``render.to_latex(answer)`` writes one back.
Keeping one representation means a generator mutates the same object the oracle compares.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Kind(str, Enum):
    NUMBER = "number"  # value: sympy Expr with no free symbols (5, 1/2, sqrt(2)/2, pi + 1)
    EXPR = "expr"  # value: sympy Expr with free symbols (x**2 + 2*x + 1)
    SET = "set"  # items: unordered answers ({2, 3}, "x = 2 or x = 3" is NOT a set: a hedge)
    TUPLE = "tuple"  # items: ordered answers ((1, 2))
    LIST = "list"  # items: bare comma list "2, 3" (compares unordered with sets, ordered with tuples)
    INTERVAL = "interval"  # value: sympy Set (Interval or Union), also from inequalities
    EQUATION = "equation"  # value: sympy Eq
    MATRIX = "matrix"  # value: sympy ImmutableMatrix
    TEXT = "text"  # value: normalised str ("monday", "yes", "a" for a letter choice)
    HEDGE = "hedge"  # items: the alternatives offered ("2 or 3", 0 \lor -7); never correct


@dataclass(frozen=True)
class Answer:
    kind: Kind
    value: Any = None
    items: tuple[Answer, ...] = ()
    percent: bool = False  # written with a % sign: 10\% may equal 0.1 or 10
    approximate: bool = False  # written as a decimal literal (0.5, 3.14)
    # Pairs of sides that a chain of '=' claims equal (`\frac{6}{3} = 2`, `x = 6/3 = 2`).
    # The oracle holds them to account: a false chain (`43 = 42`) equals nothing.
    claims: tuple[tuple[Answer, Answer], ...] = ()
    source: str = field(default="", compare=False)  # the text it came from

    def __str__(self) -> str:  # for messages and reports
        return self.source or f"{self.kind.value}:{self.value!r}"


class ParseError(ValueError):
    """The text is not an answer we can read (the oracle then says 'unknown', never 'correct')."""
