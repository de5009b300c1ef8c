"""Small things the other modules share: defaults, task field access, the order-free value
key that decides which values are distinct, and ``_pick``."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

# Defaults when neither hints nor examples say anything.
DEFAULT_INT = (-1000, 1000)
DEFAULT_FLOAT = (-1000.0, 1000.0)
DEFAULT_ALPHABET = "abcxyzAB 019.,"
DEFAULT_MAX_LEN = 8  # lists, dicts, sets
DEFAULT_MAX_STR = 12
EXAMPLE_MAX_LEN = 10  # cap on sizes inferred from examples
EXAMPLE_MAX_STR = 20


def _field(task: Any, name: str, default: Any = None) -> Any:
    if isinstance(task, Mapping):
        value = task.get(name, default)
    else:
        value = getattr(task, name, default)
    return default if value is None else value


def _callee_name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _key(value: Any, depth: int = 0) -> str:
    """repr, but independent of set iteration order (which depends on PYTHONHASHSEED)."""
    if depth > 50:
        return "..."
    t = type(value)
    if t in (set, frozenset):
        return t.__name__ + "{" + ",".join(sorted(_key(v, depth + 1) for v in value)) + "}"
    if t in (list, tuple):
        return t.__name__ + "(" + ",".join(_key(v, depth + 1) for v in value) + ")"
    if t is dict:
        return "dict(" + ",".join(f"{_key(k, depth + 1)}:{_key(v, depth + 1)}" for k, v in value.items()) + ")"
    return repr(value)


def _pick(options: list) -> st.SearchStrategy:
    """One of ``options``, equally likely (repeat one to weight it). Unlike ``st.one_of``,
    nested picks are not flattened into one list, so the weights hold at every level."""
    return options[0] if len(options) == 1 else st.sampled_from(options).flatmap(_same)


def _same(x: Any) -> Any:
    return x
