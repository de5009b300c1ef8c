"""When two query results are the same answer.

Policy (what ``results_equal`` decides):

* **Columns**: the same number of columns, compared by position; names and aliases are
  ignored (``SELECT COUNT(*) AS n`` equals ``SELECT COUNT(*)``). Order matters:
  ``SELECT min(x), max(x)`` is not ``SELECT max(x), min(x)`` (a reader takes column 1 as
  the minimum). No permutation search: that would accept swapped-meaning columns.
* **Rows are a bag**: duplicates count (a missing ``DISTINCT`` is wrong; sets would hide it).
* **Order** matters only when the gold orders at its top level (``gold_is_ordered``).
  Then rows tied on the gold's ORDER BY keys form groups that must appear in the same
  sequence, each compared as a bag, so any order inside a tie is accepted. Without the
  keys (``gold_keys=None``), only identical rows count as tied.
* **Values**: NULL equals NULL (results are compared as data, not with SQL's
  three-valued logic). Numbers compare by value across INTEGER, DECIMAL and DOUBLE with a
  relative tolerance of 1e-9 when a float is involved (DECIMAL 0.30 equals DOUBLE
  0.30000000000000004) and exactly otherwise; NaN equals NaN and nothing else; infinities
  equal themselves. BOOLEAN is not a number: ``True`` does not equal ``1`` (Python's
  ``True == 1`` is an accident of the language; a query answering a yes/no column with
  0/1 returns a different type). Strings exactly (case and spaces count); DATE,
  TIMESTAMP, TIME, INTERVAL by value within their own type (a DATE is not a TIMESTAMP at
  midnight); lists and structs element by element with the same rules.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp

REL_TOL = 1e-9
ABS_TOL = 1e-12
_SORT_DIGITS = 6  # coarse rounding for the sort key of the tolerant path

# ---------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, (int, float, Decimal)):
        if isinstance(v, Decimal) and v.is_nan():
            return "nan"
        return "num"
    if isinstance(v, str):
        return "str"
    if isinstance(v, _dt.datetime):  # before date: datetime is a subclass of date
        return "datetime_tz" if v.tzinfo is not None else "datetime"
    if isinstance(v, _dt.date):
        return "date"
    if isinstance(v, (list, tuple)):
        return "list"
    if isinstance(v, dict):
        return "struct"
    return type(v).__name__  # time, timedelta, UUID, bytes...: exact equality within type


def _exact(v: Any) -> Any:
    """A hashable form for the fast path: equal forms imply equal values."""
    k = _kind(v)
    if k == "num":
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        elif isinstance(v, Decimal) and v == v.to_integral_value():
            v = int(v)
        return ("num", v)
    if k == "list":
        return ("list", tuple(_exact(x) for x in v))
    if k == "struct":
        return ("struct", tuple((str(a), _exact(b)) for a, b in v.items()))
    if k == "nan":
        return ("nan",)
    return (k, v)


def _sort_key(v: Any) -> tuple:
    """An orderable key that puts close numbers next to each other."""
    k = _kind(v)
    if k == "num":
        f = float(v)
        if math.isinf(f):
            return ("num", f)
        return ("num", float(f"{f:.{_SORT_DIGITS}g}"))
    if k == "list":
        return ("list", tuple(_sort_key(x) for x in v))
    if k == "struct":
        return ("struct", tuple((str(a), _sort_key(b)) for a, b in v.items()))
    if k == "nan" or k == "null":
        return (k,)
    if k in ("str", "bool", "date", "datetime"):
        return (k, v)
    return (k, repr(v))  # tz-aware datetimes and rarer types: stable, comparable


def values_equal(a: Any, b: Any) -> bool:
    """Two result cells are the same value under the module's policy."""
    ka, kb = _kind(a), _kind(b)
    if ka != kb:
        return False
    if ka == "num":
        if isinstance(a, float) or isinstance(b, float):
            fa, fb = float(a), float(b)
            if math.isinf(fa) or math.isinf(fb):
                return fa == fb
            return math.isclose(fa, fb, rel_tol=REL_TOL, abs_tol=ABS_TOL)
        return a == b  # int and Decimal: exact (Decimal('0.30') == Decimal('0.3'))
    if ka in ("null", "nan"):
        return True
    if ka == "list":
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    if ka == "struct":
        return list(a) == list(b) and all(values_equal(a[n], b[n]) for n in a)
    return a == b


def rows_equal(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))


# ---------------------------------------------------------------------------------------
# rows
# ---------------------------------------------------------------------------------------


def bags_equal(gold: Sequence[Sequence[Any]], cand: Sequence[Sequence[Any]]) -> bool:
    """Same rows with the same multiplicities, in any order."""
    if len(gold) != len(cand):
        return False
    try:
        if Counter(tuple(map(_exact, r)) for r in gold) == Counter(tuple(map(_exact, r)) for r in cand):
            return True
    except TypeError:  # an unhashable cell type: the tolerant path copes
        pass
    # Tolerant path: sort both by a coarse key that keeps close numbers adjacent, then
    # compare pairwise with the tolerance.
    try:
        g = sorted(gold, key=lambda r: tuple(map(_sort_key, r)))
        c = sorted(cand, key=lambda r: tuple(map(_sort_key, r)))
    except TypeError:
        g, c = sorted(gold, key=repr), sorted(cand, key=repr)
    return all(rows_equal(x, y) for x, y in zip(g, c))


def tie_groups(keys: Sequence[Any]) -> list[int]:
    """Sizes of the runs of consecutive equal keys."""
    sizes: list[int] = []
    previous = object()
    for key in keys:
        if sizes and keys_tied(key, previous):
            sizes[-1] += 1
        else:
            sizes.append(1)
        previous = key
    return sizes


def keys_tied(a: Any, b: Any) -> bool:
    """Two ORDER BY keys (tuples or single values) are equal, so their rows are tied."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return rows_equal(a, b)
    return values_equal(a, b)


def results_equal(gold: Any, cand: Any, *, ordered: bool, gold_keys: Sequence[Any] | None = None) -> bool:
    """Whether ``cand`` is the same answer as ``gold`` (see the module's policy).

    ``gold`` and ``cand`` are ``database.Result`` objects (columns, rows) or bare row
    lists. ``gold_keys[i]`` is the ORDER BY key of gold row ``i``, used only when
    ``ordered``: rows with equal consecutive keys are a tie group."""
    g_cols, g_rows = _unpack(gold)
    c_cols, c_rows = _unpack(cand)
    if g_cols is not None and c_cols is not None and len(g_cols) != len(c_cols):
        return False
    if len(g_rows) != len(c_rows):
        return False
    if any(len(r) != len(c_rows[0]) for r in c_rows) or (g_rows and len(g_rows[0]) != len(c_rows[0])):
        return False
    if not ordered:
        return bags_equal(g_rows, c_rows)
    if gold_keys is None:
        return all(rows_equal(x, y) for x, y in zip(g_rows, c_rows))
    start = 0
    for size in tie_groups(gold_keys):
        end = start + size
        if size == 1:
            if not rows_equal(g_rows[start], c_rows[start]):
                return False
        elif not bags_equal(g_rows[start:end], c_rows[start:end]):
            return False
        start = end
    return True


def _unpack(result: Any) -> tuple[list | None, list]:
    if hasattr(result, "rows"):
        return list(getattr(result, "columns", None) or []) or None, list(result.rows)
    return None, list(result)


# ---------------------------------------------------------------------------------------
# the gold's ORDER BY
# ---------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _parse_one(sql: str, dialect: str = "duckdb") -> exp.Expression | None:
    """The single statement of ``sql`` (cached: callers copy before changing it)."""
    try:
        parsed = [e for e in sqlglot.parse(sql, read=dialect) if e is not None]
    except Exception:  # noqa: BLE001
        return None
    return parsed[0] if len(parsed) == 1 else None


def _top_query(root: exp.Expression) -> exp.Expression:
    while isinstance(root, (exp.Subquery, exp.Paren)) and root.this is not None:
        root = root.this  # "(SELECT ... ORDER BY x)" orders the result just the same
    return root


def top_level_order(sql: str) -> list[exp.Expression] | None:
    """The gold's top-level ORDER BY expressions ([] when it has none), or None when sqlglot
    cannot parse it. ORDER BY inside subqueries, windows or aggregates does not count."""
    root = _parse_one(sql)
    if root is None:
        return None
    order = _top_query(root).args.get("order")
    return [o.this for o in order.expressions] if order is not None else []


@functools.lru_cache(maxsize=4096)
def gold_is_ordered(sql: str) -> bool:
    """True when the query orders its result at the top level, so row order is part of the
    answer. Unparseable by sqlglot: a scan for ORDER BY at parenthesis depth 0, outside
    strings and comments."""
    order = top_level_order(sql)
    if order is not None:
        return bool(order)
    return _scan_for_top_level_order(sql)


def _scan_for_top_level_order(sql: str) -> bool:
    from .extract import strip_strings_and_comments

    depth, outside = 0, []
    for ch in strip_strings_and_comments(sql).lower():
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        outside.append(ch if depth == 0 else " ")
    words = " ".join("".join(outside).split())
    return " order by " in f" {words} "


def order_key_positions(sql: str, columns: Sequence[str]) -> list[int] | None:
    """Positions in the result (with these column names) of the gold's top-level ORDER BY
    keys, or None when some key is not a result column (then the caller appends it)."""
    order = top_level_order(sql)
    if not order:
        return None
    root = _top_query(_parse_one(sql))
    projections = root.expressions if isinstance(root, exp.Select) else []
    positions = []
    lowered = [c.lower() for c in columns]
    for key in order:
        pos = None
        if isinstance(key, exp.Literal) and key.is_int:
            pos = int(key.this) - 1
        elif isinstance(key, exp.Column) and lowered.count(key.name.lower()) == 1:
            pos = lowered.index(key.name.lower())
        else:
            text = key.sql("duckdb")
            for i, p in enumerate(projections):
                inner = p.this if isinstance(p, exp.Alias) else p
                if inner.sql("duckdb") == text and i < len(columns):
                    pos = i
                    break
        if pos is None or not 0 <= pos < len(columns):
            return None
        positions.append(pos)
    return positions


def with_order_keys(sql: str, dialect: str = "duckdb") -> tuple[str, int] | None:
    """The gold rewritten to also return its ORDER BY keys as extra last columns, and how
    many were added; None when that cannot be done safely (set operations, DISTINCT).
    ``dialect``: the one the gold is written in and the rewrite is run in."""
    root = _parse_one(sql, dialect)
    if root is None:
        return None
    top = _top_query(root)
    if not isinstance(top, exp.Select) or top.args.get("distinct") or not top.args.get("order"):
        return None
    top = top.copy()
    keys = []
    for o in top.args["order"].expressions:
        key = o.this
        if isinstance(key, exp.Literal) and key.is_int:  # ORDER BY 2: the 2nd projection
            n = int(key.this)
            if not 1 <= n <= len(top.expressions) or isinstance(top.expressions[n - 1], exp.Star):
                return None
            p = top.expressions[n - 1]
            key = p.this if isinstance(p, exp.Alias) else p
        keys.append(key.copy())
    for i, key in enumerate(keys):
        top.select(exp.alias_(key, f"__va_order_key_{i}"), copy=False)
    return top.sql(dialect), len(keys)
