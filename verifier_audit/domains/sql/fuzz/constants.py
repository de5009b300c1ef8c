"""Constants of the golds: literals tied to the columns they are compared with, plus
their +-1 neighbours, so that fuzzed rows land on the queries' boundaries."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
COMPARISONS = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.Like,
    exp.ILike,
    exp.In,
    exp.Between,
    exp.Is,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
)


@dataclass
class Constants:
    """Values worth putting into fuzzed rows: per column name (lower case) and overall."""

    by_column: dict[str, list] = field(default_factory=dict)
    loose: list = field(default_factory=list)  # not tied to a column (HAVING COUNT(*) > 3)
    max_limit: int = 0  # largest LIMIT + OFFSET: some tables need more rows than that

    def add(self, columns: Iterable[str], values: list) -> None:
        columns = list(columns)
        for name in columns:
            bucket = self.by_column.setdefault(name.lower(), [])
            bucket.extend(v for v in values if v not in bucket)
        if not columns:
            self.loose.extend(v for v in values if v not in self.loose)

    def key(self) -> str:
        items = sorted((k, sorted(map(repr, v))) for k, v in self.by_column.items())
        return repr((items, sorted(map(repr, self.loose)), self.max_limit))


def literal_value(lit: exp.Literal) -> Any | None:
    if lit.is_string:
        return lit.this
    text = str(lit.this)
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def _neighbours(value: Any) -> list:
    """The value and what sits next to it: +-1 for numbers, +-1 day for dates, matching
    strings for LIKE patterns."""
    if isinstance(value, bool):
        return [value]
    if isinstance(value, (int, float)):
        return [value, value - 1, value + 1]
    if isinstance(value, str):
        if _DATE.match(value):
            try:
                d = dt.date.fromisoformat(value)
            except ValueError:
                return [value]
            return [d, d - dt.timedelta(days=1), d + dt.timedelta(days=1)]
        if "%" in value or "_" in value:
            core = value.replace("%", "").replace("_", "")
            filled = value.replace("%", "x").replace("_", "y")
            return [filled, value.replace("%", "").replace("_", "q"), core, core.upper(), core.lower(), value]
        return [value, value.upper(), value.lower(), value + " "]
    return [value]


def collect_constants(golds: Iterable[str]) -> Constants:
    found = Constants()
    for gold in golds:
        try:
            trees = [t for t in sqlglot.parse(gold, read="duckdb") if t is not None]
        except Exception:  # noqa: BLE001 - an unparseable gold contributes nothing
            continue
        for tree in trees:
            _collect(tree, found)
    return found


def _collect(tree: exp.Expression, found: Constants) -> None:
    for node in tree.find_all(exp.Limit, exp.Offset):
        value = node.args.get("expression")
        if isinstance(value, exp.Literal) and value.is_int:
            found.max_limit = max(found.max_limit, int(value.this))
    for lit in tree.find_all(exp.Literal):
        if lit.find_ancestor(exp.Limit, exp.Offset) is not None:
            continue
        value = literal_value(lit)
        if value is None:
            continue
        predicate = lit.find_ancestor(*COMPARISONS)
        columns = {c.name for c in predicate.find_all(exp.Column)} if predicate is not None else set()
        found.add(sorted(columns), _neighbours(value))
