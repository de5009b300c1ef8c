"""Helpers shared by the SQL generators: seeded randomness, parsing and rendering the gold
with sqlglot, finding nodes to edit in copies of a tree, the schema and data a task's
database offers and completion prose (candidates and sampling are the kit's,
``verifier_audit.domains.kit``)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import lru_cache

import sqlglot
from sqlglot import exp

from ....models import Task
from ...kit import rng_for  # noqa: F401 - shared seeding, used across this package
from ..schema import Column, Schema
from . import _data

DIALECT = "duckdb"

# Prose before the fenced query. It names no table, column or value, so a grader that
# reads the prose learns nothing, and it claims nothing a wrong query would contradict.
_OPENINGS = (
    "Here is the query that answers the question:",
    "The following SQL returns the requested result.",
    "I read the schema first and then wrote this query.",
    "This should do it:",
    "Let me write the query step by step. The final version is below.",
    "Sure. Running this against the database gives the answer.",
    "To answer this we only need one statement:",
)


# ----------------------------------------------------------------------- sql text


@lru_cache(maxsize=4096)
def _parse_cached(sql: str) -> exp.Expression | None:
    try:
        statements = sqlglot.parse(sql, read=DIALECT)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError, RecursionError):
        return None
    statements = [s for s in statements if s is not None]
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        return None
    return statements[0]


def parse_query(sql: str) -> exp.Expression | None:
    """The single query in ``sql`` as a fresh tree (safe to edit), or None."""
    tree = _parse_cached(sql.strip().rstrip(";").strip())
    return None if tree is None else tree.copy()


def render(tree: exp.Expression, **options) -> str:
    return tree.sql(dialect=DIALECT, **options)


def normalise(sql: str) -> str:
    """A key for "the same query text": whitespace squashed, case folded outside strings."""
    parts = re.split(r"('(?:[^']|'')*')", sql.strip().rstrip(";"))
    folded = [p if p.startswith("'") else re.sub(r"\s+", " ", p).lower() for p in parts]
    return "".join(folded).strip()


def parses(sql: str) -> bool:
    return _parse_cached(sql.strip().rstrip(";").strip()) is not None


def gold_key(task: Task) -> str | None:
    """The normalised rendering of the gold, for excluding rewrites that did nothing."""
    tree = _parse_cached(task.reference.strip().rstrip(";").strip())
    return None if tree is None else normalise(render(tree))


# ------------------------------------------------------------------ editing copies


def positions(tree: exp.Expression, wanted: Callable[[exp.Expression], bool]) -> list[int]:
    """Indices (in ``tree.walk()`` order) of the nodes that ``wanted`` accepts."""
    return [i for i, node in enumerate(tree.walk()) if wanted(node)]


def node_at(tree: exp.Expression, index: int) -> exp.Expression:
    """The node at ``index`` of ``tree.walk()``; a copy walks in the same order."""
    for i, node in enumerate(tree.walk()):
        if i == index:
            return node
    raise IndexError(index)


def edited(tree: exp.Expression, index: int, edit: Callable[[exp.Expression], object]) -> exp.Expression:
    """A copy of ``tree`` with ``edit`` applied to its node at ``index``.

    ``edit`` changes the node in place or returns a replacement node; when the node is the
    root, the replacement becomes the new root.
    """
    copy = tree.copy()
    node = node_at(copy, index)
    replacement = edit(node)
    if isinstance(replacement, exp.Expression) and replacement is not node:
        if node is copy:
            return replacement
        node.replace(replacement)
    return copy


def from_of(select: exp.Expression) -> exp.Expression | None:
    """The FROM clause of a SELECT (sqlglot names the arg ``from_`` in recent versions)."""
    return select.args.get("from_") or select.args.get("from")


def with_of(query: exp.Expression) -> exp.Expression | None:
    return query.args.get("with_") or query.args.get("with")


def sources(select: exp.Expression) -> dict[str, str]:
    """alias-or-name -> table name for the tables a SELECT reads directly (FROM and JOINs)."""
    out: dict[str, str] = {}
    items = []
    frm = from_of(select)
    if frm is not None:
        items.append(frm.this)
    items += [j.this for j in select.args.get("joins") or []]
    for item in items:
        if isinstance(item, exp.Table):
            out[item.alias_or_name] = item.name
    return out


def cte_names(tree: exp.Expression) -> set[str]:
    return {cte.alias for cte in tree.find_all(exp.CTE)}


def and_operands(condition: exp.Expression) -> list[exp.Expression]:
    """The conjuncts of an AND chain (parentheses around the whole chain ignored)."""
    return list(condition.flatten()) if isinstance(condition, exp.And) else [condition]


def has_aggregate(node: exp.Expression) -> bool:
    return any(isinstance(n, exp.AggFunc) and not n.find_ancestor(exp.Window) for n in node.walk())


# ------------------------------------------------------------------ schema and data


class TaskContext:
    """What the generators know about a task's database: its schema and a few values."""

    def __init__(self, task: Task, schema: Schema | None):
        self.task = task
        self.schema = schema

    @classmethod
    def of(cls, task: Task) -> TaskContext:
        return cls(task, _data.schema_of(task))

    def columns(self, table: str) -> list[Column]:
        if self.schema is None:
            return []
        for t in self.schema.tables:
            if t.name.lower() == table.lower():
                return list(t.columns)
        return []

    def column(self, table: str, name: str) -> Column | None:
        return next((c for c in self.columns(table) if c.name.lower() == name.lower()), None)

    def table_of(self, column: exp.Column) -> str | None:
        """The table a column reference reads, through the aliases of its SELECT and the
        SELECTs around it (for correlated references); None when it cannot be told."""
        scope = column.find_ancestor(exp.Select)
        while scope is not None:
            found = sources(scope)
            if column.table:
                if column.table in found:
                    return found[column.table]
            else:
                owners = [t for t in found.values() if self.column(t, column.name)]
                if len(set(owners)) == 1:
                    return owners[0]
                if owners:
                    return None
            scope = scope.find_ancestor(exp.Select)
        return None

    def other_values(self, table: str, column: str, besides: object, limit: int = 3) -> list:
        """Up to ``limit`` other non-NULL values of ``table.column`` in the task's database."""
        return [v for v in _data.column_values(self.task.database, table, column) if v != besides][:limit]


# ------------------------------------------------------------------ completions


def completion(sql: str, rng: random.Random, fenced: bool = True) -> str:
    """A model-like completion: a sentence of prose, then the query (fenced by default)."""
    body = sql.strip()
    if not body.endswith(";"):
        body += ";"
    if not fenced:
        return body
    return f"{rng.choice(_OPENINGS)}\n\n```sql\n{body}\n```"
