"""The test-suite method (Zhong, Yu & Klein 2020): small fuzzed databases, distilled per
task to the few that tell the gold apart from its near neighbours.

1. Constants. Every gold of a schema is parsed (sqlglot) and its literals collected, each
   tied to the columns it is compared with, plus its +-1 neighbours (a day for dates,
   strings matching a LIKE pattern), so fuzzed rows hit the queries' boundaries.
2. A pool per schema, built once: ``POOL_SIZE`` small databases in six shapes (empty
   and one-row tables, ties, NULLs, big groups sized to the golds' HAVING thresholds and
   LIMITs, repeated rows; 0-20 rows a table, more for large thresholds), values per column type, drawn from the
   column's constants, the base fixture's own values and random ones; primary keys
   unique, foreign keys pointing at generated parents (some dangling, NULL where
   nullable), self references included. Files under ``cache_dir/fuzz``, reused by every
   task of the schema and across runs.
3. Per task, greedy distillation: neighbours = ``generators.near_miss.mutants(task)``
   (a few simple mutants of our own when generators are absent). Neighbours the base
   database already separates need nothing more (the oracle always checks the base). Pool
   databases are visited in order and one is kept when it separates the gold from a
   neighbour not yet separated (different result, or the neighbour errors there); the
   visit stops after ``STALE_STOP`` fruitless databases in a row. A database where the
   gold errors or its LIMIT cuts a tie is never kept. When the pool
   leaves unseparated a neighbour that differs from the gold in a constant or a comparison
   operator, ``FALLBACK_SIZE`` task-specific databases (this gold's constants only,
   heavier weights) are tried; structural leftovers (DISTINCT on a key, LEFT JOIN under
   a WHERE on the right side) are almost always equivalent and get none. Then the set is
   topped up to ``MIN_DATABASES`` with pool databases where the gold's result is non-empty and
   differs from its base result, so that a hard-coded answer is caught as well.
4. Cache: the distilled list per task (key: gold, schema DDL, base fixture, seed,
   version), as paths relative to the cache folder. A warm run reads ~150 small JSON files.

Deterministic for a seed: every random choice comes from a ``Random`` seeded with the
seed, the schema and the database's index; the order of visits is fixed. (A neighbour
whose runtime straddles the 0.25 s query limit could differ between runs; on databases
of this size queries take about a millisecond and runaways far longer.)
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from random import Random
from typing import Any, Iterable, Optional

import duckdb
import sqlglot
from sqlglot import exp

from ...models import Task
from . import database as db
from .compare import results_equal
from .oracle import GoldAnswer, gold_answer, same_answer
from .schema import Column, Schema, Table

FUZZ_VERSION = 1
POOL_SIZE = 18
FALLBACK_SIZE = 2  # per task; they rarely help (the pool already carries every gold's constants)
MIN_DATABASES = 2
STALE_STOP = 9  # stop after this many pool databases in a row separate nothing new
QUERY_TIMEOUT = 0.25  # neighbours on these tiny databases take ~1 ms; slower is a runaway
MAX_ROWS = 10_000
BASE_VALUES = 30  # distinct values per column sampled from the base fixture
PARALLEL_FROM = 12  # fewer tasks than this to distil: no worker processes

# ---------------------------------------------------------------------------------------
# constants of the golds
# ---------------------------------------------------------------------------------------

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?")
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike, exp.In,
                exp.Between, exp.Is, exp.NullSafeEQ, exp.NullSafeNEQ)


@dataclass
class Constants:
    """Values worth putting into fuzzed rows: per column name (lower case) and overall."""

    by_column: dict[str, list] = field(default_factory=dict)
    loose: list = field(default_factory=list)  # not tied to a column (HAVING COUNT(*) > 3)
    max_limit: int = 0  # largest LIMIT + OFFSET: some tables need more rows than that

    def add(self, columns: Iterable[str], values: list) -> None:
        columns = list(columns)
        for name in columns:
            bucket = self.by_column.setdefault(name.lower(), [])
            bucket.extend(v for v in values if v not in bucket)
        if not columns:
            self.loose.extend(v for v in values if v not in self.loose)

    def key(self) -> str:
        items = sorted((k, sorted(map(repr, v))) for k, v in self.by_column.items())
        return repr((items, sorted(map(repr, self.loose)), self.max_limit))


def _literal_value(lit: exp.Literal) -> Optional[Any]:
    if lit.is_string:
        return lit.this
    text = str(lit.this)
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def _neighbours(value: Any) -> list:
    """The value and what sits next to it: +-1 for numbers, +-1 day for dates, matching
    strings for LIKE patterns."""
    if isinstance(value, bool):
        return [value]
    if isinstance(value, (int, float)):
        return [value, value - 1, value + 1]
    if isinstance(value, str):
        if _DATE.match(value):
            try:
                d = dt.date.fromisoformat(value)
            except ValueError:
                return [value]
            return [d, d - dt.timedelta(days=1), d + dt.timedelta(days=1)]
        if "%" in value or "_" in value:
            core = value.replace("%", "").replace("_", "")
            filled = value.replace("%", "x").replace("_", "y")
            return [filled, value.replace("%", "").replace("_", "q"), core, core.upper(), core.lower(), value]
        return [value, value.upper(), value.lower(), value + " "]
    return [value]


def collect_constants(golds: Iterable[str]) -> Constants:
    found = Constants()
    for gold in golds:
        try:
            trees = [t for t in sqlglot.parse(gold, read="duckdb") if t is not None]
        except Exception:  # noqa: BLE001 - an unparseable gold contributes nothing
            continue
        for tree in trees:
            _collect(tree, found)
    return found


def _collect(tree: exp.Expression, found: Constants) -> None:
    for node in tree.find_all(exp.Limit, exp.Offset):
        value = node.args.get("expression")
        if isinstance(value, exp.Literal) and value.is_int:
            found.max_limit = max(found.max_limit, int(value.this))
    for lit in tree.find_all(exp.Literal):
        if lit.find_ancestor(exp.Limit, exp.Offset) is not None:
            continue
        value = _literal_value(lit)
        if value is None:
            continue
        predicate = lit.find_ancestor(*_COMPARISONS)
        columns = {c.name for c in predicate.find_all(exp.Column)} if predicate is not None else set()
        found.add(sorted(columns), _neighbours(value))


# ---------------------------------------------------------------------------------------
# values per column type
# ---------------------------------------------------------------------------------------

_WORDS = ["a", "b", "A", "x y", "", "Zed", "alpha", "beta", "a%b", "O'Neil", " lead", "ß"]
_EPOCH = dt.date(2019, 1, 1)


def _base_kind(type_name: str) -> str:
    t = type_name.upper()
    if t.startswith("DECIMAL") or t.startswith("NUMERIC"):
        return "decimal"
    if t in ("INTEGER", "INT", "BIGINT", "SMALLINT", "TINYINT", "HUGEINT", "UINTEGER", "UBIGINT",
             "USMALLINT", "UTINYINT", "INT4", "INT8", "INT2", "LONG"):
        return "int"
    if t in ("DOUBLE", "FLOAT", "REAL", "FLOAT8", "FLOAT4"):
        return "float"
    if t.startswith("VARCHAR") or t in ("TEXT", "STRING", "CHAR", "BPCHAR") or t.startswith("CHAR"):
        return "str"
    if t == "DATE":
        return "date"
    if t.startswith("TIMESTAMP") or t == "DATETIME":
        return "timestamp"
    if t in ("BOOLEAN", "BOOL"):
        return "bool"
    return "other"


def _decimal_scale(type_name: str) -> tuple[int, int]:
    m = re.search(r"\((\d+)\s*,\s*(\d+)\)", type_name)
    return (int(m.group(1)), int(m.group(2))) if m else (18, 3)


def _convert(value: Any, column: Column, rng: Random) -> Optional[Any]:
    """``value`` as a value of the column's type, or None when it does not fit."""
    kind = _base_kind(column.type)
    try:
        if kind == "int":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or float(value) != int(value):
                return None
            return int(value) if abs(value) < 2**31 else None
        if kind == "float":
            return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        if kind == "decimal":
            if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
                return None
            precision, scale = _decimal_scale(column.type)
            d = Decimal(str(value)).quantize(Decimal(1).scaleb(-scale))
            return d if abs(d) < Decimal(10) ** (precision - scale) else None
        if kind == "str":
            return value if isinstance(value, str) else None
        if kind == "date":
            if isinstance(value, dt.datetime):
                return value.date()
            if isinstance(value, dt.date):
                return value
            if isinstance(value, int) and 1900 <= value <= 2100:  # EXTRACT(YEAR ...) = 2023
                return dt.date(value, 1, 1) + dt.timedelta(days=rng.randint(0, 364))
            if isinstance(value, str) and _TIMESTAMP.match(value):
                return dt.date.fromisoformat(value[:10])
            return None
        if kind == "timestamp":
            if isinstance(value, dt.datetime):
                return value
            if isinstance(value, dt.date):
                return dt.datetime.combine(value, dt.time(rng.choice([0, 0, 9, 23]), rng.choice([0, 30])))
            if isinstance(value, int) and 1900 <= value <= 2100:
                return dt.datetime(value, 1, 1) + dt.timedelta(hours=rng.randint(0, 364 * 24))
            if isinstance(value, str) and _TIMESTAMP.match(value):
                return dt.datetime.fromisoformat(value.replace("T", " ")[:19])
            return None
        if kind == "bool":
            return value if isinstance(value, bool) else None
    except (ValueError, InvalidOperation, OverflowError):
        return None
    return value


def _random_value(column: Column, rng: Random, narrow: bool) -> Optional[Any]:
    kind = _base_kind(column.type)
    if kind == "int":
        return rng.choice([0, 1, 2, 3]) if narrow else rng.choice([rng.randint(-2, 20), rng.randint(0, 5), 100])
    if kind == "float":
        return rng.choice([0.0, 0.5, 2.5]) if narrow else rng.choice([round(rng.uniform(0, 100), 2), 1.0, 0.1, -3.5])
    if kind == "decimal":
        _, scale = _decimal_scale(column.type)
        cents = rng.choice([0, 50, 999, 1999]) if narrow else rng.randint(0, 50000)
        return (Decimal(cents) / 100).quantize(Decimal(1).scaleb(-scale))
    if kind == "str":
        return rng.choice(_WORDS[:3]) if narrow else rng.choice(_WORDS) + rng.choice(["", "", str(rng.randint(0, 9))])
    if kind == "date":
        return _EPOCH + dt.timedelta(days=rng.choice([0, 31, 365]) if narrow else rng.randint(0, 6 * 365))
    if kind == "timestamp":
        return dt.datetime(2019, 1, 1) + dt.timedelta(minutes=rng.randint(0, 6 * 365 * 24 * 60))
    if kind == "bool":
        return rng.random() < 0.5
    return None


@dataclass(frozen=True)
class Profile:
    """How one fuzzed database looks: sizes, NULLs, constants, duplicates."""

    min_rows: int
    max_rows: int
    p_null: float  # a nullable cell is NULL
    p_const: float  # a cell takes one of its column's constants from the golds
    p_base: float  # ... else one of the base fixture's values for the column
    p_dangling: float  # a foreign key points at no row
    p_dup: float  # a row repeats an earlier row's non-key cells (DISTINCT, bags)
    domain: Optional[int]  # each column draws from this many values only (ties, big groups)


# Six shapes, cycled: ordinary, tiny (empty and one-row tables, aggregates over nothing),
# tie-heavy, NULL-heavy, big groups (HAVING COUNT(*) thresholds), duplicate rows.
_SHAPES = [
    dict(min_rows=3, max_rows=8, p_null=0.15, p_dup=0.1, domain=None),
    dict(min_rows=0, max_rows=3, p_null=0.0, p_dup=0.0, domain=None),
    dict(min_rows=5, max_rows=12, p_null=0.1, p_dup=0.2, domain=3),
    dict(min_rows=2, max_rows=6, p_null=0.4, p_dup=0.1, domain=None),
    dict(min_rows=8, max_rows=20, p_null=0.1, p_dup=0.2, domain=2),
    dict(min_rows=4, max_rows=10, p_null=0.1, p_dup=0.5, domain=4),
]


def profile_for(index: int, rng: Random, constants: "Constants", task_specific: bool = False) -> Profile:
    shape = dict(_SHAPES[index % len(_SHAPES)])
    if shape["domain"] is not None or index % len(_SHAPES) == 0:
        # Longer than the largest LIMIT, and groups around the loose thresholds
        # (HAVING COUNT(*) > 5 needs groups of 5 and 6 rows).
        threshold = max([c for c in constants.loose if isinstance(c, int) and 0 < c <= 20], default=0)
        shape["max_rows"] = max(shape["max_rows"], constants.max_limit + 3, (threshold + 2) * (shape["domain"] or 1))
    return Profile(
        p_const=0.6 if task_specific else [0.4, 0.25, 0.55][index % 3],
        p_base=[0.25, 0.4, 0.1][(index // 3) % 3],
        p_dangling=0.1 if index % 5 else 0.0,
        **shape,
    )


# ---------------------------------------------------------------------------------------
# rows
# ---------------------------------------------------------------------------------------


@dataclass
class _Source:
    """Where one column's values come from."""

    constants: list
    base: list
    cursor: int = -1  # next constant to use (round-robin)


def _value(column: Column, source: _Source, profile: Profile, rng: Random) -> Optional[Any]:
    r = rng.random()
    if source.constants and r < profile.p_const:
        # Round-robin from a random start rather than independent draws: every constant
        # of a long list shows up somewhere in the pool (salary = 100000 exactly).
        if source.cursor < 0:
            source.cursor = rng.randrange(len(source.constants))
        value = _convert(source.constants[source.cursor % len(source.constants)], column, rng)
        source.cursor += 1
        if value is not None:
            return value
    if source.base and r < profile.p_const + profile.p_base:
        return rng.choice(source.base)
    return _random_value(column, rng, profile.domain is not None)


def generate_rows(schema: Schema, constants: Constants, base_values: dict, profile: Profile,
                  rng: Random) -> dict[str, list[tuple]]:
    """Rows for every table of ``schema`` under ``profile``: keys unique, foreign keys
    mostly pointing at generated parents (self references included)."""
    out: dict[str, list[tuple]] = {}
    keys_of: dict[tuple[str, str], list] = {}  # (table, column) -> values generated there
    for table in schema.tables:
        n = rng.randint(profile.min_rows, profile.max_rows)
        rows = _TableFiller(table, constants, base_values, profile, rng, keys_of).rows(n)
        out[table.name] = rows
        for i, column in enumerate(table.columns):
            keys_of[(table.name, column.name)] = [r[i] for r in rows if r[i] is not None]
    return out


class _TableFiller:
    def __init__(self, table: Table, constants: Constants, base_values: dict, profile: Profile,
                 rng: Random, keys_of: dict):
        self.table, self.profile, self.rng, self.keys_of = table, profile, rng, keys_of
        self.sources = {c.name: _Source(constants.by_column.get(c.name.lower(), []),
                                        base_values.get((table.name, c.name), [])) for c in table.columns}
        self.key_columns = [i for i, c in enumerate(table.columns) if c.primary_key]
        self.unique = [i for i, c in enumerate(table.columns) if c.unique and not c.primary_key]
        self.domains: dict[str, list] = {}

    def rows(self, n: int) -> list[tuple]:
        single = len(self.key_columns) == 1
        own_keys: list = []
        if single:  # drawn first, so that self references can point at them
            column = self.table.columns[self.key_columns[0]]
            own_keys = self._distinct(column, n)
            self.keys_of[(self.table.name, column.name)] = own_keys
        if self.profile.domain:  # a few values per column: ties and big groups
            for c in self.table.columns:
                if not c.primary_key and not c.unique:
                    values = [self._fresh(c) for _ in range(self.profile.domain)]
                    self.domains[c.name] = [v for v in values if v is not None] or values
        rows: list[tuple] = []
        seen_keys: set = set()
        seen_unique: dict[int, set] = {i: set() for i in self.unique}
        for attempt in range(len(own_keys) if single else n * 3):
            if not single and len(rows) >= n:
                break
            if rows and self.rng.random() < self.profile.p_dup:
                row = list(self.rng.choice(rows))  # a repeated row: only keys change
                for i in self.key_columns + self.unique:
                    row[i] = self._cell(self.table.columns[i])
            else:
                row = [self._cell(c) for c in self.table.columns]
            if single:
                row[self.key_columns[0]] = own_keys[attempt]
            key = tuple(row[i] for i in self.key_columns)
            if any(v is None for v in key) or (self.key_columns and key in seen_keys):
                continue
            if any(row[i] is not None and row[i] in seen_unique[i] for i in self.unique):
                continue
            seen_keys.add(key)
            for i in self.unique:
                seen_unique[i].add(row[i])
            rows.append(tuple(row))
        return rows

    def _cell(self, column: Column) -> Optional[Any]:
        if column.nullable and not column.primary_key and self.rng.random() < self.profile.p_null:
            return None
        domain = self.domains.get(column.name)
        if domain:
            return self.rng.choice(domain)
        return self._fresh(column)

    def _fresh(self, column: Column) -> Optional[Any]:
        rng = self.rng
        if column.references is not None:
            parents = self.keys_of.get(column.references)
            if parents and rng.random() >= self.profile.p_dangling:
                return rng.choice(parents)
            if parents is not None:  # dangling: a key no parent row has
                top = max((p for p in parents if isinstance(p, int) and not isinstance(p, bool)), default=0)
                value = _convert(top + rng.randint(1, 5), column, rng)
                if value is not None:
                    return value
        source = self.sources[column.name]
        value = _value(column, source, self.profile, rng)
        if value is None and not column.nullable:
            value = rng.choice(source.base) if source.base else _random_value(column, rng, False)
        return value

    def _distinct(self, column: Column, n: int) -> list:
        values: list = []
        for _ in range(n * 4):
            if len(values) >= n:
                break
            if _base_kind(column.type) == "int" and self.rng.random() < 0.6:
                value = self.rng.randint(1, max(3, 2 * n))  # small dense ids: joins find partners
            else:
                value = _value(column, self.sources[column.name], self.profile, self.rng)
            if value is not None and value not in values:
                values.append(value)
        return values


# ---------------------------------------------------------------------------------------
# database files
# ---------------------------------------------------------------------------------------

_WRITERS: dict[int, duckdb.DuckDBPyConnection] = {}


def _writer() -> duckdb.DuckDBPyConnection:
    # One in-memory instance per process writes every fuzzed file (ATTACH, fill, DETACH):
    # a new instance per file would cost ~15 ms each. The content is ours, not a candidate's.
    con = _WRITERS.get(os.getpid())
    if con is None:
        con = _WRITERS[os.getpid()] = duckdb.connect(":memory:", config={
            "threads": 1, "autoinstall_known_extensions": False, "autoload_known_extensions": False})
    return con


def write_database(target: Path, schema: Schema, rows: dict[str, list[tuple]]) -> Path:
    """Create ``target`` with the schema's tables and ``rows``, atomically, read-only."""
    from .fixtures import insert_rows

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
    os.replace(temp, target)
    return target


def base_values(schema: Schema, base: Path) -> dict[tuple[str, str], list]:
    """Up to BASE_VALUES distinct non-NULL values of every column of the base fixture."""
    out = {}
    for table in schema.tables:
        for column in table.columns:
            q = f'SELECT DISTINCT "{column.name}" FROM "{table.name}" WHERE "{column.name}" IS NOT NULL ORDER BY 1'
            result = db.run_query(base, q, timeout=5.0, max_rows=2000)
            values = [r[0] for r in result.rows] if result.ok else []
            step = max(1, len(values) // BASE_VALUES)
            out[(table.name, column.name)] = values[::step][:BASE_VALUES]
    return out


@dataclass
class SchemaPool:
    schema: Schema
    base: Path
    constants: Constants
    base_values: dict
    directory: Path
    seed: int

    def path(self, index: int) -> Path:
        return self.directory / f"pool-{index:02d}.duckdb"

    def paths(self) -> list[Path]:
        return [self.path(i) for i in range(POOL_SIZE)]

    def build(self, index: int) -> Path:
        target = self.path(index)
        if not target.is_file():
            rng = Random(f"{self.seed}:{self.schema.name}:pool:{index}")
            profile = profile_for(index, rng, self.constants)
            write_database(target, self.schema, generate_rows(self.schema, self.constants, self.base_values, profile, rng))
        return target


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps([str(p) for p in parts]).encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------------------
# neighbours and distillation
# ---------------------------------------------------------------------------------------


def neighbours(task: Task) -> list[str]:
    """The queries a distilled set must tell apart from the gold."""
    try:
        from .generators.near_miss import mutants

        found = [m.sql for m in mutants(task)]
    except ImportError:
        found = simple_mutants(task.reference)
    gold = " ".join(task.reference.split()).lower()
    out, seen = [], {gold}
    for sql in found:
        key = " ".join(sql.split()).lower()
        if key not in seen:
            seen.add(key)
            out.append(sql)
    return out


_FLIPS = {exp.GT: exp.GTE, exp.GTE: exp.GT, exp.LT: exp.LTE, exp.LTE: exp.LT, exp.EQ: exp.NEQ, exp.NEQ: exp.EQ}


def simple_mutants(gold: str) -> list[str]:
    """A few neighbours of our own: comparison boundaries, numeric literals +-1, DISTINCT
    toggled, ORDER BY direction flipped."""
    try:
        tree = sqlglot.parse_one(gold, read="duckdb")
    except Exception:  # noqa: BLE001
        return []
    out = []
    nodes = list(tree.walk())
    for i, node in enumerate(nodes):
        def edited(replace):
            copy = tree.copy()
            target = list(copy.walk())[i]
            target.replace(replace(target))
            return copy.sql("duckdb")

        if type(node) in _FLIPS:
            out.append(edited(lambda n: _FLIPS[type(n)](this=n.this.copy(), expression=n.expression.copy())))
        elif isinstance(node, exp.Literal) and not node.is_string and node.find_ancestor(exp.Limit) is None:
            out.append(edited(lambda n: exp.Literal.number(_literal_value(n) + 1)))
        elif isinstance(node, exp.Ordered):
            out.append(edited(lambda n: exp.Ordered(this=n.this.copy(), desc=not n.args.get("desc"))))
    if isinstance(tree, exp.Select):
        toggled = tree.copy()
        toggled.set("distinct", None if tree.args.get("distinct") else exp.Distinct())
        out.append(toggled.sql("duckdb"))
    return out


def _separates(sql: str, gold: GoldAnswer, database: Path) -> bool:
    # parse_check=False: neighbours are sqlglot renderings of the gold (DuckDB's own
    # statement check and the hardened connection still apply); saves ~1 ms each.
    result = db.run_query(database, sql, timeout=QUERY_TIMEOUT, max_rows=MAX_ROWS, parse_check=False)
    return not result.ok or not same_answer(gold, result)


@dataclass
class Distilled:
    databases: list[Path]
    neighbours: int = 0
    unseparated: int = 0  # neighbours no database tells apart (most are equivalent mutants)
    from_pool: int = 0
    from_fallback: int = 0
    error: Optional[str] = None


class _Distiller:
    """Greedy distillation for one task (see the module doc)."""

    def __init__(self, task: Task, base: Path):
        self.gold = task.reference
        self.base_gold = gold_answer(self.gold, base)
        self.neighbours = neighbours(task) if self.base_gold.result.ok else []
        self.remaining = [m for m in self.neighbours if not _separates(m, self.base_gold, base)]
        self.kept: list[Path] = []
        self.spare: list[tuple[Path, GoldAnswer]] = []  # informative databases for the top-up

    @property
    def done(self) -> bool:
        return not self.remaining and len(self.kept) + len(self.spare) >= MIN_DATABASES

    def visit(self, path: Path, spare_ok: bool = True) -> bool:
        """Keep ``path`` if it separates a neighbour not yet separated; True when kept."""
        answer = gold_answer(self.gold, path)
        if not answer.usable:
            return False
        if self.remaining:
            still = [m for m in self.remaining if not _separates(m, answer, path)]
            if len(still) < len(self.remaining):
                self.kept.append(path)
                self.remaining = still
                return True
        if spare_ok and len(self.spare) < MIN_DATABASES and self._informative(answer):
            self.spare.append((path, answer))
        return False

    def _informative(self, answer: GoldAnswer) -> bool:
        # Non-empty and different from the base result (and from the other spares): a
        # candidate that hard-codes the base answer fails there.
        return bool(answer.result.rows) and not any(
            results_equal(other.result, answer.result, ordered=other.ordered)
            for other in [self.base_gold] + [a for _, a in self.spare])

    def top_up(self) -> None:
        for path, _ in self.spare:
            if len(self.kept) >= MIN_DATABASES:
                return
            if path not in self.kept:
                self.kept.append(path)


def distil_task(task: Task, base: Path, pool: SchemaPool, fallback_dir: Path, seed: int) -> Distilled:
    d = _Distiller(task, base)
    if not d.base_gold.result.ok:
        return Distilled([], error=d.base_gold.result.error)
    stale = 0
    for path in pool.paths():
        stale = 0 if d.visit(path) else stale + 1
        if d.done or (stale >= STALE_STOP and len(d.kept) + len(d.spare) >= MIN_DATABASES):
            break  # what is left after many fruitless databases is almost always equivalent
    from_pool = len(d.kept)
    if any(_boundary_signature(m) != _boundary_signature(task.reference) for m in d.remaining):
        _fallback(d, task, pool, fallback_dir, seed)
    from_fallback = len(d.kept) - from_pool
    d.top_up()
    return Distilled(d.kept, len(d.neighbours), len(d.remaining), len(d.kept) - from_fallback, from_fallback)


def _boundary_signature(sql: str) -> Optional[tuple]:
    """The constants and comparison operators of a query. A neighbour left unseparated
    that differs from the gold here (a shifted constant, ``>`` for ``>=``) may need rows
    right at this gold's boundaries, which task-specific databases aim at; one that
    differs only in structure (DISTINCT, a join type) is left to the pool's shapes."""
    try:
        tree = sqlglot.parse_one(sql, read="duckdb")
    except Exception:  # noqa: BLE001
        return None
    literals = sorted(lit.sql() for lit in tree.find_all(exp.Literal))
    comparisons = sorted(type(n).__name__ for n in tree.find_all(*_COMPARISONS))
    return literals, comparisons


def _fallback(d: _Distiller, task: Task, pool: SchemaPool, directory: Path, seed: int) -> None:
    """Task-specific databases for the neighbours the pool left; only kept files stay."""
    constants = collect_constants([task.reference])
    directory.mkdir(parents=True, exist_ok=True)
    db.mark_shared(directory)
    made = []
    for j in range(FALLBACK_SIZE):  # all written first: one instance then opens them all
        rng = Random(f"{seed}:{task.id}:fallback:{j}")
        profile = profile_for(2 * j, rng, constants, task_specific=True)  # ordinary, tie-heavy
        path = directory / f"fallback-{j:02d}.duckdb"
        if not path.is_file():
            write_database(path, pool.schema, generate_rows(pool.schema, constants, pool.base_values, profile, rng))
        made.append(path)
    for path in made:
        if d.remaining:
            d.visit(path, spare_ok=False)  # a spare here would be deleted below
    db.release(directory)
    for path in made:
        if path not in d.kept:
            path.unlink(missing_ok=True)
    if not any(directory.glob("*.duckdb")):
        for leftover in directory.iterdir():
            leftover.unlink()
        directory.rmdir()


# ---------------------------------------------------------------------------------------
# the whole suite
# ---------------------------------------------------------------------------------------


@dataclass
class _Plan:
    task: Task
    schema: Schema
    base: Path
    key: str
    cached: Optional[list[Path]] = None


class _PoolJob:
    """Builds pool databases in worker processes (item = index into ``work``)."""

    def __init__(self, work: list[tuple[SchemaPool, int]]):
        self.work = work

    def setup(self) -> None:
        pass

    def __call__(self, item: int) -> str:
        pool, index = self.work[item]
        return str(pool.build(index))


class _DistilJob:
    def __init__(self, plans: list[_Plan], pools: dict[str, SchemaPool], root: Path, seed: int):
        self.plans, self.pools, self.root, self.seed = plans, pools, root, seed

    def setup(self) -> None:
        pass

    def __call__(self, item: int) -> dict:
        plan = self.plans[item]
        result = distil_task(plan.task, plan.base, self.pools[plan.schema.name],
                             self.root / "fallback" / plan.key, self.seed)
        return {"databases": [os.path.relpath(p, self.root) for p in result.databases],
                "neighbours": result.neighbours, "unseparated": result.unseparated,
                "from_pool": result.from_pool, "from_fallback": result.from_fallback, "error": result.error}


def _run_parallel(job, n: int, workers: int) -> list:
    """Results of job(0..n-1), in worker processes when there is enough work."""
    if n < PARALLEL_FROM or workers <= 1:
        return [job(i) for i in range(n)]
    from ...engine import pool as engine_pool

    out: list = [None] * n
    for outcome in engine_pool.run(job, range(n), workers=workers, timeout=300, memory_mb=None, chunk=4):
        out[outcome.index] = outcome.value if outcome.ok else None
    for i in range(n):  # a worker that crashed: redo here rather than lose the task
        if out[i] is None:
            out[i] = job(i)
    return out


def default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def distil_all(tasks: list[Task], seed: int, cache_dir: str | os.PathLike, *, workers: Optional[int] = None) -> list[Task]:
    """Copies of ``tasks`` with ``database`` (the base fixture) and
    ``metadata['databases']`` (the distilled fuzzed databases) set; see the module doc."""
    from . import fixtures

    cache_dir = Path(cache_dir)
    root = cache_dir / "fuzz"
    workers = default_workers() if workers is None else workers
    plans: list[_Plan] = []
    for task in tasks:
        schema = fixtures.schema_for(task)
        base = Path(fixtures.fixture_path(task, cache_dir / "fixtures")).resolve()
        key = _digest(FUZZ_VERSION, seed, task.reference, schema.ddl, base.name, POOL_SIZE, FALLBACK_SIZE, MIN_DATABASES)
        plan = _Plan(task, schema, base, key)
        plan.cached = _read_cache(root, key)
        plans.append(plan)

    todo = [p for p in plans if p.cached is None]
    if todo:
        pools = _pools_for(plans, todo, root, seed)
        work = [(pool, i) for pool in pools.values() for i in range(POOL_SIZE) if not pool.path(i).is_file()]
        _run_parallel(_PoolJob(work), len(work), workers)
        for pool in pools.values():
            db.mark_shared(pool.directory)
        results = _run_parallel(_DistilJob(todo, pools, root, seed), len(todo), workers)
        for plan, result in zip(todo, results):
            _write_cache(root, plan.key, result)
            plan.cached = [root / p for p in result["databases"]]
    return [p.task.model_copy(update={
        "database": str(p.base),
        "metadata": {**p.task.metadata, "databases": [str(x) for x in p.cached]},
    }) for p in plans]


def _pools_for(plans: list[_Plan], todo: list[_Plan], root: Path, seed: int) -> dict[str, SchemaPool]:
    pools = {}
    for name in {p.schema.name for p in todo}:
        members = [p for p in plans if p.schema.name == name]
        schema, base = members[0].schema, members[0].base
        constants = collect_constants(sorted({p.task.reference for p in members}))
        key = _digest(FUZZ_VERSION, seed, schema.ddl, base.name, constants.key(), POOL_SIZE)
        pools[name] = SchemaPool(schema, base, constants, base_values(schema, base),
                                 root / "pool" / f"{name}-{key}", seed)
        pools[name].directory.mkdir(parents=True, exist_ok=True)
    return pools


def _read_cache(root: Path, key: str) -> Optional[list[Path]]:
    try:
        data = json.loads((root / "distilled" / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None
    paths = [root / p for p in data.get("databases", [])]
    return paths if all(p.is_file() for p in paths) else None


def _write_cache(root: Path, key: str, result: dict) -> None:
    target = root / "distilled" / f"{key}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_suffix(f".{os.getpid()}.tmp")
    temp.write_text(json.dumps({"version": FUZZ_VERSION, **result}, indent=1))
    os.replace(temp, target)


def distribution(tasks: list[Task]) -> dict[int, int]:
    """How many tasks got how many distilled databases."""
    out: dict[int, int] = {}
    for task in tasks:
        n = len(task.metadata.get("databases") or [])
        out[n] = out.get(n, 0) + 1
    return dict(sorted(out.items()))
