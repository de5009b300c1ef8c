"""SQL oracle speed and the distilled-database count of the built-in SQL suite.

1. Executions per second of small queries on one reused hardened connection, one core
   (the statement gate included; a candidate is gated once and run on every database,
   so query texts repeat, as they do in an audit). Target: >= 1,000/s.
2. Oracle labels per second on the built-in suite (extract, gate, every database of the
   task, comparison), gold answers warm.
3. Distillation of the built-in suite: cold cache (pool built, every task distilled)
   with ``--workers`` processes, then warm; the distribution of fuzzed databases per task.

    python benchmarks/bench_sql_oracle.py [--workers 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

from verifier_audit.domains.sql import database, fuzz  # noqa: E402
from verifier_audit.domains.sql.oracle import label_completion  # noqa: E402

QUERIES = [
    "SELECT name FROM items WHERE id < 5",
    "SELECT count(*) FROM items",
    "SELECT kind, count(*) FROM items GROUP BY kind",
    "SELECT name, price FROM items ORDER BY price DESC, id LIMIT 3",
    "SELECT max(price) - min(price) FROM items WHERE kind = 'b'",
    "SELECT DISTINCT kind FROM items",
    "SELECT a.name FROM items a JOIN items b ON a.id = b.id + 1 WHERE b.price > 2",
    "SELECT id FROM items WHERE name LIKE 'n1%'",
]


def bench_queries(folder: pathlib.Path, n: int = 5000) -> float:
    path = folder / "bench.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR, kind VARCHAR, price DOUBLE)")
    con.execute("INSERT INTO items SELECT i, 'n' || i, ['a', 'b', 'c'][i % 3 + 1], i * 0.5 FROM range(40) t(i)")
    con.close()
    for q in QUERIES:  # warm: open the connection, gate every text once
        assert database.run_query(path, q).ok, q
    rates = []
    for _ in range(3):
        start = time.perf_counter()
        for i in range(n):
            database.run_query(path, QUERIES[i % len(QUERIES)])
        rates.append(n / (time.perf_counter() - start))
    return statistics.median(rates)


def bench_labels(tasks) -> tuple[float, int]:
    texts = [(f"```sql\n{t.reference}\n```", t) for t in tasks]
    for text, t in texts:  # gold answers warm
        label_completion(text, t)
    start = time.perf_counter()
    executions = 0
    for text, t in texts:
        label_completion(text, t)
        executions += 1 + len(t.metadata["databases"])
    seconds = time.perf_counter() - start
    return len(texts) / seconds, int(executions / seconds)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        print(f"hardened connection, one core: {bench_queries(tmp):,.0f} small queries/s (target >= 1,000)")

        from verifier_audit.suites import load_suite

        try:
            tasks = load_suite("sql").tasks
        except Exception as exc:  # noqa: BLE001 - the suite is another part's work
            print(f"built-in SQL suite not available: {exc}")
            return
        cache = tmp / "cache"
        start = time.perf_counter()
        distilled = fuzz.distil_all(tasks, args.seed, cache, workers=args.workers)
        cold = time.perf_counter() - start
        start = time.perf_counter()
        fuzz.distil_all(tasks, args.seed, cache, workers=args.workers)
        warm = time.perf_counter() - start
        counts = [len(t.metadata["databases"]) for t in distilled]
        print(f"distillation of {len(tasks)} tasks: cold {cold:.1f} s ({args.workers} workers), warm {warm:.2f} s")
        print(
            "fuzzed databases per task: "
            + ", ".join(f"{k}: {v} tasks" for k, v in fuzz.distribution(distilled).items())
            + f" (mean {statistics.mean(counts):.2f}, pool {fuzz.POOL_SIZE} per schema)"
        )
        labels, executions = bench_labels(distilled)
        print(
            f"oracle on the suite, one core: {labels:,.0f} labels/s ({executions:,} query executions/s, "
            f"base + fuzzed databases, gold answers cached)"
        )
        database.close_all()


if __name__ == "__main__":
    main()
