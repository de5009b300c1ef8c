"""``verifier-audit diff OLD NEW``: what got better and what got worse between two report
JSON files, after what changed in what was measured; with ``--fail-on-regression``, exit 1
on a regression, saying why on stderr. Exit 2: a file is not a report, a ``--match`` names
no verifier, or no verifier pairs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import ExitCode
from .exits import mapped


def add_parser(subparsers) -> argparse.ArgumentParser:
    dif = subparsers.add_parser("diff", help="compare two report JSON files: what got better and what got worse")
    dif.add_argument("old", type=Path)
    dif.add_argument("new", type=Path)
    dif.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when the debt rose, a category got worse or stopped being measured, "
        "or a security finding appeared",
    )
    dif.add_argument(
        "--match",
        action="append",
        default=[],
        metavar="OLD=NEW",
        help="compare verifier OLD of the old report with NEW of the new one (repeatable); "
        "by default verifiers pair by their spec relative to their project root",
    )
    dif.add_argument("--all", action="store_true", help="list every category, not the first 20 of each list")
    return dif


@mapped
def run(args) -> int:
    from ..errors import InputError
    from ..report.diff import MAX_ROWS, diff, load_reports, pair_verifiers, parse_matches, render
    from ..report.failure import display_spec

    old, new = load_reports(args.old), load_reports(args.new)
    pairing = pair_verifiers(old, new, parse_matches(args.match), args.old, args.new)
    if not pairing.pairs:
        raise InputError(
            f"{args.old} and {args.new} share no verifier (old: {', '.join(old)}; new: {', '.join(new)}); "
            f"pair two with --match OLD=NEW (e.g. --match {next(iter(old))}={next(iter(new))})"
        )
    diffs = [diff(old[a], new[b]) for a, b in pairing.pairs]
    print(render(diffs, pairing, old, rows=None if args.all else MAX_ROWS, name=display_spec))
    regressed = [d for d in diffs if d.regressions]
    if not (regressed and args.fail_on_regression):
        return ExitCode.OK
    for d in regressed:
        print(f"verifier-audit: regression in {display_spec(d.new_spec)}: {'; '.join(d.regressions)}", file=sys.stderr)
    return ExitCode.GATE
