"""Runs/s for a trivial function: the warm sandbox pool against one cold `python3 -c` per run.

python benchmarks/bench_code_sandbox.py [N] [level]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from verifier_audit.domains.code.sandbox import Sandbox

SRC = "def f(x):\n    return x + 1"


def cold(n: int, workers: int = 2) -> float:
    code = SRC + "\nimport json; print(json.dumps(f(41)))"

    def one(_):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=10)
        assert out.stdout.strip() == "42"

    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as ex:
        list(ex.map(one, range(n)))
    return n / (time.perf_counter() - start)


def warm(n: int, level: str, workers: int = 2) -> float:
    with Sandbox(workers=workers, level=level) as sb:

        def one(_):
            r = sb.run(SRC, call="f", args=(41,))
            assert r.ok and r.value == 42, r

        one(0)
        start = time.perf_counter()
        with ThreadPoolExecutor(workers) as ex:
            list(ex.map(one, range(n)))
        return n / (time.perf_counter() - start)


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=400, help="runs per measurement (default 400)")
    ap.add_argument(
        "levels",
        nargs="*",
        default=["process", "rlimits", "namespaces"],
        choices=["process", "rlimits", "namespaces"],
        help="isolation levels to time (default: all three)",
    )
    args = ap.parse_args(argv)
    if args.n < 1:
        ap.error(f"n: {args.n}; at least 1")
    print(f"cold python3 -c per run (2 threads): {cold(args.n):7.1f} runs/s")
    for level in args.levels:
        print(f"warm pool, level={level:<10} (2 workers): {warm(args.n, level):7.1f} runs/s")


if __name__ == "__main__":
    main(sys.argv[1:])
