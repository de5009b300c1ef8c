"""Equivalents: CORRECT queries written differently from the gold.

A verifier that rejects these starves training (false rejection): exact-match graders
reject every one of them (Zhong, Yu & Klein 2020, Semantic Evaluation for Text-to-SQL
with Distilled Test Suites: exact set match has false negatives). Tree rewrites live in
``_rewrite_predicates`` and ``_rewrite_structure``; this module adds the ones that work on
the text (keyword case, whitespace and comments, ``<>`` vs ``!=``, another dialect), picks
a sample per task and writes the completions (some without a code fence).

Every rewrite is meant to keep the result on every database; the engine still has the
oracle confirm each one and drops (and counts) any it finds different.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

from ....models import Candidate, Severity, Task
from ...kit import Chosen, make_candidates, sample_kinds
from . import _rewrite_predicates, _rewrite_structure
from ._common import DIALECT, TaskContext, completion, gold_key, normalise, parse_query, parses, render
from ._sites import Unusable

MAX_PER_TASK = 8
BARE_SHARE = 0.25  # of equivalents written as bare SQL, without a ```sql fence

# kind -> (severity, description). Severity of a false rejection of this form.
KINDS: dict[str, tuple[Severity, str]] = {
    "table_alias": (Severity.high, "tables aliased (or aliases renamed), columns requalified"),
    "reordered_conjuncts": (Severity.high, "the conditions of a WHERE / HAVING / ON in another order"),
    "comparison_mirrored": (Severity.medium, "a comparison written right to left (x < 5 -> 5 > x)"),
    "negation_form": (Severity.medium, "a comparison written as a negated complement (x <> 5 -> NOT (x = 5))"),
    "between_range": (Severity.high, "BETWEEN <-> two comparisons"),
    "in_list_or": (Severity.medium, "IN (list) written as ORs"),
    "in_exists": (Severity.high, "IN (subquery) written as a correlated EXISTS"),
    "coalesce_case": (Severity.medium, "COALESCE written as CASE WHEN ... IS NOT NULL"),
    "redundant_parens": (Severity.low, "redundant parentheses around conditions"),
    "join_order": (Severity.high, "the operands of an inner join in the other order"),
    "left_right_swap": (Severity.high, "A LEFT JOIN B written as B RIGHT JOIN A"),
    "join_syntax": (Severity.medium, "implicit join (FROM a, b WHERE) or INNER / OUTER spelled out"),
    "cte_subquery": (Severity.high, "a CTE inlined as a subquery, or a subquery lifted into a CTE"),
    "count_pk": (Severity.medium, "COUNT(*) <-> COUNT(primary key)"),
    "groupby_distinct": (Severity.high, "GROUP BY without aggregates <-> SELECT DISTINCT"),
    "set_operand_order": (Severity.medium, "the operands of UNION / INTERSECT in the other order"),
    "order_by_ordinal": (Severity.medium, "ORDER BY keys written as column positions"),
    "formatting": (Severity.medium, "keyword case, line breaks and comments changed"),
    "neq_style": (Severity.low, "<> written as != (or the other way)"),
    "transpiled_dialect": (
        Severity.medium,
        "the query as sqlglot writes it for PostgreSQL (quoted identifiers), which DuckDB runs",
    ),
}

_TREE_FAMILIES = _rewrite_structure.FAMILIES + _rewrite_predicates.FAMILIES
_COMMENTS = ("-- answer query", "-- computed from the tables in the schema", "/* final query */")


@dataclass(frozen=True)
class Rewrite:
    kind: str
    sql: str
    note: str


def rewrites(task: Task) -> list[Rewrite]:
    """Every equivalent rewrite of the gold (stable order), each different from the gold's
    own text and from the others."""
    tree = parse_query(task.reference)
    if tree is None:
        return []
    ctx = TaskContext.of(task)
    out: list[Rewrite] = []
    seen = {task.reference.strip().rstrip(";").strip()}
    gold = gold_key(task)
    for family in _TREE_FAMILIES:
        for site in family(tree, ctx):
            try:
                sql = render(site.apply(tree))
            except (Unusable, ValueError, KeyError, IndexError, AttributeError, TypeError, StopIteration):
                continue
            if sql not in seen and parses(sql) and normalise(sql) != gold:
                seen.add(sql)
                out.append(Rewrite(site.kind, sql, site.note))
    for r in _text_rewrites(task, tree):
        if r.sql not in seen and parses(r.sql):
            seen.add(r.sql)
            out.append(r)
    return out


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    """Up to MAX_PER_TASK correct rewrites, one per kind, some as bare SQL."""
    chosen = sample_kinds(rewrites(task), rng, cap=MAX_PER_TASK, draw="choice", order="grouped")
    texts = [Chosen(r.kind, completion(r.sql, rng, fenced=rng.random() >= BARE_SHARE), r.note) for r in chosen]
    return make_candidates("sql", task.id, texts, origin="equivalent", label="correct", kinds=KINDS)


# --------------------------------------------------------------------------- text rewrites


def _text_rewrites(task: Task, tree: exp.Expression) -> Iterator[Rewrite]:
    rendered = render(tree)
    pretty = render(tree, pretty=True)
    yield Rewrite(
        "formatting",
        f"{_COMMENTS[0]}\n{_lowercase_keywords(pretty)}",
        "lower-case keywords, one clause a line, a comment",
    )
    yield Rewrite("formatting", _after_first_word(rendered, " /* the query */"), "an inline block comment")
    yield from _neq_style(task.reference, rendered)
    try:
        postgres = tree.sql(dialect="postgres", identify=True)
    except Exception:  # sqlglot cannot write every DuckDB construct for postgres
        return
    if normalise(postgres) != normalise(rendered):
        yield Rewrite("transpiled_dialect", postgres, "transpiled to PostgreSQL by sqlglot")


def _tokens(sql: str):
    try:
        return sqlglot.tokenize(sql, read=DIALECT)
    except Exception:
        return []


_WORDS = (TokenType.VAR, TokenType.IDENTIFIER, TokenType.STRING, TokenType.NUMBER, TokenType.NATIONAL_STRING)


def _lowercase_keywords(sql: str) -> str:
    """Keywords and function names in lower case; identifiers and strings untouched."""
    chars = list(sql)
    tokens = _tokens(sql)
    for k, tok in enumerate(tokens):
        is_function = (
            tok.token_type == TokenType.VAR and k + 1 < len(tokens) and tokens[k + 1].token_type == TokenType.L_PAREN
        )
        if (tok.token_type not in _WORDS and tok.text.replace(" ", "").isalpha()) or is_function:
            chars[tok.start : tok.end + 1] = list(sql[tok.start : tok.end + 1].lower())
    return "".join(chars)


def _after_first_word(sql: str, insert: str) -> str:
    head, _, tail = sql.partition(" ")
    return f"{head}{insert} {tail}" if tail else sql


def _neq_style(original: str, rendered: str) -> Iterator[Rewrite]:
    tokens = _tokens(rendered)
    positions = [t.start for t in tokens if t.token_type == TokenType.NEQ]
    if not positions:
        return
    if any(t.token_type == TokenType.NEQ and t.text == "!=" for t in _tokens(original)):
        yield Rewrite("neq_style", rendered, "!= written as <>")
        return
    chars = list(rendered)
    for start in reversed(positions):
        chars[start : start + 2] = list("!=")
    yield Rewrite("neq_style", "".join(chars), "<> written as !=")
