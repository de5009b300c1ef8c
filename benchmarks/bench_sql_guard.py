"""Per-call cost of the SQL fixture guard (``guard.check_and_restore``) on the built-in SQL
suite: what every verifier call pays after it returns, with nothing changed (the common
case: the task's DuckDB copy and distilled databases checked, the work directory scanned,
the open files listed, the secret's watch drained).

Every task of the suite is viewed once in one work directory (as one worker sees them),
then each task's check runs ``--repeat`` times, twice over:

* steady state: signatures trusted (files older than ``integrity.CTIME_MARGIN_NS``), so a
  check hashes nothing that did not move;
* every file hashed on every check (what a freshly restored file costs until its signature
  is trusted): the margin set beyond any file's age.

Prints the median, 95th percentile and mean per call, and the bytes a full check hashes.

    python benchmarks/bench_sql_guard.py [--repeat 20] [--seed 0]
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

from verifier_audit.domains.sql import DOMAIN, guard, integrity  # noqa: E402
from verifier_audit.engine.audit import default_cache_dir  # noqa: E402
from verifier_audit.suites import load_suite  # noqa: E402


def _time(views, repeat: int) -> list[float]:
    times = []
    for task, view in views:
        for _ in range(repeat):
            start = time.perf_counter()
            found = guard.check_and_restore(task, view)
            times.append(time.perf_counter() - start)
            assert found == [], found
    return sorted(times)


def _report(what: str, times: list[float]) -> None:
    print(
        f"  {what}: median {1000 * statistics.median(times):.3f} ms, "
        f"p95 {1000 * times[int(0.95 * len(times))]:.3f} ms, mean {1000 * statistics.mean(times):.3f} ms per call"
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=20, help="checks per task (default 20)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    suite = load_suite("sql")
    tasks = DOMAIN.prepare_tasks(suite.tasks, args.seed, default_cache_dir())
    work = tempfile.mkdtemp(prefix="va-bench-guard-")
    os.chdir(work)
    views = [(t, guard.private_view(t, work)) for t in tasks]
    time.sleep(integrity.CTIME_MARGIN_NS / 1e9 + 0.1)  # the copies' signatures become trustworthy
    for task, view in views:
        assert guard.check_and_restore(task, view) == [], task.id  # first check: baselines
    sizes = [
        sum(os.path.getsize(p) for p in [view.database, *task.metadata.get("databases", [])]) for task, view in views
    ]
    print(f"{len(tasks)} tasks x {args.repeat} checks, nothing changed:")
    _report("steady state (signatures trusted)", _time(views, args.repeat))
    integrity.CTIME_MARGIN_NS = 10**18  # no signature trusted: every file hashed on every check
    _report("every file hashed", _time(views, args.repeat))
    print(
        f"  bytes a full check hashes: median {statistics.median(sizes) / 1e6:.2f} MB, "
        f"max {max(sizes) / 1e6:.2f} MB (the DuckDB copy + the task's distilled databases)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
