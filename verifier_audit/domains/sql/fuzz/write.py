"""Fuzzed rows into a DuckDB file, atomically and read-only; for a task judged in SQLite,
the same rows into a SQLite file under the dataset's own DDL."""

from __future__ import annotations

import datetime as dt
import os
import secrets
import sqlite3
from decimal import Decimal
from pathlib import Path

import duckdb

from .. import database as db
from .. import integrity
from ..schema import Schema

_WRITERS: dict[int, duckdb.DuckDBPyConnection] = {}


def _writer() -> duckdb.DuckDBPyConnection:
    # One in-memory instance per process writes every fuzzed file (ATTACH, fill, DETACH):
    # a new instance per file would cost ~15 ms each. The content is ours, not a candidate's.
    con = _WRITERS.get(os.getpid())
    if con is None:
        con = _WRITERS[os.getpid()] = duckdb.connect(
            ":memory:", config={"threads": 1, "autoinstall_known_extensions": False, "autoload_known_extensions": False}
        )
    return con


def write_database(target: Path, schema: Schema, rows: dict[str, list[tuple]]) -> Path:
    """Create ``target`` with the schema's tables and ``rows``, atomically, read-only, its
    content hash recorded beside it (checked by ``integrity.cached_intact`` before reuse)."""
    from ..fixtures import insert_rows

    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    con = _writer()
    alias = "fuzz_target"
    con.execute(f"ATTACH {db._sql_string(str(temp))} AS {alias}")
    try:
        con.execute(f"USE {alias}")
        con.execute(schema.ddl)  # no FK comments: nothing reads this file's schema back
        for table, table_rows in rows.items():
            if not table_rows:
                continue
            try:
                insert_rows(con, table, table_rows)
            except duckdb.Error:  # a constraint we did not model: keep the rows that fit
                for row in table_rows:
                    try:
                        insert_rows(con, table, [row])
                    except duckdb.Error:
                        pass
        con.execute(f"CHECKPOINT {alias}")
    finally:
        con.execute("USE memory")
        con.execute(f"DETACH {alias}")
    Path(f"{temp}.wal").unlink(missing_ok=True)
    os.chmod(temp, 0o444)
    digest = integrity.content_hash(temp)
    os.replace(temp, target)
    integrity.record_hash(target, digest or "")
    return target


def sqlite_ddl(sqlite_file: str | os.PathLike) -> tuple[str, ...]:
    """The CREATE statements of a SQLite file's tables, indexes and views, as the dataset
    declared them (every NOT NULL, UNIQUE, key and type kept), tables first. Triggers are
    left out: fuzzed rows are inserted as they are."""
    con = sqlite3.connect(f"file:{os.fspath(sqlite_file)}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
            "AND type IN ('table', 'index', 'view') ORDER BY CASE type WHEN 'table' THEN 0 "
            "WHEN 'index' THEN 1 ELSE 2 END, rowid"
        ).fetchall()
    finally:
        con.close()
    return tuple(sql for _, sql in rows)


def _sqlite_value(value):
    # What sqlite3 binds: fuzzed DuckDB values of the converted schema are numbers and text.
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    return value


def write_sqlite_copy(source: Path, ddl: tuple[str, ...], target: Path) -> Path:
    """The fuzzed DuckDB database ``source`` written as the SQLite file ``target`` under the
    dataset's own DDL, atomically, read-only, its content hash recorded. A row SQLite
    refuses (a constraint fuzzing did not model) is left out, as ``write_database`` does."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    con = sqlite3.connect(temp)
    try:
        for statement in ddl:
            con.execute(statement)
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            found = db.run_query(source, f"SELECT * FROM {_quote(table)}", timeout=30.0, max_rows=10_000_000)
            if not found.ok:
                continue  # a table the fuzzed schema does not have: left empty
            marks = ", ".join("?" * len(found.columns))
            names = ", ".join(_quote(c) for c in found.columns)
            for row in found.rows:
                try:
                    con.execute(
                        f"INSERT INTO {_quote(table)} ({names}) VALUES ({marks})", [_sqlite_value(v) for v in row]
                    )
                except sqlite3.Error:
                    pass
        con.commit()
    finally:
        con.close()
    os.chmod(temp, 0o444)
    digest = integrity.content_hash(temp)
    os.replace(temp, target)
    integrity.record_hash(target, digest or "")
    return target


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'
