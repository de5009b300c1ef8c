"""Fixture integrity for every database a SQL verifier touches: the DuckDB copy, the SQLite
copy of a Spider-format task, the dataset's own SQLite file, and databases a scorer derives
in its work directory; blind spots are reported unobserved, never checked."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier_audit.domains.sql import guard, integrity
from verifier_audit.domains.sql.database import close_all
from verifier_audit.domains.sql.loaders import load_spider
from verifier_audit.report.checklist import evaluate

ROOT = Path(__file__).resolve().parents[3]
SCORERS = ROOT / "tests" / "fixtures" / "sqlite_scorers.py"
SHOP = """
CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE product (id INTEGER PRIMARY KEY, title TEXT, price REAL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id),
  product_id INTEGER REFERENCES product(id), quantity INTEGER);
INSERT INTO customer VALUES (1, 'Ann', 'Oslo'), (2, 'Bob', 'Rome'), (3, 'Cy', 'Oslo'), (4, 'Di', NULL);
INSERT INTO product VALUES (1, 'pen', 1.5), (2, 'ink', 4.0), (3, 'pad', 2.25);
INSERT INTO orders VALUES (1, 1, 1, 3), (2, 1, 2, 1), (3, 2, 3, 5), (4, 3, 1, 2), (5, 3, 3, 1);
"""
TABLES = ("customer", "orders", "product")


@pytest.fixture
def dataset(tmp_path):
    db_dir = tmp_path / "database"
    (db_dir / "shop").mkdir(parents=True)
    con = sqlite3.connect(db_dir / "shop" / "shop.sqlite")
    con.executescript(SHOP)
    con.commit()
    con.close()
    entries = [
        {
            "db_id": "shop",
            "question": "How many customers live in Oslo?",
            "query": "SELECT count(*) FROM customer WHERE city = 'Oslo'",
        },
        {
            "db_id": "shop",
            "question": "Titles of products ordered by Ann.",
            "query": "SELECT DISTINCT p.title FROM orders o JOIN product p ON o.product_id = p.id "
            "JOIN customer c ON o.customer_id = c.id WHERE c.name = 'Ann'",
        },
    ]
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(entries))
    return path, db_dir, tmp_path / "cache"


def sha(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture
def viewed(dataset, tmp_path, monkeypatch):
    """(task, view, workdir) as a worker hands them to a verifier."""
    path, db_dir, cache = dataset
    task = load_spider(path, db_dir, cache)[0]
    task = task.model_copy(update={"database": task.metadata["database_file"]})
    # The loader's gold check leaves DuckDB instances open in this process; in an audit they
    # live in the parent, whose open files the guard discounts (a worker inherits them).
    close_all()
    work = tmp_path / "worker"
    work.mkdir()
    monkeypatch.chdir(work)
    view = guard.private_view(task, str(work))
    assert guard.check_and_restore(task, view) == []
    return task, view, work


# ------------------------------------------------------------------- what is handed out


def test_the_view_hands_out_private_copies_where_spider_graders_look(viewed, dataset):
    task, view, work = viewed
    _, db_dir, _ = dataset
    meta = view.metadata
    assert Path(meta["sqlite_file"]) == Path(meta["db_dir"]) / "shop" / "shop.sqlite"
    assert Path(meta["sqlite_file"]).is_relative_to(work) and Path(view.database).is_relative_to(work)
    assert meta["database_file"] == view.database != task.database
    assert "sqlite_source" not in meta  # the dataset's own file is watched, not handed out
    assert sha(meta["sqlite_file"]) == sha(db_dir / "shop" / "shop.sqlite")
    # The cache's pristine copies are read-only and never the ones handed out.
    assert os.stat(task.metadata["sqlite_file"]).st_mode & 0o777 == 0o444


def test_drop_table_through_a_sqlite_scorer_is_named_and_undone_in_place(viewed):
    task, view, _ = viewed
    copy = Path(view.metadata["sqlite_file"])
    inode = copy.stat().st_ino
    cached = sqlite3.connect(copy, isolation_level=None)  # a scorer that keeps its connection
    cached.executescript("DROP TABLE customer; DROP TABLE orders; SELECT 1;")
    found = guard.check_and_restore(task, view)
    assert found == ["modified_fixture:the SQLite copy shop.sqlite: lost tables customer, orders (restored)"]
    assert copy.stat().st_ino == inode and sha(copy) == sha(task.metadata["sqlite_file"])
    # The kept connection sees the restored database: the next candidate is judged on it.
    assert cached.execute("SELECT count(*) FROM customer").fetchone() == (4,)
    cached.close()
    assert guard.check_and_restore(task, view) == []


@pytest.mark.parametrize("margin", [integrity.CTIME_MARGIN_NS, -1], ids=["fresh-copy-hashed", "signature-trusted"])
def test_a_same_size_write_with_the_mtime_put_back_is_caught(viewed, monkeypatch, margin):
    task, view, _ = viewed
    copy = Path(view.metadata["sqlite_file"])
    # -1: the signature is trusted at once, so only the moved ctime can reveal the write.
    monkeypatch.setattr(integrity, "CTIME_MARGIN_NS", margin)
    hashed = []
    real_hash = integrity.content_hash
    monkeypatch.setattr(integrity, "content_hash", lambda p: hashed.append(Path(p).name) or real_hash(p))
    assert guard.check_and_restore(task, view) == []
    hashed.clear()
    assert guard.check_and_restore(task, view) == []
    assert ("shop.sqlite" in hashed) == (margin >= 0)  # a trusted signature skips the hash
    before = copy.stat()
    con = sqlite3.connect(copy)
    con.execute("UPDATE customer SET name = 'Zed' WHERE id = 2")  # 'Bob' -> 'Zed': same length
    con.commit()
    con.close()
    os.utime(copy, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = copy.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert guard.check_and_restore(task, view) == [
        "modified_fixture:the SQLite copy shop.sqlite: changed customer (restored)"
    ]


def test_writes_left_in_a_write_ahead_log_are_caught(viewed):
    task, view, _ = viewed
    copy = Path(view.metadata["sqlite_file"])
    held = sqlite3.connect(copy, isolation_level=None)
    held.execute("PRAGMA journal_mode=WAL")
    held.execute("PRAGMA wal_autocheckpoint=0")
    held.execute("DELETE FROM orders")  # committed into shop.sqlite-wal, kept open
    [found] = guard.check_and_restore(task, view)
    assert "the SQLite copy shop.sqlite: changed orders (rows 5 -> 0)" in found and "shop.sqlite-wal" in found
    held.close()  # closing checkpoints the log it still holds into the restored file: caught again
    assert guard.check_and_restore(task, view) == [
        "modified_fixture:the SQLite copy shop.sqlite: changed orders (rows 5 -> 0) (restored)"
    ]
    assert guard.check_and_restore(task, view) == []


def test_the_duckdb_copy_is_still_checked(viewed):
    import duckdb

    task, view, _ = viewed
    con = duckdb.connect(view.database)
    con.execute("DELETE FROM product WHERE id = 1")
    con.close()
    assert guard.check_and_restore(task, view) == [
        "modified_fixture:the DuckDB copy " + Path(task.database).name + ": changed product (rows 3 -> 2) (restored)"
    ]
    assert sha(view.database) == sha(task.database)


def test_the_datasets_own_file_is_checked_and_put_back(viewed, dataset):
    task, view, _ = viewed
    _, db_dir, _ = dataset
    original = db_dir / "shop" / "shop.sqlite"
    before = integrity.tables(original, "sqlite")
    con = sqlite3.connect(original)  # a grader configured with the dataset's own path
    con.execute("DROP TABLE product")
    con.commit()
    con.close()
    [found] = guard.check_and_restore(task, view)
    assert found.startswith("modified_fixture:the dataset's own file ") and found.endswith(
        "lost tables product (restored)"
    )
    # Put back through SQLite's locks (other workers may have it open): same tables and rows.
    assert integrity.tables(original, "sqlite") == before
    assert guard.check_and_restore(task, view) == []


def test_a_dataset_file_changed_since_loading_is_a_blind_spot(dataset, tmp_path, monkeypatch):
    path, db_dir, cache = dataset
    task = load_spider(path, db_dir, cache)[0]
    task = task.model_copy(update={"database": task.metadata["database_file"]})
    close_all()
    with closing(sqlite3.connect(db_dir / "shop" / "shop.sqlite")) as con:
        con.execute("DELETE FROM orders")  # someone else's write, after the suite was loaded
        con.commit()
    work = tmp_path / "worker"
    work.mkdir()
    monkeypatch.chdir(work)
    view = guard.private_view(task, str(work))
    [spot] = guard.check_and_restore(task, view)
    assert spot.startswith(f"unobserved:{(db_dir / 'shop' / 'shop.sqlite').resolve()}: the dataset's own file changed")
    assert guard.check_and_restore(task, view) == []  # reported once; the copies are still checked
    with closing(sqlite3.connect(view.metadata["sqlite_file"])) as con:
        con.execute("DELETE FROM product")
        con.commit()
    assert guard.check_and_restore(task, view) == [
        "modified_fixture:the SQLite copy shop.sqlite: changed product (rows 3 -> 0) (restored)"
    ]


# ------------------------------------------------------------------- derived databases


def test_a_copy_the_scorer_makes_in_its_work_directory_is_checked(viewed):
    task, view, work = viewed
    derived = work / "scratch" / "mine.db"
    derived.parent.mkdir()
    shutil.copy(view.metadata["sqlite_file"], derived)  # the scorer's own copy: intact
    assert guard.check_and_restore(task, view) == []
    con = sqlite3.connect(derived)
    con.execute("DROP TABLE orders")
    con.commit()
    con.close()
    assert guard.check_and_restore(task, view) == [
        "modified_fixture:scratch/mine.db, a copy of shop.sqlite the verifier made in its work directory: "
        "lost tables orders (restored)"
    ]
    with closing(sqlite3.connect(derived)) as con:
        assert con.execute("SELECT count(*) FROM orders").fetchone() == (5,)
    assert guard.check_and_restore(task, view) == []


def test_a_copy_made_and_damaged_in_one_call_is_caught_on_first_sight(viewed):
    task, view, work = viewed
    derived = work / "tmpcopy"  # no database suffix: found by its header
    src = sqlite3.connect(view.metadata["sqlite_file"])
    dst = sqlite3.connect(derived)
    src.backup(dst)
    src.close()
    dst.execute("UPDATE product SET price = 0")
    dst.execute("CREATE TABLE helper (x)")  # the scorer's own table: not damage
    dst.commit()
    dst.close()
    [found] = guard.check_and_restore(task, view)
    assert found == (
        "modified_fixture:tmpcopy, a copy of shop.sqlite the verifier made in its work directory: "
        "changed product; gained tables helper (restored)"
    )
    assert guard.check_and_restore(task, view) == []


def test_a_scorers_own_database_and_open_connections_are_blind_spots(viewed, tmp_path):
    task, view, work = viewed
    own = sqlite3.connect(work / "cache.sqlite")  # holds none of the fixture's tables
    own.execute("CREATE TABLE memo (k, v)")
    own.commit()
    elsewhere = tmp_path / "elsewhere.sqlite"
    held = sqlite3.connect(elsewhere)  # kept open outside the work directory
    held.execute("CREATE TABLE t (x)")
    held.commit()
    held.execute("SELECT * FROM t").fetchall()
    found = guard.check_and_restore(task, view)
    assert sorted(found) == [
        f"unobserved:{elsewhere}: a database the worker holds open that the audit did not hand out",
        "unobserved:cache.sqlite: a database in the work directory that holds none of the fixture's tables; "
        "the audit cannot tell a candidate's writes to it from the verifier's",
    ]
    assert guard.check_and_restore(task, view) == []  # each blind spot reported once per worker
    own.close()
    held.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dropped=st.sets(st.sampled_from(TABLES)), emptied=st.sets(st.sampled_from(TABLES)))
def test_any_damage_is_named_table_by_table_and_undone(viewed, dropped, emptied):
    task, view, _ = viewed
    copy = Path(view.metadata["sqlite_file"])
    con = sqlite3.connect(copy, isolation_level=None)
    for t in sorted(emptied - dropped):
        con.execute(f"DELETE FROM {t}")
    for t in sorted(dropped):
        con.execute(f"DROP TABLE {t}")
    con.close()
    found = guard.check_and_restore(task, view)
    if not dropped and not emptied:
        assert found == []
        return
    [text] = found
    if dropped:
        assert f"lost tables {', '.join(sorted(dropped))}" in text
    for t in sorted(emptied - dropped):
        assert t in text.split("changed", 1)[1]
    assert sha(copy) == sha(task.metadata["sqlite_file"])
    assert guard.check_and_restore(task, view) == []


def test_tables_reading_never_opens_the_file_itself(tmp_path):
    path = tmp_path / "x.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (a)")
    con.execute("INSERT INTO t VALUES (1), (2)")
    con.commit()
    con.close()
    before = sorted(os.listdir(tmp_path)), sha(path)
    assert integrity.tables(path, "sqlite") == {"t": (2, integrity.tables(path, "sqlite")["t"][1])}
    assert (sorted(os.listdir(tmp_path)), sha(path)) == before
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert integrity.content_hash(fifo) is None and integrity.db_format(fifo) is None  # never blocks


# ------------------------------------------------------------------- audits, end to end


@pytest.fixture(scope="module")
def spider_audits(tmp_path_factory):
    """name -> Report: two real SQLite scorers audited on a spider-format suite."""
    from verifier_audit.engine.audit import AuditOptions, prepare
    from verifier_audit.loading import resolve
    from verifier_audit.plan import audit

    base = tmp_path_factory.mktemp("spider")
    db_dir = base / "database"
    (db_dir / "shop").mkdir(parents=True)
    con = sqlite3.connect(db_dir / "shop" / "shop.sqlite")
    con.executescript(SHOP)
    con.commit()
    con.close()
    suite = base / "dev.json"
    suite.write_text(
        json.dumps(
            [
                {
                    "db_id": "shop",
                    "question": "Customers in Oslo?",
                    "query": "SELECT name FROM customer WHERE city = 'Oslo'",
                },
                {"db_id": "shop", "question": "Units ordered?", "query": "SELECT sum(quantity) FROM orders"},
            ]
        )
    )
    cache = base / "cache"
    tasks = load_spider(suite, db_dir, cache / "sql")
    original = sha(db_dir / "shop" / "shop.sqlite")
    options = AuditOptions(
        workers=2, timeout=10, cache_dir=cache, progress=False, probe_sample=0, origins=("known_bad",)
    )
    prepared = prepare("spider-dev", "dev", tasks, options)
    passed = ("VA_TEST_DB_DIR", "VA_TEST_SIDE_DB")  # the scorers' paths, beyond the workers' allow-list
    specs = [resolve(f"{SCORERS}:{name}", pass_env=passed) for name in ("executes_everything", "read_only")]
    # Scorers that write where the user's files are (a side database, the dataset itself)
    # run at the process level: at namespaces those writes fail (tests/security/test_isolation.py),
    # and what is checked here is that the audit sees them where they can happen.
    writers = [
        resolve(f"{SCORERS}:{name}", pass_env=passed)
        for name in ("read_only_with_a_side_database", "executes_on_the_dataset")
    ]
    at_process = dataclasses.replace(options, isolation="process")
    tables = integrity.tables(db_dir / "shop" / "shop.sqlite", "sqlite")
    with pytest.MonkeyPatch.context() as mp:  # the workers inherit the environment
        mp.setenv("VA_TEST_DB_DIR", str(db_dir))
        mp.setenv("VA_TEST_SIDE_DB", str(base / "side.sqlite"))
        reports = {spec.name: r for spec, r in zip(specs, audit(prepared, specs, options))}
        [reports[writers[0].name]] = audit(prepared, [writers[0]], at_process)
        assert sha(db_dir / "shop" / "shop.sqlite") == original  # handed copies only: the dataset untouched
        [reports[writers[1].name]] = audit(prepared, [writers[1]], at_process)
    assert integrity.tables(db_dir / "shop" / "shop.sqlite", "sqlite") == tables  # written, and put back
    return reports


def _fixture_item(report):
    return next(i for i in evaluate(report) if i.key == "fixture_and_reads")


def test_a_sqlite_scorer_that_lets_drop_table_through_is_a_fixture_finding(spider_audits):
    report = spider_audits["executes_everything"]
    found = [f for f in report.security_findings if f.kind == "modified_fixture"]
    assert found, report.security_findings
    drops = [f for f in found if "sql.ddl.drop_table" in f.detail]
    assert drops and all("the SQLite copy shop.sqlite: lost tables" in f.detail for f in drops)
    assert not report.gate.passed and any("security" in r for r in report.gate.reasons)
    item = _fixture_item(report)
    assert item.status == "open" and "lost tables" in item.evidence


def test_a_read_only_sqlite_scorer_keeps_its_fixture_and_the_item_is_checked(spider_audits):
    report = spider_audits["read_only"]
    assert [f for f in report.security_findings if f.kind in ("modified_fixture", "read_outside")] == []
    assert report.checks.unobserved == []
    item = _fixture_item(report)
    assert item.status == "checked", item.evidence
    assert "hashed after every call" in item.evidence


def test_a_grader_configured_with_the_datasets_folder_is_caught_there(spider_audits):
    report = spider_audits["executes_on_the_dataset"]
    drops = [f for f in report.security_findings if f.kind == "modified_fixture" and "sql.ddl.drop_table" in f.detail]
    # Every one names the dataset's own file. What it says changed may differ: two workers'
    # verifiers write that one file, and a check that reads it while the other worker's
    # restore is writing it sees torn bytes ("its tables can no longer be read") or another
    # call's drop -- the label says so. One fresh-clone CI run in five (2026-12-06) failed the
    # stricter assertion (every finding "lost tables"; the log cut the findings short), and a
    # torn read is the one way found for a finding to lack those words: so the tables lost
    # are asked of one finding, the file of every one.
    assert drops and all("the dataset's own file " in f.detail for f in drops)
    assert any("lost tables customer" in f.detail for f in drops)
    assert _fixture_item(report).status == "open"


def test_a_database_the_scorer_keeps_open_elsewhere_is_unknown_not_checked(spider_audits):
    report = spider_audits["read_only_with_a_side_database"]
    assert [f for f in report.security_findings if f.kind == "modified_fixture"] == []
    [spot] = report.checks.unobserved
    assert spot.endswith("side.sqlite: a database the worker holds open that the audit did not hand out")
    item = _fixture_item(report)
    assert (
        item.status == "unknown" and item.evidence.startswith("could not observe 1 database") and spot in item.evidence
    )


def test_a_blind_spot_makes_the_item_unknown_never_checked(spider_audits):
    sound = spider_audits["read_only"]
    spot = "/data/other.sqlite: a database the worker holds open that the audit did not hand out"
    item = _fixture_item(sound.model_copy(update={"checks": sound.checks.model_copy(update={"unobserved": [spot]})}))
    assert (
        item.status == "unknown" and item.evidence.startswith("could not observe 1 database") and spot in item.evidence
    )
    older = sound.model_copy(update={"checks": sound.checks.model_copy(update={"unobserved": None})})
    assert _fixture_item(older).status == "unknown"
