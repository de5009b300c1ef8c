"""Reference SQL verifiers, weakest first. The audit runs them side by side.

* ``syntax_only`` (pair): the extracted SQL parses with sqlglot. What many RLVR repositories
  ship; it pays for any parseable text, ``DROP TABLE`` included.
* ``exact_match`` (pair): the candidate's sqlglot-normalised text equals the gold's
  (keyword case, whitespace, identifier case, comments ignored) — the strict "exact match"
  grader, which rejects every equivalent rewrite.
* ``single_db_set`` (native): run candidate and gold on the task's base database only (the
  SQLite file for a task judged in SQLite) and compare
  the results as SETS (order and duplicates ignored) — the BIRD-style grader. A missing
  DISTINCT, a wrong ORDER BY, and any near-miss that happens to agree on this one
  database pass.
* ``strong`` (native): the oracle's label — several (fuzzed) databases, bag semantics, order
  when the gold orders, hardened execution. The only one fit to pay a reward.

All of them treat ``task.database`` as read-only (queries go through
``database.run_query``: a read-only, locked-down connection).
"""

from __future__ import annotations

import math
from typing import Any

import sqlglot

from ...models import Task
from .extract import extract_sql


def _candidate_statements(completion: str) -> list[str]:
    return [s for s in extract_sql(completion) if s.strip()]


def _single_statement(completion: str) -> str | None:
    """The one statement of the completion; None when there are none or several."""
    statements = _candidate_statements(completion)
    return statements[0] if len(statements) == 1 else None


# ---------------------------------------------------------------------------------------
# pair style
# ---------------------------------------------------------------------------------------


def syntax_only(completion: str, reference: str) -> bool:
    """Accept when every extracted statement parses with sqlglot (meaning is never checked)."""
    statements = _candidate_statements(completion)
    if not statements:
        return False
    try:
        parsed = [sqlglot.parse_one(s, read="duckdb") for s in statements]
    except Exception:  # noqa: BLE001 - sqlglot ParseError, TokenError
        return False
    return all(p is not None for p in parsed)


def normalise(sql: str) -> str | None:
    """Canonical text of one query: sqlglot's DuckDB output with identifiers lower-cased,
    keywords upper-cased, whitespace and comments dropped; None when it does not parse."""
    try:
        tree = sqlglot.parse_one(sql.strip().rstrip(";"), read="duckdb")
    except Exception:  # noqa: BLE001
        return None
    if tree is None:
        return None
    return tree.sql(dialect="duckdb", normalize=True, comments=False, pretty=False)


def exact_match(completion: str, reference: str) -> bool:
    """Accept when the one extracted statement normalises to the gold's text."""
    candidate = _single_statement(completion)
    if candidate is None:
        return False
    want, got = normalise(reference), normalise(candidate)
    return want is not None and got == want


# ---------------------------------------------------------------------------------------
# native style
# ---------------------------------------------------------------------------------------


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, float) and math.isnan(value):
        return "NaN"  # NaN != NaN would make a set of one NaN differ from itself
    return value


def _as_set(rows: list[tuple]) -> set:
    return {tuple(_hashable(v) for v in row) for row in rows}


def single_db_set(completion: str, task: Task) -> bool:
    """BIRD-style: the candidate's result equals the gold's as a set of rows, on the one
    database the task names."""
    from .database import run_query
    from .oracle import databases_of

    if not task.database:
        raise ValueError(f"task {task.id} has no database: the SQL domain sets task.database")
    candidate = _single_statement(completion)
    if candidate is None:
        return False
    base = databases_of(task)[0]  # the SQLite file for a task judged in SQLite (--dialect)
    gold = run_query(base, task.reference)
    if not gold.ok:
        return False  # an unusable gold never pays
    got = run_query(base, candidate)
    return got.ok and _as_set(got.rows) == _as_set(gold.rows)


def strong(completion: str, task: Task) -> bool:
    """The oracle: correct on the base database and the task's fuzzed databases."""
    from .oracle import label_completion

    return label_completion(completion, task).label == "correct"


__all__ = ["syntax_only", "exact_match", "single_db_set", "strong", "normalise"]
