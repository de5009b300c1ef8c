"""The fixture guard: a verifier that writes to its database or reads outside it is caught."""

import hashlib
import os

import duckdb
import pytest

from verifier_audit.domains.sql import guard
from verifier_audit.domains.sql.database import close_all
from verifier_audit.models import Task


@pytest.fixture
def fixture_db(tmp_path):
    # Audits run earlier in this process left DuckDB instances open; in an audit they live in
    # the parent, whose open files the guard discounts (a worker inherits them).
    close_all()
    path = tmp_path / "cache" / "shop.duckdb"
    path.parent.mkdir()
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t AS SELECT range AS id FROM range(10)")
    con.close()
    os.chmod(path, 0o444)
    return path


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_write_is_found_and_undone_and_the_fixture_never_changes(fixture_db, tmp_path, monkeypatch):
    before = digest(fixture_db)
    work = tmp_path / "worker"
    work.mkdir()
    monkeypatch.chdir(work)
    task = Task(
        id="t", domain="sql", prompt="", reference="SELECT 1", database=str(fixture_db), metadata={"databases": ["x"]}
    )
    view = guard.private_view(task, str(work))
    assert view.database != task.database and view.metadata["databases"] == ["x"]
    assert guard.check_and_restore(task, view) == []

    con = duckdb.connect(view.database)  # a careless verifier: read-write, runs the candidate
    con.execute("DROP TABLE t")
    con.close()
    assert guard.check_and_restore(task, view) == [
        "modified_fixture:the DuckDB copy shop.duckdb: lost tables t (restored)"
    ]
    assert duckdb.connect(view.database, read_only=True).execute("SELECT count(*) FROM t").fetchone() == (10,)
    assert guard.check_and_restore(task, view) == []
    assert digest(fixture_db) == before


def test_reading_the_secret_is_found(fixture_db, tmp_path, monkeypatch):
    work = tmp_path / "worker2"
    work.mkdir()
    monkeypatch.chdir(work)
    task = Task(id="t", domain="sql", prompt="", reference="SELECT 1", database=str(fixture_db))
    view = guard.private_view(task, str(work))
    con = duckdb.connect(view.database, read_only=True)
    rows = con.execute(f"SELECT * FROM read_csv('{guard.SECRET_NAME}')").fetchall()
    assert rows
    assert guard.check_and_restore(task, view) == [f"read_outside:{guard.SECRET_NAME}"]
    assert guard.check_and_restore(task, view) == []
