"""The dialect a SQL task is judged in (``--dialect``): ``duckdb`` (the built-in suite,
its fixtures are DuckDB files) or ``sqlite`` (Spider and BIRD files by default, as their
scorers run: Python's ``sqlite3`` on the dataset's ``.sqlite`` files).

A task judged in SQLite keeps its gold as the dataset wrote it (``reference``) and the
form of it that runs on the DuckDB conversion (``metadata['duckdb_reference']``), which
fuzzing and the generators edit; their queries are transpiled to SQLite
(``generators._dialect``) and every label is computed in SQLite on SQLite files
(``oracle.databases_of``, ``fuzz.sqlite_target``).
"""

from __future__ import annotations

import sqlglot

from ...models import Task

DIALECTS = ("sqlite", "duckdb")


def target_dialect(task: Task) -> str:
    """The dialect the task is judged in: ``metadata['dialect']``, DuckDB by default."""
    return str(task.metadata.get("dialect") or "duckdb")


def source_view(task: Task) -> Task:
    """The task as the generators read it: its gold in DuckDB's dialect."""
    duck = task.metadata.get("duckdb_reference")
    if target_dialect(task) == "duckdb" or not isinstance(duck, str):
        return task
    return task.model_copy(update={"reference": duck})


def transpiled(sql: str, dialect: str) -> str | None:
    """``sql`` (DuckDB) written in ``dialect``, or None when sqlglot cannot write it as one
    query that it reads back in that dialect."""
    body = sql.strip().rstrip(";").strip()
    try:
        out = sqlglot.transpile(body, read="duckdb", write=dialect)
        if len(out) != 1 or len([e for e in sqlglot.parse(out[0], read=dialect) if e is not None]) != 1:
            return None
    except (sqlglot.errors.SqlglotError, ValueError, RecursionError):
        return None
    return out[0]
