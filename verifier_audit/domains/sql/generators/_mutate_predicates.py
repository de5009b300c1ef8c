"""Near-miss families that change a condition: comparisons, constants, AND/OR, IN, EXISTS,
LIKE, NULL tests. Each family yields ``Site``s: where in the gold to edit and how; the
edit runs on a copy (``Site.apply``), so enumerating sites is cheap."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation

from sqlglot import exp

from ._common import TaskContext
from ._sites import Site, each, replace_with

_FLIP = {exp.EQ: exp.NEQ, exp.NEQ: exp.EQ, exp.LT: exp.GT, exp.GT: exp.LT, exp.LTE: exp.GTE, exp.GTE: exp.LTE}
_BOUNDARY = {exp.LT: exp.LTE, exp.LTE: exp.LT, exp.GT: exp.GTE, exp.GTE: exp.GT}
_SYMBOL = {exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.GT: ">", exp.LTE: "<=", exp.GTE: ">="}
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})( \d{2}:\d{2}(:\d{2})?)?$")


def _rebuilt(cls):
    return lambda node: cls(this=node.this, expression=node.expression)


def _is_join_key(node: exp.Expression) -> bool:
    """``a.x = b.y`` in an ON clause: flipping it to ``<>`` makes a near-cross join that
    nobody writes by mistake, so it is left to the join families."""
    return (
        isinstance(node, exp.EQ)
        and isinstance(node.this, exp.Column)
        and isinstance(node.expression, exp.Column)
        and isinstance(node.find_ancestor(exp.Join, exp.Where, exp.Select), exp.Join)
    )


def comparison_flip(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: type(n) in _FLIP and not _is_join_key(n)):
        new = _FLIP[type(node)]
        yield Site(
            "comparison_flip", i, _rebuilt(new), f"{_SYMBOL[type(node)]} -> {_SYMBOL[new]} in {node.sql('duckdb')}"
        )


def comparison_boundary(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: type(n) in _BOUNDARY):
        new = _BOUNDARY[type(node)]
        yield Site(
            "comparison_boundary", i, _rebuilt(new), f"{_SYMBOL[type(node)]} -> {_SYMBOL[new]} in {node.sql('duckdb')}"
        )


# --------------------------------------------------------------------------- constants


def _numeric_literal(node) -> bool:
    return isinstance(node, exp.Literal) and not node.is_string


def _shiftable(node) -> bool:
    """A constant whose change is a plausible slip: not a LIMIT (own family), not a HAVING
    threshold (own family), not an ordinal or a window frame, not ``SELECT 1`` in EXISTS."""
    if isinstance(node.parent, (exp.Limit, exp.Offset, exp.Fetch, exp.Ordered, exp.Group, exp.WindowSpec)):
        return False
    if node.find_ancestor(exp.Having) is not None:
        return False
    select = node.find_ancestor(exp.Select)
    if select is not None and node.parent is select and isinstance(select.parent, exp.Exists):
        return False
    return True


def _number_variants(text: str) -> list[str]:
    try:
        value = Decimal(text)
    except InvalidOperation:
        return []
    return [str(value + 1), str(value - 1)]


def _date_variants(text: str) -> list[str]:
    m = _DATE.match(text)
    if not m:
        return []
    try:
        day = dt.date.fromisoformat(m.group(1))
    except ValueError:
        return []
    rest = m.group(2) or ""
    return [(day + dt.timedelta(days=d)).isoformat() + rest for d in (1, -1)]


def _set_literal(value: str, is_string: bool):
    return lambda node: exp.Literal(this=value, is_string=is_string)


def literal_shift(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: isinstance(n, exp.Literal) and _shiftable(n)):
        variants = _date_variants(node.this) if node.is_string else _number_variants(node.this)
        for v in variants:
            yield Site("literal_shift", i, _set_literal(v, node.is_string), f"constant {node.this} -> {v}")


def having_threshold(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: _numeric_literal(n) and n.find_ancestor(exp.Having) is not None):
        for v in _number_variants(node.this):
            yield Site("having_threshold", i, _set_literal(v, False), f"HAVING threshold {node.this} -> {v}")


def _compared_column(node) -> exp.Column | None:
    """The column a string constant is compared with (``col = 'x'``, ``col IN ('x', ...)``)."""
    parent = node.parent
    if isinstance(parent, (exp.EQ, exp.NEQ, exp.LT, exp.GT, exp.LTE, exp.GTE)):
        other = parent.expression if parent.this is node else parent.this
        return other if isinstance(other, exp.Column) else None
    if isinstance(parent, exp.In) and isinstance(parent.this, exp.Column):
        return parent.this
    return None


def _respelled(text: str) -> list[str]:
    """Values a policy types by mistake when it does not know the data: the case changed,
    a plural."""
    swapped = text[:1].swapcase() + text[1:]
    out = [swapped] if swapped != text else []
    return out + [text + "s"]


def literal_other_value(tree, ctx: TaskContext) -> Iterator[Site]:
    wanted = lambda n: (
        isinstance(n, exp.Literal) and n.is_string and not _DATE.match(n.this) and _compared_column(n) is not None
    )
    for i, node in each(tree, wanted):
        column = _compared_column(node)
        table = ctx.table_of(column)
        others = [str(v) for v in ctx.other_values(table, column.name, node.this)] if table else []
        others = [v for v in others if v != node.this][:2] or _respelled(node.this)
        for v in others:
            yield Site("literal_other_value", i, _set_literal(v, True), f"'{node.this}' -> '{v}'")


# --------------------------------------------------------------------------- boolean


def dropped_conjunct(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: isinstance(n, exp.And)):
        yield Site("dropped_conjunct", i, lambda n: n.this, f"dropped {node.expression.sql('duckdb')}")
        yield Site("dropped_conjunct", i, lambda n: n.expression, f"dropped {node.this.sql('duckdb')}")
    for i, node in each(tree, lambda n: isinstance(n, (exp.Where, exp.Having)) and not isinstance(n.this, exp.And)):
        yield Site("dropped_conjunct", i, lambda n: n.pop(), f"dropped the only condition {node.this.sql('duckdb')}")


def and_or(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, _node in each(tree, lambda n: isinstance(n, exp.And)):
        # OR binds looser than the AND it replaces: parenthesise so it stays one operand.
        yield Site("and_or", i, lambda n: exp.Paren(this=exp.Or(this=n.this, expression=n.expression)), "AND -> OR")
    for i, _node in each(tree, lambda n: isinstance(n, exp.Or)):
        yield Site("and_or", i, lambda n: exp.And(this=n.this, expression=n.expression), "OR -> AND")


def _toggle_negation(node):
    """``x`` <-> ``NOT x`` whether sqlglot wrote the NOT as a parent or a ``negate`` flag."""
    if isinstance(node.parent, exp.Not):
        node.parent.replace(node)
        return node
    if node.args.get("negate"):
        node.set("negate", None)
        return node
    return exp.Not(this=node.copy())


def _negation_family(kind: str, cls, label: str):
    def family(tree, ctx: TaskContext) -> Iterator[Site]:
        for i, node in each(tree, lambda n: isinstance(n, cls)):
            negated = isinstance(node.parent, exp.Not) or bool(node.args.get("negate"))
            yield Site(kind, i, _toggle_negation, f"NOT {label} -> {label}" if negated else f"{label} -> NOT {label}")

    return family


in_not_in = _negation_family("in_not_in", exp.In, "IN")
exists_not_exists = _negation_family("exists_not_exists", exp.Exists, "EXISTS")


def null_check(tree, ctx: TaskContext) -> Iterator[Site]:
    yield from _negation_family("null_check", exp.Is, "IS NULL")(tree, ctx)
    for i, _node in each(tree, lambda n: isinstance(n, exp.Coalesce)):
        yield Site("null_check", i, lambda n: n.this, "COALESCE dropped: NULLs pass through")


def _patterns(pattern: str) -> list[str]:
    out = []
    if pattern.startswith("%") and len(pattern) > 1:
        out.append(pattern[1:])  # "contains" became "starts with"
    if pattern.endswith("%") and len(pattern) > 1:
        out.append(pattern[:-1])  # "starts with" became "equals"
    if not pattern.startswith("%"):
        out.append("%" + pattern)
    core = pattern.strip("%_")
    if core and core[:1].swapcase() != core[:1]:
        out.append(pattern.replace(core, core[:1].swapcase() + core[1:], 1))
    return [p for p in dict.fromkeys(out) if p != pattern]


def like_pattern(tree, ctx: TaskContext) -> Iterator[Site]:
    wanted = lambda n: isinstance(n, (exp.Like, exp.ILike)) and isinstance(n.expression, exp.Literal)
    for i, node in each(tree, wanted):
        for p in _patterns(node.expression.this):
            yield Site(
                "like_pattern",
                i,
                replace_with("expression", exp.Literal.string(p)),
                f"pattern '{node.expression.this}' -> '{p}'",
            )
        negated = isinstance(node.parent, exp.Not) or bool(node.args.get("negate"))
        yield Site("like_pattern", i, _toggle_negation, "NOT LIKE -> LIKE" if negated else "LIKE -> NOT LIKE")
        if isinstance(node, exp.Like):
            yield Site("like_pattern", i, lambda n: exp.ILike(**n.args), "LIKE -> ILIKE (case-insensitive)")


FAMILIES = (
    comparison_flip,
    comparison_boundary,
    having_threshold,
    literal_shift,
    literal_other_value,
    dropped_conjunct,
    and_or,
    in_not_in,
    exists_not_exists,
    null_check,
    like_pattern,
)
