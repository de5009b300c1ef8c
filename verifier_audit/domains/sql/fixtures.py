"""The built-in SQL fixtures: schemas (``suites/sql/schemas/*.sql``) and their data.

A fixture is DDL plus a deterministic generator (``populate``). The data is built so that
typical wrong queries give different results from right ones on the base database: NULLs in
every nullable column, duplicate names, ties in the values queries order by, dates across
years, dangling foreign keys (rows that point to ids that do not exist, so INNER and LEFT
joins differ) and a self-referencing manager hierarchy.

Foreign keys are not declared in the DDL (DuckDB would refuse the dangling keys); they are
written as a trailing ``-- references table(column)`` comment on the column's line and, in
materialised files, as a DuckDB column comment, so ``schema_from_database`` recovers them.
Composite primary keys mark every member column ``primary_key`` (``Column`` has no
composite-key field): unique values per column satisfy the real key a fortiori.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import secrets
from collections.abc import Callable
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path
from random import Random

import duckdb

from ...errors import InputError
from ...models import Task
from ...resources import data_path
from . import integrity
from .schema import Column, Schema, Table

# Bump when populate() changes: it is part of the cache key. 2: cached files carry their
# content hash (integrity.record_hash), so no file of an older cache is read.
GENERATOR_VERSION = 2
SCHEMA_NAMES = ("shop", "university", "company")

_CREATE = re.compile(r"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?\"?(\w+)\"?", re.IGNORECASE)
_REFERENCE = re.compile(r"^\s*\"?(\w+)\"?\s.*--\s*references\s+\"?(\w+)\"?\s*\(\s*\"?(\w+)\"?\s*\)", re.IGNORECASE)
_COMMENT_REFERENCE = re.compile(r"^references\s+\"?([^\"(]+?)\"?\s*\(\s*\"?([^\")]+?)\"?\s*\)$", re.IGNORECASE)


# ---------------------------------------------------------------------------------------
# schemas
# ---------------------------------------------------------------------------------------


def schema_file(name: str) -> Path:
    path = data_path("suites", "sql", "schemas", f"{name}.sql")
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in path.parent.glob("*.sql"))) or "none"
        raise InputError(f"unknown SQL schema {name!r}: no {path.name} in {path.parent} (known: {known})")
    return path


@cache
def load_schema(name: str) -> Schema:
    """The schema of a built-in fixture: column facts from DuckDB itself (the DDL is run on
    an in-memory database), foreign keys from the ``-- references t(c)`` comments."""
    path = schema_file(name)
    ddl = path.read_text(encoding="utf-8")
    references: dict[tuple[str, str], tuple[str, str]] = {}
    table = None
    for lineno, line in enumerate(ddl.splitlines(), 1):
        created = _CREATE.search(line)
        if created:
            table = created.group(1)
        found = _REFERENCE.match(line)
        if found:
            if table is None:
                raise InputError(f"{path}:{lineno}: a references comment outside CREATE TABLE")
            references[(table, found.group(1))] = (found.group(2), found.group(3))
    con = duckdb.connect(":memory:")
    try:
        con.execute(ddl)
    except duckdb.Error as exc:
        raise InputError(f"{path}: the DDL does not run on DuckDB: {exc}") from None
    try:
        tables = _introspect(con, references)
    finally:
        con.close()
    for (src_table, src_col), (dst_table, dst_col) in references.items():
        if not any(t.name == dst_table and any(c.name == dst_col for c in t.columns) for t in tables):
            raise InputError(f"{path}: {src_table}.{src_col} references {dst_table}({dst_col}), which does not exist")
    return Schema(name=name, tables=_dependency_order(tables), ddl=ddl)


def schema_from_database(path: str | Path) -> Schema:
    """The schema of any DuckDB file (a materialised fixture, a converted Spider database).

    Foreign keys come from declared constraints or from ``references t(c)`` column comments;
    the DDL is regenerated from what is found, in dependency order, without FK constraints.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such database file")
    # ATTACH from a fresh in-memory database rather than connect(path): DuckDB refuses a
    # second connect() to a file already open in this process with another configuration.
    con = duckdb.connect(":memory:", config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    try:
        try:
            con.execute(f"ATTACH {sql_string(str(path))} AS {_ALIAS} (READ_ONLY)")
        except duckdb.Error as exc:
            raise InputError(f"{path}: not a DuckDB database ({exc})") from None
        references = {}
        for table, column, comment in con.execute(
            f"SELECT table_name, column_name, comment FROM duckdb_columns() "
            f"WHERE {_WHERE} AND NOT internal AND comment IS NOT NULL"
        ).fetchall():
            found = _COMMENT_REFERENCE.match(comment.strip())
            if found:
                references[(table, column)] = (found.group(1), found.group(2))
        for table, columns, ref_table, ref_columns in con.execute(
            "SELECT table_name, constraint_column_names, referenced_table, referenced_column_names "
            f"FROM duckdb_constraints() WHERE {_WHERE} AND constraint_type = 'FOREIGN KEY'"
        ).fetchall():
            for column, ref_column in zip(columns, ref_columns):
                references[(table, column)] = (ref_table, ref_column)
        tables = _dependency_order(_introspect(con, references, _WHERE))
        primary_keys = {
            t: list(cols)
            for t, cols in con.execute(
                "SELECT table_name, constraint_column_names FROM duckdb_constraints() "
                f"WHERE {_WHERE} AND constraint_type = 'PRIMARY KEY'"
            ).fetchall()
        }
    finally:
        con.close()
    return Schema(name=path.stem, tables=tables, ddl=ddl_for(tables, primary_keys))


_ALIAS = "va_introspected"
_WHERE = f"database_name = '{_ALIAS}' AND schema_name = 'main'"


def _introspect(
    con: duckdb.DuckDBPyConnection, references: dict, where: str = "schema_name = 'main'"
) -> tuple[Table, ...]:
    keys: dict[str, set[str]] = {}
    unique: dict[str, set[str]] = {}
    for table, kind, columns in con.execute(
        "SELECT table_name, constraint_type, constraint_column_names FROM duckdb_constraints() "
        f"WHERE {where} AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')"
    ).fetchall():
        if kind == "PRIMARY KEY":
            keys.setdefault(table, set()).update(columns)
        elif len(columns) == 1:  # a composite UNIQUE does not make its columns unique
            unique.setdefault(table, set()).add(columns[0])
    columns_of: dict[str, list[Column]] = {}
    for table, column, data_type, nullable in con.execute(
        "SELECT table_name, column_name, data_type, is_nullable FROM duckdb_columns() "
        f"WHERE {where} AND NOT internal ORDER BY table_oid, column_index"
    ).fetchall():
        is_key = column in keys.get(table, ())
        columns_of.setdefault(table, []).append(
            Column(
                name=column,
                type=data_type,
                nullable=bool(nullable) and not is_key,
                primary_key=is_key,
                unique=is_key and len(keys[table]) == 1 or column in unique.get(table, ()),
                references=references.get((table, column)),
            )
        )
    return tuple(Table(name, tuple(cols)) for name, cols in columns_of.items())


def _dependency_order(tables: tuple[Table, ...]) -> tuple[Table, ...]:
    """Referenced tables first (self references and cycles ignored), otherwise input order."""
    by_name = {t.name: t for t in tables}
    done: dict[str, Table] = {}

    def visit(table: Table, stack: tuple[str, ...]) -> None:
        if table.name in done or table.name in stack:
            return
        for column in table.columns:
            target = column.references and by_name.get(column.references[0])
            if target is not None and target.name != table.name:
                visit(target, stack + (table.name,))
        done[table.name] = table

    for table in tables:
        visit(table, ())
    return tuple(done.values())


def quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def ddl_for(tables: tuple[Table, ...], primary_keys: dict[str, list[str]] | None = None) -> str:
    """CREATE TABLE statements that DuckDB runs; foreign keys as comments."""
    primary_keys = primary_keys or {t.name: [c.name for c in t.columns if c.primary_key] for t in tables}
    out = []
    for table in tables:
        lines = []
        for column in table.columns:
            line = f"    {quote(column.name)} {column.type}{'' if column.nullable else ' NOT NULL'}"
            if column.unique and not column.primary_key:
                line += " UNIQUE"
            lines.append((line, column.references))
        key = primary_keys.get(table.name)
        if key:
            lines.append((f"    PRIMARY KEY ({', '.join(quote(c) for c in key)})", None))
        body = []
        for i, (line, ref) in enumerate(lines):
            comma = "," if i < len(lines) - 1 else ""
            body.append(line + comma + (f" -- references {ref[0]}({ref[1]})" if ref else ""))
        out.append(f"CREATE TABLE {quote(table.name)} (\n" + "\n".join(body) + "\n);")
    return "\n\n".join(out) + "\n"


def create_tables(con: duckdb.DuckDBPyConnection, schema: Schema) -> None:
    """Run the DDL and record foreign keys as column comments (read by schema_from_database)."""
    con.execute(schema.ddl)
    for table in schema.tables:
        for column in table.columns:
            if column.references:
                ref = f"references {column.references[0]}({column.references[1]})"
                con.execute(f"COMMENT ON COLUMN {quote(table.name)}.{quote(column.name)} IS {sql_string(ref)}")


# ---------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------

_FIRST = ["Maria", "John", "Wei", "Aisha", "Carlos", "Olga", "Kenji", "Fatima", "Liam", "Sofia", "Ahmed", "Emma"]
_LAST = ["Garcia", "Smith", "Chen", "Khan", "Silva", "Ivanova", "Tanaka", "Haddad", "Brown", "Rossi"]
_CITIES = ["Lisbon", "Berlin", "Austin", "Osaka", "Lyon", "Toronto", None]
_COUNTRIES = {
    "Lisbon": "Portugal",
    "Berlin": "Germany",
    "Austin": "USA",
    "Osaka": "Japan",
    "Lyon": "France",
    "Toronto": "Canada",
}


def _date(rng: Random, first_year: int, last_year: int) -> dt.date:
    start = dt.date(first_year, 1, 1).toordinal()
    return dt.date.fromordinal(rng.randint(start, dt.date(last_year, 12, 31).toordinal()))


def _maybe(rng: Random, value, p_null: float):
    return None if rng.random() < p_null else value


def _person(rng: Random) -> tuple[str, str]:
    # Small name pools: duplicate full names happen in every table of people.
    return rng.choice(_FIRST), rng.choice(_LAST)


def _shop(rng: Random) -> dict[str, list[tuple]]:
    suppliers = [
        (i, name, _maybe(rng, country, 0.15), _maybe(rng, rng.choice([3.5, 4.0, 4.5, 4.5]), 0.2))
        for i, (name, country) in enumerate(
            [
                ("Acme", "USA"),
                ("Globex", "Germany"),
                ("Initech", "USA"),
                ("Umbrella", "Japan"),
                ("Hooli", "Italy"),
                ("Vandelay", "France"),
                ("Acme", "Portugal"),
                ("Soylent", "USA"),
            ],
            1,
        )
    ]
    customers = []
    for i in range(1, 41):
        first, last = _person(rng)
        city = rng.choice(_CITIES)
        country = _COUNTRIES.get(city) or rng.choice(list(_COUNTRIES.values()))
        email = _maybe(rng, f"{first}.{last}{i}@example.com".lower(), 0.15)
        referred = None if i < 4 or rng.random() < 0.6 else rng.randint(1, i - 1)
        customers.append(
            (i, f"{first} {last}", email, city, country, _date(rng, 2019, 2024), rng.random() < 0.2, referred)
        )
    customers[-1] = customers[-1][:-1] + (999,)  # referred by a deleted account
    categories = ["books", "games", "garden", "kitchen", "music", "toys"]
    prices = [Decimal(p) for p in ("4.99", "9.99", "9.99", "19.99", "24.50", "24.50", "49.00", "120.00")]
    products = []
    for i in range(1, 31):
        supplier = rng.choice([1, 2, 3, 4, 5, 6, 7, 8, None])
        products.append(
            (
                i,
                f"{rng.choice(['Classic', 'Deluxe', 'Mini', 'Smart'])} {rng.choice(['Lamp', 'Mug', 'Kit', 'Set', 'Box'])}",
                rng.choice(categories),
                rng.choice(prices),
                _maybe(rng, round(rng.uniform(0.1, 5), 1), 0.15),
                rng.random() < 0.75,
                supplier,
            )
        )
    products[5] = products[5][:-1] + (42,)  # a supplier that no longer exists
    statuses = ["pending", "shipped", "delivered", "delivered", "cancelled", "returned"]
    orders, items = [], []
    buyers = list(range(1, 36)) + [77, 88]  # customers 36-40 never order; 77, 88 were deleted
    for i in range(1, 81):
        status = rng.choice(statuses)
        day = _date(rng, 2021, 2024)
        shipped = None if status in ("pending", "cancelled") else day + dt.timedelta(days=rng.randint(0, 9))
        orders.append(
            (
                i,
                None if i % 29 == 0 else rng.choice(buyers),
                day,
                status,
                shipped,
                _maybe(rng, rng.choice([0.0, 0.05, 0.1]), 0.4),
            )
        )
        # 27-30 are never ordered; 31, 32 are withdrawn products (dangling keys)
        for product in rng.sample([*range(1, 27), 31, 32], rng.randint(1, 4)):
            price = products[product - 1][3] if product <= 30 else Decimal("15.00")
            items.append((i, product, rng.randint(1, 5), price))
    reviews = []
    for i in range(1, 51):
        reviews.append(
            (
                i,
                rng.randint(1, 30),
                _maybe(rng, rng.randint(1, 40), 0.15),
                rng.randint(1, 5),
                _date(rng, 2021, 2024),
                _maybe(rng, rng.choice(["great", "ok", "broken on arrival", "would buy again"]), 0.3),
            )
        )
    return {
        "suppliers": suppliers,
        "customers": customers,
        "products": products,
        "orders": orders,
        "order_items": items,
        "reviews": reviews,
    }


def _university(rng: Random) -> dict[str, list[tuple]]:
    departments = [
        (1, "Computer Science", "Turing Hall", Decimal("900000.00")),
        (2, "Mathematics", "Noether Hall", Decimal("500000.00")),
        (3, "Physics", "Curie Hall", Decimal("750000.00")),
        (4, "History", None, Decimal("300000.00")),
        (5, "Biology", "Darwin Hall", Decimal("750000.00")),
        (6, "Philosophy", "Noether Hall", None),
        (7, "Music", "Bach Hall", Decimal("150000.00")),
    ]  # Music: no students
    instructors = []
    for i in range(1, 21):
        first, last = _person(rng)
        dept = 12 if i == 20 else rng.choice([1, 1, 2, 3, 4, 5, 6, None])
        instructors.append(
            (
                i,
                f"{first} {last}",
                dept,
                _maybe(rng, Decimal(rng.choice([65000, 72000, 72000, 80000, 95000])), 0.1),
                _date(rng, 1995, 2023),
                rng.random() < 0.5,
            )
        )
    students = []
    for i in range(1, 61):
        first, last = _person(rng)
        dept = 9 if i in (13, 47) else rng.choice([1, 1, 2, 2, 3, 4, 5, 6, None])
        advisor = 50 if i == 30 else _maybe(rng, rng.randint(1, 20), 0.25)
        birth = _maybe(rng, _date(rng, 1996, 2006), 0.1)
        students.append(
            (
                i,
                f"{first} {last}",
                dept,
                advisor,
                rng.randint(2018, 2024),
                _maybe(rng, round(rng.choice([2.0, 2.5, 3.0, 3.0, 3.5, 3.7, 4.0]) + rng.choice([0, 0, 0.1]), 1), 0.15),
                birth,
                rng.random() < 0.3,
            )
        )
    subjects = {1: "CS", 2: "MATH", 3: "PHYS", 4: "HIST", 5: "BIO", 6: "PHIL"}
    titles = ["Introduction", "Foundations", "Methods", "Advanced Topics", "Seminar"]
    courses = []
    for i in range(1, 26):
        dept = 11 if i == 25 else None if i == 13 else rng.choice(list(subjects))  # 11: closed
        level = 100 * (1 + (i - 1) % 4)
        prereq = None if level == 100 or rng.random() < 0.2 else rng.randint(max(1, i - 6), i - 1)
        courses.append(
            (
                i,
                f"{subjects.get(dept, 'X')}{level + i}",
                f"{rng.choice(titles)} {i}",
                dept,
                rng.choice([3, 3, 4, 6]),
                _maybe(rng, rng.randint(1, 20), 0.15),
                prereq,
            )
        )
    courses[23] = courses[23][:-1] + (99,)  # prerequisite that was retired
    terms = [
        ("Fall 2021", dt.date(2021, 9, 1)),
        ("Spring 2022", dt.date(2022, 1, 15)),
        ("Fall 2022", dt.date(2022, 9, 1)),
        ("Spring 2023", dt.date(2023, 1, 15)),
        ("Fall 2023", dt.date(2023, 9, 1)),
        ("Spring 2024", dt.date(2024, 1, 15)),
    ]
    grades = {"A": 93.0, "B": 85.0, "C": 75.0, "D": 65.0, "F": 40.0}
    enrollments, seen = [], set()
    while len(enrollments) < 160:
        student = rng.choice(list(range(1, 56)) + [61, 64])  # 56-60 never enrol; 61, 64 left
        course = rng.choice(list(range(1, 25)) + [30])  # 25 has no enrolments; 30 was dropped
        term, start = rng.choice(terms)
        if (student, course, term) in seen:
            continue
        seen.add((student, course, term))
        grade = _maybe(rng, rng.choice("AABBBCCDF"), 0.15)
        score = None if grade is None else grades[grade] + rng.choice([0.0, 0.0, 2.5, -2.5])
        enrollments.append((student, course, term, start + dt.timedelta(days=rng.randint(-20, 5)), grade, score))
    return {
        "departments": departments,
        "instructors": instructors,
        "students": students,
        "courses": courses,
        "enrollments": enrollments,
    }


def _company(rng: Random) -> dict[str, list[tuple]]:
    departments = [
        (1, "Engineering", "Berlin", Decimal("2000000.00")),
        (2, "Sales", "Austin", Decimal("800000.00")),
        (3, "Marketing", "Austin", Decimal("800000.00")),
        (4, "Finance", None, Decimal("500000.00")),
        (5, "Research", "Osaka", None),
        (6, "Legal", "Lyon", Decimal("250000.00")),
    ]  # Legal: nobody
    titles = {0: "CEO", 1: "Director", 2: "Manager", 3: "Engineer", 4: "Analyst"}
    salaries = {
        0: [250000],
        1: [150000, 160000, 160000],
        2: [110000, 120000, 120000],
        3: [70000, 80000, 85000, 85000, 95000],
        4: [55000, 60000, 60000, 70000],
    }
    employees, level_of = [], {}
    for i in range(1, 51):
        level = 0 if i == 1 else 1 if i <= 5 else 2 if i <= 14 else rng.choice([3, 3, 4])
        manager = None if level == 0 else rng.choice([e for e, lv in level_of.items() if lv == level - 1] or [1])
        level_of[i] = level
        first, last = _person(rng)
        dept = rng.choice([1, 1, 1, 2, 3, 4, 5]) if level else None
        employees.append(
            (
                i,
                first,
                last,
                _maybe(rng, f"{first[0]}{last}{i}@corp.example".lower(), 0.1),
                dept,
                manager,
                titles[level],
                Decimal(rng.choice(salaries[level])),
                _maybe(rng, float(rng.choice([1000, 2500, 2500, 5000])), 0.35),
                _date(rng, 2005, 2024),
                rng.random() < 0.3,
            )
        )
    employees[47] = employees[47][:5] + (77,) + employees[47][6:]  # their manager has left
    employees[48] = employees[48][:4] + (9,) + employees[48][5:]  # a department that was closed
    projects = []
    for i in range(1, 16):
        start = _date(rng, 2019, 2024)
        end = _maybe(rng, start + dt.timedelta(days=rng.randint(30, 700)), 0.35)
        projects.append(
            (
                i,
                f"Project {rng.choice(['Apollo', 'Borealis', 'Cobalt', 'Delta', 'Echo'])} {i}",
                8 if i == 15 else _maybe(rng, rng.randint(1, 5), 0.1),
                start,
                end,
                _maybe(rng, Decimal(rng.choice([50000, 120000, 120000, 300000])), 0.2),
            )
        )
    assignments, seen = [], set()
    while len(assignments) < 75:
        employee = rng.choice(list(range(2, 46)) + [60])  # 46-50 are on no project; 60 has left
        project = rng.choice(list(range(1, 15)) + [20])  # 20 was cancelled
        if (employee, project) in seen:
            continue
        seen.add((employee, project))
        assignments.append(
            (
                employee,
                project,
                rng.choice(["lead", "developer", "developer", "reviewer"]),
                _maybe(rng, float(rng.choice([10, 20, 20, 40, 80])), 0.15),
            )
        )
    return {"departments": departments, "employees": employees, "projects": projects, "assignments": assignments}


_GENERATORS: dict[str, Callable[[Random], dict[str, list[tuple]]]] = {
    "shop": _shop,
    "university": _university,
    "company": _company,
}


def fixture_rows(name: str, seed: int = 0) -> dict[str, list[tuple]]:
    """The rows of every table of a built-in fixture, as Python values."""
    if name not in _GENERATORS:
        schema_file(name)  # raises the InputError that lists the known schemas
        raise InputError(f"schema {name!r} has no data generator (known: {', '.join(_GENERATORS)})")
    return _GENERATORS[name](Random(seed))


def populate(con: duckdb.DuckDBPyConnection, name: str, seed: int = 0) -> None:
    """Insert the deterministic rows of fixture ``name``; the tables are created first when
    the connection does not have them yet (``create_tables``)."""
    rows_of = fixture_rows(name, seed)
    existing = {
        r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall()
    }
    if not set(rows_of) <= existing:
        create_tables(con, load_schema(name))
    for table, rows in rows_of.items():
        insert_rows(con, table, rows)


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple], chunk: int = 500) -> None:
    """Multi-row parameterised INSERTs: ~10x faster than executemany on DuckDB."""
    for start in range(0, len(rows), chunk):
        part = rows[start : start + chunk]
        row_marks = "(" + ", ".join("?" * len(part[0])) + ")"
        con.execute(
            f"INSERT INTO {quote(table)} VALUES " + ", ".join([row_marks] * len(part)),
            [value for row in part for value in row],
        )


def fixture_key(name: str, seed: int = 0) -> str:
    digest = hashlib.sha256(f"{load_schema(name).ddl}\0{GENERATOR_VERSION}\0{seed}".encode()).hexdigest()
    return digest[:16]


def write_database(target: Path, build: Callable[[duckdb.DuckDBPyConnection], None]) -> Path:
    """Build a DuckDB file atomically (temp file in the same folder, then os.replace), make
    it read-only and record its content hash beside it (``integrity.cached_intact`` checks
    it before the file is used again); a concurrent writer of the same target is harmless
    (same tables)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        con = duckdb.connect(
            str(temp), config={"autoinstall_known_extensions": False, "autoload_known_extensions": False}
        )
        try:
            build(con)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        os.chmod(temp, 0o444)
        digest = integrity.content_hash(temp)
        os.replace(temp, target)
        integrity.record_hash(target, digest or "")
    finally:
        for leftover in (temp, Path(f"{temp}.wal")):
            if leftover.exists():
                leftover.unlink()
    return target


def materialise(name: str, cache_dir: str | Path, seed: int = 0) -> Path:
    """The fixture's DuckDB file under ``cache_dir``, written once (key: DDL + generator
    version + seed) and reused while its bytes match their recorded hash (else rebuilt,
    with a warning); read-only (0o444)."""
    schema = load_schema(name)
    target = Path(cache_dir) / f"{name}-{fixture_key(name, seed)}.duckdb"
    if integrity.cached_intact(target, "cached base fixture"):
        return target

    def build(con):
        create_tables(con, schema)
        populate(con, name, seed)

    return write_database(target, build)


# ---------------------------------------------------------------------------------------
# tasks
# ---------------------------------------------------------------------------------------


def schema_for(task: Task) -> Schema:
    """The built-in schema named in ``metadata['schema']``, or the schema read from a loaded
    dataset's database (``metadata['database_file']``)."""
    if task.metadata.get("schema"):
        return load_schema(str(task.metadata["schema"]))
    if task.metadata.get("database_file"):
        return _cached_schema_from_database(str(task.metadata["database_file"]))
    raise InputError(
        f"task {task.id}: metadata has neither 'schema' (a built-in fixture: "
        f"{', '.join(SCHEMA_NAMES)}) nor 'database_file' (a DuckDB file)"
    )


@lru_cache(maxsize=64)
def _cached_schema_from_database(path: str) -> Schema:
    return schema_from_database(path)


def fixture_path(task: Task, cache_dir: str | Path) -> Path:
    """The base database of a task: the materialised built-in fixture or the dataset's file."""
    if task.metadata.get("schema"):
        return materialise(str(task.metadata["schema"]), cache_dir, int(task.metadata.get("seed", 0)))
    if task.metadata.get("database_file"):
        path = Path(task.metadata["database_file"])
        if not path.is_file():
            raise InputError(f"task {task.id}: database_file {path} does not exist")
        return path
    raise InputError(f"task {task.id}: metadata has neither 'schema' nor 'database_file'")
