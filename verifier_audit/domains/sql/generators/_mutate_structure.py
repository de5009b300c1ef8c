"""Near-miss families that change the shape of the query: joins, DISTINCT, aggregates,
GROUP BY, ORDER BY, LIMIT, the projected columns, subquery correlation, set operations,
windows, CASE and arithmetic. Same contract as ``_mutate_predicates``."""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from ._common import TaskContext, from_of, has_aggregate, sources
from ._sites import Site, Unusable, each, replace_with

# --------------------------------------------------------------------------- joins

_JOIN_SWITCHES = {
    "INNER": ("LEFT", "RIGHT"),
    "LEFT": ("INNER", "RIGHT", "FULL"),
    "RIGHT": ("INNER", "LEFT"),
    "FULL": ("LEFT", "INNER"),
}


def _join_side(join: exp.Join) -> str:
    return (join.side or "INNER").upper()


def _set_join(side: str):
    def edit(join: exp.Join) -> None:
        join.set("side", None if side == "INNER" else side)
        join.set("kind", None)

    return edit


def join_type(tree, ctx: TaskContext) -> Iterator[Site]:
    wanted = lambda n: isinstance(n, exp.Join) and (n.args.get("on") or n.args.get("using"))
    for i, node in each(tree, wanted):
        for side in _JOIN_SWITCHES.get(_join_side(node), ()):
            yield Site("join_type", i, _set_join(side), f"{_join_side(node)} JOIN -> {side} JOIN")


def join_key_swap(tree, ctx: TaskContext) -> Iterator[Site]:
    """A self join with its key the wrong way round: ``e.manager_id = m.id`` ->
    ``e.id = m.manager_id`` (employees of a manager vs the manager of an employee)."""

    def wanted(n):
        if not (isinstance(n, exp.EQ) and isinstance(n.this, exp.Column) and isinstance(n.expression, exp.Column)):
            return False
        if n.this.name == n.expression.name or not isinstance(
            n.find_ancestor(exp.Join, exp.Where, exp.Select), exp.Join
        ):
            return False
        left, right = ctx.table_of(n.this), ctx.table_of(n.expression)
        return left is not None and left == right

    def swap(n):
        a, b = n.this.copy(), n.expression.copy()
        a.set("this", exp.to_identifier(n.expression.name))
        b.set("this", exp.to_identifier(n.this.name))
        return exp.EQ(this=a, expression=b)

    for i, node in each(tree, wanted):
        yield Site("join_key_swap", i, swap, f"self-join key reversed in {node.sql('duckdb')}")


# --------------------------------------------------------------------------- DISTINCT, aggregates


def _distinct_already(select: exp.Expression) -> bool:
    """SELECTs whose duplicates are removed anyway: inside IN (...) or EXISTS (...), or an
    operand of UNION / INTERSECT / EXCEPT (set semantics). DISTINCT there changes nothing."""
    holder = select.parent.parent if isinstance(select.parent, exp.Subquery) else select.parent
    if isinstance(holder, (exp.In, exp.Exists)):
        return True
    return isinstance(select.parent, exp.SetOperation) and select.parent.args.get("distinct") is not False


def distinct_toggle(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: isinstance(n, exp.Select) and not _distinct_already(n)):
        distinct = node.args.get("distinct")
        if distinct is not None:
            if not distinct.args.get("on"):
                yield Site("distinct_toggle", i, replace_with("distinct", None), "DISTINCT dropped")
        elif (
            not node.args.get("group")
            and not any(has_aggregate(e) for e in node.expressions)
            and not _projects_key(node, ctx)
        ):
            yield Site("distinct_toggle", i, replace_with("distinct", exp.Distinct()), "DISTINCT added")


def _projects_key(select: exp.Select, ctx: TaskContext) -> bool:
    """A single-table SELECT that projects its primary key has no duplicate rows, so
    DISTINCT could not change it (an equivalent mutant on every database)."""
    frm = from_of(select)
    if select.args.get("joins") or frm is None or not isinstance(frm.this, exp.Table):
        return False
    keys = {c.name.lower() for c in ctx.columns(frm.this.name) if c.primary_key}
    projected = {e.unalias().name.lower() for e in select.expressions if isinstance(e.unalias(), exp.Column)}
    return len(keys) == 1 and keys <= projected


_AGGREGATE_SWAPS = {exp.Sum: (exp.Avg, exp.Max), exp.Avg: (exp.Sum, exp.Max), exp.Min: (exp.Max,), exp.Max: (exp.Min,)}


def aggregate_swap(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: type(n) in _AGGREGATE_SWAPS):
        for new in _AGGREGATE_SWAPS[type(node)]:
            yield Site(
                "aggregate_swap",
                i,
                lambda n, new=new: new(this=n.this),
                f"{type(node).__name__.upper()} -> {new.__name__.upper()}",
            )


def count_distinct(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(
        tree, lambda n: isinstance(n, exp.Count) and n.this is not None and not isinstance(n.this, exp.Star)
    ):
        if isinstance(node.this, exp.Distinct):
            inner = node.this.expressions
            if len(inner) == 1:
                yield Site(
                    "count_distinct",
                    i,
                    lambda n: exp.Count(this=n.this.expressions[0]),
                    "COUNT(DISTINCT x) -> COUNT(x)",
                )
        else:
            yield Site(
                "count_distinct",
                i,
                lambda n: exp.Count(this=exp.Distinct(expressions=[n.this])),
                "COUNT(x) -> COUNT(DISTINCT x)",
            )


def _nullable_column(select: exp.Select, ctx: TaskContext) -> exp.Column | None:
    """A column that can be NULL in the rows COUNT(*) counts: from the NULL-extended side of
    an outer join first (the classic LEFT JOIN + COUNT bug), else any nullable column."""
    found = sources(select)
    outer = [
        j.this.alias_or_name
        for j in select.args.get("joins") or []
        if isinstance(j.this, exp.Table) and (j.side or "").upper() in ("LEFT", "FULL")
    ]
    frm = from_of(select)
    first = [frm.this.alias_or_name] if frm is not None and isinstance(frm.this, exp.Table) else []
    for alias in outer + first:
        for c in ctx.columns(found.get(alias, "")):
            if c.nullable and not c.primary_key:
                return exp.column(c.name, table=alias if select.args.get("joins") else None)
    return None


def count_star_col(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: isinstance(n, exp.Count)):
        if isinstance(node.this, exp.Star):
            select = node.find_ancestor(exp.Select)
            column = _nullable_column(select, ctx) if select is not None else None
            if column is not None:
                yield Site("count_star_col", i, replace_with("this", column), f"COUNT(*) -> COUNT({column.sql()})")
        elif isinstance(node.this, exp.Column):
            yield Site("count_star_col", i, replace_with("this", exp.Star()), f"COUNT({node.this.sql()}) -> COUNT(*)")


# --------------------------------------------------------------------------- GROUP BY


def _own_columns(select: exp.Select, column: exp.Column) -> list[exp.Column]:
    """References to ``column`` that belong to this SELECT (not to a nested one)."""
    key = (column.table, column.name)
    return [
        c for c in select.find_all(exp.Column) if (c.table, c.name) == key and c.find_ancestor(exp.Select) is select
    ]


def _type_family(type_: str) -> str:
    t = type_.upper()
    if any(k in t for k in ("INT", "DECIMAL", "NUMERIC", "DOUBLE", "FLOAT", "REAL")):
        return "number"
    if any(k in t for k in ("DATE", "TIME")):
        return "time"
    return "bool" if "BOOL" in t else "text"


def _sibling_columns(
    column: exp.Column, ctx: TaskContext, limit: int = 2, same_type: bool = False, besides: tuple[str, ...] = ()
) -> list[str]:
    """Other columns of the same table, those of the same type family first (only those
    with ``same_type``), none of ``besides``."""
    table = ctx.table_of(column)
    if table is None:
        return []
    own = ctx.column(table, column.name)
    skip = {column.name.lower(), *(b.lower() for b in besides)}
    others = [c for c in ctx.columns(table) if c.name.lower() not in skip]
    if own is not None:
        family = _type_family(own.type)
        if same_type:
            others = [c for c in others if _type_family(c.type) == family]
        others.sort(key=lambda c: (_type_family(c.type) != family, c.primary_key))
    return [c.name for c in others[:limit]]


def _rename_everywhere(key: exp.Column, name: str):
    """Group by ``name`` instead of ``key`` throughout one SELECT. A bare projection of the
    key keeps its output name (``other AS key``), so a CTE's readers still bind."""

    def edit(select: exp.Select) -> None:
        for c in _own_columns(select, key):
            bare_projection = c.parent is select
            c.set("this", exp.to_identifier(name))
            if bare_projection:
                c.replace(exp.alias_(c.copy(), key.name))

    return edit


def _drop_key(position: int, key: exp.Column):
    def edit(select: exp.Select) -> None:
        kept = [e for e in select.expressions if e.unalias() != key]
        if not kept:
            raise Unusable("the key was all the query projected")
        select.args["group"].expressions[position].pop()
        select.set("expressions", kept)
        order = select.args.get("order")
        if order is not None:
            ordered = [o for o in order.expressions if o.this != key]
            if ordered:
                order.set("expressions", ordered)
            else:
                select.set("order", None)

    return edit


def group_by_key(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, select in each(tree, lambda n: isinstance(n, exp.Select) and n.args.get("group")):
        keys = select.args["group"].expressions
        for position, key in enumerate(keys):
            if not isinstance(key, exp.Column):
                continue
            taken = tuple(k.name for k in keys if isinstance(k, exp.Column))
            for name in _sibling_columns(key, ctx, limit=1, besides=taken):
                yield Site("group_by_key", i, _rename_everywhere(key, name), f"grouped by {name} instead of {key.name}")
            # Dropping a key drops its column too: only where nothing reads the output.
            if len(keys) > 1 and select.parent is None and _droppable(select, key):
                yield Site("group_by_key", i, _drop_key(position, key), f"GROUP BY key {key.sql()} dropped")


def _droppable(select: exp.Select, key: exp.Column) -> bool:
    """Dropping a key leaves a valid query when nothing but its own projection uses it."""
    for c in _own_columns(select, key):
        in_group = c.find_ancestor(exp.Group) is not None
        own_projection = c.parent is select or (isinstance(c.parent, exp.Alias) and c.parent.parent is select)
        in_order = isinstance(c.parent, exp.Ordered)
        if not (in_group or own_projection or in_order or c.find_ancestor(exp.AggFunc)):
            return False
    return True


# --------------------------------------------------------------------------- ORDER BY, LIMIT


def order_direction(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: isinstance(n, exp.Ordered)):
        desc = bool(node.args.get("desc"))
        yield Site(
            "order_direction",
            i,
            replace_with("desc", not desc),
            f"ORDER BY {node.this.sql('duckdb')} {'DESC -> ASC' if desc else 'ASC -> DESC'}",
        )


def order_dropped(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(
        tree, lambda n: isinstance(n, exp.Order) and isinstance(n.parent, (exp.Select, exp.SetOperation))
    ):
        yield Site("order_dropped", i, lambda n: n.pop(), "ORDER BY dropped")
        if len(node.expressions) > 1:
            yield Site(
                "order_dropped",
                i,
                lambda n: n.set("expressions", n.expressions[:-1]),
                f"tie-breaker {node.expressions[-1].sql('duckdb')} dropped",
            )


def limit_change(tree, ctx: TaskContext) -> Iterator[Site]:
    wanted = lambda n: isinstance(n, (exp.Limit, exp.Offset)) and isinstance(n.expression, exp.Literal)
    for i, node in each(tree, wanted):
        name = "LIMIT" if isinstance(node, exp.Limit) else "OFFSET"
        try:
            value = int(node.expression.this)
        except ValueError:
            continue
        for v in (value + 1, value - 1):
            if v >= (1 if name == "LIMIT" else 0):
                yield Site(
                    "limit_change", i, replace_with("expression", exp.Literal.number(v)), f"{name} {value} -> {v}"
                )
        yield Site("limit_change", i, lambda n: n.pop(), f"{name} dropped")


# --------------------------------------------------------------------------- projection


def column_swap(tree, ctx: TaskContext) -> Iterator[Site]:
    """A projected column replaced by another column of its table (the wrong attribute)."""

    def wanted(n):
        if not isinstance(n, exp.Column) or isinstance(n.this, exp.Star):
            return False
        select = n.parent.parent if isinstance(n.parent, exp.Alias) else n.parent
        if not isinstance(select, exp.Select) or not any(e is n or e.this is n for e in select.expressions):
            return False
        group = select.args.get("group")
        return not (group and any(k == n for k in group.expressions))

    for i, node in each(tree, wanted):
        # Inside a subquery the value is compared or joined: keep the type so it still runs.
        nested = node.find_ancestor(exp.Select).parent is not None
        for name in _sibling_columns(node, ctx, same_type=nested):
            yield Site(
                "column_swap",
                i,
                replace_with("this", exp.to_identifier(name)),
                f"projected {name} instead of {node.name}",
            )


# --------------------------------------------------------------------------- subqueries, set ops


def _outer_conjuncts(select: exp.Select) -> list[int]:
    """Positions of the WHERE conjuncts that reference a table of an enclosing query."""
    where = select.args.get("where")
    if where is None:
        return []
    own = set(sources(select))
    conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    return [
        k for k, c in enumerate(conjuncts) if any(col.table and col.table not in own for col in c.find_all(exp.Column))
    ]


def _without_conjunct(position: int):
    def edit(where: exp.Where) -> None:
        conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        kept = [c.copy() for k, c in enumerate(conjuncts) if k != position]
        if kept:
            where.set("this", exp.and_(*kept, copy=False))
        else:
            where.pop()

    return edit


def decorrelated_subquery(tree, ctx: TaskContext) -> Iterator[Site]:
    """The correlation of a subquery dropped: it now answers for every row at once."""
    for _, sub in each(tree, lambda n: isinstance(n, exp.Select) and n.find_ancestor(exp.Subquery, exp.Exists)):
        for position in _outer_conjuncts(sub):
            index = next(i for i, n in enumerate(tree.walk()) if n is sub.args["where"])
            yield Site(
                "decorrelated_subquery", index, _without_conjunct(position), "correlation with the outer query dropped"
            )


def set_op_swap(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: isinstance(n, exp.SetOperation)):
        if isinstance(node, exp.Union):
            distinct = node.args.get("distinct") is not False
            yield Site(
                "set_op_swap",
                i,
                replace_with("distinct", not distinct),
                "UNION -> UNION ALL" if distinct else "UNION ALL -> UNION",
            )
        else:
            new = exp.Except if isinstance(node, exp.Intersect) else exp.Intersect
            yield Site(
                "set_op_swap",
                i,
                lambda n, new=new: new(**n.args),
                f"{type(node).__name__.upper()} -> {new.__name__.upper()}",
            )


# --------------------------------------------------------------------------- windows, CASE, arithmetic

_RANKINGS = (exp.RowNumber, exp.Rank, exp.DenseRank)


def window_partition_dropped(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, _node in each(tree, lambda n: isinstance(n, exp.Window) and n.args.get("partition_by")):
        yield Site("window_partition_dropped", i, replace_with("partition_by", None), "PARTITION BY dropped")


def window_function_swap(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: type(n) in _RANKINGS):
        for new in _RANKINGS:
            if new is not type(node):
                yield Site(
                    "window_function_swap", i, lambda n, new=new: new(), f"{type(node).__name__} -> {new.__name__}"
                )


def case_branch(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: isinstance(n, exp.Case) and n.args.get("ifs")):
        default = node.args.get("default")
        if default is not None and not isinstance(default, exp.Null):
            yield Site("case_branch", i, replace_with("default", None), "CASE ELSE dropped")

            def swap_first_else(n):
                first, other = n.args["ifs"][0].args["true"], n.args["default"]
                n.args["ifs"][0].set("true", other.copy())
                n.set("default", first.copy())

            yield Site("case_branch", i, swap_first_else, "first THEN swapped with ELSE")
        elif len(node.args["ifs"]) > 1:

            def swap_thens(n):
                a, b = n.args["ifs"][0].args["true"], n.args["ifs"][1].args["true"]
                n.args["ifs"][0].set("true", b.copy())
                n.args["ifs"][1].set("true", a.copy())

            yield Site("case_branch", i, swap_thens, "first two THEN results swapped")


_ARITHMETIC = {exp.Add: exp.Sub, exp.Sub: exp.Add, exp.Mul: exp.Div, exp.Div: exp.Mul}


def _temporal(node: exp.Expression, ctx: TaskContext) -> bool:
    """An operand that is a date or time: ``d1 - d2`` has no ``d1 + d2``."""
    for column in node.find_all(exp.Column):
        table = ctx.table_of(column)
        found = ctx.column(table, column.name) if table else None
        if found is not None and _type_family(found.type) == "time":
            return True
    return False


def arithmetic_swap(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: type(n) in _ARITHMETIC and not _temporal(n, ctx)):
        new = _ARITHMETIC[type(node)]
        yield Site(
            "arithmetic_swap",
            i,
            lambda n, new=new: new(this=n.this, expression=n.expression),
            f"{type(node).__name__} -> {new.__name__} in {node.sql('duckdb')}",
        )


FAMILIES = (
    decorrelated_subquery,
    join_key_swap,
    join_type,
    distinct_toggle,
    aggregate_swap,
    count_distinct,
    count_star_col,
    group_by_key,
    order_direction,
    order_dropped,
    limit_change,
    column_swap,
    set_op_swap,
    window_partition_dropped,
    window_function_swap,
    case_branch,
    arithmetic_swap,
)
