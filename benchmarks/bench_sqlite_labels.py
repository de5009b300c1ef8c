"""Issue 33's acceptance check: a SQLite scorer's suite audited in SQLite, every label
rechecked by plain ``sqlite3`` (docs/sql-domain.md, "Dialects").

    python benchmarks/bench_sqlite_labels.py [--tasks 60] [--dialect sqlite] [--audit]

Builds ``--tasks`` BIRD-layout tasks over two small SQLite databases (tests/fixtures/
sqlite_recheck.py), prepares them as ``verifier-audit run --format bird`` does (fuzzing,
generators, the oracle's confirmation; every origin), and prints how many labelled
candidates an independent ``sqlite3`` run on the original and the fuzzed SQLite files
disputes, with the disputed ones. ``--dialect duckdb`` shows the labels judged on the
DuckDB conversion instead. ``--audit`` then audits the BIRD-style scorer
(tests/fixtures/sqlite_scorers.py: ``bird_set_match``) on the suite and prints its debt.
The candidate cache is a fresh temporary directory.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
SCORERS = ROOT / "tests" / "fixtures" / "sqlite_scorers.py"


def main() -> None:
    from sqlite_recheck import bird_dataset, disputed

    from verifier_audit.engine.audit import prepare
    from verifier_audit.engine.options import AuditOptions
    from verifier_audit.suites import load_suite

    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=60)
    parser.add_argument("--dialect", default="sqlite", choices=("sqlite", "duckdb"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--audit", action="store_true")
    args = parser.parse_args()
    root = pathlib.Path(tempfile.mkdtemp(prefix="bench-sqlite-"))
    path = bird_dataset(root, args.tasks)
    suite = load_suite(str(path), fmt="bird", dialect=args.dialect)
    options = AuditOptions(cache_dir=root / "cache", workers=args.workers)
    prepared = prepare(suite.name, suite.content_hash, suite.tasks, options)
    labels = collections.Counter(c.label for c in prepared.candidates)
    fuzzed = collections.Counter(len(t.metadata.get("sqlite_databases", [])) for t in prepared.tasks)
    found = disputed(prepared.tasks, prepared.candidates)
    print(f"tasks {len(prepared.tasks)}  dialect {args.dialect}  candidates {dict(labels)}")
    print(f"fuzzed SQLite databases per task {dict(sorted(fuzzed.items()))}")
    print(f"dropped by the oracle {dict(collections.Counter(d.reason for d in prepared.dropped))}")
    print(f"disputed labels: {len(found)}")
    for line in found:
        print("  " + line.replace("\n", " "))
    if args.audit:
        from verifier_audit import audit

        report = audit(
            f"{SCORERS}:bird_set_match",
            suite=str(path),
            format="bird",
            dialect=args.dialect,
            workers=args.workers,
            probe_sample=0,
        )
        print(
            f"bird_set_match: debt {report.coverage_debt:.3f} FA {report.false_acceptance_rate:.3f} "
            f"FR {report.false_rejection_rate:.3f} gate {'passed' if report.gate.passed else 'failed'}"
        )
        worst = sorted((c for c in report.categories if c.accepted and c.label == "incorrect"), key=lambda c: c.name)
        for c in worst:
            print(f"  paid: {c.name} {c.accepted}/{c.n}")
        for c in sorted((c for c in report.categories if c.errors), key=lambda c: c.name):
            print(f"  errors: {c.name} {c.errors} {dict(c.error_kinds)} (measured {c.n})")


if __name__ == "__main__":
    main()
