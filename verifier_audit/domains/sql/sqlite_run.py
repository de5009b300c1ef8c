"""Untrusted read-only queries on SQLite files, in SQLite itself (``--dialect sqlite``).

A SQLite scorer (Spider's and BIRD's evaluation scripts) runs the gold and the prediction
with Python's ``sqlite3``; judged on a DuckDB conversion, SQLite's own semantics are lost
(``'2023-'`` casts to 2023 where DuckDB raises, ``LIKE`` ignores ASCII case, ``COUNT(col)``
on a NOT NULL column). So for a SQLite target the labels come from ``sqlite3`` on SQLite
files. What protects the audit here, outermost first:

1. The size limits of ``limits.py`` (the caller, ``database.run_query``, applies them).
2. The connection: opened ``mode=ro`` through a URI (no write can reach the file, and a
   missing file is an error, never an empty new database), ``ATTACH`` disabled by
   ``SQLITE_LIMIT_ATTACHED`` = 0, extension loading never enabled.
3. An authorizer that allows only reading: ``SELECT``, reading columns, calling functions,
   recursive CTEs; every write, ``PRAGMA``, ``ATTACH``, transaction or DDL is denied
   before it runs. ``sqlite3`` itself refuses more than one statement per ``execute``.
4. A deadline enforced by SQLite's progress handler, called every ``PROGRESS_STEPS``
   virtual-machine instructions inside the query: past the deadline it aborts the query
   (unlike a thread-based timeout, which returns and leaves the query running).
5. At most ``max_rows`` rows fetched.

One connection per file, process and thread (the schema is parsed once per connection);
the files are read-only, so nothing a query does survives it. ``database.close_all``
closes them with DuckDB's (a worker forked from the auditing process inherits them; the
SQL guard discounts the parent's open files).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time

PROGRESS_STEPS = 1000  # VM instructions between deadline checks (~10 us)
_ALLOWED = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    getattr(sqlite3, "SQLITE_RECURSIVE", 33),
}
_CONNECTIONS: dict[tuple[int, int, str], sqlite3.Connection] = {}


def _authorize(action: int, *_args) -> int:
    return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY


def _connect(path: str) -> sqlite3.Connection:
    # Never shared with a forked child, nor between threads: the progress handler that holds
    # a query's deadline is per connection (the thread-safety probe calls from several).
    key = (os.getpid(), threading.get_ident(), path)
    con = _CONNECTIONS.get(key)
    if con is None:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no database file {path}")
        # check_same_thread off only so close_all may close it from any thread; each
        # connection is still used by the one thread of its key.
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        con.text_factory = lambda raw: raw.decode("utf-8", errors="replace")  # BIRD has invalid UTF-8
        if hasattr(con, "setlimit"):
            con.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        con.set_authorizer(_authorize)
        _CONNECTIONS[key] = con
    return con


def close_all() -> None:
    """Close this process's cached connections (``database.close_all``)."""
    for con in list(_CONNECTIONS.values()):
        try:
            con.close()
        except sqlite3.Error:
            pass
    _CONNECTIONS.clear()


def execute(path: str | os.PathLike, sql: str, *, timeout: float, max_rows: int):
    """(columns, rows, error, timed_out) of one query on the SQLite file ``path``; never
    raises for anything the query does."""
    try:
        con = _connect(os.path.abspath(os.fspath(path)))
    except (OSError, sqlite3.Error) as exc:
        return [], [], f"cannot open database: {type(exc).__name__}: {exc}", False
    deadline = time.monotonic() + timeout
    fired = []

    def progress() -> int:
        if time.monotonic() > deadline:
            fired.append(True)
            return 1  # non-zero: SQLite aborts the statement ("interrupted")
        return 0

    con.set_progress_handler(progress, PROGRESS_STEPS)
    cursor = con.cursor()
    try:
        cursor.execute(sql)
        columns = [d[0] for d in (cursor.description or [])]
        rows = cursor.fetchmany(max_rows + 1)
    except (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError, MemoryError) as exc:
        if fired:
            return [], [], f"timeout after {timeout:g}s", True
        text = str(exc).strip().splitlines()
        return [], [], f"{type(exc).__name__}: {text[0] if text else ''}"[:300], False
    finally:
        cursor.close()
        con.set_progress_handler(None, 0)
    if fired:
        return [], [], f"timeout after {timeout:g}s", True
    if len(rows) > max_rows:
        return columns, [], f"too many rows (more than {max_rows})", False
    return columns, rows, None, False
