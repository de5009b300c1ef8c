"""Strings for a ``pattern`` hint. A pattern is either a regex (``st.from_regex``) or, as in
the suite, a description in words; the descriptions we know (roman numerals, clock times,
comma-separated integers) have their own generators."""

from __future__ import annotations

import re
import string

from hypothesis import strategies as st

# Suite hints sometimes describe the format in words ("valid roman numeral 1..3999"). The
# descriptions we know get a direct generator (faster and exact, where a regex plus a length
# filter rejects most draws); anything else that reads as a regex goes to ``from_regex``.
_ROMAN = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]


def _roman(n: int) -> str:
    out = []
    for value, letters in _ROMAN:
        count, n = divmod(n, value)
        out.append(letters * count)
    return "".join(out)


def _roman_numerals(alphabet: str) -> st.SearchStrategy:
    return st.integers(1, 3999).map(_roman)


def _clock_times(alphabet: str) -> st.SearchStrategy:
    # "H:MM or HH:MM": the hour with or without its leading zero
    return st.tuples(st.integers(0, 23), st.integers(0, 59), st.booleans()).map(
        lambda t: f"{t[0]:02d}:{t[1]:02d}" if t[2] or t[0] >= 10 else f"{t[0]}:{t[1]:02d}"
    )


def _csv_integers(alphabet: str) -> st.SearchStrategy:
    digits = "".join(c for c in alphabet if c in string.digits) or string.digits
    pad = st.text(" ", max_size=2) if " " in alphabet else st.just("")
    sign = st.sampled_from(["", "-"]) if "-" in alphabet else st.just("")
    number = st.tuples(sign, st.text(st.sampled_from(digits), min_size=1, max_size=3)).map("".join)
    item = st.tuples(pad, st.one_of(number, st.just("")), pad).map("".join)  # empty items allowed
    return st.lists(item, min_size=1, max_size=4).map(",".join)


_PROSE_PATTERNS = [
    (re.compile(r"roman", re.IGNORECASE), _roman_numerals),
    (re.compile(r"\bH{1,2}:MM\b", re.IGNORECASE), _clock_times),
    (re.compile(r"comma.separated (?:integers|ints|numbers)", re.IGNORECASE), _csv_integers),
]
_REGEX_SIGNS = set("[]\\^$()*+?{}|")


def pattern_strategy(pattern: str, alphabet: str = "") -> st.SearchStrategy | None:
    """Strings for a ``pattern`` hint: a known prose description, or the pattern as a regex
    when it reads as one (has regex syntax, or no spaces); None for unknown prose."""
    for words, build in _PROSE_PATTERNS:
        if words.search(pattern):
            return build(alphabet)
    try:
        re.compile(pattern)
    except re.error:
        return None
    if set(pattern) & _REGEX_SIGNS or not any(c.isspace() for c in pattern):
        return st.from_regex(pattern, fullmatch=True, alphabet=alphabet or None)
    return None
