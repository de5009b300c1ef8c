"""Inputs on which a candidate function is run against the reference solution.

Two sources, in this order:

1. **Visible cases** (``visible_cases``): the literal calls in the task's
   ``check(candidate)`` source, read with ``ast`` (never executed), with the expected value
   when the assert states one (``==`` either way round, ``abs(... - y) < eps``,
   ``isclose``, ``is True/False``, ``not ...`` -> False, a bare call -> True).
2. **Generated cases** (``generate_inputs``): Hypothesis strategies, one per parameter.

A parameter's strategy is built from its type string (``int``, ``list[int]``,
``Optional[Tuple[int, str]]``, ...; parsed into a small tree by ``parse_type``) in one of
two modes:

* **Hinted** (suite tasks, ``metadata.input_hints``): the hints are a contract, because the
  reference was validated only inside them, so the strategy never leaves them (bounds,
  sizes, alphabet, ``sorted``, ``unique``, ``pattern``). A ``pattern`` is either a regex
  (``st.from_regex``) or, as in the suite, a description in words; the descriptions we know
  (roman numerals, clock times, comma-separated integers) have their own generators, and
  an unknown one falls back to the visible values, the only strings known to satisfy it.
* **Example-driven** (HumanEval and other tasks without hints): ranges, sizes and alphabets
  are inferred from the values the visible cases pass for that parameter, and fresh values
  are mixed with the visible values themselves and with shape-preserving mutations of them
  (a list keeps its length, a grid its rows, a string its punctuation skeleton while words
  and numbers are swapped). Numbers never cross zero where the visible ones did not (many
  references assume ``n >= 1``). Where the type is missing or ``Any`` it is inferred from
  the visible values. Inputs "like the visible ones" rarely break a reference's unstated
  preconditions; the few that do are dropped by the caller.

Sizes stay small (lists <= 8-10, strings <= 12 by default) since thousands of programs run
on every input.

Determinism: the same (task, n, seed) gives the same inputs in any process. Hypothesis runs
with a ``@seed`` derived from the task id, no database, only the generate phase, and with
the literals of the process's own loaded modules hidden from it (see
``_without_local_constants``). Generation stops as soon as enough distinct values are in.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import math
import re
import string
import sys
import threading
from collections import Counter
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Optional

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

# Defaults when neither hints nor examples say anything.
DEFAULT_INT = (-1000, 1000)
DEFAULT_FLOAT = (-1000.0, 1000.0)
DEFAULT_ALPHABET = "abcxyzAB 019.,"
DEFAULT_MAX_LEN = 8  # lists, dicts, sets
DEFAULT_MAX_STR = 12
EXAMPLE_MAX_LEN = 10  # cap on sizes inferred from examples
EXAMPLE_MAX_STR = 20


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Case:
    args: tuple
    expected: Any = MISSING


# --------------------------------------------------------------------------- visible cases


def visible_cases(tests: str, entry_point: str) -> list[Case]:
    """Literal calls of ``candidate`` (or of ``entry_point``) in the tests, in source order,
    deduplicated by ``repr(args)``. Never raises."""
    try:
        return _visible_cases(tests, entry_point)
    except Exception:  # noqa: BLE001 - includes RecursionError / MemoryError from hostile text
        return []


def _visible_cases(tests: str, entry_point: str) -> list[Case]:
    if not isinstance(tests, str):
        return []
    tree = ast.parse(tests)
    names = {"candidate", entry_point} if isinstance(entry_point, str) and entry_point else {"candidate"}
    expected: dict[int, Any] = {}  # id(call node) -> expected value stated by its assert
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            found = _stated_value(node.test, names)
            if found is not None:
                expected[id(found[0])] = found[1]
    calls = [n for n in ast.walk(tree) if _is_target_call(n, names)]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    out: list[Case] = []
    index: dict[str, int] = {}
    for call in calls:
        args = _literal_args(call)
        if args is None:
            continue
        key = repr(args)
        value = expected.get(id(call), MISSING)
        if key not in index:
            index[key] = len(out)
            out.append(Case(args, value))
        elif out[index[key]].expected is MISSING and value is not MISSING:
            out[index[key]] = Case(out[index[key]].args, value)  # a later assert states it
    return out


def _is_target_call(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _literal_args(call: ast.Call) -> Optional[tuple]:
    if call.keywords:
        return None
    values = []
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            return None
        try:
            values.append(ast.literal_eval(arg))
        except Exception:  # noqa: BLE001 - never raise on task data
            return None
    return tuple(values)


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except Exception:  # noqa: BLE001 - never raise on task data
        return MISSING


def _stated_value(test: ast.AST, names: set[str]) -> Optional[tuple[ast.Call, Any]]:
    """(call, expected) when an assert's test pins the call's value, else None."""
    target = lambda n: _is_target_call(n, names)
    if target(test):  # assert candidate(x)
        return test, True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and target(test.operand):
        return test.operand, False
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Eq, ast.Is)):
            for call, other in ((left, right), (right, left)):
                if target(call):
                    value = _literal(other)
                    if value is MISSING:
                        return None
                    if isinstance(op, ast.Is) and not any(value is v for v in (True, False, None)):
                        return None  # `is` pins a value only for the singletons (and 1 == True)
                    return call, value
        # abs(candidate(x) - y) < eps  (either order inside the subtraction)
        if isinstance(op, (ast.Lt, ast.LtE)) and _is_abs_diff(left):
            a, b = left.args[0].left, left.args[0].right
            for call, other in ((a, b), (b, a)):
                if target(call):
                    value = _literal(other)
                    return (call, value) if value is not MISSING else None
    if isinstance(test, ast.Call) and _callee_name(test.func) == "isclose" and len(test.args) >= 2:
        a, b = test.args[0], test.args[1]
        for call, other in ((a, b), (b, a)):
            if target(call):
                value = _literal(other)
                return (call, value) if value is not MISSING else None
    return None


def _is_abs_diff(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and _callee_name(node.func) == "abs" and len(node.args) == 1
            and isinstance(node.args[0], ast.BinOp) and isinstance(node.args[0].op, ast.Sub))


def _callee_name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


# --------------------------------------------------------------------------- task fields


def _field(task: Any, name: str, default: Any = None) -> Any:
    if isinstance(task, Mapping):
        value = task.get(name, default)
    else:
        value = getattr(task, name, default)
    return default if value is None else value


def signature(task_like: Any) -> list[tuple[str, str]]:
    """[(param, type string)] from ``metadata.signature`` when present, else from the def
    line of ``entry_point`` in the reference (or the prompt); "" for a missing annotation."""
    return _find_signature(task_like) or []


def _find_signature(task_like: Any) -> Optional[list[tuple[str, str]]]:
    """Like ``signature`` but None when no signature was found at all (as opposed to a
    function that takes no parameters)."""
    meta = _field(task_like, "metadata", {}) or {}
    sig = meta.get("signature") if isinstance(meta, Mapping) else None
    if isinstance(sig, Mapping) and isinstance(sig.get("args"), list):
        out = []
        for item in sig["args"]:
            if isinstance(item, Mapping):
                out.append((str(item.get("name", "")), str(item.get("type", "") or "")))
            elif isinstance(item, (list, tuple)) and item:
                out.append((str(item[0]), str(item[1]) if len(item) > 1 and item[1] else ""))
        return out
    entry = _field(task_like, "entry_point", "")
    for source in (_field(task_like, "reference", ""), _field(task_like, "prompt", "")):
        found = _def_signature(source, entry)
        if found is not None:
            return found
    return None


def _def_signature(source: Any, entry: str) -> Optional[list[tuple[str, str]]]:
    if not isinstance(source, str) or not source:
        return None
    try:
        tree = ast.parse(source)
    except Exception:  # noqa: BLE001 - never raise on task data
        return None
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    named = [n for n in defs if n.name == entry] if entry else defs
    if not named:
        return None
    fn = named[-1]  # a later definition wins, as it would at run time
    params = fn.args.posonlyargs + fn.args.args
    return [(a.arg, ast.unparse(a.annotation) if a.annotation is not None else "") for a in params]


# --------------------------------------------------------------------------- type strings

# A type is a small tuple tree: ("int",) ("list", elem) ("tuple", (e1, e2)) ("tuplev", elem)
# ("dict", key, value) ("set", elem) ("union", (a, b)) ("any",) or ("any", "Name") for a
# name that was not understood.
INT, FLOAT, BOOL, STR, NONE, BYTES, ANY = ("int",), ("float",), ("bool",), ("str",), ("none",), ("bytes",), ("any",)

_SCALARS = {"int": INT, "float": FLOAT, "bool": BOOL, "str": STR, "bytes": BYTES,
            "None": NONE, "NoneType": NONE, "Any": ANY, "object": ANY}
_LISTS = {"list", "List", "Sequence", "MutableSequence", "Iterable", "Collection"}
_TUPLES = {"tuple", "Tuple"}
_DICTS = {"dict", "Dict", "Mapping", "MutableMapping"}
_SETS = {"set", "Set", "frozenset", "FrozenSet", "AbstractSet"}


def parse_type(text: str) -> tuple:
    text = (text or "").strip() if isinstance(text, str) else ""
    if not text:
        return ANY
    try:
        return _type_from_ast(ast.parse(text, mode="eval").body, 0)
    except Exception:  # noqa: BLE001 - never raise on task data
        return ("any", text)


def _type_from_ast(node: ast.AST, depth: int) -> tuple:
    if depth > 20:
        return ANY
    if isinstance(node, ast.Constant):
        if node.value is None:
            return NONE
        if isinstance(node.value, str):
            return parse_type(node.value) if depth < 5 else ANY
        return ("any", repr(node.value))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([_type_from_ast(node.left, depth + 1), _type_from_ast(node.right, depth + 1)])
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = _callee_name(node)
        if name in _SCALARS:
            return _SCALARS[name]
        if name in _LISTS:
            return ("list", ANY)
        if name in _TUPLES:
            return ("tuplev", ANY)
        if name in _DICTS:
            return ("dict", ANY, ANY)
        if name in _SETS:
            return ("set", ANY)
        return ("any", name)
    if isinstance(node, ast.Subscript):
        name = _callee_name(node.value)
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        sub = lambda n: _type_from_ast(n, depth + 1)
        if name in _LISTS:
            return ("list", sub(items[0]))
        if name in _SETS:
            return ("set", sub(items[0]))
        if name in _DICTS and len(items) == 2:
            return ("dict", sub(items[0]), sub(items[1]))
        if name in _TUPLES:
            if len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is Ellipsis:
                return ("tuplev", sub(items[0]))
            if len(items) == 1 and isinstance(items[0], ast.Tuple) and not items[0].elts:
                return ("tuple", ())
            return ("tuple", tuple(sub(i) for i in items))
        if name == "Optional":
            return _union([sub(items[0]), NONE])
        if name == "Union":
            return _union([sub(i) for i in items])
        return ("any", ast.unparse(node))
    return ("any", ast.unparse(node))


def _union(parts: list[tuple]) -> tuple:
    flat: list[tuple] = []
    for p in parts:
        for q in (p[1] if p[0] == "union" else (p,)):
            if q not in flat:
                flat.append(q)
    return flat[0] if len(flat) == 1 else ("union", tuple(flat))


def unhandled_types(type_str: str) -> list[str]:
    """Names in a type string that ``parse_type`` did not understand (they fall back to
    inference from examples); for reports."""
    out: list[str] = []

    def walk(t: Any) -> None:
        if not isinstance(t, tuple) or not t:
            return
        if t[0] == "any" and len(t) > 1:
            out.append(t[1])
        for part in t[1:]:
            if isinstance(part, tuple):
                if part and isinstance(part[0], str):
                    walk(part)
                else:
                    for q in part:
                        walk(q)

    walk(parse_type(type_str))
    return out


def _fits(t: tuple, v: Any, depth: int = 0) -> bool:
    """Whether a visible value has the shape of type ``t`` (so it may seed that type)."""
    if depth > 30:
        return False
    kind, tv = t[0], type(v)
    if kind == "any":
        return True
    if kind == "int":
        return tv is int
    if kind == "float":
        return tv in (int, float)
    if kind == "bool":
        return tv is bool
    if kind == "str":
        return tv is str
    if kind == "bytes":
        return tv is bytes
    if kind == "none":
        return v is None
    if kind == "list":
        return tv is list and all(_fits(t[1], x, depth + 1) for x in v)
    if kind == "tuplev":
        return tv is tuple and all(_fits(t[1], x, depth + 1) for x in v)
    if kind == "tuple":
        return tv is tuple and len(v) == len(t[1]) and all(_fits(e, x, depth + 1) for e, x in zip(t[1], v))
    if kind == "set":
        return tv in (set, frozenset) and all(_fits(t[1], x, depth + 1) for x in v)
    if kind == "dict":
        return tv is dict and all(_fits(t[1], k, depth + 1) and _fits(t[2], x, depth + 1) for k, x in v.items())
    if kind == "union":
        return any(_fits(alt, v, depth + 1) for alt in t[1])
    return False


def infer_type(values: list, depth: int = 0) -> tuple:
    """The type tree of visible values (a union when they differ); ANY when there are none."""
    if depth > 20:
        return ANY
    found: list[tuple] = []
    by_kind: dict[str, list] = {}
    for v in values:
        by_kind.setdefault(type(v).__name__, []).append(v)
    for kind, vs in by_kind.items():  # first-seen order: deterministic
        if kind in ("bool", "int", "float", "str", "bytes"):
            found.append(_SCALARS[kind])
        elif kind == "NoneType":
            found.append(NONE)
        elif kind == "list":
            found.append(("list", infer_type([x for v in vs for x in v], depth + 1)))
        elif kind in ("set", "frozenset"):
            found.append(("set", infer_type([x for v in vs for x in v], depth + 1)))
        elif kind == "dict":
            found.append(("dict", infer_type([k for v in vs for k in v], depth + 1),
                          infer_type([x for v in vs for x in v.values()], depth + 1)))
        elif kind == "tuple":
            lengths = {len(v) for v in vs}
            if len(lengths) == 1:
                n = lengths.pop()
                found.append(("tuple", tuple(infer_type([v[i] for v in vs], depth + 1) for i in range(n))))
            else:
                found.append(("tuplev", infer_type([x for v in vs for x in v], depth + 1)))
    return _union(found) if found else ANY


# --------------------------------------------------------------------------- strategies


def strategy(type_str: str, hints: Optional[dict] = None, examples: Optional[list] = None) -> st.SearchStrategy:
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


# ---- hinted mode: the hints are a contract


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


# Suite hints sometimes describe the format in words ("valid roman numeral 1..3999"). The
# descriptions we know get a direct generator (faster and exact, where a regex plus a length
# filter rejects most draws); anything else that reads as a regex goes to ``from_regex``.
_ROMAN = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
          (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


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
        lambda t: f"{t[0]:02d}:{t[1]:02d}" if t[2] or t[0] >= 10 else f"{t[0]}:{t[1]:02d}")


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


def pattern_strategy(pattern: str, alphabet: str = "") -> Optional[st.SearchStrategy]:
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


# ---- example-driven mode: like the visible values


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


def _pick(options: list) -> st.SearchStrategy:
    """One of ``options``, equally likely (repeat one to weight it). Unlike ``st.one_of``,
    nested picks are not flattened into one list, so the weights hold at every level."""
    return options[0] if len(options) == 1 else st.sampled_from(options).flatmap(_same)


def _same(x: Any) -> Any:
    return x


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
        return fresh, lambda v: (st.floats(max(lo, v - 1.0), min(hi, v + 1.0)) if lo <= v <= hi
                                 else st.just(v))  # inf, NaN, 1e308: as they were
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


def _grids(t: tuple, pool: list, lo: int, hi: int, depth: int) -> Optional[st.SearchStrategy]:
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
    return _pick([st.lists(st.lists(cell, min_size=w, max_size=w), min_size=lo, max_size=hi)
                  for w in range(w_lo, w_hi + 1)])


def _char_class(c: str) -> str:
    if c in string.digits:
        return "d"
    if c.isupper():
        return "u"
    if c.islower():
        return "l"
    if c.isspace():
        return "s"
    return "p" + c  # punctuation is structure ("1/5", "03-11-2000"): kept as it is


def _runs(s: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for c in s:
        cls = _char_class(c)
        if out and out[-1][0] == cls and not cls.startswith("p"):
            out[-1] = (cls, out[-1][1] + c)
        else:
            out.append((cls, c))
    return out


def _like_text(pool: list):
    chars = "".join(sorted({c for s in pool for c in s})) or DEFAULT_ALPHABET
    sizes = [len(s) for s in pool]
    lo = min(min(sizes), EXAMPLE_MAX_STR) if sizes else 0
    hi = max(lo, min(max(sizes) + 2, EXAMPLE_MAX_STR)) if sizes else DEFAULT_MAX_STR
    random_text = st.text(alphabet=st.sampled_from(chars), min_size=lo, max_size=hi)
    # Many string parameters are sentences over a closed vocabulary ("three one five",
    # "o o| .|"): new sentences from the words already seen respect it.
    words = list(dict.fromkeys(w for s in pool for w in s.split()))
    counts = [len(s.split()) for s in pool]
    fresh = random_text
    if words and max(counts) > 1:
        sentences = st.lists(st.sampled_from(words), min_size=min(counts),
                             max_size=max(min(counts), min(max(counts) + 1, EXAMPLE_MAX_LEN))).map(" ".join)
        fresh = _pick([sentences, random_text])
    vocab: dict[str, list[str]] = {}
    for s in pool:
        for cls, run in _runs(s):
            if not cls.startswith("p") and run not in vocab.setdefault(cls, []):
                vocab[cls].append(run)
    class_chars = {cls: "".join(sorted(set("".join(runs)))) for cls, runs in vocab.items()}
    seen_runs = {cls: st.sampled_from(runs) for cls, runs in vocab.items()}

    def run_like(cls: str, run: str, invent: bool) -> st.SearchStrategy:
        if cls.startswith("p"):
            return st.just(run)
        if not invent:
            return st.one_of(st.just(run), seen_runs[cls])
        new = st.text(alphabet=st.sampled_from(class_chars[cls]), min_size=1, max_size=len(run) + 2)
        return st.one_of(st.just(run), seen_runs[cls], new)

    def mutate(s: str) -> st.SearchStrategy:
        runs = _runs(s)
        if not runs:
            return random_text
        # swap runs (words, numbers, spaces) for runs seen elsewhere; a third of the time
        # also invent new ones of the same class
        seen = st.tuples(*[run_like(cls, run, False) for cls, run in runs]).map("".join)
        invented = st.tuples(*[run_like(cls, run, True) for cls, run in runs]).map("".join)
        return _pick([seen, seen, invented])

    return fresh, mutate


# --------------------------------------------------------------------------- generation


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


def _seed_for(task: Any, seed: int) -> int:
    ident = _field(task, "id", "") or _field(task, "reference", "") or _field(task, "entry_point", "")
    digest = hashlib.sha256(f"{ident}\0{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# One generation at a time per process: the constants swap below is process-global, and
# callers do generate from worker threads. Generation holds the GIL anyway.
_GENERATION_LOCK = threading.RLock()


class _Enough(BaseException):
    """Raised inside the Hypothesis test to stop generation once enough values are in. A
    BaseException (like KeyboardInterrupt) so that Hypothesis does not take it for a test
    failure: no replay, no report, no note on a surrounding pytest item; it just unwinds."""


def _draw(strat: st.SearchStrategy, count: int, seed: int, max_examples: int) -> list:
    """Up to ``count`` distinct values from ``strat``, deterministically for ``seed``."""
    found: dict[str, Any] = {}

    @hypothesis_seed(seed)
    @settings(database=None, derandomize=False, max_examples=max_examples, phases=[Phase.generate],
              deadline=None, suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
              report_multiple_bugs=False, print_blob=False)
    @given(strat)
    def collect(value: Any) -> None:
        if len(found) < count:
            found.setdefault(_key(value), copy.deepcopy(value))  # copy: samples share objects
        if len(found) >= count:
            raise _Enough

    with _GENERATION_LOCK, _without_local_constants():
        try:
            collect()
        except _Enough:
            pass
        # Unsatisfiable (every draw filtered out) and the like: keep what we have
        except Exception:  # noqa: BLE001, S110
            pass
    return list(found.values())


@contextmanager
def _without_local_constants():
    """Hide the literals of the process's own modules from Hypothesis while drawing.

    Hypothesis (6.13x+) now and then draws a literal found in the source of any "local"
    module loaded in the process (ours, the caller's). What is loaded differs between a CLI
    run, a test session and a worker, so the same (task, n, seed) would give different
    inputs. There is no setting for this, so the (internal) pool is swapped for an empty one
    for the duration; with a Hypothesis without it this does nothing."""
    try:
        from hypothesis.internal.conjecture import providers
        saved, saved_len = providers._local_constants, providers._sys_modules_len
        empty = copy.copy(saved)
        for name in ("integers", "floats", "bytes", "strings"):
            values = getattr(saved, name).copy()  # same container type (sorted, keyed)
            values.clear()
            setattr(empty, name, values)
        cache = providers.CONSTANTS_CACHE.cache  # (type, bounds) -> permitted constants
    except Exception:  # noqa: BLE001 - another Hypothesis: nothing to hide
        yield
        return
    providers._local_constants = empty
    providers._sys_modules_len = len(sys.modules)  # no rescan of sys.modules meanwhile
    cache.clear()
    try:
        yield
    finally:
        # keep whatever a module imported meanwhile contributed, for the caller's own tests
        providers._local_constants = saved | providers._local_constants
        providers._sys_modules_len = saved_len
        providers.CONSTANTS_CACHE.cache.clear()


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
        parts = [strategy(types[i], all_hints.get(names[i]) or {}, [c.args[i] for c in cases])
                 for i in range(arity)]
    except Exception:  # noqa: BLE001 - a hint Hypothesis rejects (min > max): visible cases only
        return list(out.values())
    wanted = len(out) + n
    for args in _draw(st.tuples(*parts), wanted, _seed_for(task, seed), max_examples=3 * n + 20):
        if len(out) >= wanted:
            break
        out.setdefault(_key(args), args)
    return list(out.values())
