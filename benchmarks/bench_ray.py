"""``--executor ray`` against the local pool on the same machine. Prints figures; asserts nothing.

    python benchmarks/bench_ray.py [--noop N] [--sleep N] [--kill-n N]

A real two-node Ray cluster is started on this machine (tests/ray_cluster.py: ``ray start
--head`` and ``ray start --address``, one CPU each) so that Ray has the CPUs the local pool
gets (``--workers 2``). On the math suite's candidates, through the path the audit takes
(``engine.executor.run_calls`` with the audit's VerifierJob: clean workers, isolation, tree
memory bound):

1. verdicts per second of a no-op verifier and of a 10 ms one (``time.sleep(0.01)``), local
   and on Ray, with Ray's overhead per verdict (its seconds per verdict minus the local
   pool's) and the ratio of the two rates; the oracle's labelling (a forked job) too;
2. Ray's start-up: connecting, and the first chunk of a fresh driver (Ray starts its worker
   processes, each imports the domains and starts its clean server);
3. the kill test: an audit with a 20 ms verifier on Ray, the second node SIGKILLed (raylet
   and every process under it) once a quarter of the verdicts are in; the results file is
   read back: verdicts lost and doubled.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

VERIFIERS = """
import time

def noop(completion, reference):
    return 1.0

def sleep_10ms(completion, reference):
    time.sleep(0.01)
    return 1.0

def sleep_20ms(completion, reference):
    time.sleep(0.02)
    return 1.0
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--noop", type=int, default=5000, help="calls of the no-op verifier (default: 5000)")
    ap.add_argument("--sleep", type=int, default=1000, help="calls of the 10 ms verifier (default: 1000)")
    ap.add_argument("--kill-n", type=int, default=400, help="candidates of the kill test's audit (default: 400)")
    args = ap.parse_args()

    from ray_cluster import LocalCluster

    from verifier_audit.domains import get_domain
    from verifier_audit.engine.audit import AuditOptions, _OracleJob, prepare
    from verifier_audit.engine.executor import run_calls
    from verifier_audit.engine.verifier_job import VerifierJob
    from verifier_audit.loading import resolve
    from verifier_audit.plan import audit
    from verifier_audit.suites import load_suite

    tmp = Path(tempfile.mkdtemp(prefix="va-bench-ray-"))
    (tmp / "rewards.py").write_text(VERIFIERS)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    suite = load_suite("math")
    options = AuditOptions(workers=2, progress=False, cache_dir=tmp / "cache", results=tmp / "prep.jsonl")
    prepared = prepare(suite.name, suite.content_hash, suite.tasks, options)
    candidates = prepared.candidates
    tasks = {t.id: t for t in prepared.tasks}
    domain = get_domain("math")
    print(f"suite math: {len(candidates)} candidates")

    def job_of(name: str) -> VerifierJob:
        return VerifierJob(resolve(f"{tmp / 'rewards.py'}:{name}"), candidates, tasks, domain, 10.0, 4096)

    def timed(job, n: int, executor: str, **kw) -> tuple[float, int]:
        t = time.perf_counter()
        outs = list(run_calls(job, range(n), executor=executor, workers=2, timeout=10.0, memory_mb=4096, **kw))
        seconds = time.perf_counter() - t
        ok = sum(o.ok for o in outs)
        if len(outs) != n or len({o.index for o in outs}) != n:
            print(f"!! {executor}: {len(outs)} outcomes for {n} calls ({len({o.index for o in outs})} distinct)")
        return seconds, ok

    def verifier_kw(job: VerifierJob) -> dict:
        return dict(clean=job.clean, isolation=job.isolation_level(None), tree_memory=True)

    sizes = {"noop": min(args.noop, len(candidates)), "sleep_10ms": min(args.sleep, len(candidates))}
    generated = list(domain.generate(prepared.tasks, 0))
    oracle = _OracleJob(domain, generated, tasks)
    rows = []
    local: dict[str, float] = {}
    for name, n in sizes.items():
        job = job_of(name)
        seconds, ok = timed(job, n, "local", **verifier_kw(job))
        local[name] = seconds
        rows.append(("local", name, n, seconds, ok))
    seconds, ok = timed(oracle, len(generated), "local")
    local["oracle"] = seconds
    rows.append(("local", "oracle", len(generated), seconds, ok))

    t = time.perf_counter()
    with LocalCluster() as cluster:
        started = time.perf_counter() - t
        job = job_of("noop")
        t = time.perf_counter()
        timed(job, 32, "ray", ray_address=cluster.address, **verifier_kw(job))
        first = time.perf_counter() - t
        print(
            f"ray: two nodes started and connected in {started:.1f} s (ray start, both); the first 32 calls of a "
            f"fresh driver took {first:.1f} s (Ray's worker processes start, import the domains, start their "
            "clean servers)"
        )
        timed(oracle, 64, "ray", ray_address=cluster.address)  # its Ray workers warm too (imports before forking)
        for name, n in sizes.items():
            job = job_of(name)
            seconds, ok = timed(job, n, "ray", ray_address=cluster.address, **verifier_kw(job))
            rows.append(("ray", name, n, seconds, ok))
        seconds, ok = timed(oracle, len(generated), "ray", ray_address=cluster.address)
        rows.append(("ray", "oracle", len(generated), seconds, ok))

        print(
            f"\n{'executor':8} {'calls':14} {'n':>6} {'seconds':>8} {'verdicts/s':>11} {'ok':>6} "
            f"{'overhead/verdict vs local':>26} {'rate ratio ray/local':>21}"
        )
        for executor, name, n, seconds, ok in rows:
            extra = ""
            if executor == "ray":
                over = (seconds - local[name]) / n * 1000
                extra = f"{over:+23.3f} ms {seconds and local[name] / seconds:20.2f}x"
            print(f"{executor:8} {name:14} {n:6d} {seconds:8.2f} {n / seconds:11.0f} {ok:6d} {extra}")

        kill_test(cluster, prepared, tmp, args.kill_n, audit, AuditOptions, resolve)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


def kill_test(cluster, prepared, tmp: Path, n: int, audit, AuditOptions, resolve) -> None:
    import dataclasses

    view = dataclasses.replace(prepared, candidates=prepared.candidates[:n])
    results = tmp / "killed.jsonl"
    options = AuditOptions(
        workers=2,
        progress=False,
        cache_dir=None,
        results=results,
        probe_sample=0,
        answer_formats=False,
        executor="ray",
        ray_address=cluster.address,
    )
    killed: dict = {}

    def killer() -> None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            done = len(results.read_text().splitlines()) - 1 if results.exists() else 0
            if done >= n // 4:
                killed.update(at=done, processes=cluster.kill_node(), when=time.monotonic())
                return
            time.sleep(0.05)

    thread = threading.Thread(target=killer, daemon=True)
    t = time.monotonic()
    thread.start()
    audit(view, [resolve(f"{tmp / 'rewards.py'}:sleep_20ms")], options)
    seconds = time.monotonic() - t
    thread.join(timeout=5)
    ids = [json.loads(line)["candidate_id"] for line in results.read_text().splitlines()[1:]]
    expected = {c.id for c in view.candidates}
    lost = len(expected - set(ids))
    doubled = len(ids) - len(set(ids))
    errors = sum(json.loads(line)["status"] == "error" for line in results.read_text().splitlines()[1:])
    print(
        f"\nkill test: audit of {n} candidates (20 ms verifier) on 2 nodes; the second node SIGKILLed "
        f"({killed.get('processes', 0)} processes) after {killed.get('at', '?')} verdicts; audit done in "
        f"{seconds:.1f} s ({seconds - (killed['when'] - t) if killed else 0:.1f} s after the kill) with "
        f"{len(ids)} verdicts: lost {lost}, doubled {doubled}, error verdicts {errors}"
    )


if __name__ == "__main__":
    main()
