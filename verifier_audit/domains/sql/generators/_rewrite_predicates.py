"""Equivalent rewrites of conditions: the same predicate written another way. Each family
yields ``Site``s like the near-miss families, but every edit keeps the meaning (SQL's
three-valued logic included); the oracle still confirms each on every database."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from ._common import TaskContext, and_operands, sources
from ._sites import Site, each

_MIRROR = {exp.EQ: exp.EQ, exp.NEQ: exp.NEQ, exp.LT: exp.GT, exp.GT: exp.LT, exp.LTE: exp.GTE, exp.GTE: exp.LTE}
_COMPLEMENT = {exp.NEQ: exp.EQ, exp.LT: exp.GTE, exp.GT: exp.LTE, exp.LTE: exp.GT, exp.GTE: exp.LT}
MAX_SITES = 2  # of one kind per query: more of the same edit says nothing new


def reordered_conjuncts(tree, ctx: TaskContext) -> Iterator[Site]:
    """``a AND b AND c`` -> ``c AND a AND b`` in a WHERE, HAVING or ON."""

    def rotate(clause):
        conjuncts = and_operands(clause.this)
        clause.set("this", exp.and_(*[c.copy() for c in conjuncts[-1:] + conjuncts[:-1]], copy=False))

    holders = lambda n: isinstance(n, (exp.Where, exp.Having)) and isinstance(n.this, exp.And)
    for i, _ in list(each(tree, holders))[:MAX_SITES]:
        yield Site("reordered_conjuncts", i, rotate, "conjuncts in another order")
    for i, _ in list(each(tree, lambda n: isinstance(n, exp.Join) and isinstance(n.args.get("on"), exp.And)))[:1]:

        def rotate_on(join):
            conjuncts = and_operands(join.args["on"])
            join.set("on", exp.and_(*[c.copy() for c in conjuncts[-1:] + conjuncts[:-1]], copy=False))

        yield Site("reordered_conjuncts", i, rotate_on, "ON conditions in another order")


def comparison_mirrored(tree, ctx: TaskContext) -> Iterator[Site]:
    """``x < 5`` -> ``5 > x``."""
    wanted = lambda n: type(n) in _MIRROR and isinstance(n.expression, (exp.Literal, exp.Column))
    for i, node in list(each(tree, wanted))[:MAX_SITES]:
        new = _MIRROR[type(node)]
        yield Site(
            "comparison_mirrored",
            i,
            lambda n, new=new: new(this=n.expression, expression=n.this),
            f"{node.sql('duckdb')} written right to left",
        )


def negation_form(tree, ctx: TaskContext) -> Iterator[Site]:
    """``x <> 5`` -> ``NOT (x = 5)``, ``x > 5`` -> ``NOT (x <= 5)`` (NULL stays NULL)."""
    for i, node in list(each(tree, lambda n: type(n) in _COMPLEMENT))[:MAX_SITES]:
        new = _COMPLEMENT[type(node)]
        yield Site(
            "negation_form",
            i,
            lambda n, new=new: exp.Not(this=exp.Paren(this=new(this=n.this, expression=n.expression))),
            f"{node.sql('duckdb')} written as a negated complement",
        )


def between_range(tree, ctx: TaskContext) -> Iterator[Site]:
    """``x BETWEEN a AND b`` <-> ``x >= a AND x <= b``."""

    def expand(n):
        return exp.Paren(
            this=exp.and_(
                exp.GTE(this=n.this.copy(), expression=n.args["low"]),
                exp.LTE(this=n.this.copy(), expression=n.args["high"]),
                copy=False,
            )
        )

    for i, _node in list(each(tree, lambda n: isinstance(n, exp.Between) and not n.args.get("symmetric")))[:MAX_SITES]:
        yield Site("between_range", i, expand, "BETWEEN written as two comparisons")

    def is_range(n):
        return (
            isinstance(n, exp.And)
            and isinstance(n.this, exp.GTE)
            and isinstance(n.expression, exp.LTE)
            and n.this.this == n.expression.this
        )

    for i, _node in list(each(tree, is_range))[:1]:
        yield Site(
            "between_range",
            i,
            lambda n: exp.Between(this=n.this.this, low=n.this.expression, high=n.expression.expression),
            "two comparisons written as BETWEEN",
        )


def in_list_or(tree, ctx: TaskContext) -> Iterator[Site]:
    """``x IN (1, 2)`` -> ``(x = 1 OR x = 2)``: the definition of IN, NULLs included."""
    wanted = lambda n: isinstance(n, exp.In) and n.expressions and not n.args.get("query") and len(n.expressions) <= 6

    def expand(n):
        return exp.Paren(
            this=exp.or_(*[exp.EQ(this=n.this.copy(), expression=v.copy()) for v in n.expressions], copy=False)
        )

    for i, _ in list(each(tree, wanted))[:MAX_SITES]:
        yield Site("in_list_or", i, expand, "IN list written as ORs")


def _filter_context(node: exp.Expression) -> bool:
    """True when ``node`` only decides whether a row is kept: the path up to WHERE passes
    through AND / OR / parentheses alone, so NULL and FALSE mean the same there."""
    parent = node.parent
    while isinstance(parent, (exp.And, exp.Or, exp.Paren)):
        parent = parent.parent
    return isinstance(parent, exp.Where)


def _in_to_exists(tree, ctx: TaskContext):
    """``x IN (SELECT y FROM t WHERE c)`` -> ``EXISTS (SELECT 1 FROM t WHERE c AND y = o.x)``.

    Only where it is safe: a filter context (NOT IN is not NOT EXISTS when NULLs occur),
    a plain single-table subquery, and an outer reference that the subquery cannot capture."""

    def candidate(n):
        if not (
            isinstance(n, exp.In)
            and isinstance(n.args.get("query"), exp.Subquery)
            and isinstance(n.this, exp.Column)
            and _filter_context(n)
        ):
            return None
        inner = n.args["query"].this
        if not isinstance(inner, exp.Select) or len(inner.expressions) != 1 or inner.args.get("joins"):
            return None
        if any(inner.args.get(k) for k in ("group", "having", "limit", "offset", "order", "with_", "with")):
            return None
        if isinstance(inner.expressions[0], exp.Star) or not sources(inner):
            return None
        outer = n.find_ancestor(exp.Select)
        qualifier = n.this.table
        if not qualifier:
            outer_sources = sources(outer) if outer is not None else {}
            if len(outer_sources) != 1:
                return None
            qualifier, table = next(iter(outer_sources.items()))
            if ctx.column(table, n.this.name) is None:
                return None
        if qualifier in sources(inner) or qualifier in sources(inner).values():
            return None
        return qualifier

    def rewrite(qualifier):
        def edit(n):
            inner = n.args["query"].this.copy()
            projected = inner.expressions[0].unalias()
            link = exp.EQ(this=projected.copy(), expression=exp.column(n.this.name, table=qualifier))
            where = inner.args.get("where")
            inner.set("where", exp.Where(this=exp.and_(where.this, link) if where else link))
            inner.set("expressions", [exp.Literal.number(1)])
            inner.set("distinct", None)
            return exp.Exists(this=inner)

        return edit

    for i, node in each(tree, lambda n: isinstance(n, exp.In)):
        qualifier = candidate(node)
        if qualifier is not None:
            yield Site("in_exists", i, rewrite(qualifier), "IN (subquery) written as a correlated EXISTS")


def in_exists(tree, ctx: TaskContext) -> Iterator[Site]:
    yield from list(_in_to_exists(tree, ctx))[:MAX_SITES]


def coalesce_case(tree, ctx: TaskContext) -> Iterator[Site]:
    """``COALESCE(a, b)`` -> ``CASE WHEN a IS NOT NULL THEN a ELSE b END``."""

    def expand(n):
        a, b = n.this, n.expressions[0]
        return exp.Case(
            ifs=[exp.If(this=exp.Not(this=exp.Is(this=a.copy(), expression=exp.Null())), true=a.copy())],
            default=b.copy(),
        )

    for i, _ in list(each(tree, lambda n: isinstance(n, exp.Coalesce) and len(n.expressions) == 1))[:MAX_SITES]:
        yield Site("coalesce_case", i, expand, "COALESCE written as CASE")


def redundant_parens(tree, ctx: TaskContext) -> Iterator[Site]:
    """Every conjunct of a WHERE in its own parentheses, and the whole condition too."""

    def wrap(where):
        conjuncts = [exp.Paren(this=c.copy()) for c in and_operands(where.this)]
        where.set("this", exp.Paren(this=exp.and_(*conjuncts, copy=False)))

    for i, _ in list(each(tree, lambda n: isinstance(n, exp.Where)))[:1]:
        yield Site("redundant_parens", i, wrap, "redundant parentheses")


FAMILIES = (
    reordered_conjuncts,
    comparison_mirrored,
    negation_form,
    between_range,
    in_list_or,
    in_exists,
    coalesce_case,
    redundant_parens,
)
