"""What a change costs the default audit: CPU (every process of the audit, workers
included) and wall time of `verifier-audit run --suite SUITE --limit N`, cold cache, for two
source trees run alternately in one shell, so both see the same load.

    python benchmarks/bench_audit_cost.py OLD_TREE NEW_TREE [--suite math] [--limit 20] [--rounds 3]

OLD_TREE and NEW_TREE are checkouts of the package (e.g. `git worktree add /tmp/old <commit>`).
CPU is counted by a cgroup of the run's own (cgroup v1 `cpuacct` or v2 `cpu.stat`; needs
root): every process the audit starts, its worker servers and workers included, so a loaded
machine changes the wall time but hardly the CPU. Without a writable cgroup it falls back to
`getrusage(RUSAGE_CHILDREN)`, which misses the workers that no ancestor waits for (it says
so). Prints each run, then the medians and the ratios NEW/OLD.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def _cgroup() -> tuple[str, str] | None:
    """(folder, how to read its CPU) of a fresh cgroup, or None where none can be made."""
    for root, kind in (("/sys/fs/cgroup/cpuacct", "v1"), ("/sys/fs/cgroup", "v2")):
        probe = "cpuacct.usage" if kind == "v1" else "cpu.stat"
        if not os.path.exists(os.path.join(root, probe)) and kind == "v1":
            continue
        folder = os.path.join(root, f"bench-audit-cost-{os.getpid()}-{time.monotonic_ns()}")
        try:
            os.mkdir(folder)
        except OSError:
            continue
        if os.path.exists(os.path.join(folder, probe)):
            return folder, kind
        os.rmdir(folder)
    return None


def _cgroup_cpu(folder: str, kind: str) -> float:
    if kind == "v1":
        with open(os.path.join(folder, "cpuacct.usage")) as f:
            return int(f.read()) / 1e9
    with open(os.path.join(folder, "cpu.stat")) as f:
        usage = dict(line.split() for line in f)
    return int(usage["usage_usec"]) / 1e6


def one_run(tree: str, suite: str, limit: int) -> tuple[float, float]:
    group = _cgroup()

    def enter() -> None:
        if group is not None:
            with open(os.path.join(group[0], "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))

    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTHONPATH": tree, "VERIFIER_AUDIT_CACHE": cache}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "verifier_audit", "run", "--suite", suite, "--limit", str(limit), "--no-progress"],
            cwd=tree,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=enter,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: the demo's weak verifiers fail their gate
        sys.exit(f"{tree}: exit {done.returncode}\n{done.stderr[-2000:]}")
    if group is None:
        print("(no cgroup: CPU from getrusage, workers not counted)", file=sys.stderr)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall
    cpu = _cgroup_cpu(*group)
    try:
        os.rmdir(group[0])
    except OSError:
        pass  # a straggler still in it: left for the system
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--suite", default="math")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
    for _ in range(args.rounds):
        for name in ("old", "new"):
            cpu, wall = one_run(getattr(args, name), args.suite, args.limit)
            runs[name].append((cpu, wall))
            print(f"{name}: cpu {cpu:6.2f} s  wall {wall:6.2f} s  (load {os.getloadavg()[0]:.1f})", flush=True)
    med = {name: (statistics.median(c for c, _ in r), statistics.median(w for _, w in r)) for name, r in runs.items()}
    for name, (cpu, wall) in med.items():
        print(f"median {name}: cpu {cpu:.2f} s  wall {wall:.2f} s")
    print(f"ratio new/old: cpu {med['new'][0] / med['old'][0]:.2f}  wall {med['new'][1] / med['old'][1]:.2f}")


if __name__ == "__main__":
    main()
