"""How a program's output is compared with the expected output, in the parent.

A task's checker (``metadata.checker``) is ``"tokens"`` by default: the outputs split on
whitespace must be the same tokens in the same order (what most judges call the default
checker: trailing spaces, blank lines and ``\\r\\n`` do not count). With
``metadata.float_tolerance`` two tokens that both read as finite numbers are also equal when
they differ by at most the tolerance, absolute or relative to the expected value (so
``1.5``, ``1.50`` and ``15e-1`` are one answer). ``"exact"`` compares the bytes.

The reference verifiers use the same functions with other settings (``token_set``: the
lenient checker that a policy learns to pay first).
"""

from __future__ import annotations

import math
from collections.abc import Callable

CHECKERS = ("tokens", "exact")

Same = Callable[[str, str], bool]


def _number(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def tokens_equal(got: str, expected: str, float_tolerance: float | None = None) -> bool:
    """The same whitespace-separated tokens in the same order; numbers within
    ``float_tolerance`` (absolute, or relative to the expected value) when it is given."""
    a, b = got.split(), expected.split()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        if float_tolerance is None:
            return False
        u, v = _number(x), _number(y)
        if u is None or v is None or abs(u - v) > float_tolerance * max(1.0, abs(v)):
            return False
    return True


def token_set_equal(got: str, expected: str) -> bool:
    """The lenient checker: the same set of tokens, in any order, repeated or not."""
    return set(got.split()) == set(expected.split())


def exact_equal(got: str, expected: str) -> bool:
    return got == expected


def checker_of(name: str, float_tolerance: float | None) -> Same:
    """The comparison a task's ``metadata.checker`` names."""
    if name == "exact":
        return exact_equal
    return lambda got, expected: tokens_equal(got, expected, float_tolerance)
