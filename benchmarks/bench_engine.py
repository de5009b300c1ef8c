"""Engine and oracle speed, measured on the real path. Prints figures; asserts nothing.

    python benchmarks/bench_engine.py [--workers 2]

1. Engine overhead per verdict: a no-op verifier audited on the built-in suite's
   candidates through ``engine.audit.audit`` (worker pool, results store, report), minus
   the cost of calling the same no-op in-process. Target <= 0.5 ms amortised, 2 workers.
2. The default audit (``verifier-audit run``'s work: prepare + 4 reference verifiers):
   wall time, cold (no candidate cache) and warm, and verdicts per second.
3. The oracle: median and p99 latency of ``label_completion`` over every generated
   candidate, in this process.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier_audit.domains import get_domain  # noqa: E402
from verifier_audit.domains.math.oracle import label_completion  # noqa: E402
from verifier_audit.engine.audit import AuditOptions, prepare  # noqa: E402
from verifier_audit.isolation import default_level  # noqa: E402
from verifier_audit.loading import resolve  # noqa: E402
from verifier_audit.plan import audit  # noqa: E402
from verifier_audit.suites import load_suite  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    suite = load_suite("math")
    tmp = Path(tempfile.mkdtemp())

    def options(**kw):
        kw.setdefault("results", tmp / "r.jsonl")
        return AuditOptions(workers=args.workers, progress=False, cache_dir=tmp / "cache", **kw)

    t = time.perf_counter()
    prepared = prepare(suite.name, suite.content_hash, suite.tasks, options())
    cold_prepare = time.perf_counter() - t
    n = len(prepared.candidates)
    print(f"suite: {len(suite.tasks)} tasks, {n} candidates kept, dropped {prepared.dropped_counts}")
    print(f"prepare (generate + oracle labelling), cold: {cold_prepare:.2f} s")

    noop = resolve(str(ROOT / "benchmarks" / "noop.py") + ":accept_all")
    t = time.perf_counter()
    for c in prepared.candidates:
        (lambda completion, reference: True)(c.text, "x")
    direct = time.perf_counter() - t
    # The same audit at each isolation level this machine gives (isolation/_lockdown.py), in
    # this process: the ratio is what the lockdown of each worker costs.
    levels = ["process", "namespaces"] if default_level() == "namespaces" else ["process"]
    overhead = {}
    for level in levels:
        t = time.perf_counter()
        audit(prepared, [noop], options(isolation=level, results=tmp / f"noop-{level}.jsonl"))
        engine = time.perf_counter() - t
        overhead[level] = (engine - direct) / n * 1000
        print(
            f"engine overhead per verdict (no-op verifier, {args.workers} workers, {n} verdicts, isolation {level}): "
            f"{overhead[level]:.3f} ms  [target <= 0.5 ms]  ({n / engine:,.0f} verdicts/s)"
        )
    if len(overhead) == 2:
        print(f"  namespaces / process: {overhead['namespaces'] / overhead['process']:.2f}x")

    domain = get_domain("math")
    specs = [resolve(s) for s in domain.reference_verifiers.values()]
    for label, cache in (("cold", tmp / "cold-cache"), ("warm", tmp / "cold-cache")):
        t = time.perf_counter()
        p = prepare(
            suite.name,
            suite.content_hash,
            suite.tasks,
            AuditOptions(workers=args.workers, progress=False, cache_dir=cache),
        )
        reports = audit(
            p,
            specs,
            AuditOptions(workers=args.workers, progress=False, results=tmp / f"{label}.jsonl", enforce_gate=False),
        )
        wall = time.perf_counter() - t
        verdicts = len(p.candidates) * len(specs)
        print(
            f"default audit ({label} cache): {wall:.2f} s wall, {verdicts} verdicts, {verdicts / wall:,.0f} verdicts/s"
        )
    for r in reports:
        print(
            f"  {r.verifier.rpartition(':')[2]:<15} debt {r.coverage_debt:.3f}  FA {r.false_acceptance_rate:.3f}  "
            f"FR {r.false_rejection_rate:.3f}  errors {r.errors}"
        )

    tasks = {t.id: t for t in suite.tasks}
    times = []
    for c in prepared.candidates:
        t = time.perf_counter()
        label_completion(c.text, tasks[c.task_id].reference)
        times.append(time.perf_counter() - t)
    times.sort()
    p99 = times[int(0.99 * (len(times) - 1))]
    print(
        f"oracle latency over {len(times)} candidates: median {statistics.median(times) * 1000:.3f} ms, "
        f"p99 {p99 * 1000:.3f} ms, max {times[-1] * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
