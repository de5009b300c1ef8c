"""``generate_inputs``: a task's visible-case args, then Hypothesis-generated ones."""

from __future__ import annotations

import copy
import hashlib
from collections import Counter
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from .draw import _draw
from .helper import _field, _key
from .signature import _find_signature
from .strategies import strategy
from .visible import visible_cases


def _seed_for(task: Any, seed: int) -> int:
    ident = _field(task, "id", "") or _field(task, "reference", "") or _field(task, "entry_point", "")
    digest = hashlib.sha256(f"{ident}\0{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def generate_inputs(task: Any, n: int = 60, seed: int = 0) -> list[tuple]:
    """Visible-case args first, then up to ``n`` generated arg tuples, distinct by repr."""
    sig = _find_signature(task)
    cases = visible_cases(_field(task, "tests", ""), _field(task, "entry_point", ""))
    if sig is None:  # no def to read: the visible calls say how many arguments there are
        if not cases:
            return []
        arity = Counter(len(c.args) for c in cases).most_common(1)[0][0]
        sig = []
    else:
        arity = len(sig)
    cases = [c for c in cases if len(c.args) == arity]
    out: dict[str, tuple] = {}
    for c in cases:
        out.setdefault(_key(c.args), copy.deepcopy(c.args))
    if arity == 0:  # the one possible input
        out.setdefault(_key(()), ())
        return list(out.values())
    if n <= 0:
        return list(out.values())
    meta = _field(task, "metadata", {})
    all_hints = meta.get("input_hints") if isinstance(meta, Mapping) else None
    all_hints = all_hints if isinstance(all_hints, Mapping) else {}
    names = [name for name, _ in sig] or [f"arg{i}" for i in range(arity)]
    types = [typ for _, typ in sig] or [""] * arity
    try:
        parts = [strategy(types[i], all_hints.get(names[i]) or {}, [c.args[i] for c in cases]) for i in range(arity)]
    except Exception:  # noqa: BLE001 - a hint Hypothesis rejects (min > max): visible cases only
        return list(out.values())
    wanted = len(out) + n
    for args in _draw(st.tuples(*parts), wanted, _seed_for(task, seed), max_examples=3 * n + 20):
        if len(out) >= wanted:
            break
        out.setdefault(_key(args), args)
    return list(out.values())
