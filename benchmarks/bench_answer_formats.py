"""What the format probe changes (docs/answer-formats.md): the built-in math suite audited
with and without it, for the four reference verifiers (their reports must not change) and
for two graders that read one format only (tests/fixtures/format_graders.py).

    python benchmarks/bench_answer_formats.py [--seed 0] [--workers 2]

Prints, per verifier and setting, the candidates audited, FA, FR and debt, and the hedge,
near-miss and equivalent counts; then the seconds each audit took (wall clock, this
machine). The candidate cache is a fresh temporary directory.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
GRADERS = ROOT / "tests" / "fixtures" / "format_graders.py"


def _line(name: str, formats: bool, r) -> str:
    def count(keep):
        cats = [c for c in r.categories if keep(c)]
        return sum(c.n for c in cats), sum(c.accepted for c in cats)

    hedge = count(lambda c: c.name.startswith("math.hedge."))
    near = count(lambda c: c.origin == "near_miss")
    equiv = count(lambda c: c.origin == "equivalent")
    return (
        f"{name:15s} formats={'on ' if formats else 'off'} n={r.n_candidates:5d} debt {r.coverage_debt:.4f} "
        f"FA {r.false_acceptance_rate:.4f} FR {r.false_rejection_rate:.4f}  hedges {hedge[0]} ({hedge[1]} accepted) "
        f"near-misses {near[0]} ({near[1]}) equivalents {equiv[0]} ({equiv[1]})"
        + (f"\n{'':15s} {r.formats.summary}" if r.formats else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    from verifier_audit.domains import get_domain
    from verifier_audit.engine.audit import AuditOptions, prepare
    from verifier_audit.loading import resolve
    from verifier_audit.plan import audit
    from verifier_audit.suites import load_suite, select

    cache = pathlib.Path(tempfile.mkdtemp(prefix="va-bench-formats-"))

    def options(formats: bool) -> AuditOptions:
        return AuditOptions(
            seed=args.seed,
            workers=args.workers,
            cache_dir=cache,
            enforce_gate=False,
            answer_formats=formats,
            results=pathlib.Path(tempfile.mkdtemp()) / "results.jsonl",
        )

    suite = load_suite("math")
    prepared = prepare(suite.name, suite.content_hash, select(suite, None, None), options(True))
    print(
        f"suite math, seed {args.seed}: {len(prepared.candidates)} candidates "
        f"({sum(c.id.endswith('/no_period') for c in prepared.candidates)} catalog traps without their final period)"
    )
    reference = [resolve(spec) for spec in get_domain("math").reference_verifiers.values()]
    seconds = {}
    by_setting = {}
    for formats in (False, True):
        start = time.perf_counter()
        by_setting[formats] = audit(prepared, reference, options(formats))
        seconds[f"4 reference verifiers, formats {'on' if formats else 'off'}"] = time.perf_counter() - start
    for off, on in zip(by_setting[False], by_setting[True]):
        same = off.model_dump(exclude={"formats"}) == on.model_dump(exclude={"formats"})
        print(_line(off.verifier.rpartition(":")[2], False, off))
        print(
            _line(on.verifier.rpartition(":")[2], True, on) + f"\n{'':15s} report unchanged apart from formats: {same}"
        )
    without = dataclasses.replace(
        prepared, candidates=[c for c in prepared.candidates if not c.id.endswith("/no_period")]
    )
    for r in audit(without, reference, options(False)):
        print(f"{r.verifier.rpartition(':')[2]:15s} without the no-period variants: debt {r.coverage_debt:.4f}")
    for name in ("gsm8k_strict", "minerva_only"):
        for formats in (False, True):
            start = time.perf_counter()
            r = audit(prepared, [resolve(f"{GRADERS}:{name}", "pair")], options(formats))[0]
            seconds[f"{name}, formats {'on' if formats else 'off'}"] = time.perf_counter() - start
            print(_line(name, formats, r))
    for what, s in seconds.items():
        print(f"{what}: {s:.1f} s")


if __name__ == "__main__":
    main()
