"""Example-driven mode (HumanEval and other tasks without hints): ranges, sizes and shapes
are inferred from the values the visible cases pass for a parameter, and fresh values are
mixed with the visible values themselves and with shape-preserving mutations of them (a
list keeps its length, a grid its rows). Numbers never cross zero where the visible ones did
not (many references assume ``n >= 1``). Inputs "like the visible ones" rarely break a
reference's unstated preconditions; the few that do are dropped by the caller."""

from __future__ import annotations

import math

from hypothesis import strategies as st

from .helper import DEFAULT_MAX_LEN, DEFAULT_MAX_STR, EXAMPLE_MAX_LEN, _pick
from .like_text import _like_text
from .typetree import NONE, _fits, infer_type


def _like(t: tuple, pool: list, depth: int) -> st.SearchStrategy:
    """Values of type ``t`` resembling ``pool`` (the visible values at this position)."""
    if depth > 10:
        return st.none() if t == NONE else st.integers(0, 3)
    kind = t[0]
    pool = [v for v in pool if _fits(t, v)]
    if kind == "any":
        inferred = infer_type(pool)
        return _like(inferred, pool, depth + 1) if inferred[0] != "any" else st.integers(-10, 10)
    if kind == "union":
        return st.one_of([_like(alt, pool, depth + 1) for alt in t[1]])
    if kind == "bool":
        return st.booleans()
    if kind == "none":
        return st.none()
    if kind == "bytes":
        return st.binary(max_size=DEFAULT_MAX_STR)
    fresh, mutate = _like_parts(t, pool, depth)
    if not pool:
        return fresh
    # Mutants are built once per visible value here, not per draw: building strategies
    # inside a draw (flatmap) costs more than the draw itself.
    near = _pick([mutate(v) for v in pool[:MAX_SEEDS]])
    # a visible value, a visible value changed a little (twice as likely), a new value
    return _pick([st.sampled_from(pool), near, near, fresh])


MAX_SEEDS = 16  # visible values that get their own mutant strategy


def _number_range(values: list, whole: bool) -> tuple:
    lo, hi = min(values), max(values)
    k = max(3, (hi - lo) // 4) if whole else max(1.0, (hi - lo) / 4)
    # never cross zero where the visible values did not: many functions assume n >= 1
    lower = lo if lo >= 0 else lo - k
    upper = hi if hi <= 0 else hi + k
    return lower, upper


def _like_parts(t: tuple, pool: list, depth: int):
    """(fresh strategy, mutate: visible value -> strategy of values near it)."""
    kind = t[0]
    if kind == "int":
        lo, hi = _number_range(pool, True) if pool else (0, 100)
        return st.integers(lo, hi), lambda v: st.integers(max(lo, v - 3), min(hi, v + 3))
    if kind == "float":
        finite = [float(v) for v in pool if abs(v) < 1e300]  # also drops inf, NaN
        lo, hi = _number_range(finite, False) if finite else (0.0, 100.0)
        fresh = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
        if max(abs(lo), abs(hi)) < 1e12:  # floats as people write them (2.5, -0.1), too
            tenths = st.integers(math.ceil(lo * 10), math.floor(hi * 10)).map(lambda i: i / 10)
            fresh = st.one_of(tenths, fresh)
        return (
            fresh,
            lambda v: st.floats(max(lo, v - 1.0), min(hi, v + 1.0)) if lo <= v <= hi else st.just(v),
        )  # inf, NaN, 1e308: as they were
    if kind == "str":
        return _like_text(pool)
    if kind in ("list", "tuplev", "set"):
        elem = _like(t[1], [x for v in pool for x in v], depth + 1)
        sizes = [len(v) for v in pool]
        lo = min(sizes) if sizes else 0
        hi = max(lo, min(max(sizes) + 2, EXAMPLE_MAX_LEN)) if sizes else _default_size(depth)
        if kind == "set":
            return st.sets(elem, max_size=hi), st.just
        make = tuple if kind == "tuplev" else list
        fresh = _grids(t, pool, lo, hi, depth) if kind == "list" else None
        if fresh is None:
            fresh = st.lists(elem, min_size=lo, max_size=hi).map(make)
        if t[1][0] == "list":  # rows of a grid: keep every row's length, change cells
            cell = _like(t[1][1], [x for v in pool for row in v for x in row], depth + 2)
            keep = lambda row: st.tuples(*[st.one_of(st.just(x), cell) for x in row]).map(list)
            return fresh, lambda v: st.tuples(*[keep(row) for row in v]).map(make)
        # same length, each element kept or replaced
        return fresh, lambda v: st.tuples(*[st.one_of(st.just(x), elem) for x in v]).map(make)
    if kind == "tuple":
        parts = [_like(e, [v[i] for v in pool], depth + 1) for i, e in enumerate(t[1])]
        return st.tuples(*parts), lambda v: st.tuples(*[st.one_of(st.just(x), p) for x, p in zip(v, parts)])
    if kind == "dict":
        keys = _like(t[1], [k for v in pool for k in v], depth + 1)
        vals = _like(t[2], [x for v in pool for x in v.values()], depth + 1)
        sizes = [len(v) for v in pool]
        hi = min(max(sizes) + 2, EXAMPLE_MAX_LEN) if sizes else _default_size(depth)
        fresh = st.dictionaries(keys, vals, max_size=hi)
        return fresh, lambda v: st.fixed_dictionaries({k: st.one_of(st.just(x), vals) for k, x in v.items()})
    return st.integers(-10, 10), st.just


def _default_size(depth: int) -> int:
    return DEFAULT_MAX_LEN if depth == 0 else 4  # nested containers: 8 lists of 8 is plenty


def _grids(t: tuple, pool: list, lo: int, hi: int, depth: int) -> st.SearchStrategy | None:
    """New lists of lists that keep the visible ones' shape: rectangular when every visible
    one is (all rows one length), square when every visible one is. None otherwise."""
    if t[1][0] != "list" or not any(len(v) > 1 for v in pool):
        return None
    if any(len({len(row) for row in v}) > 1 for v in pool):
        return None
    cell = _like(t[1][1], [x for v in pool for row in v for x in row], depth + 2)
    widths = [len(v[0]) for v in pool if v]
    if all(len(v) == len(v[0]) for v in pool if v):  # square
        sides = range(max(lo, 1), hi + 1)
        return _pick([st.lists(st.lists(cell, min_size=n, max_size=n), min_size=n, max_size=n) for n in sides])
    w_lo = min(widths)
    w_hi = max(w_lo, min(max(widths) + 2, EXAMPLE_MAX_LEN))
    return _pick(
        [st.lists(st.lists(cell, min_size=w, max_size=w), min_size=lo, max_size=hi) for w in range(w_lo, w_hi + 1)]
    )
