"""Where the default code audit's time goes (issue 17: it must come under 60 s on 2 cores).

    python benchmarks/bench_code_audit.py            # phases of the whole audit, cold cache
    python benchmarks/bench_code_audit.py --calls    # also the cost of one call per verifier
    python benchmarks/bench_code_audit.py --floor    # only the sandbox's floor per run

Prints the seconds of each phase of ``verifier-audit run --suite code`` run through the
engine (the reference's test cases, generation and oracle labelling, then per reference
verifier: the format probe, its calls, the probes), each verifier audited alone so that
its share is visible. ``--calls`` then times each verifier on 200 candidates spread over
the suite, in this process, one call at a time as a worker makes them, and keeps the
ordinary calls (under 0.2 s; the hangs end at 0.25 s of CPU or later): wall milliseconds per call and the whole machine's busy CPU per call (from
/proc/stat, so it includes the sandbox's zygotes and the subprocesses the verifier starts),
and one sandbox run of a no-op at each isolation level: the floor every isolated call pays.

Run as root, each phase also shows the CPU seconds of the whole process tree (a cpuacct
cgroup the benchmark moves into), which other load on the machine does not inflate.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifier_audit.domains import get_domain  # noqa: E402
from verifier_audit.engine import audit as engine  # noqa: E402
from verifier_audit.engine.verifier_job import IsolatedCallError, VerifierJob  # noqa: E402
from verifier_audit.loading import resolve  # noqa: E402
from verifier_audit.plan import audit  # noqa: E402
from verifier_audit.suites import load_suite, select  # noqa: E402


def _busy_ticks() -> int:
    """Clock ticks the whole machine spent not idle since boot (every process counted)."""
    with open("/proc/stat") as fh:
        values = [int(v) for v in fh.readline().split()[1:]]
    return sum(values) - values[3] - values[4]  # minus idle and iowait


class _TreeCPU:
    """CPU seconds of this process and everything it starts (workers, zygotes, runs, the
    verifiers' subprocesses), from a CPU-accounting cgroup this process moves into: unlike
    the wall clock, not inflated by other work on the machine. None where no cgroup can be
    made (not root, no cpuacct / cpu controller)."""

    def __init__(self):
        self.read = None
        for root, name in (("/sys/fs/cgroup/cpuacct", "cpuacct.usage"), ("/sys/fs/cgroup", "cpu.stat")):
            path = pathlib.Path(root) / f"va-bench-{os.getpid()}"
            try:
                path.mkdir()
                (path / "cgroup.procs").write_text(str(os.getpid()))
            except OSError:
                continue
            self.read = (
                (lambda f=path / name: int(f.read_text()) / 1e9)
                if name == "cpuacct.usage"
                else (lambda f=path / name: int(f.read_text().split()[1]) / 1e6)
            )  # usage_usec
            break

    def __call__(self):
        return self.read() if self.read else None


_cpu = _TreeCPU()


def _timed(name: str, fn, *args, **kwargs):
    started, cpu = time.perf_counter(), _cpu()
    value = fn(*args, **kwargs)
    used = f"  {_cpu() - cpu:7.2f} s CPU" if cpu is not None else ""
    print(f"  {name:<34} {time.perf_counter() - started:7.2f} s{used}", flush=True)
    return value


def phases(workers: int):
    domain = get_domain("code")
    suite = load_suite("code")
    options = engine.AuditOptions(
        workers=workers,
        timeout=domain.default_timeout,
        cache_dir=pathlib.Path(tempfile.mkdtemp(prefix="va-bench-")),
        progress=False,
    )
    total, total_cpu = time.perf_counter(), _cpu()
    tasks = _timed(
        "test cases (reference outputs)",
        domain.prepare_tasks,
        select(suite, None, None),
        options.seed,
        options.cache_dir,
    )
    prepared = _timed("generation + oracle labels", engine.prepare, suite.name, suite.content_hash, tasks, options)
    reports = {}
    for spec in (resolve(s) for s in domain.reference_verifiers.values()):
        name = spec.spec.rpartition(":")[2]
        [report] = _timed(f"audit {name}", audit, prepared, [spec], options)
        reports[name] = report
    used = f"  {_cpu() - total_cpu:7.2f} s CPU" if total_cpu is not None else ""
    print(f"  {'total':<34} {time.perf_counter() - total:7.2f} s{used}  ({len(prepared.candidates)} candidates)")
    for name, r in reports.items():
        print(
            f"    {name:<14} debt {r.coverage_debt:.3f}  FA {r.false_acceptance_rate:.3f}  "
            f"FR {r.false_rejection_rate:.3f}  errors {r.errors}"
        )
    return prepared


def calls(prepared, n: int = 200) -> None:
    domain = get_domain("code")
    tasks = {t.id: t for t in prepared.tasks}
    sample = list(range(0, len(prepared.candidates), max(1, len(prepared.candidates) // n)))[:n]
    print(f"one call at a time, {len(sample)} candidates:")
    for spec in (resolve(s) for s in domain.reference_verifiers.values()):
        job = VerifierJob(spec, prepared.candidates, tasks, domain, domain.default_timeout, 4096)
        job.setup()
        kept, seconds, ticks = 0, 0.0, 0
        for i in sample:
            busy, started = _busy_ticks(), time.perf_counter()
            try:
                job(i)
            except IsolatedCallError:
                pass
            job.after(i)
            took = time.perf_counter() - started
            if took < 0.2:  # ordinary calls only (a hang now ends at 0.25 s of CPU or later)
                kept, seconds, ticks = kept + 1, seconds + took, ticks + _busy_ticks() - busy
        if job.sandbox is not None:
            job.sandbox.close()
        print(
            f"  {spec.spec.rpartition(':')[2]:<14} {seconds / kept * 1e3:6.2f} ms/call wall  "
            f"{ticks * 1e3 / 100 / kept:6.2f} ms/call busy CPU  ({kept} ordinary calls)"
        )
    sandbox_floor(n)


def sandbox_floor(n: int = 200) -> None:
    """One sandbox run of a no-op at each level: wall and busy CPU per run, and the page
    faults of the run's own process (a fork of the zygote: each page it writes first,
    CPython's reference counts included, is a copy-on-write fault)."""
    from verifier_audit.domains.code.sandbox import Sandbox, available_levels

    for level in available_levels():
        with Sandbox(workers=1, level=level, target=_noop) as box:
            for _ in range(10):
                box.call(0, timeout=3.0, memory_mb=4096)
            busy, started, faults = _busy_ticks(), time.perf_counter(), 0.0
            for _ in range(n):
                faults += box.call(0, timeout=3.0, memory_mb=4096).value
            print(
                f"  sandbox no-op ({level:<10}) {(time.perf_counter() - started) / n * 1e3:6.2f} ms/run wall  "
                f"{(_busy_ticks() - busy) * 1e3 / 100 / n:6.2f} ms/run busy CPU  "
                f"{faults / n:5.0f} page faults in the run before it returns"
            )


def _noop(_index: int) -> float:
    import resource

    return float(resource.getrusage(resource.RUSAGE_SELF).ru_minflt)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--calls", action="store_true", help="also time single calls of each verifier")
    parser.add_argument("--floor", action="store_true", help="only the sandbox's floor (no audit)")
    args = parser.parse_args()
    if args.floor:
        print("sandbox floor, one run at a time:")
        sandbox_floor()
        return
    print(f"default code audit, {args.workers} workers, cold cache:")
    prepared = phases(args.workers)
    if args.calls:
        calls(prepared)


if __name__ == "__main__":
    main()
