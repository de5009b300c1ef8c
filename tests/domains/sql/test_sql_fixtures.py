"""The built-in SQL fixtures: schemas, deterministic data with the traps queries fall into,
materialised read-only files, introspection."""

import os
import re
import stat

import duckdb
import pytest

from verifier_audit.domains.sql import fixtures
from verifier_audit.domains.sql.fixtures import (
    SCHEMA_NAMES,
    create_tables,
    fixture_path,
    load_schema,
    materialise,
    populate,
    schema_for,
    schema_from_database,
)
from verifier_audit.errors import InputError
from verifier_audit.models import Task


def _memory_db(name, seed=0):
    con = duckdb.connect(":memory:")
    create_tables(con, load_schema(name))
    populate(con, name, seed)
    return con


def _dump(con, name):
    return {t.name: con.execute(f"SELECT * FROM {t.name} ORDER BY ALL").fetchall() for t in load_schema(name).tables}


# ------------------------------------------------------------------------------ schemas


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schema_parses_with_keys_and_varied_types(name):
    schema = load_schema(name)
    assert len(schema.tables) >= 4
    for table in schema.tables:
        assert any(c.primary_key for c in table.columns), table.name
    types = {re.sub(r"\(.*", "", c.type) for t in schema.tables for c in t.columns}
    assert {"INTEGER", "VARCHAR", "DATE", "DECIMAL", "BOOLEAN"} <= types
    references = [c.references for t in schema.tables for c in t.columns if c.references]
    assert len(references) >= 4
    for ref_table, ref_column in references:  # every reference points to a real column
        schema.table(ref_table).column(ref_column)
    # No declared FK constraints: the fixtures keep dangling keys on purpose.
    code = "\n".join(line.split("--")[0] for line in schema.ddl.splitlines())
    assert "REFERENCES" not in code.upper() and "FOREIGN" not in code.upper()


def test_schema_details():
    company = load_schema("company")
    assert company.table("employees").column("manager_id").references == ("employees", "id")
    assert company.table("employees").column("id").primary_key
    assert not company.table("employees").column("id").nullable
    assert company.table("employees").column("salary").type == "DECIMAL(10,2)"
    items = load_schema("shop").table("order_items")
    assert items.column("order_id").primary_key and items.column("product_id").primary_key
    assert not items.column("order_id").unique  # part of a composite key, not unique alone
    assert load_schema("university").table("courses").column("prerequisite_id").references == ("courses", "id")
    # Referenced tables come first.
    names = [t.name for t in load_schema("shop").tables]
    assert names.index("customers") < names.index("orders") < names.index("order_items")


def test_unknown_schema_lists_known_ones():
    with pytest.raises(InputError) as err:
        load_schema("airline")
    for name in SCHEMA_NAMES:
        assert name in str(err.value)


# ------------------------------------------------------------------------------ data


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_populate_is_deterministic(name):
    first, second, other = _memory_db(name, 0), _memory_db(name, 0), _memory_db(name, 1)
    assert _dump(first, name) == _dump(second, name)
    assert _dump(first, name) != _dump(other, name)
    assert fixtures.fixture_rows(name, 3) == fixtures.fixture_rows(name, 3)


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_nullable_column_has_nulls_and_every_table_dozens_of_rows(name):
    con = _memory_db(name)
    for table in load_schema(name).tables:
        assert con.execute(f"SELECT COUNT(*) FROM {table.name}").fetchone()[0] >= 6
        for column in table.columns:
            if column.nullable:
                nulls = con.execute(f"SELECT COUNT(*) FROM {table.name} WHERE {column.name} IS NULL").fetchone()[0]
                assert nulls > 0, f"{table.name}.{column.name} has no NULL"


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_dangling_foreign_keys(name):
    con = _memory_db(name)
    dangling = 0
    for table in load_schema(name).tables:
        for column in table.columns:
            if column.references:
                ref_table, ref_column = column.references
                dangling += (
                    con.execute(
                        f"SELECT COUNT(*) FROM {table.name} t WHERE t.{column.name} IS NOT NULL AND NOT EXISTS "
                        f"(SELECT 1 FROM {ref_table} r WHERE r.{ref_column} = t.{column.name})"
                    ).fetchone()[0]
                    > 0
                )
    assert dangling >= 3


def test_traps_that_separate_wrong_queries():
    shop, uni, company = _memory_db("shop"), _memory_db("university"), _memory_db("company")
    one = lambda con, sql: con.execute(sql).fetchone()[0]  # noqa: E731
    # duplicate names
    assert one(shop, "SELECT COUNT(*) - COUNT(DISTINCT name) FROM customers") > 0
    assert one(uni, "SELECT COUNT(*) - COUNT(DISTINCT name) FROM students") > 0
    assert one(company, "SELECT COUNT(*) - COUNT(DISTINCT first_name || last_name) FROM employees") > 0
    # ties in ordered values
    assert one(shop, "SELECT COUNT(*) - COUNT(DISTINCT price) FROM products") > 0
    assert one(company, "SELECT COUNT(*) - COUNT(DISTINCT salary) FROM employees") > 0
    assert one(uni, "SELECT COUNT(*) FROM students WHERE gpa = (SELECT MAX(gpa) FROM students)") >= 1
    # dates across years
    assert one(shop, "SELECT COUNT(DISTINCT EXTRACT(year FROM order_date)) FROM orders") >= 3
    assert one(company, "SELECT COUNT(DISTINCT EXTRACT(year FROM hire_date)) FROM employees") >= 5
    # a manager hierarchy at least 3 levels deep, with one root
    depth = one(
        company,
        "WITH RECURSIVE l(id, d) AS (SELECT id, 0 FROM employees WHERE manager_id IS NULL "
        "UNION ALL SELECT e.id, l.d + 1 FROM employees e JOIN l ON e.manager_id = l.id) SELECT MAX(d) FROM l",
    )
    assert depth >= 3
    assert one(company, "SELECT COUNT(*) FROM employees WHERE manager_id IS NULL") == 1
    # NOT IN over a column with NULLs differs from NOT EXISTS
    not_in = one(uni, "SELECT COUNT(*) FROM instructors WHERE id NOT IN (SELECT instructor_id FROM courses)")
    not_exists = one(
        uni,
        "SELECT COUNT(*) FROM instructors i WHERE NOT EXISTS (SELECT 1 FROM courses c WHERE c.instructor_id = i.id)",
    )
    assert not_in == 0 < not_exists
    # INNER and LEFT joins differ (dangling keys, rows without a match)
    assert one(shop, "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id") < one(
        shop, "SELECT COUNT(*) FROM orders o LEFT JOIN customers c ON c.id = o.customer_id"
    )


# ------------------------------------------------------------------------------ materialise


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_materialise_is_small_cached_and_read_only(name, tmp_path):
    path = materialise(name, tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    # no temp file or WAL left behind; the content hash recorded beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name, f"{path.name}.sha256"]
    before = (path.stat().st_mtime_ns, path.stat().st_ino)
    again = materialise(name, tmp_path)
    assert again == path and (again.stat().st_mtime_ns, again.stat().st_ino) == before
    con = duckdb.connect(str(path), read_only=True)
    try:
        with pytest.raises(duckdb.Error):
            con.execute("CREATE TABLE intruder (a INTEGER)")
        materialised = {
            t.name: con.execute(f"SELECT * FROM {t.name} ORDER BY ALL").fetchall() for t in load_schema(name).tables
        }
    finally:
        con.close()
    assert materialised == _dump(_memory_db(name), name)
    # Small by rows, not by the clock: every candidate query runs on it (and on its fuzzed
    # copies), and the file is written once per cache.
    assert max(len(rows) for rows in materialised.values()) <= 1000


def test_materialise_key_changes_with_seed(tmp_path):
    assert materialise("shop", tmp_path, seed=0) != materialise("shop", tmp_path, seed=1)


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schema_from_database_recovers_the_schema(name, tmp_path):
    path = materialise(name, tmp_path)
    held = duckdb.connect(str(path), read_only=True, config={"threads": 1})  # another config open meanwhile
    try:
        found = schema_from_database(path)
    finally:
        held.close()
    assert {t.name: t for t in found.tables} == {t.name: t for t in load_schema(name).tables}
    con = duckdb.connect(":memory:")
    con.execute(found.ddl)  # the regenerated DDL runs
    names = [t.name for t in found.tables]
    for table in found.tables:  # dependency order
        for column in table.columns:
            if column.references and column.references[0] != table.name:
                assert names.index(column.references[0]) < names.index(table.name)


def test_schema_from_database_errors(tmp_path):
    with pytest.raises(InputError, match="no such database"):
        schema_from_database(tmp_path / "missing.duckdb")
    junk = tmp_path / "junk.duckdb"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(InputError, match="junk.duckdb"):
        schema_from_database(junk)


def test_schema_for_and_fixture_path(tmp_path):
    builtin = Task(id="t1", domain="sql", prompt="q", reference="SELECT 1", metadata={"schema": "company"})
    assert schema_for(builtin) is load_schema("company")
    path = fixture_path(builtin, tmp_path)
    assert path == materialise("company", tmp_path)
    loaded = Task(id="t2", domain="sql", prompt="q", reference="SELECT 1", metadata={"database_file": str(path)})
    assert fixture_path(loaded, tmp_path / "elsewhere") == path
    assert {t.name for t in schema_for(loaded).tables} == {"departments", "employees", "projects", "assignments"}
    with pytest.raises(InputError, match="t3"):
        schema_for(Task(id="t3", domain="sql", prompt="q", reference="SELECT 1"))
    with pytest.raises(InputError, match="does not exist"):
        fixture_path(
            Task(
                id="t4",
                domain="sql",
                prompt="q",
                reference="SELECT 1",
                metadata={"database_file": str(tmp_path / "nope.duckdb")},
            ),
            tmp_path,
        )


def test_materialise_leaves_no_temp_on_failure(tmp_path, monkeypatch):
    def broken(con, name, seed=0):
        raise RuntimeError("generator failed")

    monkeypatch.setattr(fixtures, "populate", broken)
    with pytest.raises(RuntimeError):
        materialise("shop", tmp_path)
    assert os.listdir(tmp_path) == []
