"""The SQL oracle: a completion is correct when its query returns the gold's answer on the
task's base database and on every one of its distilled fuzzed databases (the test-suite
method of Zhong, Yu & Klein 2020).

* No SQL in the completion, several statements, or anything but one read-only query:
  incorrect. A candidate that errors or times out on any database: incorrect.
* The gold erroring on any database: no label (None), never correct.
* The gold's LIMIT cutting through a tie on the base database: no label, because the
  gold's own rows are not determined there (``check_gold`` reports it too). Fuzzing never
  keeps such a database.
* Equality is ``compare.results_equal``: bag semantics, order only when the gold orders
  at its top level, tied rows compared as groups, numbers with a float tolerance.

Gold answers are cached per process, keyed by (gold query, database path).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass

from sqlglot import exp

from ...models import Task
from ..base import OracleLabel
from .compare import (
    _parse_one,
    _top_query,
    gold_is_ordered,
    keys_tied,
    order_key_positions,
    results_equal,
    with_order_keys,
)
from .database import Result, dialect_of, refusal_on, run_query
from .extract import extract_sql

GOLD_TIMEOUT = 5.0
CANDIDATE_TIMEOUT = 0.5  # as database.DEFAULT_TIMEOUT: ~500x a real query on these databases
_CACHE_SIZE = 50_000


@dataclass(frozen=True)
class GoldAnswer:
    """The gold's result on one database, with what comparing against it needs."""

    result: Result
    ordered: bool
    keys: list | None  # the ORDER BY key of each row (ordered golds), else None
    ambiguous: bool = False  # its LIMIT cuts a tie: which rows come back is not determined

    @property
    def usable(self) -> bool:
        return self.result.ok and not self.ambiguous


_GOLD_CACHE: OrderedDict[tuple[str, str], GoldAnswer] = OrderedDict()


def gold_answer(gold: str, database: str | os.PathLike, *, timeout: float = GOLD_TIMEOUT) -> GoldAnswer:
    """The gold's answer on ``database`` (cached per process)."""
    key = (gold, os.path.abspath(os.fspath(database)))
    found = _GOLD_CACHE.get(key)
    if found is not None:
        return found
    answer = _compute_gold(gold, key[1], timeout)
    _GOLD_CACHE[key] = answer
    if len(_GOLD_CACHE) > _CACHE_SIZE:
        _GOLD_CACHE.popitem(last=False)
    return answer


def same_answer(gold: GoldAnswer, cand: Result) -> bool:
    return cand.ok and results_equal(gold.result, cand, ordered=gold.ordered, gold_keys=gold.keys)


def _compute_gold(gold: str, database: str, timeout: float) -> GoldAnswer:
    result = run_query(database, gold, timeout=timeout)
    ordered = gold_is_ordered(gold)
    if not result.ok:
        return GoldAnswer(result, ordered, None)
    keys = _order_keys(gold, database, result, timeout) if ordered else None
    return GoldAnswer(result, ordered, keys, _limit_cuts_tie(gold, database, result, timeout))


def _order_keys(gold: str, database: str, result: Result, timeout: float) -> list | None:
    """Each row's ORDER BY key: read from the result when the keys are result columns,
    else from the gold rerun with its keys appended as extra columns. None when neither
    works (then only identical rows count as tied)."""
    positions = order_key_positions(gold, result.columns)
    if positions is not None:
        return [tuple(row[p] for p in positions) for row in result.rows]
    augmented = with_order_keys(gold, dialect_of(database))
    if augmented is None:
        return None
    sql, n = augmented
    extended = run_query(database, sql, timeout=timeout)
    if not extended.ok or len(extended.rows) != len(result.rows):
        return None
    # Within a tie the pairing of keys to rows may differ between the two runs, but the
    # sequence of keys is the same: it is the sorted sequence of the rows' keys.
    return [tuple(row[-n:]) for row in extended.rows]


def _int_literal(node: exp.Expression | None) -> int | None:
    if node is None:
        return 0
    value = node.args.get("expression") if isinstance(node, (exp.Limit, exp.Offset)) else node
    if isinstance(value, exp.Literal) and value.is_int:
        return int(value.this)
    return None


def _limit_cuts_tie(gold: str, database: str, result: Result, timeout: float) -> bool:
    """True when the gold's top-level LIMIT/OFFSET boundary falls inside a group of rows
    tied on its ORDER BY keys (or it limits without ordering and more rows exist), so an
    equivalent query may legitimately return other rows."""
    dialect = dialect_of(database)
    root = _parse_one(gold, dialect)
    if root is None:
        return False
    top = _top_query(root)
    if not top.args.get("limit") and not top.args.get("offset"):
        return False
    limit, offset = _int_literal(top.args.get("limit")), _int_literal(top.args.get("offset"))
    if limit is None or offset is None:
        return False  # a computed LIMIT: not judged
    unlimited = top.copy()
    unlimited.set("limit", None)
    unlimited.set("offset", None)
    sql = unlimited.sql(dialect)
    whole = run_query(database, sql, timeout=timeout)
    if not whole.ok:
        return False
    end = offset + (limit if top.args.get("limit") else len(whole.rows))
    if not top.args.get("order"):
        return len(whole.rows) > end or offset > 0
    keys = _order_keys(sql, database, whole, timeout)
    if keys is None:
        keys = [tuple(r) for r in whole.rows]
    boundaries = [b for b in (offset, end) if 0 < b < len(keys)]
    return any(keys_tied(keys[b - 1], keys[b]) for b in boundaries)


# ---------------------------------------------------------------------------------------
# the oracle
# ---------------------------------------------------------------------------------------


def databases_of(task: Task) -> list[str]:
    """The base database first, then the distilled fuzzed ones: for a task judged in SQLite
    (``metadata['dialect']``), the SQLite files (the dataset's own and the fuzzed ones
    written as SQLite), else the DuckDB files."""
    if task.metadata.get("dialect") == "sqlite" and task.metadata.get("sqlite_file"):
        return [str(task.metadata["sqlite_file"])] + [str(p) for p in task.metadata.get("sqlite_databases") or []]
    return [task.database] + [str(p) for p in task.metadata.get("databases") or []] if task.database else []


def check_gold(task: Task) -> str | None:
    """Why the task's gold cannot be used, or None when it runs on its base database."""
    databases = databases_of(task)
    if not databases:
        return "the task has no database (fixtures were not prepared)"
    reason = refusal_on(databases[0], task.reference)
    if reason is not None:
        return f"the gold is not a single read-only query: {reason}"
    answer = gold_answer(task.reference, databases[0])
    if not answer.result.ok:
        return f"the gold fails on the base database: {answer.result.error}"
    if answer.ambiguous:
        return "the gold's LIMIT cuts through a tie on the base database: its rows are not determined"
    return None


def label_completion(text: str, task: Task) -> OracleLabel:
    statements = extract_sql(text)
    if not statements:
        return OracleLabel("incorrect", "no SQL found")
    if len(statements) > 1:
        return OracleLabel("incorrect", f"{len(statements)} statements; one query expected")
    sql = statements[0]
    databases = databases_of(task)
    if not databases:
        return OracleLabel(None, "the task has no database")
    reason = refusal_on(databases[0], sql)
    if reason is not None:
        return OracleLabel("incorrect", f"refused: {reason}")
    golds = [gold_answer(task.reference, db) for db in databases]
    for i, gold in enumerate(golds):
        if not gold.result.ok:
            return OracleLabel(None, f"the gold fails on {_name(i)}: {gold.result.error}")
    if golds[0].ambiguous:
        return OracleLabel(None, "the gold's rows are not determined on the base database (LIMIT cuts a tie)")
    for i, (db, gold) in enumerate(zip(databases, golds)):
        if gold.ambiguous:
            continue  # fuzzing never keeps one; a hand-made list might
        cand = run_query(db, sql, timeout=CANDIDATE_TIMEOUT)
        if cand.timed_out:
            return OracleLabel("incorrect", f"timeout on {_name(i)}")
        if not cand.ok:
            return OracleLabel("incorrect", f"error on {_name(i)}: {cand.error}")
        if not same_answer(gold, cand):
            return OracleLabel("incorrect", f"differs from the gold on {_name(i)}")
    return OracleLabel("correct", f"same result as the gold on {len(databases)} database(s)")


def _name(i: int) -> str:
    return "the base database" if i == 0 else f"fuzzed database {i}"
