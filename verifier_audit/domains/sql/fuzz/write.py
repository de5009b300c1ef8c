"""Fuzzed rows into a DuckDB file, atomically and read-only."""

from __future__ import annotations

import os
import secrets
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
