"""What the generators read from a task's database: its schema, a few values of a column,
table sizes and the gold's own result (for the hard-coded-result attacks).

Only the suite's gold queries and fixed catalogue queries run here, never a candidate, and
they go through the domain's hardened ``database.run_query`` all the same. Everything is cached per database file, so 150
tasks on three fixtures open three connections.
"""

from __future__ import annotations

from functools import lru_cache

from ....models import Task
from ..schema import Schema

GOLD_TIMEOUT_S = 5.0
MAX_VALUES = 12
MAX_ROWS = 10_000


def schema_of(task: Task) -> Schema | None:
    """The task's schema: the fixture it names, else the one read from its database file."""
    from ..fixtures import schema_for

    try:
        return schema_for(task)
    except Exception:  # no schema named (a loaded dataset, a test task): read the file
        pass
    return _schema_from_file(task.database) if task.database else None


@lru_cache(maxsize=64)
def _schema_from_file(path: str) -> Schema | None:
    from ..fixtures import schema_from_database

    try:
        return schema_from_database(path)
    except Exception:
        return None


def query(path: str | None, sql: str, timeout: float = GOLD_TIMEOUT_S):
    """(column names, rows) of a trusted query on ``path``, or None when it cannot run.

    Through the domain's hardened ``run_query``: DuckDB refuses a second connection to a
    file already open in this process with another configuration, so every reader of a
    fixture shares that one."""
    from ..database import run_query

    if not path:
        return None
    result = run_query(path, sql, timeout=timeout, max_rows=MAX_ROWS)
    return (list(result.columns), list(result.rows)) if result.ok else None


@lru_cache(maxsize=2048)
def column_values(path: str | None, table: str, column: str) -> tuple:
    """A few distinct non-NULL values of ``table.column``, most frequent first (stable)."""
    found = (
        query(
            path,
            f'SELECT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL '
            f"GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT {MAX_VALUES}",
        )
        if path
        else None
    )
    return tuple(row[0] for row in found[1]) if found else ()


@lru_cache(maxsize=64)
def table_sizes(path: str | None) -> tuple[tuple[str, int], ...]:
    """(table, rows) of every table, biggest first."""
    found = query(path, "SELECT table_name, estimated_size FROM duckdb_tables() ORDER BY 2 DESC, 1") if path else None
    return tuple((t, int(n or 0)) for t, n in found[1]) if found else ()


@lru_cache(maxsize=1024)
def gold_result(path: str | None, gold: str):
    """(column names, rows) of the gold on the base database, or None."""
    return query(path, gold) if path else None
