"""A SQLite scorer's tasks judged in SQLite (issue 33, item 1; ``--dialect``, ``--format bird``).

Six BIRD-layout tasks over two small SQLite databases the fixture builds (tests/fixtures/
sqlite_recheck.py), prepared as an audit prepares them (fuzzing, generators, the oracle's
confirmation), then checked: every label against an independent ``sqlite3`` run on the
original and the fuzzed SQLite files, and one test per false alarm the issue reported.
benchmarks/bench_sqlite_labels.py runs the same check on 60 tasks.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains import get_domain
from verifier_audit.domains.sql.database import run_query
from verifier_audit.domains.sql.dialects import transpiled
from verifier_audit.domains.sql.fixtures import schema_from_database, sql_string
from verifier_audit.domains.sql.fuzz import pool as fuzz_pool
from verifier_audit.domains.sql.oracle import databases_of, label_completion
from verifier_audit.engine.audit import prepare
from verifier_audit.engine.options import AuditOptions
from verifier_audit.errors import InputError
from verifier_audit.suites import load_suite

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from sqlite_recheck import bird_dataset, disputed  # noqa: E402

N_TASKS = 6


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    root = tmp_path_factory.mktemp("bird")
    path = bird_dataset(root, N_TASKS)
    suite = load_suite(str(path), fmt="bird")
    # Near-misses and equivalents: the labels the issue disputed (the catalog's runaway
    # queries cost half a second each; the benchmark rechecks them too).
    options = AuditOptions(cache_dir=root / "cache", workers=1, origins=("near_miss", "equivalent"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fuzz_pool, "POOL_SIZE", 6)  # a third of the pool: the labels are rechecked on what is used
        prepared = prepare(suite.name, suite.content_hash, suite.tasks, options)
    return prepared, {t.id: t for t in prepared.tasks}


def _fenced(sql: str) -> str:
    return f"The query:\n\n```sql\n{sql};\n```"


def test_no_label_is_disputed_by_an_independent_sqlite_recheck(audited):
    prepared, tasks = audited
    assert len(tasks) == N_TASKS and all(t.metadata["dialect"] == "sqlite" for t in tasks.values())
    judged = [databases_of(t) for t in tasks.values()]
    assert all(p.endswith(".sqlite") for paths in judged for p in paths)
    assert sum(len(paths) > 1 for paths in judged) >= N_TASKS // 2  # fuzzed SQLite copies exist
    labelled = [c for c in prepared.candidates if c.label in ("correct", "incorrect")]
    assert len(labelled) > 40
    assert disputed(prepared.tasks, prepared.candidates) == []


def test_count_star_and_count_of_a_not_null_column_are_the_same(audited):
    # Issue 33: the conversion dropped NOT NULL, fuzzing put NULLs there, and COUNT(name)
    # was labelled different from COUNT(*) (29 of 30 count_star_col acceptances false).
    _, tasks = audited
    task = tasks["school-0"]
    assert label_completion(_fenced("SELECT count(name) FROM teacher"), task).label == "correct"
    assert label_completion(_fenced("SELECT count(salary) FROM teacher"), task).label == "incorrect"
    schema = schema_from_database(task.metadata["database_file"])
    teacher, course = schema.table("teacher"), schema.table("course")
    assert not teacher.column("name").nullable and teacher.column("salary").nullable
    assert course.column("title").unique and course.column("tid").references == ("teacher", "tid")
    for path in task.metadata["sqlite_databases"]:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        nulls = con.execute("SELECT count(*) FROM teacher WHERE name IS NULL OR dept IS NULL OR hired IS NULL")
        assert nulls.fetchone() == (0,)
        assert con.execute("SELECT count(title) - count(DISTINCT title) FROM course").fetchone() == (0,)
        con.close()


def test_like_ignores_case_in_sqlite(audited):
    _, tasks = audited
    assert label_completion(_fenced("SELECT name FROM teacher WHERE name LIKE 'B%'"), tasks["school-1"]).label == (
        "correct"
    )


def test_sqlite_casts_a_text_prefix_to_its_number(audited):
    # SQLite reads '2023-' as 2023 where DuckDB raises a conversion error.
    _, tasks = audited
    candidate = "SELECT name FROM teacher WHERE CAST(substr(hired, 1, 5) AS INTEGER) >= 2021"
    assert label_completion(_fenced(candidate), tasks["school-2"]).label == "correct"


def test_no_postgres_substring_is_offered_as_an_equivalent_for_sqlite(audited):
    prepared, _ = audited
    rewrites = [c for c in prepared.candidates if c.task_id == "school-3" and c.origin == "equivalent"]
    assert rewrites and not any(" FOR " in c.text.upper() for c in rewrites)
    # Every near-miss and equivalent is one query SQLite's dialect reads.
    for cand in (c for c in prepared.candidates if c.origin in ("near_miss", "equivalent")):
        sql = cand.text.split("```sql\n")[-1].split("```")[0] if "```" in cand.text else cand.text
        assert len(sqlglot.parse(sql.strip().rstrip(";"), read="sqlite")) == 1, cand.id
    assert transpiled('SELECT SUBSTRING("hired" FROM 1 FOR 4) FROM "teacher"', "sqlite") == (
        'SELECT SUBSTRING("hired", 1, 4) FROM "teacher"'
    )


def test_slow_queries_are_in_the_catalog_and_labelled_wrong(audited):
    # Item 8: queries that run seconds (a minute) in SQLite and then return the gold's rows.
    _, tasks = audited
    slow = [c for c in get_domain("sql").generate(list(tasks.values()), 0) if c.category == "sql.resource.slow_query"]
    assert slow and all(c.label == "incorrect" for c in slow)
    assert any("100000000" in c.text for c in slow) and any("10000000)" in c.text for c in slow)
    verdict = label_completion(slow[0].text, tasks[slow[0].task_id])
    assert verdict.label == "incorrect" and "timeout" in verdict.reason


def test_sqlite_execution_is_read_only_and_bounded(audited):
    _, tasks = audited
    path = tasks["school-0"].metadata["sqlite_file"]
    before = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    for hostile in (
        "DELETE FROM teacher",
        "DROP TABLE teacher",
        "ATTACH DATABASE ':memory:' AS side",
        "PRAGMA writable_schema = 1",
        "SELECT 1; DELETE FROM teacher",
        "CREATE TEMP TABLE t AS SELECT 1",
    ):
        assert not run_query(path, hostile).ok, hostile
    spin = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT max(n) FROM r"
    stopped = run_query(path, spin, timeout=0.2)
    assert stopped.timed_out and not stopped.ok
    assert run_query(path, "SELECT count(*) FROM teacher").rows == [(4,)]
    assert hashlib.sha256(Path(path).read_bytes()).hexdigest() == before


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="0123456789-. abAB%_", max_size=8))
def test_queries_run_with_sqlite_semantics(tmp_path_factory, text):
    path = tmp_path_factory.getbasetemp() / "semantics.sqlite"
    if not path.exists():
        sqlite3.connect(path).close()
    sql = f"SELECT CAST({sql_string(text)} AS INTEGER), {sql_string(text)} LIKE 'A%', {sql_string(text)} + 0"
    con = sqlite3.connect(":memory:")
    assert run_query(path, sql).rows == con.execute(sql).fetchall()
    con.close()


def test_bird_layout_and_dialect_choices(tmp_path):
    path = bird_dataset(tmp_path, 3)
    tasks = load_suite(str(path), fmt="bird").tasks
    assert [t.id for t in tasks] == ["school-0", "school-1", "school-2"]
    assert tasks[2].prompt.endswith("Hint: dates are text 'YYYY-MM-DD'")
    assert tasks[2].metadata["evidence"] == "dates are text 'YYYY-MM-DD'" and tasks[2].metadata["difficulty"]
    duck = load_suite(str(path), fmt="bird", dialect="duckdb").tasks
    assert "dialect" not in duck[0].metadata
    spider = tmp_path / "spider.json"
    spider.write_text('[{"db_id": "school", "question": "q", "query": "SELECT 1"}]')
    with pytest.raises(InputError, match=r"spider.json: entry 0: no 'question_id', 'evidence', 'SQL' field"):
        load_suite(str(spider), fmt="bird")
    with pytest.raises(InputError, match="--dialect sqlite: only for a dataset format"):
        load_suite("sql", dialect="sqlite")


def test_a_deadline_belongs_to_its_own_thread(audited):
    # The thread-safety probe calls verifiers (the strong one runs the oracle) from several
    # threads: one query's deadline must not stop, or spare, another's.
    _, tasks = audited
    path = tasks["school-0"].metadata["sqlite_file"]
    spin = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT max(n) FROM r"
    with ThreadPoolExecutor(4) as pool:
        slow = [pool.submit(run_query, path, spin, timeout=0.3) for _ in range(2)]
        quick = [pool.submit(run_query, path, "SELECT count(*) FROM course", timeout=30.0) for _ in range(2)]
    assert all(f.result().timed_out for f in slow)
    assert all(f.result().rows == [(5,)] for f in quick)


def _open_paths() -> set[str]:
    fds = Path("/proc/self/fd")
    return {os.path.realpath(fds / fd) for fd in os.listdir(fds) if (fds / fd).is_symlink()}


def test_close_all_lets_the_cached_sqlite_connections_go(tmp_path):
    # The auditing process caches one read-only connection per file and thread; close_all
    # (before files are rewritten or removed, and between in-process guard checks) closes
    # them as it closes DuckDB's.
    from verifier_audit.domains.sql import sqlite_run
    from verifier_audit.domains.sql.database import close_all

    path = tmp_path / "one.sqlite"
    made = sqlite3.connect(path)
    made.execute("CREATE TABLE t (x INTEGER NOT NULL)")
    made.close()
    assert str(path) not in _open_paths()
    assert sqlite_run.execute(path, "SELECT count(*) FROM t", timeout=5, max_rows=10)[1] == [(0,)]
    assert str(path) in _open_paths()
    close_all()
    assert str(path) not in _open_paths()
