"""``verifier-audit diff OLD NEW``: what got better and what got worse between two report
JSON files; with ``--fail-on-regression``, exit 1 on a regression, saying why on stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .options import EXIT_GATE, EXIT_OK


def add_parser(subparsers) -> argparse.ArgumentParser:
    dif = subparsers.add_parser("diff", help="compare two report JSON files: what got better and what got worse")
    dif.add_argument("old", type=Path)
    dif.add_argument("new", type=Path)
    dif.add_argument("--fail-on-regression", action="store_true",
                     help="exit 1 when the debt rose, a category got worse or a security finding appeared")
    return dif


def run(args) -> int:
    from ..errors import InputError
    from ..report.diff import diff, load_reports, render_diff
    from ..report.failure import display_spec

    old, new = load_reports(args.old), load_reports(args.new)
    common = [v for v in new if v in old]
    if not common:
        raise InputError(f"{args.old} and {args.new} share no verifier (old: {', '.join(old)}; new: {', '.join(new)})")
    regressed = []
    for v in common:
        d = diff(old[v], new[v])
        if d["regressed"]:
            regressed.append((v, d))
        print(render_diff(v, d))
    for v in sorted(set(old) ^ set(new)):
        print(f"{v}: only in {'old' if v in old else 'new'}")
    if not (regressed and args.fail_on_regression):
        return EXIT_OK
    for v, d in regressed:
        print(f"verifier-audit: regression in {display_spec(v)}: {_regression(d)}", file=sys.stderr)
    return EXIT_GATE


def _regression(d: dict) -> str:
    """Why diff calls it a regression, in one line."""
    from ..report.diff import EPSILON

    (a, b), why = d["debt"], []
    if b > a + EPSILON:
        why.append(f"coverage debt rose {a:.3f} -> {b:.3f}")
    if d["worse"]:
        names = ", ".join(name for name, _, _ in d["worse"][:3])
        more = f" and {len(d['worse']) - 3} more" if len(d["worse"]) > 3 else ""
        why.append(f"worse categories: {len(d['worse'])} ({names}{more})")
    if d["new_security"]:
        why.append(f"new security findings: {len(d['new_security'])}")
    return "; ".join(why)
