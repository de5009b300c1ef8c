"""When a candidate's return value is the same answer as the reference's.

Policy (what ``values_equal`` decides under the default ``TypePolicy``):

* **Exact types.** ``True`` is not ``1`` and ``(1, 2)`` is not ``[1, 2]``: Python's
  ``True == 1`` is an accident of the language, and a function documented to return a
  tuple that returns a list is a different answer. Both can be relaxed per audit
  (``bool_is_int``, ``tuple_is_list``). ``set`` and ``frozenset`` are the same answer.
* **Numbers.** ints compare exactly (big ints included). Floats within
  ``float_rel``/``float_abs`` (``math.isclose``); an infinity equals only the same-signed
  infinity; NaN equals NaN when ``nan_equal``. An int equals a float when ``int_float`` and
  the two are close (``2 == 2.0``); an int too large for a float equals no float.
  ``complex`` compares part by part with the float rule, and only with ``complex``.
* **Containers** recursively with the same rules: lists/tuples by position, dicts by key
  set (keys compared exactly, up to the bool/int and int/float relaxations) then value by
  value, sets as bags: identical elements pair up first, the rest (floats that are close
  but not identical) by a perfect matching, so ``{0.1 + 0.2}`` equals ``{0.3}``.
* **Defensive.** Values come from the sandbox's decoder, which produces exact builtin
  types only; anything else (a subclass, a user object) is unequal to everything, and no
  ``__eq__`` but a builtin one is ever called. Nesting deeper than ``MAX_DEPTH`` is unequal
  rather than a ``RecursionError``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

MAX_DEPTH = 100
MAX_MATCHING = 200  # set elements left after exact pairing that are matched by closeness


@dataclass(frozen=True)
class TypePolicy:
    bool_is_int: bool = False
    tuple_is_list: bool = False
    float_rel: float = 1e-9
    float_abs: float = 1e-9
    int_float: bool = True
    nan_equal: bool = True

    @classmethod
    def parse(cls, text: str) -> TypePolicy:
        """``"bool_is_int=true,float_rel=1e-6"`` -> TypePolicy. Unset keys keep defaults."""
        valid = [f.name for f in fields(cls)]
        kinds = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for item in (text or "").split(","):
            if not item.strip():
                continue
            key, sep, raw = item.partition("=")
            key, raw = key.strip(), raw.strip()
            if key not in kinds:
                raise ValueError(f"unknown policy key {key!r}; valid keys: {', '.join(valid)}")
            if not sep:
                raise ValueError(f"policy key {key!r} has no value (write {key}=...); valid keys: {', '.join(valid)}")
            values[key] = _parse_value(key, kinds[key], raw, valid)
        return cls(**values)

    def to_text(self) -> str:
        """The inverse of ``parse``: ``TypePolicy.parse(p.to_text()) == p``."""
        parts = []
        for f in fields(self):
            v = getattr(self, f.name)
            parts.append(f"{f.name}={str(v).lower() if isinstance(v, bool) else repr(v)}")
        return ",".join(parts)


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _parse_value(key: str, kind: Any, raw: str, valid: list[str]) -> Any:
    # field types are strings under `from __future__ import annotations`
    if kind in ("bool", bool):
        low = raw.lower()
        if low in _TRUE or low in _FALSE:
            return low in _TRUE
        expect = "true/false, 1/0, yes/no or on/off"
    else:
        try:
            number = float(raw)
        except ValueError:
            number = math.nan
        if math.isfinite(number) and number >= 0:
            return number
        expect = "a finite number >= 0"
    raise ValueError(f"bad value {raw!r} for policy key {key!r} (expected {expect}); valid keys: {', '.join(valid)}")


DEFAULT_POLICY = TypePolicy()


def values_equal(expected: Any, got: Any, policy: TypePolicy = DEFAULT_POLICY) -> bool:
    try:
        return _eq(expected, got, policy, 0)
    except RecursionError:  # the caller was already deep in the stack
        return False


_NUMBERS = (int, float)


def _eq(a: Any, b: Any, p: TypePolicy, depth: int) -> bool:
    if depth > MAX_DEPTH:
        return False
    ta, tb = type(a), type(b)
    if p.bool_is_int:  # then a bool is just the int it stands for
        if ta is bool:
            a, ta = int(a), int
        if tb is bool:
            b, tb = int(b), int
    if ta is bool or tb is bool:
        return ta is tb and a is b
    if ta in _NUMBERS and tb in _NUMBERS:
        return _numbers_equal(a, b, p)
    if ta is complex or tb is complex:
        return ta is tb and _floats_equal(a.real, b.real, p) and _floats_equal(a.imag, b.imag, p)
    if a is None or b is None:
        return a is None and b is None
    if ta in (str, bytes) or tb in (str, bytes):
        return ta is tb and a == b  # str.__eq__ / bytes.__eq__: both exact builtins here
    if ta in (list, tuple) and tb in (list, tuple):
        if ta is not tb and not p.tuple_is_list:
            return False
        return len(a) == len(b) and all(_eq(x, y, p, depth + 1) for x, y in zip(a, b))
    if ta in (set, frozenset) and tb in (set, frozenset):
        return _bags_equal(list(a), list(b), p, depth + 1)
    if ta is dict and tb is dict:
        return _dicts_equal(a, b, p, depth + 1)
    return False  # unknown or mismatched types


def _numbers_equal(a: Any, b: Any, p: TypePolicy) -> bool:
    if type(a) is int and type(b) is int:
        return a == b
    if type(a) is float and type(b) is float:
        return _floats_equal(a, b, p)
    if not p.int_float:
        return False
    i, f = (a, b) if type(a) is int else (b, a)
    try:
        as_float = float(i)
    except OverflowError:  # an int beyond float range equals no float
        return False
    return _floats_equal(as_float, f, p)


def _floats_equal(x: float, y: float, p: TypePolicy) -> bool:
    if math.isnan(x) or math.isnan(y):
        return p.nan_equal and math.isnan(x) and math.isnan(y)
    return math.isclose(x, y, rel_tol=p.float_rel, abs_tol=p.float_abs)  # inf only == same inf


def _dicts_equal(a: dict, b: dict, p: TypePolicy, depth: int) -> bool:
    if len(a) != len(b):
        return False
    # tag -> values; a list because distinct keys can share a tag (two NaN objects, or 1
    # and True under bool_is_int)
    keyed_b: dict[Any, list] = {}
    for k, v in b.items():
        tag = _key_tag(k, p, depth)
        if tag is None:
            return False
        keyed_b.setdefault(tag, []).append(v)
    for k, v in a.items():
        tag = _key_tag(k, p, depth)
        candidates = keyed_b.get(tag) if tag is not None else None
        if not candidates:
            return False
        for i, w in enumerate(candidates):
            if _eq(v, w, p, depth + 1):
                del candidates[i]
                break
        else:
            return False
    return True


def _bags_equal(xs: list, ys: list, p: TypePolicy, depth: int) -> bool:
    """Multiset match. Exact tags pair most elements in linear time; what is left (floats
    that are close but not identical) is matched pairwise."""
    if len(xs) != len(ys):
        return False
    pending: dict[Any, list] = {}
    for y in ys:
        tag = _key_tag(y, p, depth)
        if tag is None:
            return False
        pending.setdefault(tag, []).append(y)
    left_x = []
    for x in xs:
        tag = _key_tag(x, p, depth)
        if tag is None:
            return False
        bucket = pending.get(tag)
        if bucket:
            bucket.pop()
        else:
            left_x.append(x)
    left_y = [y for bucket in pending.values() for y in bucket]
    if len(left_x) != len(left_y):
        return False
    if len(left_x) > MAX_MATCHING:
        return False  # not worth a quadratic search: far beyond any real answer's size
    # Closeness is not transitive (0 ~ 0.8e-9 ~ 1.6e-9 but 0 !~ 1.6e-9), so a first-fit
    # pairing could miss a valid one: find a perfect matching (augmenting paths).
    close = [[j for j, y in enumerate(left_y) if _eq(x, y, p, depth + 1)] for x in left_x]
    owner: list = [None] * len(left_y)

    def assign(i: int, seen: set) -> bool:
        for j in close[i]:
            if j not in seen:
                seen.add(j)
                if owner[j] is None or assign(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(assign(i, set()) for i in range(len(left_x)))


def _key_tag(v: Any, p: TypePolicy, depth: int) -> Any:
    """A hashable, type-tagged stand-in for a hashable value, so that dict/set lookups never
    confuse ``1`` with ``True`` or ``1.0`` (unless the policy says they are the same) and
    never call a foreign ``__eq__``. None when the value is not a plain builtin."""
    if depth > MAX_DEPTH:
        return None
    t = type(v)
    if t is bool:
        return ("i", int(v)) if p.bool_is_int else ("b", v)
    if t is int:
        return ("i", v)
    if t is float:
        if math.isnan(v):
            return ("nan",) if p.nan_equal else ("nan", id(v))
        if p.int_float and v.is_integer():
            return ("i", int(v))
        return ("f", v)
    if v is None or t in (str, bytes, complex):
        return (t.__name__, v)
    if t is tuple:
        items = tuple(_key_tag(x, p, depth + 1) for x in v)
        if any(x is None for x in items):
            return None
        return ("l" if p.tuple_is_list else "t", items)
    if t is frozenset:
        items = [_key_tag(x, p, depth + 1) for x in v]
        if any(x is None for x in items):
            return None
        return ("s", frozenset(items))
    return None
