"""The strategy for one parameter: hinted mode when the task has hints, else example-driven."""

from __future__ import annotations

from hypothesis import strategies as st

from .helper import _key
from .hinted import _hinted
from .like import _like
from .typetree import INT, infer_type, parse_type


def strategy(type_str: str, hints: dict | None = None, examples: list | None = None) -> st.SearchStrategy:
    """A strategy for one parameter: hinted when ``hints`` is non-empty, else driven by the
    visible ``examples`` (or defaults when there are none)."""
    t = parse_type(type_str)
    examples = _dedup(list(examples or []))
    if hints:
        if t[0] == "any":
            t = infer_type(examples) if examples else INT
        return _hinted(t, dict(hints), examples)
    return _like(t, examples, 0)


def _dedup(values: list) -> list:
    seen, out = set(), []
    for v in values:
        k = _key(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out
