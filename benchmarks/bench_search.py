"""The exploit search on planted holes, measured on the real path. Prints figures; asserts
nothing.

    python benchmarks/bench_search.py [--budget 3000] [--seeds 3]

For each planted verifier of examples/planted_holes.py (and the strong reference verifier,
the no-false-alarm baseline) on the built-in suite's first 50 integer tasks: verifier calls
to the first exploit, exploits found per 1,000 calls, families and their reach, wall time;
median over seeds. The fixed exam (no search) on the same tasks is shown beside it: the
largest false acceptance of any one category, which is what the gate sees without search.

falsepass's own search (``falsepass --search``) on the same verifiers and tasks is run when
it is installed and a Python 3.12 is on PATH (``pip install falsepass uv``,
``UV_PYTHON_DOWNLOADS=never``); otherwise the script says it was not run.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier_audit.engine.audit import AuditOptions, audit, prepare  # noqa: E402
from verifier_audit.loading import resolve  # noqa: E402
from verifier_audit.suites import load_suite  # noqa: E402

VERIFIERS = {
    "digit_sum": f"{ROOT}/examples/planted_holes.py:digit_sum",
    "div_ten": f"{ROOT}/examples/planted_holes.py:div_ten",
    "verbosity_bonus": f"{ROOT}/examples/planted_holes.py:verbosity_bonus",
    "strong (baseline)": "verifier_audit.domains.math.verifiers:strong",
}


def run(spec: str, tasks, suite, budget: int, seed: int):
    options = AuditOptions(probe_sample=0, progress=False, search=budget, seed=seed)
    prepared = prepare(suite.name, suite.content_hash, tasks, options)
    start = time.perf_counter()
    report = audit(prepared, [resolve(spec)], options)[0]
    return report, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=int, default=3000)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    suite = load_suite("math")
    tasks = [t for t in suite.tasks if t.metadata.get("answer_type") == "integer"][:50]
    print(f"search budget {args.budget} calls, {len(tasks)} integer tasks, seeds 0..{args.seeds - 1}")
    print(f"{'verifier':18} {'fixed exam max FA':>17} {'calls to 1st':>12} {'exploits/1k':>11} "
          f"{'families':>8} {'best reach':>11} {'seconds':>8}")
    for name, spec in VERIFIERS.items():
        firsts, rates, fams, reaches, secs, fixed = [], [], [], [], [], []
        for seed in range(args.seeds):
            report, took = run(spec, tasks, suite, args.budget, seed)
            s = report.search
            firsts.append(s.first_exploit_after)
            rates.append(1000 * s.exploits_found / s.calls if s.calls else 0.0)
            fams.append(len(s.families))
            reaches.append(max((f.reach_misjudged / f.reach_tasks for f in s.families
                                if f.reach_tasks and f.direction == "false_acceptance"), default=0.0))
            secs.append(took)
            fixed.append(max((c.rate for c in report.categories if c.label == "incorrect" and c.origin != "search"
                              and c.n), default=0.0))
        found = [f for f in firsts if f is not None]
        first = f"{statistics.median(found):.0f}" if len(found) == len(firsts) else f"{len(found)}/{len(firsts)} found"
        print(f"{name:18} {statistics.median(fixed):17.2f} {first:>12} {statistics.median(rates):11.1f} "
              f"{statistics.median(fams):8.0f} {statistics.median(reaches):11.2f} {statistics.median(secs):8.1f}")
    if shutil.which("falsepass") and _runs("python3.12"):
        print("falsepass is installed: run `falsepass --search` on the same verifiers by hand (see BENCHMARKS.md); "
              "its report format is not parsed here")
    else:
        print("falsepass --search: not run (needs `pip install falsepass uv` and a local Python 3.12; "
              f"falsepass {'found' if shutil.which('falsepass') else 'absent'}, python3.12 "
              f"{'runs' if _runs('python3.12') else 'absent'} on this machine)")


def _runs(command: str) -> bool:
    import subprocess

    try:
        return subprocess.run([command, "--version"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if __name__ == "__main__":
    main()
