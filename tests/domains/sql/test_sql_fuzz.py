"""The test-suite method: fuzzed databases, distilled per task, on the real shop fixture."""

import os
from pathlib import Path
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.sql import database as db
from verifier_audit.domains.sql import fixtures, fuzz
from verifier_audit.domains.sql.oracle import gold_answer, label_completion, same_answer
from verifier_audit.models import Task

GOLDS = [
    "SELECT name, email FROM customers WHERE is_vip",
    "SELECT category, COUNT(*) FROM products GROUP BY category HAVING COUNT(*) > 2",
    "SELECT id FROM orders WHERE status IN ('cancelled', 'returned')",
    "SELECT name, price FROM products WHERE price > 20 AND in_stock ORDER BY price DESC, id",
    "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.country = 'Germany'",
    "SELECT c.name FROM customers c WHERE c.id NOT IN (SELECT customer_id FROM orders WHERE customer_id IS NOT NULL)",
]
REWRITES = {  # known-equivalent rewrites of GOLDS[i]
    0: "SELECT c.name AS who, c.email FROM customers AS c WHERE c.is_vip = TRUE",
    1: "SELECT category, count(id) AS n FROM products GROUP BY ALL HAVING count(*) >= 3",
    2: "SELECT id FROM orders WHERE status = 'returned' OR status = 'cancelled'",
    3: "SELECT name, price FROM products WHERE in_stock AND 20 < price ORDER BY price DESC, id ASC",
    4: "SELECT o.id, c.name FROM customers c, orders o WHERE o.customer_id = c.id AND c.country = 'Germany'",
}


def _tasks():
    return [
        Task(id=f"fz-{i}", domain="sql", prompt="?", reference=g, metadata={"schema": "shop"})
        for i, g in enumerate(GOLDS)
    ]


@pytest.fixture(scope="module")
def distilled(tmp_path_factory):
    cache = tmp_path_factory.mktemp("fuzz-cache")
    tasks = fuzz.distil_all(_tasks(), seed=7, cache_dir=cache, workers=1)
    yield cache, tasks
    db.close_all()


def _separated(sql, gold, databases):
    for path in databases:
        result = db.run_query(path, sql)
        if not result.ok or not same_answer(gold_answer(gold, path), result):
            return True
    return False


def test_tasks_get_their_base_database_and_a_few_fuzzed_ones(distilled):
    cache, tasks = distilled
    assert [t.id for t in tasks] == [t.id for t in _tasks()]
    for t in tasks:
        assert Path(t.database).is_file()
        assert 1 <= len(t.metadata["databases"]) <= 7, t.metadata["databases"]
        for path in t.metadata["databases"]:
            assert Path(path).is_file() and not os.access(path, os.W_OK) or os.geteuid() == 0
            assert gold_answer(t.reference, path).usable
    assert _tasks()[0].database is None and "databases" not in _tasks()[0].metadata  # inputs untouched


def test_every_neighbour_a_pool_database_separates_is_separated_by_the_distilled_set(tmp_path, monkeypatch):
    monkeypatch.setattr(fuzz.distil, "STALE_STOP", 10_000)  # visit the whole pool: the guarantee is exact
    tasks = fuzz.distil_all(_tasks()[:4], seed=3, cache_dir=tmp_path, workers=1)
    pool_dirs = list((tmp_path / "fuzz" / "pool").iterdir())
    pool = sorted(p for d in pool_dirs for p in d.glob("pool-*.duckdb"))
    assert len(pool) == fuzz.POOL_SIZE
    for t in tasks:
        suite = [t.database] + t.metadata["databases"]
        for sql in fuzz.neighbours(t):
            if _separated(sql, t.reference, [t.database] + pool):
                assert _separated(sql, t.reference, suite), (t.reference, sql)


def test_each_kept_database_earns_its_place(distilled):
    _, tasks = distilled
    for t in tasks:
        kept = t.metadata["databases"]
        # Either it separates a neighbour the base and earlier ones did not, or it is a
        # top-up where the gold's answer is non-empty and differs from the base answer.
        remaining = [m for m in fuzz.neighbours(t) if not _separated(m, t.reference, [t.database])]
        for path in kept:
            still = [m for m in remaining if not _separated(m, t.reference, [path])]
            if len(still) < len(remaining):
                remaining = still
                continue
            answer, base = gold_answer(t.reference, path), gold_answer(t.reference, t.database)
            assert answer.result.rows and not same_answer(base, answer.result)


@pytest.mark.parametrize("index", sorted(REWRITES))
def test_a_known_equivalent_rewrite_agrees_on_every_database(distilled, index):
    _, tasks = distilled
    t = tasks[index]
    assert not _separated(REWRITES[index], t.reference, [t.database] + t.metadata["databases"])
    assert label_completion(REWRITES[index], t).label == "correct"


def test_a_hard_coded_base_answer_is_caught(distilled):
    _, tasks = distilled
    t = tasks[2]
    ids = [r[0] for r in gold_answer(t.reference, t.database).result.rows]
    hard_coded = "SELECT * FROM (VALUES " + ", ".join(f"({i})" for i in ids) + ") v(id)"
    assert label_completion(hard_coded, t.model_copy(update={"metadata": {}})).label == "correct"
    assert label_completion(hard_coded, t).label == "incorrect"


def test_same_seed_same_databases(distilled, tmp_path):
    cache, tasks = distilled
    again = fuzz.distil_all(_tasks(), seed=7, cache_dir=tmp_path, workers=1)
    for a, b in zip(tasks, again):
        rel_a = [os.path.relpath(p, cache) for p in a.metadata["databases"]]
        rel_b = [os.path.relpath(p, tmp_path) for p in b.metadata["databases"]]
        assert rel_a == rel_b
        for pa, pb in zip(a.metadata["databases"], b.metadata["databases"]):
            assert _contents(pa) == _contents(pb)


def _contents(path):
    schema = fixtures.load_schema("shop")
    return {t.name: db.run_query(path, f'SELECT * FROM "{t.name}" ORDER BY ALL').rows for t in schema.tables}


def _files(folder):
    return {p: (p.stat().st_mtime_ns, p.stat().st_ino, p.stat().st_size) for p in folder.rglob("*") if p.is_file()}


def test_warm_cache_does_no_work_and_is_identical(distilled):
    # Near-instant by what it does, not by the clock: a warm run builds, distils and
    # writes nothing (every file of the cache as it was, none added).
    cache, tasks = distilled
    before = _files(cache)
    again = fuzz.distil_all(_tasks(), seed=7, cache_dir=cache, workers=1)
    assert _files(cache) == before
    assert [t.metadata["databases"] for t in again] == [t.metadata["databases"] for t in tasks]


def test_another_seed_other_databases(distilled, tmp_path):
    _, tasks = distilled
    other = fuzz.distil_all(_tasks()[:1], seed=8, cache_dir=tmp_path, workers=1)
    assert _contents(other[0].metadata["databases"][0]) != _contents(tasks[0].metadata["databases"][0])


def test_constants_are_collected_with_their_columns():
    c = fuzz.collect_constants(
        [
            "SELECT * FROM t WHERE price > 20 AND name LIKE 'Sm%' "
            "AND day >= DATE '2024-01-31' AND EXTRACT(year FROM d) = 2023 "
            "GROUP BY x HAVING COUNT(*) > 5 ORDER BY 1 LIMIT 7"
        ]
    )
    assert {19, 20, 21} <= set(c.by_column["price"])
    assert "Smx" in c.by_column["name"] and "SM" in c.by_column["name"]
    import datetime as dt

    assert {dt.date(2024, 1, 30), dt.date(2024, 1, 31), dt.date(2024, 2, 1)} <= set(c.by_column["day"])
    assert 2023 in c.by_column["d"]
    assert {4, 5, 6} <= set(c.loose) and c.max_limit == 7


def test_pool_databases_carry_the_golds_constants(distilled):
    cache, tasks = distilled
    pool = sorted((cache / "fuzz" / "pool").glob("*/pool-*.duckdb"))
    statuses = set()
    for path in pool:
        statuses |= {r[0] for r in db.run_query(path, "SELECT DISTINCT status FROM orders").rows}
    assert {"cancelled", "returned"} <= statuses


def test_simple_mutants_parse_and_differ():
    gold = "SELECT DISTINCT name FROM t WHERE a > 3 ORDER BY name"
    found = fuzz.simple_mutants(gold)
    assert found and all(m != gold for m in found)
    assert any(">=" in m for m in found) and any("4" in m for m in found) and any("DESC" in m for m in found)
    assert any("DISTINCT" not in m for m in found)


SHOP = fixtures.load_schema("shop")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), index=st.integers(0, 11))
def test_generated_rows_respect_keys_and_nulls(seed, index):
    rng = Random(seed)
    constants = fuzz.collect_constants(GOLDS)
    profile = fuzz.profile_for(index, rng, constants)
    rows = fuzz.generate_rows(SHOP, constants, {}, profile, rng)
    for table in SHOP.tables:
        key = [i for i, c in enumerate(table.columns) if c.primary_key]
        keys = [tuple(r[i] for i in key) for r in rows[table.name]]
        assert len(keys) == len(set(keys)), table.name
        for i, column in enumerate(table.columns):
            values = [r[i] for r in rows[table.name]]
            if not column.nullable:
                assert None not in values, (table.name, column.name)
            if column.references and profile.p_dangling == 0:
                parents = {
                    r[[c.name for c in SHOP.table(column.references[0]).columns].index(column.references[1])]
                    for r in rows[column.references[0]]
                }
                assert all(v is None or v in parents for v in values), (table.name, column.name)
    assert profile.max_rows >= constants.max_limit or profile.domain is None
