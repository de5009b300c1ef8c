"""What the witness (verifier_audit/isolation/_witness.py) costs the pool: trivial calls through
``pool.run``, so that the per-call work of the pool and of the witness is all there is.

    python benchmarks/bench_witness.py [--calls 20000] [--isolation process|namespaces]

Prints the wall time and the CPU time of this process and its children (the workers are
forked from here, so their time and their witnesses' is counted once they are reaped).
Run it in two checkouts (before and after a change) on the same machine, interleaved:
on a shared machine only such pairs compare.
"""

from __future__ import annotations

import argparse
import resource
import time

from verifier_audit.engine import pool


class _Nothing:
    def setup(self) -> None:
        pass

    def __call__(self, item: int) -> int:
        return item


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--isolation", default="process", choices=("process", "namespaces"))
    args = parser.parse_args()
    start = time.perf_counter()
    outcomes = list(pool.run(_Nothing(), range(args.calls), workers=2, timeout=30, isolation=args.isolation))
    wall = time.perf_counter() - start
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime
    print(f"{len(outcomes)} calls, isolation {args.isolation}: wall {wall:.2f} s, cpu {cpu:.2f} s")


if __name__ == "__main__":
    main()
