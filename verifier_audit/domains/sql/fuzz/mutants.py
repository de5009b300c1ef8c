"""The neighbours a distilled set must tell apart from the gold: the near-miss
generator's mutants, or a few simple ones of our own when generators are absent."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from ....models import Task
from .constants import literal_value


def neighbours(task: Task) -> list[str]:
    """The queries a distilled set must tell apart from the gold."""
    try:
        from ..generators.near_miss import mutants

        found = [m.sql for m in mutants(task)]
    except ImportError:
        found = simple_mutants(task.reference)
    gold = " ".join(task.reference.split()).lower()
    out, seen = [], {gold}
    for sql in found:
        key = " ".join(sql.split()).lower()
        if key not in seen:
            seen.add(key)
            out.append(sql)
    return out


_FLIPS = {exp.GT: exp.GTE, exp.GTE: exp.GT, exp.LT: exp.LTE, exp.LTE: exp.LT, exp.EQ: exp.NEQ, exp.NEQ: exp.EQ}


def simple_mutants(gold: str) -> list[str]:
    """A few neighbours of our own: comparison boundaries, numeric literals +-1, DISTINCT
    toggled, ORDER BY direction flipped."""
    try:
        tree = sqlglot.parse_one(gold, read="duckdb")
    except Exception:  # noqa: BLE001
        return []
    out = []
    nodes = list(tree.walk())
    for i, node in enumerate(nodes):

        def edited(replace):
            copy = tree.copy()
            target = list(copy.walk())[i]  # noqa: B023 -- edited() is called in this iteration only
            target.replace(replace(target))
            return copy.sql("duckdb")

        if type(node) in _FLIPS:
            out.append(edited(lambda n: _FLIPS[type(n)](this=n.this.copy(), expression=n.expression.copy())))
        elif isinstance(node, exp.Literal) and not node.is_string and node.find_ancestor(exp.Limit) is None:
            out.append(edited(lambda n: exp.Literal.number(literal_value(n) + 1)))
        elif isinstance(node, exp.Ordered):
            out.append(edited(lambda n: exp.Ordered(this=n.this.copy(), desc=not n.args.get("desc"))))
    if isinstance(tree, exp.Select):
        toggled = tree.copy()
        toggled.set("distinct", None if tree.args.get("distinct") else exp.Distinct())
        out.append(toggled.sql("duckdb"))
    return out
