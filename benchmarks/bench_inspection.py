"""What confining a verifier's inspection costs (engine/inspection.py): the wall time to
read the signatures of one verifier module, behind the walls of a verifier call (a worker
of the engine's pool, from its own clean server, at the audit's isolation level) against
the old way (a plain child interpreter of the audit), in the same process, per module.

    python benchmarks/bench_inspection.py [--repeat 5] [--isolation namespaces]

Prints, per module, the median and the best of ``--repeat`` inspections each way and the
difference of the medians (the acceptance: at most 0.5 s per verifier module), then all
the modules read at once (one ``resolve_many``: lanes side by side). Nothing is cached
between repeats: each inspection imports the module afresh, as a new audit would.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODULES = {
    "stdlib (operator)": ["operator:eq"],
    "a user file (tests/fixtures/liars.py)": [f"{ROOT / 'tests' / 'fixtures' / 'liars.py'}:always"],
    "math references (sympy)": [
        f"verifier_audit.domains.math.verifiers:{n}" for n in ("substring", "last_number", "last_box_exact", "strong")
    ],
    "sql references (sqlglot, duckdb)": ["verifier_audit.domains.sql.verifiers:exact_match"],
    "code references": [f"verifier_audit.domains.code.verifiers:{n}" for n in ("exit_code", "strong")],
}


def plain_subprocess(groups: list[list[dict]]) -> list:
    """The old inspection: one plain interpreter per module, as the audit's own user."""
    code = (
        "import json, sys; from verifier_audit.loading import inspect_group; "
        "print(json.dumps(inspect_group(json.load(sys.stdin))))"
    )
    from concurrent.futures import ThreadPoolExecutor

    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def one(requests: list[dict]) -> list[dict]:
        done = subprocess.run(
            [sys.executable, "-c", code],
            input=json.dumps(requests),
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        return json.loads(done.stdout.strip().splitlines()[-1])

    with ThreadPoolExecutor(max_workers=min(len(groups), os.cpu_count() or 1)) as threads:  # as the old code did
        return list(threads.map(one, groups))


def _groups(specs: list[str]) -> list[list[dict]]:
    return [[{"spec": s, "style": None, "options": []} for s in specs]]


def _check(answers: list) -> None:
    for group in answers:
        if isinstance(group, str) or len(group) == 0 or not all(a.get("ok") for a in group):
            raise SystemExit(f"inspection failed: {group}")


def _time(fn, groups, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        _check(fn(groups))
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--isolation", default=None, help="the level to confine at (default: the strongest here)")
    args = parser.parse_args()

    from verifier_audit.engine.inspection import inspect_groups
    from verifier_audit.isolation import resolve_level

    level = resolve_level(args.isolation)

    def confined(groups):
        return inspect_groups(groups, isolation=level)

    print(f"isolation {level}; {os.cpu_count()} cores; median and best of {args.repeat}; seconds")
    print(f"{'module':40s} {'plain':>13s} {'confined':>13s} {'added':>7s}")
    for name, specs in MODULES.items():
        plain = _time(plain_subprocess, _groups(specs), args.repeat)
        safe = _time(confined, _groups(specs), args.repeat)
        added = statistics.median(safe) - statistics.median(plain)
        print(
            f"{name:40s} {statistics.median(plain):6.3f} {min(plain):6.3f} {statistics.median(safe):6.3f} "
            f"{min(safe):6.3f} {added:+7.3f}"
        )
    every = [g for specs in MODULES.values() for g in _groups(specs)]
    plain = _time(plain_subprocess, every, args.repeat)
    safe = _time(confined, every, args.repeat)
    print(
        f"{'all ' + str(len(every)) + ' modules in one call':40s} {statistics.median(plain):6.3f} {min(plain):6.3f} "
        f"{statistics.median(safe):6.3f} {min(safe):6.3f} {statistics.median(safe) - statistics.median(plain):+7.3f}"
        "  (side by side, up to one per core, both ways)"
    )


if __name__ == "__main__":
    main()
