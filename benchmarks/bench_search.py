"""The exploit search on planted holes, measured on the real path. Prints figures; asserts
nothing.

    python benchmarks/bench_search.py [--budget 3000] [--seeds 3]

For each planted verifier of examples/planted_holes.py (and the strong reference verifier,
the no-false-alarm baseline) on the built-in suite's first 50 integer tasks: verifier calls
to the first exploit, exploits found per 1,000 calls, families and their reach, wall time;
median over seeds. The fixed exam (no search) on the same tasks is shown beside it: the
largest false acceptance of any one category, which is what the gate sees without search.

falsepass's own search on the same verifiers and tasks, with the same calls, is run beside
it when falsepass is installed (``pip install --no-deps falsepass``: its search module is
called through its Python API, in this process); otherwise the script says it was not run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier_audit.engine.audit import AuditOptions, prepare  # noqa: E402
from verifier_audit.loading import resolve  # noqa: E402
from verifier_audit.plan import audit  # noqa: E402
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
    print(
        f"{'verifier':18} {'fixed exam max FA':>17} {'calls to 1st':>12} {'exploits/1k':>11} "
        f"{'families':>8} {'best reach':>11} {'seconds':>8}"
    )
    for name, spec in VERIFIERS.items():
        firsts, rates, fams, reaches, secs, fixed = [], [], [], [], [], []
        for seed in range(args.seeds):
            report, took = run(spec, tasks, suite, args.budget, seed)
            s = report.search
            firsts.append(s.first_exploit_after)
            rates.append(1000 * s.exploits_found / s.calls if s.calls else 0.0)
            fams.append(len(s.families))
            reaches.append(
                max(
                    (
                        f.reach_misjudged / f.reach_tasks
                        for f in s.families
                        if f.reach_tasks and f.direction == "false_acceptance"
                    ),
                    default=0.0,
                )
            )
            secs.append(took)
            fixed.append(
                max(
                    (c.rate for c in report.categories if c.label == "incorrect" and c.origin != "search" and c.n),
                    default=0.0,
                )
            )
        found = [f for f in firsts if f is not None]
        first = f"{statistics.median(found):.0f}" if len(found) == len(firsts) else f"{len(found)}/{len(firsts)} found"
        print(
            f"{name:18} {statistics.median(fixed):17.2f} {first:>12} {statistics.median(rates):11.1f} "
            f"{statistics.median(fams):8.0f} {statistics.median(reaches):11.2f} {statistics.median(secs):8.1f}"
        )
    falsepass_side_by_side(tasks, args.budget)


def falsepass_side_by_side(tasks, budget: int) -> None:
    """falsepass's own search (its S1 direction, false passes: a beam search over answer-free
    mutations of known-bad completions), called in this process through its Python API on
    the same verifiers and tasks, with the same number of scorer calls in that direction
    (``budget / tasks`` per task). Its CLI runs an environment in a uv-made Python 3.12;
    its search module itself needs neither."""
    try:
        from falsepass.adapter import Adapter
        from falsepass.model import Example, Score
        from falsepass.search import make_probe
    except ImportError:
        print("falsepass: not installed (pip install --no-deps falsepass); side-by-side not run")
        return
    import asyncio
    import importlib.util

    spec = importlib.util.spec_from_file_location("planted_holes", ROOT / "examples" / "planted_holes.py")
    planted = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(planted)

    class BoxedAdapter(Adapter):
        name = "verifier-audit-math"

        def render(self, answer, example):
            return f"The final answer is $\\boxed{{{answer}}}$."

        def wrong_answer(self, example):
            return str(int(example.answer) + 1)  # integer tasks only

    class FunctionScorer:
        def __init__(self, fn):
            self.fn = fn

        async def score(self, example, completion):
            text = completion if isinstance(completion, str) else completion[-1]["content"]
            try:
                return Score(reward=float(self.fn(text, example.answer)))
            except Exception as exc:  # noqa: BLE001 - a verifier's error is a score of None
                return Score(reward=None, errors=[repr(exc)])

        async def close(self):
            pass

    per_task = max(1, budget // len(tasks))
    print(f"falsepass {_version()} search (S1, false passes), {per_task} calls per task, same tasks, seed 0:")
    print(f"{'verifier':18} {'calls to 1st':>12} {'tasks found':>11} {'found/1k calls':>14}")
    for name in ("digit_sum", "div_ten", "verbosity_bonus", "strong"):
        fn = getattr(planted, name)
        probe = make_probe(calls_per_direction=per_task, seed=0)
        spent, found, first = 0, 0, None
        for task in tasks:
            example = Example(key=task.id, prompt=task.prompt, answer=task.reference, raw=None)
            s1 = next(r for r in asyncio.run(probe(BoxedAdapter(), FunctionScorer(fn), example)) if r.probe == "S1")
            calls = int(s1.detail.split("after ")[1].split()[0]) if "after " in s1.detail else per_task
            if not s1.passed:
                found += 1
                first = spent + calls if first is None else first
            spent += calls
        label = f"{name} (baseline)" if name == "strong" else name
        print(f"{label:18} {first if first is not None else 'none':>12} {found:>11} {1000 * found / spent:14.1f}")


def _version() -> str:
    from importlib.metadata import version

    return version("falsepass")


if __name__ == "__main__":
    main()
