"""A SQL task's slices: the features of its reference query, read from the query's parse
tree (sqlglot), so a user's own tasks are sliced as the built-in ones are.

A query has several features at once (a join with a GROUP BY); the candidate counts in
each of them. The primary slice (what ``--weights-from`` weighs) is the most telling
feature present, in FEATURES order; ``query:plain`` when none is.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from ...models import Task

# Most telling first: the order decides a task's primary slice.
FEATURES = ("window", "set_operation", "cte", "group_by", "join", "order_limit", "distinct", "null_predicate")


def task_slices(task: Task) -> list[str]:
    try:
        tree = sqlglot.parse_one(task.reference, read="duckdb")
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return ["query:unknown"]
    if tree is None:
        return ["query:unknown"]
    found = features(tree)
    return [f"query:{name}" for name in FEATURES if name in found] or ["query:plain"]


def features(tree: exp.Expression) -> set[str]:
    found = set()
    if tree.find(exp.Window):
        found.add("window")
    if tree.find(exp.Union, exp.Intersect, exp.Except):
        found.add("set_operation")
    if tree.find(exp.With):
        found.add("cte")
    if tree.find(exp.Group):
        found.add("group_by")
    if tree.find(exp.Join):
        found.add("join")
    if tree.find(exp.Order, exp.Limit):
        found.add("order_limit")
    if tree.find(exp.Distinct) or any(isinstance(s, exp.Select) and s.args.get("distinct") for s in tree.walk()):
        found.add("distinct")
    # Predicates whose truth NULL changes: IS [NOT] NULL, COALESCE, NOT IN (a NULL in the
    # list makes it unknown), and outer joins (they make the NULLs).
    if (
        tree.find(exp.Is, exp.Coalesce)
        or any(isinstance(n, exp.Not) and n.find(exp.In) for n in tree.walk())
        or any(isinstance(j, exp.Join) and j.side for j in tree.walk())
    ):
        found.add("null_predicate")
    return found
