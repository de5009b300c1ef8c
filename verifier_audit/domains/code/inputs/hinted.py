"""Hinted mode (suite tasks, ``metadata.input_hints``): the hints are a contract, because the
reference was validated only inside them, so the strategy never leaves them (bounds, sizes,
alphabet, ``sorted``, ``unique``, ``pattern``)."""

from __future__ import annotations

import math

from hypothesis import strategies as st

from .helper import (
    DEFAULT_ALPHABET,
    DEFAULT_FLOAT,
    DEFAULT_INT,
    DEFAULT_MAX_LEN,
    DEFAULT_MAX_STR,
    _key,
)
from .patterns import pattern_strategy
from .typetree import INT, STR


def _hinted(t: tuple, h: dict, examples: list) -> st.SearchStrategy:
    kind = t[0]
    if kind == "int":
        lo, hi = _bound(h, "min", DEFAULT_INT[0]), _bound(h, "max", DEFAULT_INT[1])
        return st.integers(math.ceil(lo), math.floor(hi))
    if kind == "float":
        lo, hi = _bound(h, "min", DEFAULT_FLOAT[0]), _bound(h, "max", DEFAULT_FLOAT[1])
        return st.floats(float(lo), float(hi), allow_nan=False, allow_infinity=False)
    if kind == "bool":
        return st.booleans()
    if kind == "none":
        return st.none()
    if kind == "str":
        return _hinted_text(h, examples)
    if kind in ("list", "tuplev", "set"):
        inner = {k: h[k] for k in ("min", "max", "alphabet") if k in h}
        if "max_str_len" in h:
            inner["max_len"] = h["max_str_len"]
        if "min_str_len" in h:
            inner["min_len"] = h["min_str_len"]
        elem = _hinted(t[1] if t[1][0] != "any" else INT, inner, [])
        lo, hi = h.get("min_len", 0), h.get("max_len", DEFAULT_MAX_LEN)
        if kind == "set":
            return st.sets(elem, min_size=lo, max_size=hi)
        values = st.lists(elem, min_size=lo, max_size=hi, unique_by=_key if h.get("unique") else None)
        if h.get("sorted"):
            values = values.map(sorted)
        return values.map(tuple) if kind == "tuplev" else values
    if kind == "dict":
        key_hints = {k: h[k] for k in ("alphabet",) if k in h}
        key_hints["max_len"] = h.get("max_key_len", 3)
        if "min_key_len" in h:
            key_hints["min_len"] = h["min_key_len"]
        keys = _hinted(t[1] if t[1][0] != "any" else STR, key_hints, [])
        vals = _hinted(t[2] if t[2][0] != "any" else INT, {k: h[k] for k in ("min", "max") if k in h}, [])
        return st.dictionaries(keys, vals, min_size=h.get("min_len", 0), max_size=h.get("max_len", DEFAULT_MAX_LEN))
    if kind == "tuple":
        return st.tuples(*[_hinted(e if e[0] != "any" else INT, h, []) for e in t[1]])
    if kind == "union":
        return st.one_of([_hinted(alt, h, examples) for alt in t[1]])
    return _hinted(INT, h, examples)  # any / bytes / unknown: small ints within the bounds


def _bound(h: dict, key: str, default: float) -> float:
    value = h.get(key)
    return default if value is None or isinstance(value, bool) else value


def _hinted_text(h: dict, examples: list) -> st.SearchStrategy:
    alphabet = "".join(dict.fromkeys(str(h.get("alphabet") or DEFAULT_ALPHABET)))
    lo, hi = int(h.get("min_len", 0)), int(h.get("max_len", DEFAULT_MAX_STR))
    pattern = h.get("pattern")
    if not pattern:
        return st.text(alphabet=st.sampled_from(alphabet), min_size=lo, max_size=hi)
    known = pattern_strategy(str(pattern), alphabet)
    if known is None:
        # A description we cannot turn into a generator: only the visible values are known
        # to satisfy it, so reuse them rather than invent strings the reference never saw.
        shown = [e for e in examples if isinstance(e, str)]
        return st.sampled_from(shown) if shown else st.nothing()
    allowed = set(alphabet)
    return known.filter(lambda s: lo <= len(s) <= hi and set(s) <= allowed)
