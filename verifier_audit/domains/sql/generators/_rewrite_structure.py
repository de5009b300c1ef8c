"""Equivalent rewrites of the query's structure: aliases, join order and syntax, CTEs,
COUNT(*) vs COUNT(pk), GROUP BY vs DISTINCT, set-operation operands, ORDER BY ordinals.
Each family checks the conditions under which its rewrite keeps the result (bag and, when
the gold orders, order); the oracle confirms every one."""

from __future__ import annotations

from collections.abc import Iterator

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

from ._common import DIALECT, TaskContext, cte_names, from_of, has_aggregate, with_of
from ._sites import Site, Unusable, each

# --------------------------------------------------------------------------- aliases


def _identifiers(tree: exp.Expression) -> set[str]:
    return {i.name.lower() for i in tree.find_all(exp.Identifier)}


def _fresh_alias(name: str, taken: set[str]) -> str:
    """A short alias that names nothing else in the query and is not a keyword (``as``)."""
    for candidate in (name[:1], name[:2], f"{name[:1]}1", f"{name[:1]}2", name[:3], f"{name}_t"):
        if candidate.lower() not in taken and _plain_word(candidate):
            return candidate
    raise Unusable("no free alias")


def _plain_word(word: str) -> bool:
    try:
        tokens = sqlglot.tokenize(word, read=DIALECT)
    except Exception:
        return False
    return len(tokens) == 1 and tokens[0].token_type == TokenType.VAR


def _realias(targets: list[str]):
    """Give each table in ``targets`` (by current alias-or-name) a new alias and requalify
    every column that named it."""

    def edit(root: exp.Expression) -> None:
        taken = _identifiers(root)
        renames = {}
        for table in root.find_all(exp.Table):
            old = table.alias_or_name
            if old in targets and old not in renames:
                new = _fresh_alias(table.name.lower(), taken)
                taken.add(new.lower())
                renames[old] = new
                table.set("alias", exp.TableAlias(this=exp.to_identifier(new)))
        for column in root.find_all(exp.Column):
            if column.table in renames:
                column.set("table", exp.to_identifier(renames[column.table]))

    return edit


def table_alias(tree, ctx: TaskContext) -> Iterator[Site]:
    """Tables given short aliases (or their aliases renamed), columns requalified. Only for
    names that occur once in the query, so no requalification can change scope."""
    tables = list(tree.find_all(exp.Table))
    names = [t.alias_or_name for t in tables]
    ctes = cte_names(tree)
    unique = [n for n in names if names.count(n) == 1 and n not in ctes]
    bare = [t.name for t in tables if not t.alias and t.name in unique]
    aliased = [
        t.alias
        for t in tables
        if t.alias and t.alias in unique and sum(1 for i in tree.find_all(exp.TableAlias) if i.name == t.alias) == 1
    ]
    if bare:
        yield Site("table_alias", 0, _realias(bare), f"aliases added for {', '.join(bare)}")
    if aliased:
        yield Site("table_alias", 0, _realias(aliased), f"aliases {', '.join(aliased)} renamed")


# --------------------------------------------------------------------------- joins


def _single_join(select: exp.Expression, sides: tuple[str | None, ...]) -> bool:
    joins = select.args.get("joins") or []
    if len(joins) != 1 or not joins[0].args.get("on") or from_of(select) is None:
        return False
    if (joins[0].kind or "").upper() not in ("", "INNER", "OUTER"):
        return False
    if any(isinstance(e, exp.Star) for e in select.expressions):
        return False  # SELECT * would list the columns in the other order
    return (joins[0].side or None) in sides


def _swap_operands(new_side: str | None):
    def edit(select: exp.Select) -> None:
        frm, join = from_of(select), select.args["joins"][0]
        left, right = frm.this.copy(), join.this.copy()
        frm.set("this", right)
        join.set("this", left)
        join.set("side", new_side)
        join.set("kind", None)

    return edit


def join_order(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, _ in each(tree, lambda n: isinstance(n, exp.Select) and _single_join(n, (None,))):
        yield Site("join_order", i, _swap_operands(None), "inner join operands in the other order")


def left_right_swap(tree, ctx: TaskContext) -> Iterator[Site]:
    for i, node in each(tree, lambda n: isinstance(n, exp.Select) and _single_join(n, ("LEFT", "RIGHT"))):
        side = node.args["joins"][0].side
        new = "RIGHT" if side == "LEFT" else "LEFT"
        yield Site("left_right_swap", i, _swap_operands(new), f"A {side} JOIN B -> B {new} JOIN A")


def join_syntax(tree, ctx: TaskContext) -> Iterator[Site]:
    """``A JOIN B ON c`` -> ``FROM A, B WHERE c``; otherwise the optional INNER / OUTER words."""

    def implicit(select):
        join = select.args["joins"][0]
        condition = join.args["on"]
        join.set("on", None)
        join.set("kind", None)
        where = select.args.get("where")
        select.set("where", exp.Where(this=exp.and_(condition, where.this) if where else condition))

    for i, _node in each(tree, lambda n: isinstance(n, exp.Select) and _single_join(n, (None,))):
        yield Site("join_syntax", i, implicit, "explicit join written as FROM a, b WHERE ...")

    def spelled(join):
        join.set("kind", "OUTER" if join.side else "INNER")

    wanted = lambda n: isinstance(n, exp.Join) and n.args.get("on") and not n.kind
    for i, _node in list(each(tree, wanted))[:1]:
        yield Site("join_syntax", i, spelled, "INNER / OUTER spelled out")


# --------------------------------------------------------------------------- CTEs


def _references(tree: exp.Expression, name: str) -> list[exp.Table]:
    return [t for t in tree.find_all(exp.Table) if t.name == name and not t.args.get("db")]


def cte_subquery(tree, ctx: TaskContext) -> Iterator[Site]:
    """A CTE used once inlined as a subquery in FROM, or a FROM subquery lifted into a CTE."""
    with_ = with_of(tree)
    if with_ is not None and not with_.args.get("recursive"):
        for cte in with_.expressions:
            if len(_references(tree, cte.alias)) == 1:
                yield Site("cte_subquery", 0, _inline(cte.alias), f"CTE {cte.alias} inlined as a subquery")
    if not isinstance(tree, exp.Select) or from_of(tree) is None:
        return
    item = from_of(tree).this
    taken = {t.name for t in tree.find_all(exp.Table)} | cte_names(tree)
    if isinstance(item, exp.Subquery) and item.alias and item.alias not in taken and not item.args["alias"].columns:
        yield Site("cte_subquery", 0, _lift(item.alias), f"subquery {item.alias} lifted into a CTE")


def _inline(name: str):
    def edit(root: exp.Expression) -> None:
        with_ = with_of(root)
        cte = next(c for c in with_.expressions if c.alias == name)
        table = _references(root, name)[0]
        alias = exp.TableAlias(
            this=exp.to_identifier(table.alias_or_name), columns=[c.copy() for c in cte.args["alias"].columns]
        )
        table.replace(exp.Subquery(this=cte.this.copy(), alias=alias))
        cte.pop()
        if not with_.expressions:
            with_.pop()

    return edit


def _lift(name: str):
    def edit(root: exp.Select) -> exp.Expression:
        item = from_of(root).this
        body = item.this.copy()
        item.replace(exp.Table(this=exp.to_identifier(name)))
        return root.with_(name, as_=body, append=True, copy=False)

    return edit


# --------------------------------------------------------------------------- COUNT, GROUP BY


def _counted_table(select: exp.Select, ctx: TaskContext) -> tuple[str, str] | None:
    """(alias, primary-key column) of the FROM table when no join can NULL-extend it."""
    frm = from_of(select)
    if frm is None or not isinstance(frm.this, exp.Table) or frm.this.name in cte_names(select.root()):
        return None
    if any((j.side or "").upper() in ("RIGHT", "FULL") for j in select.args.get("joins") or []):
        return None
    keys = [c for c in ctx.columns(frm.this.name) if c.primary_key]
    return (frm.this.alias_or_name, keys[0].name) if keys else None


def count_pk(tree, ctx: TaskContext) -> Iterator[Site]:
    """``COUNT(*)`` <-> ``COUNT(t.pk)``: a primary key is never NULL."""
    for i, node in each(tree, lambda n: isinstance(n, exp.Count) and n.find_ancestor(exp.Select) is not None):
        select = node.find_ancestor(exp.Select)
        counted = _counted_table(select, ctx)
        if counted is None:
            continue
        alias, key = counted
        if isinstance(node.this, exp.Star):
            column = exp.column(key, table=alias)
            yield Site("count_pk", i, lambda n, c=column: n.set("this", c.copy()), f"COUNT(*) -> COUNT({column.sql()})")
        elif isinstance(node.this, exp.Column) and node.this.name == key and (node.this.table or alias) == alias:
            yield Site("count_pk", i, lambda n: n.set("this", exp.Star()), f"COUNT({node.this.sql()}) -> COUNT(*)")


def _plain_projection(select: exp.Select) -> bool:
    return all(
        not isinstance(e, exp.Star)
        and not isinstance(e.unalias(), exp.Literal)
        and not e.find(exp.Window, exp.Star)
        and not has_aggregate(e)
        for e in select.expressions
    )


def groupby_distinct(tree, ctx: TaskContext) -> Iterator[Site]:
    """``SELECT DISTINCT a, b`` <-> ``SELECT a, b ... GROUP BY a, b``."""

    def to_group(select):
        select.set("distinct", None)
        select.set("group", exp.Group(expressions=[e.unalias().copy() for e in select.expressions]))

    def to_distinct(select):
        select.set("group", None)
        select.set("distinct", exp.Distinct())

    for i, node in each(tree, lambda n: isinstance(n, exp.Select)):
        distinct = node.args.get("distinct")
        if (
            distinct is not None
            and not distinct.args.get("on")
            and not node.args.get("group")
            and _plain_projection(node)
        ):
            yield Site("groupby_distinct", i, to_group, "DISTINCT written as GROUP BY")
        group = node.args.get("group")
        if (
            group is not None
            and distinct is None
            and not node.args.get("having")
            and _plain_projection(node)
            and not any(group.args.get(k) for k in ("rollup", "cube", "grouping_sets", "all"))
            and not (node.args.get("order") and has_aggregate(node.args["order"]))
            and {e.sql() for e in group.expressions} == {e.unalias().sql() for e in node.expressions}
        ):
            yield Site("groupby_distinct", i, to_distinct, "GROUP BY without aggregates written as DISTINCT")


# --------------------------------------------------------------------------- set operations, ORDER BY


def set_operand_order(tree, ctx: TaskContext) -> Iterator[Site]:
    """``A UNION B`` -> ``B UNION A`` (also INTERSECT), when nothing orders or limits the
    result; columns are compared by position, so the first operand's names do not matter."""

    def swap(n):
        left, right = n.this.copy(), n.expression.copy()
        n.set("this", right)
        n.set("expression", left)

    def wanted(n):
        if not isinstance(n, (exp.Union, exp.Intersect)):
            return False
        if any(n.args.get(k) for k in ("order", "limit", "offset", "by_name")):
            return False
        # The body of a recursive CTE: the anchor has to come first.
        return not (isinstance(n.parent, exp.CTE) and n.parent.parent.args.get("recursive"))

    for i, _ in list(each(tree, wanted))[:1]:
        yield Site("set_operand_order", i, swap, "set-operation operands in the other order")


def order_by_ordinal(tree, ctx: TaskContext) -> Iterator[Site]:
    """``ORDER BY name`` -> ``ORDER BY 1`` when ``name`` is the first projected column."""
    if not isinstance(tree, exp.Select) or not tree.args.get("order") or tree.args.get("distinct"):
        return
    projected = [e.unalias() for e in tree.expressions]
    aliases = [e.alias for e in tree.expressions]
    if any(isinstance(e, exp.Star) for e in projected):
        return

    def position(ordered):
        key = ordered.this
        for k, (expr, alias) in enumerate(zip(projected, aliases), 1):
            if key == expr or (isinstance(key, exp.Column) and not key.table and alias and key.name == alias):
                return k
        return None

    def edit(order):
        changed = False
        for ordered in order.expressions:
            k = position(ordered)
            if k is not None:
                ordered.set("this", exp.Literal.number(k))
                changed = True
        if not changed:
            raise Unusable("no ORDER BY key is projected")

    for i, _ in each(tree, lambda n: n is tree.args["order"]):
        yield Site("order_by_ordinal", i, edit, "ORDER BY keys written as column positions")


FAMILIES = (
    table_alias,
    join_order,
    left_right_swap,
    join_syntax,
    cte_subquery,
    count_pk,
    groupby_distinct,
    set_operand_order,
    order_by_ordinal,
)
