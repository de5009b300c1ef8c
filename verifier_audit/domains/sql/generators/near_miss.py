"""Near-misses: WRONG queries one edit away from the task's gold.

Each kind is one mistake a text-to-SQL policy makes (a flipped comparison, a LEFT JOIN
where an inner join was meant, a dropped tie-breaker, ...). The edits are sqlglot tree
transforms of the parsed gold (dialect duckdb), rendered back to DuckDB SQL; every mutant
parses. Families live in ``_mutate_predicates`` and ``_mutate_structure``.

Some mutants are equivalent to the gold (``DISTINCT`` on a key, ``<`` vs ``<=`` on a
value that never occurs): the engine asks the oracle about every one and drops those it
cannot separate from the gold, counting them. ``fuzz.py`` also uses ``mutants`` as the
neighbours a distilled database set has to separate.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from sqlglot import exp

from ....models import Candidate, Severity, Task
from ...kit import Chosen, make_candidates, sample_kinds
from . import _mutate_predicates, _mutate_structure
from ._common import TaskContext, completion, gold_key, normalise, parse_query, parses, positions, render
from ._sites import Site, Unusable

MAX_PER_TASK = 10
MAX_PER_KIND = 2

# kind -> (severity, description). Severity is how bad it is when a verifier pays for it.
KINDS: dict[str, tuple[Severity, str]] = {
    "comparison_flip": (Severity.high, "a comparison operator reversed or negated (< -> >, = -> <>)"),
    "comparison_boundary": (Severity.high, "a strict comparison made inclusive or the other way (< -> <=)"),
    "having_threshold": (Severity.high, "the HAVING threshold off by one"),
    "literal_shift": (Severity.high, "a numeric or date constant off by one (unit, day)"),
    "literal_other_value": (Severity.high, "a string constant replaced by another value of its column"),
    "dropped_conjunct": (Severity.high, "one condition of a WHERE / ON / HAVING dropped"),
    "and_or": (Severity.high, "AND and OR confused"),
    "in_not_in": (Severity.high, "IN <-> NOT IN"),
    "exists_not_exists": (Severity.high, "EXISTS <-> NOT EXISTS"),
    "null_check": (Severity.high, "IS NULL <-> IS NOT NULL, or a COALESCE dropped"),
    "like_pattern": (Severity.medium, "a LIKE pattern with a wildcard or the case changed, or LIKE -> ILIKE"),
    "decorrelated_subquery": (Severity.high, "a correlated subquery with its correlation dropped"),
    "join_key_swap": (Severity.high, "a self-join key the wrong way round (employee's manager vs manager's employees)"),
    "join_type": (Severity.high, "the join type changed (INNER / LEFT / RIGHT / FULL)"),
    "distinct_toggle": (Severity.medium, "DISTINCT added or dropped"),
    "aggregate_swap": (Severity.high, "another aggregate (SUM / AVG / MIN / MAX)"),
    "count_distinct": (Severity.high, "COUNT(x) <-> COUNT(DISTINCT x)"),
    "count_star_col": (Severity.medium, "COUNT(*) <-> COUNT(nullable column)"),
    "group_by_key": (Severity.high, "a GROUP BY key changed or dropped"),
    "order_direction": (Severity.medium, "an ORDER BY direction flipped (ASC <-> DESC)"),
    "order_dropped": (Severity.medium, "ORDER BY or its tie-breaker dropped"),
    "limit_change": (Severity.medium, "LIMIT / OFFSET off by one or dropped"),
    "column_swap": (Severity.high, "a projected column replaced by another column of its table"),
    "set_op_swap": (Severity.medium, "UNION <-> UNION ALL, INTERSECT <-> EXCEPT"),
    "window_partition_dropped": (Severity.medium, "a window's PARTITION BY dropped"),
    "window_function_swap": (Severity.medium, "ROW_NUMBER / RANK / DENSE_RANK confused"),
    "case_branch": (Severity.medium, "a CASE branch result swapped or its ELSE dropped"),
    "arithmetic_swap": (Severity.high, "an arithmetic operator swapped (+ <-> -, * <-> /)"),
}

# Specific families first: when two edits give the same text, the first kind names it.
_FAMILIES = _mutate_structure.FAMILIES[:2] + _mutate_predicates.FAMILIES + _mutate_structure.FAMILIES[2:]


@dataclass(frozen=True)
class Mutant:
    kind: str
    sql: str
    note: str  # what was changed, for people reading the report


# Edits that can make a recursive CTE's step produce rows forever (or blow up each round);
# inside one, only edits of constants, aggregates and order are made.
_UNSAFE_IN_RECURSION = {
    "join_type",
    "column_swap",
    "join_key_swap",
    "set_op_swap",
    "dropped_conjunct",
    "and_or",
    "null_check",
    "comparison_flip",
    "decorrelated_subquery",
    "arithmetic_swap",
    "in_not_in",
    "exists_not_exists",
    "distinct_toggle",
}


def sites(tree: exp.Expression, ctx: TaskContext) -> list[Site]:
    """Every applicable edit of the gold tree, families in order."""
    recursive = set(positions(tree, _in_recursive_cte))
    return [
        site
        for family in _FAMILIES
        for site in family(tree, ctx)
        if not (site.kind in _UNSAFE_IN_RECURSION and site.index in recursive)
    ]


def _in_recursive_cte(node: exp.Expression) -> bool:
    cte = node.find_ancestor(exp.CTE)
    return cte is not None and bool(cte.parent.args.get("recursive"))


def _realise(tree: exp.Expression, site: Site) -> str | None:
    try:
        sql = render(site.apply(tree))
    except (Unusable, ValueError, KeyError, IndexError, AttributeError, TypeError):
        return None
    return sql if parses(sql) else None


def mutants(task: Task) -> list[Mutant]:
    """Every applicable mutant of the gold, deduplicated by normalised text, gold excluded.

    Deterministic: the order is family order, then position in the query."""
    tree = parse_query(task.reference)
    if tree is None:
        return []
    seen = {gold_key(task)}
    out = []
    for site in sites(tree, TaskContext.of(task)):
        sql = _realise(tree, site)
        if sql is None or normalise(sql) in seen:
            continue
        seen.add(normalise(sql))
        out.append(Mutant(site.kind, sql, site.note))
    return out


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    """A sample of up to MAX_PER_TASK near-miss completions, at most MAX_PER_KIND per kind.

    Only the sampled sites are realised (copied and rendered), which keeps a 150-task suite
    within a few seconds; kinds are visited round-robin so that one prolific kind (constants
    in a long WHERE) does not crowd out the rest."""
    tree = parse_query(task.reference)
    if tree is None:
        return []
    seen = {gold_key(task)}

    def realise(site: Site) -> Mutant | None:
        """The drawn site as a mutant, or None (unrenderable, or a query made already)."""
        sql = _realise(tree, site)
        if sql is None or normalise(sql) in seen:
            return None
        seen.add(normalise(sql))
        return Mutant(site.kind, sql, site.note)

    chosen = sample_kinds(
        list(sites(tree, TaskContext.of(task))),
        rng,
        cap=MAX_PER_TASK,
        per_kind=MAX_PER_KIND,
        draw="round_robin",
        take=realise,
    )
    texts = [Chosen(m.kind, completion(m.sql, rng), m.note) for m in chosen]
    return make_candidates("sql", task.id, texts, origin="near_miss", label="incorrect", kinds=KINDS)


def first_mutant(task: Task, preferred: tuple[str, ...]) -> Mutant | None:
    """The plainest wrong query for a catalog's ``{{wrong}}``: the first mutant of the first
    preferred kind that applies, else any mutant."""
    found = mutants(task)
    for kind in preferred:
        for m in found:
            if m.kind == kind:
                return m
    return found[0] if found else None
