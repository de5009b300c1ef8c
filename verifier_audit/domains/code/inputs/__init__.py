"""Inputs on which a candidate function is run against the reference solution.

Two sources, in this order:

1. **Visible cases** (``visible``): the literal calls in the task's ``check(candidate)``
   source, with the expected value when the assert states one.
2. **Generated cases** (``generate``): Hypothesis strategies, one per parameter.

A parameter's strategy (``strategies``) is built from its type string (``signature``,
parsed into a small tree by ``typetree``) in one of two modes:

* **Hinted** (``hinted``, ``patterns``): suite tasks with ``metadata.input_hints``; the
  hints are a contract, so the strategy never leaves them. A ``pattern`` in words that we
  do not know falls back to the visible values, the only strings known to satisfy it.
* **Example-driven** (``like``, ``like_text``): HumanEval and other tasks without hints;
  new values resemble the visible ones (ranges, sizes, shapes, vocabulary). Where the type
  is missing or ``Any`` it is inferred from the visible values.

Sizes stay small (lists <= 8-10, strings <= 12 by default) since thousands of programs run
on every input.

Determinism: the same (task, n, seed) gives the same inputs in any process; ``draw`` says
how (a seed derived from the task id, and one of Hypothesis's internal pools swapped out
while drawing).
"""

from .generate import generate_inputs
from .helper import (
    DEFAULT_ALPHABET,
    DEFAULT_FLOAT,
    DEFAULT_INT,
    DEFAULT_MAX_LEN,
    DEFAULT_MAX_STR,
    EXAMPLE_MAX_LEN,
    EXAMPLE_MAX_STR,
)
from .like import MAX_SEEDS
from .patterns import pattern_strategy
from .signature import signature
from .strategies import strategy
from .typetree import (
    ANY,
    BOOL,
    BYTES,
    FLOAT,
    INT,
    NONE,
    STR,
    infer_type,
    parse_type,
    unhandled_types,
)
from .visible import MISSING, Case, visible_cases

__all__ = [
    "ANY",
    "BOOL",
    "BYTES",
    "DEFAULT_ALPHABET",
    "DEFAULT_FLOAT",
    "DEFAULT_INT",
    "DEFAULT_MAX_LEN",
    "DEFAULT_MAX_STR",
    "EXAMPLE_MAX_LEN",
    "EXAMPLE_MAX_STR",
    "FLOAT",
    "INT",
    "MAX_SEEDS",
    "MISSING",
    "NONE",
    "STR",
    "Case",
    "generate_inputs",
    "infer_type",
    "parse_type",
    "pattern_strategy",
    "signature",
    "strategy",
    "unhandled_types",
    "visible_cases",
]
