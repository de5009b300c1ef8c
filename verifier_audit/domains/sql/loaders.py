"""Read Spider / BIRD style text-to-SQL datasets into tasks.

A dataset is a JSON list (or JSONL) of objects with ``question``, the gold ``query``
(Spider) or ``SQL`` (BIRD), and ``db_id``; BIRD's ``evidence`` is appended to the prompt as
a hint. Databases live at ``<db_dir>/<db_id>/<db_id>.sqlite``. Each SQLite file is
converted once to a DuckDB file (Python's ``sqlite3`` reads, plain ``duckdb`` writes: no
DuckDB extension, nothing downloaded), cached under ``cache_dir`` by the SQLite file's
hash; tasks carry ``metadata = {"database_file": <duckdb path>, "db_id": ...}``, plus
``sqlite_file`` (a byte copy of the SQLite file in the cache, what each worker's private
copy is made from) and ``sqlite_source`` (the dataset's own file, watched: ``guard.py``).

Conversion policy (SQLite is loosely typed, Spider and BIRD data is dirty):

* A column's DuckDB type follows its SQLite affinity *when every stored value fits*:
  INTEGER -> BIGINT, REAL -> DOUBLE, NUMERIC (DECIMAL, BOOLEAN, DATE ...) -> BIGINT or
  DOUBLE when the values are numbers; anything else, or a column holding a value that does
  not fit (``'N/A'`` in an INTEGER column), becomes VARCHAR with the values as text.
  Dates stay text, as SQLite stores them and as the dataset's queries compare them.
* Primary keys, NOT NULL and single-column UNIQUE constraints are declared when the data
  satisfies them (SQLite enforces NOT NULL and UNIQUE, so it nearly always does), otherwise
  dropped: fuzzing reads them back, so a fuzzed row never breaks what the dataset's own
  database guarantees (issue 33: COUNT(*) vs COUNT(col) on a NOT NULL column); foreign keys become ``references t(c)`` column comments (read back by
  ``fixtures.schema_from_database``), never constraints.
* ``--dialect sqlite`` (the default): the task's gold is the dataset's, judged in SQLite on
  the SQLite file (``dialects``); its DuckDB form below goes to ``metadata['duckdb_reference']``
  for fuzzing and the generators. ``--dialect duckdb``: that form is the gold.
* The DuckDB form is the gold as written when it runs on the converted database; when it does not,
  its sqlglot SQLite -> DuckDB transpilation is used if that runs (``metadata['gold_dialect']``
  says which). A gold that runs neither way is kept as written, with ``metadata['gold_error']``;
  the oracle's gold check reports it.

Every problem is an ``InputError`` that names the JSON file and the entry index (0-based).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
from functools import lru_cache, partial
from pathlib import Path

import duckdb
import sqlglot
from pydantic import ValidationError
from sqlglot import exp

from ...errors import InputError
from ...models import Task
from ..input_limits import LIMITS, MAX_DEPTH
from ..suite_files import SuiteFile, check_limits, read_text
from . import integrity
from .fixtures import insert_rows, quote, sql_string, write_database

# part of the cache key: bump when the conversion policy changes (2: content hashes recorded;
# 3: NOT NULL and single-column UNIQUE kept)
CONVERTER_VERSION = 3
DB_DIR_NAMES = ("database", "databases", "dev_databases", "train_databases", "test_databases")
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


# ---------------------------------------------------------------------------------------
# reading the dataset
# ---------------------------------------------------------------------------------------


def spider_rows(json_path: str | Path) -> list[tuple[int, dict]]:
    """(entry index, object) for each entry of a JSON list or a JSONL file."""
    path = Path(json_path)
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        data = _jsonl(path, text, exc)
    except RecursionError:
        raise InputError(
            f"{path}: objects and lists nested deeper than the limit of {MAX_DEPTH} levels ({LIMITS})"
        ) from None
    if isinstance(data, dict):  # a single entry, or {"data": [...]}
        data = data.get("data", [data]) if isinstance(data.get("data"), list) else [data]
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of entries, found {type(data).__name__}")
    rows = []
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise InputError(f"{path}: entry {index}: expected a JSON object, found {type(entry).__name__}")
        check_limits(path, f"entry {index}", entry)
        rows.append((index, entry))
    if not rows:
        raise InputError(f"{path}: the dataset has no entries")
    return rows


def _jsonl(path: Path, text: str, first_error: json.JSONDecodeError) -> list:
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        raise InputError(
            f"{path}: invalid JSON ({first_error.msg} at line {first_error.lineno}, column {first_error.colno})"
        ) from None
    out = []
    for index, line in enumerate(lines):
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: entry {index}: invalid JSON ({exc.msg} at column {exc.colno})") from None
        except RecursionError:
            raise InputError(
                f"{path}: entry {index}: objects and lists nested deeper than the limit of {MAX_DEPTH} "
                f"levels ({LIMITS})"
            ) from None
    return out


def guess_db_dir(json_path: str | Path) -> Path:
    """Where a dataset's databases usually are: ``database/`` (Spider) or
    ``dev_databases/`` (BIRD) next to the JSON file."""
    parent = Path(json_path).resolve().parent
    for name in DB_DIR_NAMES:
        if (parent / name).is_dir():
            return parent / name
    raise InputError(
        f"{json_path}: no database folder next to it (looked for {', '.join(DB_DIR_NAMES)}); "
        "pass the folder that holds <db_id>/<db_id>.sqlite"
    )


def spider_row(
    row: dict, *, db_dir: str | Path, cache_dir: str | Path, check_gold: bool = True, dialect: str = "sqlite"
) -> dict:
    """One dataset entry -> our task fields (``prompt``, ``reference``, ``metadata``,
    ``domain``). Raises ``ValueError`` for an entry that does not fit (the caller adds the
    file and the entry index), like the math loaders' row functions.

    ``dialect`` (``dialects.DIALECTS``): ``sqlite`` keeps the gold as written and judges it
    in SQLite (its DuckDB form in ``metadata['duckdb_reference']`` for fuzzing and the
    generators); ``duckdb`` makes the DuckDB form the gold, judged on the conversion."""
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"no 'question' text (fields present: {', '.join(row) or 'none'})")
    gold = row.get("query", row.get("SQL"))
    if not isinstance(gold, str) or not gold.strip():
        raise ValueError(f"no gold query: expected 'query' (Spider) or 'SQL' (BIRD) (fields present: {', '.join(row)})")
    db_id = row.get("db_id")
    if not isinstance(db_id, str) or not db_id.strip():
        raise ValueError("no 'db_id'")
    sqlite_path = Path(db_dir) / db_id / f"{db_id}.sqlite"
    if not sqlite_path.is_file():
        raise ValueError(f"database {db_id!r} not found: no file {sqlite_path}")
    database = convert_sqlite(sqlite_path, cache_dir)
    staged = stage_sqlite(sqlite_path, cache_dir)
    prompt = question.strip()
    evidence = row.get("evidence")
    if isinstance(evidence, str) and evidence.strip():
        prompt += f"\nHint: {evidence.strip()}"
    metadata = {
        "database_file": str(database),
        "db_id": db_id,
        "source": "bird" if "SQL" in row else "spider",
        "sqlite_file": str(staged),
        "sqlite_source": str(sqlite_path.resolve()),
    }
    for key in ("difficulty", "hardness", "evidence"):
        if row.get(key) is not None:
            metadata[key] = row[key]
    reference = duck = gold.strip().rstrip(";").strip()
    if check_gold:
        duck, notes = duckdb_gold(reference, database)
        metadata.update(notes)
    if dialect == "sqlite":
        metadata.update(dialect="sqlite", duckdb_reference=duck)
    else:
        reference = duck
    fields = {"domain": "sql", "prompt": prompt, "reference": reference, "metadata": metadata}
    if row.get("question_id") is not None:
        fields["id"] = f"{db_id}-{row['question_id']}"
    if row.get("split") in ("train", "heldout", "shifted"):
        fields["split"] = row["split"]
    return fields


def load_spider(
    json_path: str | Path,
    db_dir: str | Path | None,
    cache_dir: str | Path,
    *,
    split: str | None = None,
    check_gold: bool = True,
    dialect: str = "sqlite",
    required: tuple[str, ...] = (),
) -> list[Task]:
    """Tasks of a Spider/BIRD JSON file; SQLite databases converted to DuckDB (cached),
    judged in ``dialect``. ``required``: fields every entry must have (BIRD's)."""
    path = Path(json_path)
    rows = spider_rows(path)  # the file's own errors (not UTF-8, not JSON) before its databases'
    for index, row in rows:
        missing = [name for name in required if name not in row]
        if missing:
            raise InputError(
                f"{path}: entry {index}: no {', '.join(repr(m) for m in missing)} field: not BIRD's layout "
                f"(question_id, db_id, question, evidence, SQL, difficulty); use --format spider for Spider's"
            )
    db_dir = Path(db_dir) if db_dir is not None else guess_db_dir(path)
    to_fields = partial(spider_row, db_dir=db_dir, cache_dir=cache_dir, check_gold=check_gold, dialect=dialect)
    tasks, seen = [], {}
    for index, row in rows:
        try:
            fields = to_fields(row)
        except (ValueError, InputError) as exc:
            raise InputError(f"{path}: entry {index}: {exc}") from None
        fields.setdefault("id", f"{path.stem}-{index:04d}")
        if split is not None:
            fields["split"] = split
        try:
            task = Task.model_validate(fields)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise InputError(f"{path}: entry {index}: not a valid task ({problems})") from None
        if task.id in seen:
            raise InputError(f"{path}: entry {index}: duplicate task id {task.id!r} (first at entry {seen[task.id]})")
        seen[task.id] = index
        tasks.append(task)
    return tasks


def spider_suite(source: SuiteFile) -> list[Task]:
    """``--format spider`` (``SqlDomain.suite_formats``): converted databases are cached
    under the cache root's ``sql``; ``--field`` does not apply; ``--dialect`` defaults to
    SQLite, the engine Spider's evaluation runs."""
    return load_spider(source.path, source.db_dir, source.cache_dir() / "sql", dialect=_dialect(source))


BIRD_FIELDS = ("question_id", "db_id", "question", "evidence", "SQL")


def bird_suite(source: SuiteFile) -> list[Task]:
    """``--format bird``: BIRD's ``dev.json`` (question_id, db_id, question, evidence, SQL,
    difficulty) with ``dev_databases/<db_id>/<db_id>.sqlite`` beside it. ``evidence`` (the
    external knowledge BIRD hands the model) goes into the prompt as a hint and stays in
    the metadata; the task id is ``<db_id>-<question_id>``. Judged in SQLite by default."""
    return load_spider(
        source.path, source.db_dir, source.cache_dir() / "sql", dialect=_dialect(source), required=BIRD_FIELDS
    )


def _dialect(source: SuiteFile) -> str:
    from .dialects import DIALECTS

    dialect = source.dialect or "sqlite"
    if dialect not in DIALECTS:
        raise InputError(f"--dialect {dialect!r}: expected one of {', '.join(DIALECTS)}")
    return dialect


def duckdb_gold(sql: str, database: Path) -> tuple[str, dict]:
    """The gold as written when it runs on DuckDB; else the first repair that runs: SQLite's
    double-quoted strings made string literals, then sqlglot's SQLite -> DuckDB
    transpilation. Notes for the task's metadata say which."""
    from .database import run_query

    first = run_query(database, sql, timeout=10.0)
    if first.ok:
        return sql, {"gold_dialect": "as_written"}
    for dialect, repaired in _repairs(sql, database):
        if repaired != sql and run_query(database, repaired, timeout=10.0).ok:
            return repaired, {"gold_dialect": dialect, "original_query": sql}
    return sql, {"gold_dialect": "as_written", "gold_error": first.error}


def _repairs(sql: str, database: Path):
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except Exception:  # noqa: BLE001 - sqlglot cannot read it: nothing to repair
        return
    columns = _column_names(database)
    # SQLite reads "France" as a string when no column has that name (Spider relies on it).
    fixed = tree.transform(
        lambda node: (
            exp.Literal.string(node.name)
            if isinstance(node, exp.Column) and not node.table and node.this.quoted and node.name.lower() not in columns
            else node
        )
    )
    yield "sqlite_double_quoted_strings", fixed.sql(dialect="duckdb")
    yield "transpiled_from_sqlite", tree.sql(dialect="duckdb")
    yield "transpiled_from_sqlite", fixed.sql(dialect="duckdb")


def _column_names(database: Path) -> set[str]:
    from .fixtures import _cached_schema_from_database

    return {c.name.lower() for t in _cached_schema_from_database(str(database)).tables for c in t.columns}


# ---------------------------------------------------------------------------------------
# SQLite -> DuckDB
# ---------------------------------------------------------------------------------------


def _file_hash(path: Path) -> str:
    st = path.stat()
    return _cached_file_hash(str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@lru_cache(maxsize=256)
def _cached_file_hash(path: str, *_stat) -> str:  # a BIRD database is GBs: hashed once per load
    digest = hashlib.sha256(f"converter {CONVERTER_VERSION}\0".encode())
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def stage_sqlite(sqlite_path: str | Path, cache_dir: str | Path) -> Path:
    """A byte copy of the dataset's SQLite file in the cache (read-only, 0o444): what each
    worker's private copy is made from (guard.py), so that workers never open the dataset's
    own file, and an open of it during a call is the verifier's."""
    sqlite_path = Path(sqlite_path)
    name = _SAFE_NAME.sub("_", sqlite_path.stem) or "database"
    target = Path(cache_dir) / "spider" / f"{name}-{_file_hash(sqlite_path)}.sqlite"
    if integrity.cached_intact(target, "staged copy of the dataset's database"):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.parent / f".{target.name}.{os.getpid()}.tmp"
    try:
        shutil.copyfile(sqlite_path, temp)
        os.chmod(temp, 0o444)
        digest = integrity.content_hash(temp)
        os.replace(temp, target)  # atomic: a concurrent loader never sees half a file
        integrity.record_hash(target, digest or "")
    except OSError as exc:
        raise InputError(f"{sqlite_path}: cannot copy into the cache {target.parent}: {exc.strerror}") from None
    finally:
        if temp.exists():
            temp.unlink()
    return target


def convert_sqlite(sqlite_path: str | Path, cache_dir: str | Path) -> Path:
    """The DuckDB copy of a SQLite file, converted once and cached (read-only, 0o444)."""
    sqlite_path = Path(sqlite_path)
    name = _SAFE_NAME.sub("_", sqlite_path.stem) or "database"
    target = Path(cache_dir) / "spider" / f"{name}-{_file_hash(sqlite_path)}.duckdb"
    if integrity.cached_intact(target, "converted copy of the dataset's database"):
        return target
    try:
        source = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise InputError(f"{sqlite_path}: cannot open as SQLite: {exc}") from None
    # BIRD has invalid UTF-8 in a few text cells: keep them, with replacement characters.
    source.text_factory = lambda raw: raw.decode("utf-8", errors="replace")
    try:
        tables = _read_sqlite(source, sqlite_path)
    finally:
        source.close()
    return write_database(target, partial(_write_tables, tables=tables))


def _read_sqlite(source: sqlite3.Connection, path: Path) -> list[dict]:
    try:
        names = [
            r[0]
            for r in source.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
            )
        ]
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path}: not a SQLite database ({exc})") from None
    tables = []
    for name in names:
        info = source.execute(f"PRAGMA table_info({quote(name)})").fetchall()
        rows = source.execute(f"SELECT * FROM {quote(name)}").fetchall()
        foreign = source.execute(f"PRAGMA foreign_key_list({quote(name)})").fetchall()
        unique = _unique_columns(source, name)
        columns = []
        for cid, column, declared, notnull, _default, pk in info:
            duck_type, convert = _column_type(declared or "", [row[cid] for row in rows])
            columns.append(
                {
                    "name": column,
                    "type": duck_type,
                    "convert": convert,
                    "not_null": bool(notnull),
                    "unique": column in unique,
                    "pk": pk,
                }
            )
        rows = [tuple(col["convert"](value) for col, value in zip(columns, row)) for row in rows]
        tables.append(
            {"name": name, "columns": columns, "rows": rows, "foreign": [(f[3], f[2], f[4]) for f in foreign]}
        )  # (from, table, to)
    return tables


def _unique_columns(source: sqlite3.Connection, table: str) -> set[str]:
    """Columns a single-column UNIQUE constraint or unique index covers (not partial)."""
    out = set()
    for _seq, index, unique, _origin, is_partial in source.execute(f"PRAGMA index_list({quote(table)})").fetchall():
        if unique and not is_partial:
            members = source.execute(f"PRAGMA index_info({quote(index)})").fetchall()
            if len(members) == 1 and members[0][2] is not None:
                out.add(members[0][2])
    return out


def _affinity(declared: str) -> str:
    """SQLite's type affinity rules (https://www.sqlite.org/datatype3.html, 3.1)."""
    t = declared.upper()
    if "INT" in t:
        return "INTEGER"
    if any(k in t for k in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in t or not t:
        return "BLOB"
    if any(k in t for k in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def _as_text(value):
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _same(value):
    return value


def _as_float(value):
    return None if value is None else float(value)


def _column_type(declared: str, values: list):
    kinds = {type(v) for v in values if v is not None}
    affinity = _affinity(declared)
    if not kinds:  # no data to go by: the declared type alone (DATE stays text, as in SQLite)
        if affinity == "INTEGER":
            return "BIGINT", _same
        if affinity == "REAL" or any(k in declared.upper() for k in ("DEC", "NUM")):
            return "DOUBLE", _as_float
        return "VARCHAR", _as_text
    numeric_ok = kinds <= {int, float}
    if affinity == "TEXT":
        return "VARCHAR", _as_text
    if affinity in ("INTEGER", "NUMERIC", "BLOB") and kinds <= {int}:
        return "BIGINT", _same
    if affinity in ("INTEGER", "REAL", "NUMERIC", "BLOB") and numeric_ok:
        return "DOUBLE", _as_float
    if affinity == "BLOB" and kinds == {bytes}:
        return "BLOB", _same
    return "VARCHAR", _as_text


def _write_tables(con: duckdb.DuckDBPyConnection, tables: list[dict]) -> None:
    by_lower = {t["name"].lower(): t for t in tables}
    for table in tables:
        lines = [f"{quote(c['name'])} {c['type']}{_constraints(table, c)}" for c in table["columns"]]
        key = [c for c in sorted(table["columns"], key=lambda c: c["pk"]) if c["pk"]]
        if key and _key_holds(table, key):
            lines.append(f"PRIMARY KEY ({', '.join(quote(c['name']) for c in key)})")
        con.execute(f"CREATE TABLE {quote(table['name'])} ({', '.join(lines)})")
        if table["rows"]:
            insert_rows(con, table["name"], table["rows"])
    for table in tables:
        for column, ref_table, ref_column in table["foreign"]:
            target = by_lower.get(str(ref_table).lower())
            if target is None:
                continue  # Spider declares a few keys to tables that do not exist
            if ref_column is None:  # REFERENCES t without a column: t's primary key
                pk = [c["name"] for c in target["columns"] if c["pk"]]
                if len(pk) != 1:
                    continue
                ref_column = pk[0]
            ref_name = next(
                (c["name"] for c in target["columns"] if c["name"].lower() == str(ref_column).lower()), None
            )
            own = next((c["name"] for c in table["columns"] if c["name"].lower() == str(column).lower()), None)
            if ref_name and own:
                comment = f"references {target['name']}({ref_name})"
                con.execute(f"COMMENT ON COLUMN {quote(table['name'])}.{quote(own)} IS {sql_string(comment)}")


def _constraints(table: dict, column: dict) -> str:
    """The column's declared NOT NULL and UNIQUE, kept when the data satisfies them (SQLite
    enforces both, so it nearly always does): fuzzing reads them back and never puts a
    NULL into a NOT NULL column (``COUNT(*)`` vs ``COUNT(col)`` would then differ where the
    verifier's database says they cannot) nor a duplicate into a unique one."""
    out = ""
    if column["not_null"] and _key_holds(table, [column], nulls_only=True):
        out += " NOT NULL"
    if column["unique"] and not column["pk"] and _key_holds(table, [column], nulls_ok=True):
        out += " UNIQUE"
    return out


def _key_holds(table: dict, key: list[dict], *, nulls_only: bool = False, nulls_ok: bool = False) -> bool:
    positions = [table["columns"].index(c) for c in key]
    seen = set()
    for row in table["rows"]:
        value = tuple(row[i] for i in positions)
        if None in value:
            if nulls_ok:
                continue
            return False
        if nulls_only:
            continue
        if value in seen:
            return False
        seen.add(value)
    return True
