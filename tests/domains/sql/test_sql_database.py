"""Hardened execution on real DuckDB: every claim in database.py's docstring, tested."""

import hashlib
import multiprocessing as mp
import os
import time

import duckdb
import pytest

from verifier_audit.domains.sql import database as db
from verifier_audit.domains.sql.database import cursor_for, run_query


def _make(path, rows=((1, "a"), (2, "b"), (3, "c"))):
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR)")
    con.executemany("INSERT INTO items VALUES (?, ?)", list(rows))
    con.close()
    return path


def _digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def fixture_db(tmp_path):
    path = _make(tmp_path / "fixture.duckdb")
    yield path
    db.release(tmp_path)


def test_a_query_runs(fixture_db):
    result = run_query(fixture_db, "SELECT id, name FROM items ORDER BY id")
    assert result.ok and result.columns == ["id", "name"]
    assert result.rows == [(1, "a"), (2, "b"), (3, "c")]


def test_the_settings_that_harden_the_connection(fixture_db):
    result = run_query(
        fixture_db,
        "SELECT current_setting('enable_external_access'), "
        "current_setting('lock_configuration'), current_setting('allowed_directories'), "
        "current_setting('autoload_known_extensions'), "
        "current_setting('autoinstall_known_extensions'), current_setting('threads'), "
        "current_setting('access_mode'), current_setting('temp_directory')",
    )
    assert result.rows == [(False, True, [], False, False, db.THREADS, "read_only", "")]


REFUSED = [
    "COPY items TO '/tmp/va-out.csv'",
    "ATTACH '/tmp/va-other.duckdb' AS other",
    "DETACH other",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET threads = 8",
    "RESET threads",
    "PRAGMA version",
    "CALL pragma_version()",
    "EXPORT DATABASE '/tmp/va-export'",
    "CREATE TABLE stolen AS SELECT * FROM items",
    "CREATE TEMP MACRO count_star() AS 7",
    "CREATE TEMP TABLE items AS SELECT 99 AS id, 'fake' AS name",
    "DROP TABLE items",
    "DELETE FROM items",
    "INSERT INTO items VALUES (4, 'd')",
    "UPDATE items SET name = 'x'",
    "ALTER TABLE items ADD COLUMN x INTEGER",
    "SELECT 1; DROP TABLE items",
    "SELECT 1; SELECT 2",
    "SELECT * INTO copy FROM items",
    "EXPLAIN SELECT * FROM items",
    "DESCRIBE items",
    "CHECKPOINT",
    "BEGIN TRANSACTION",
    "",
    "-- just a comment",
]


@pytest.mark.parametrize("sql", REFUSED)
def test_anything_but_one_read_only_query_is_refused_unexecuted(fixture_db, sql):
    before = _digest(fixture_db)
    result = run_query(fixture_db, sql)
    assert not result.ok and result.error.startswith("refused"), result
    assert _digest(fixture_db) == before
    assert run_query(fixture_db, "SELECT count(*) FROM items").rows == [(3,)]


HARDENING_ALONE = [  # sent straight to a cursor, past the statement gate
    ("SELECT * FROM read_csv('/etc/passwd')", "Permission"),
    ("SELECT * FROM read_text('/etc/hostname')", "Permission"),
    ("SELECT * FROM glob('/*')", "Permission"),
    ("SELECT * FROM sniff_csv('/etc/passwd')", "Permission"),
    ("COPY items TO '{dir}/out.csv'", "Permission"),
    ("COPY items TO '{db}.tmp/out.csv'", "Permission"),
    ("EXPORT DATABASE '{dir}/export'", "Permission"),
    ("ATTACH '{dir}/other.duckdb' AS other", ""),
    ("INSTALL httpfs", "Permission"),
    ("LOAD httpfs", ""),
    ("SET threads = 8", "locked"),
    ("SET enable_external_access = true", "locked"),
    ("RESET lock_configuration", "locked"),
    ("SET allowed_directories = ['/']", "locked"),
    ("CREATE TABLE stolen AS SELECT * FROM items", "read-only"),
    ("DROP TABLE items", "read-only"),
    ("DELETE FROM items", "read-only"),
]


@pytest.mark.parametrize("sql,message", HARDENING_ALONE)
def test_the_connection_itself_refuses_what_slips_past_the_gate(fixture_db, tmp_path, sql, message):
    os.makedirs(f"{fixture_db}.tmp", exist_ok=True)  # DuckDB's spill folder: must not be writable
    before = _digest(fixture_db)
    cursor = cursor_for(fixture_db)
    with pytest.raises(duckdb.Error) as caught:
        cursor.execute(sql.format(dir=tmp_path, db=fixture_db)).fetchall()
    cursor.close()
    assert message.lower() in str(caught.value).lower()
    assert _digest(fixture_db) == before
    assert not (tmp_path / "out.csv").exists() and not os.listdir(f"{fixture_db}.tmp")
    assert not (tmp_path / "export").exists() and not (tmp_path / "other.duckdb").exists()


def test_file_reads_fail_through_run_query_by_the_hardening(fixture_db):
    # A SELECT, so the gate lets it through: the connection must refuse the file itself.
    result = run_query(fixture_db, "SELECT * FROM read_csv('/etc/passwd')")
    assert not result.ok and not result.error.startswith("refused")
    assert "Permission" in result.error


def test_temp_macro_and_temp_table_cannot_poison_a_later_query(fixture_db):
    # ANCHORS: a candidate's CREATE TEMP MACRO poisoned a later gold on the same connection.
    hostile = cursor_for(fixture_db)
    hostile.execute("CREATE TEMP MACRO count_star() AS 7")
    hostile.execute("CREATE TEMP MACRO n_items() AS 7")
    hostile.execute("CREATE TEMP TABLE items AS SELECT 99 AS id, 'fake' AS name")
    assert hostile.execute("SELECT n_items()").fetchall() == [(7,)]
    # On its own cursor the attack works: count(*) is rewritten to the macro.
    assert hostile.execute("SELECT count(*) FROM items").fetchall() == [(7,)]
    hostile.close()
    assert run_query(fixture_db, "SELECT count(*) FROM items").rows == [(3,)]
    assert run_query(fixture_db, "SELECT count_star() FROM items").rows == [(3,)]
    assert "n_items" in run_query(fixture_db, "SELECT n_items()").error


def test_a_temp_object_created_while_a_cursor_is_open_stays_there(fixture_db):
    hostile = cursor_for(fixture_db)
    hostile.execute("CREATE TEMP TABLE items AS SELECT 99 AS id, 'fake' AS name")
    assert run_query(fixture_db, "SELECT count(*) FROM items").rows == [(3,)]
    hostile.close()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT count(*) FROM range(100000) a, range(100000) b, range(100000) c",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
        "SELECT count(*) FROM items a, items b, items c, items d, items e, range(1000000000) f",
    ],
)
def test_resource_bombs_stop_at_the_timeout(fixture_db, sql, monkeypatch):
    # Stopped by the first interrupt at the deadline, not by running to an end (these
    # never end): the watchdog's repeats are pushed out of reach (an hour), and the
    # interrupts it sends are counted.
    interrupts = []

    class Counted:
        def __init__(self, cursor):
            self.cursor = cursor

        def interrupt(self):
            interrupts.append(1)
            self.cursor.interrupt()

    dog = db._watchdog()
    arm = dog.arm
    monkeypatch.setattr(db, "REINTERRUPT_EVERY", 3600.0)
    monkeypatch.setattr(dog, "arm", lambda cursor, timeout: arm(Counted(cursor), timeout))
    result = run_query(fixture_db, sql, timeout=0.3)
    assert result.timed_out and "timeout" in result.error
    assert len(interrupts) == 1
    assert run_query(fixture_db, "SELECT count(*) FROM items").rows == [(3,)]  # usable after


def test_a_timeout_does_not_leak_into_the_next_query(fixture_db):
    run_query(fixture_db, "SELECT count(*) FROM range(100000) a, range(100000) b", timeout=0.1)
    time.sleep(0.2)
    for _ in range(50):
        assert run_query(fixture_db, "SELECT count(*) FROM items", timeout=0.1).rows == [(3,)]


def test_too_many_rows_is_an_error(fixture_db):
    result = run_query(fixture_db, "SELECT * FROM range(1000)", max_rows=10)
    assert not result.ok and "too many rows" in result.error
    assert run_query(fixture_db, "SELECT * FROM range(10)", max_rows=10).ok


def test_errors_are_results_not_exceptions(fixture_db, tmp_path):
    assert "no_such_table" in run_query(fixture_db, "SELECT * FROM no_such_table").error
    assert run_query(fixture_db, "SELEC 1").error.startswith("refused: syntax error")
    assert "cannot open" in run_query(tmp_path / "missing.duckdb", "SELECT 1").error
    assert not (tmp_path / "missing.duckdb").exists()


def test_files_of_a_shared_folder_share_one_instance_and_stay_apart(tmp_path):
    folder = tmp_path / "pool"
    folder.mkdir()
    for i in range(3):
        _make(folder / f"db{i}.duckdb", rows=[(j, f"r{i}") for j in range(i + 1)])
    db.mark_shared(folder)
    try:
        for i in range(3):
            result = run_query(folder / f"db{i}.duckdb", "SELECT count(*), min(name), current_database() FROM items")
            assert result.rows == [(i + 1, f"r{i}", f"db{i}")]
        # A file that appears later is picked up (the instance is rebuilt).
        _make(folder / "db3.duckdb", rows=[(1, "late")])
        assert run_query(folder / "db3.duckdb", "SELECT name FROM items").rows == [("late",)]
        assert run_query(folder / "db0.duckdb", "SELECT name FROM items").rows == [("r0",)]
    finally:
        db.release(folder)


def _child(path, queue):
    first = run_query(path, "SELECT count(*) FROM items").rows
    db.close_all()  # must not destroy the parent's instance (SIGSEGV on duckdb 2.0.1)
    again = run_query(path, "SELECT count(*) FROM items").rows
    slow = run_query(path, "SELECT count(*) FROM range(100000) a, range(100000) b", timeout=0.2)
    queue.put((first, again, slow.timed_out))


def test_a_forked_worker_uses_databases_its_parent_opened(fixture_db):
    assert run_query(fixture_db, "SELECT count(*) FROM items").rows == [(3,)]
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(str(fixture_db), queue))
    proc.start()
    proc.join(30)
    assert proc.exitcode == 0
    assert queue.get(timeout=5) == ([(3,)], [(3,)], True)
    assert run_query(fixture_db, "SELECT count(*) FROM items").rows == [(3,)]


def test_the_connection_is_reused(fixture_db, monkeypatch):
    # What makes a query cheap is that it opens nothing: a DuckDB instance costs ~15 ms, a
    # query on a warm one well under a millisecond (queries per second are
    # benchmarks/bench_sql_oracle.py's figure, not a test's).
    run_query(fixture_db, "SELECT name FROM items WHERE id < 3")
    opened = []
    connect = duckdb.connect
    monkeypatch.setattr(duckdb, "connect", lambda *a, **kw: opened.append(a) or connect(*a, **kw))
    for _ in range(300):
        assert run_query(fixture_db, "SELECT name FROM items WHERE id < 3").ok
    assert opened == []
