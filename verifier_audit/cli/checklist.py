"""``verifier-audit checklist REPORT.json [--markdown PATH] [--strict] [--authority FILE]``:
the security review checklist of a report (``report/checklist.py`` decides the items).

Exit 0: no item open; 1: an item open (or unknown, with ``--strict``); 2: bad input.
``python -m verifier_audit.cli.checklist REPORT.json`` runs it without the rest of the CLI.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import ExitCode
from .exits import mapped


def add_parser(subparsers) -> argparse.ArgumentParser:
    """``verifier-audit checklist``: register the subcommand on the CLI's subparsers."""
    p = subparsers.add_parser("checklist", help="a security review checklist from a report JSON (checked/open/unknown)")
    _arguments(p)
    return p


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "report", type=Path, metavar="REPORT.json", help="a report or report set from `verifier-audit run --json`"
    )
    p.add_argument("--markdown", type=Path, metavar="PATH", help="also write the checklist as Markdown here")
    p.add_argument("--strict", action="store_true", help="exit 1 when an item is unknown, not only when one is open")
    p.add_argument(
        "--authority",
        type=Path,
        default=None,
        metavar="FILE",
        help="authority figures of the policy's tool-call samples: a `compare --json` or `score --json` "
        "file (default: those a `score --json` REPORT carries)",
    )


@mapped
def run(args) -> int:
    """Exit 0: no item open; 1: an item open (or unknown with --strict); 2: bad input."""
    from ..audit_files import check_output, write_output
    from ..report.checklist import OPEN, UNKNOWN, _printable, evaluate, to_markdown, to_text
    from ..report.diff import load_reports
    from ..samples.evidence import evidence_in_report_file, load_evidence

    if args.markdown is not None:
        check_output("--markdown", args.markdown)
    reports = list(load_reports(args.report).values())
    given = getattr(args, "authority", None)
    authority = load_evidence(given) if given is not None else evidence_in_report_file(args.report)
    if given is not None and authority is None:
        print(f"verifier-audit: checklist: {given} holds no authority figures (no tool-call samples)", file=sys.stderr)
    sys.stdout.write(to_text(reports, authority))
    sys.stdout.flush()
    if args.markdown is not None:
        write_output("--markdown", args.markdown, to_markdown(reports, authority))
    failing = {OPEN, UNKNOWN} if getattr(args, "strict", False) else {OPEN}
    flagged = [
        f"{_printable(r.verifier)}: {i.key} {i.status}"
        for r in reports
        for i in evaluate(r, authority)
        if i.status in failing
    ]
    if flagged:  # the exit's reason, on stderr too, when stdout went to a file
        shown = "; ".join(flagged[:5]) + (f"; and {len(flagged) - 5} more" if len(flagged) > 5 else "")
        print(
            f"verifier-audit: checklist: {len(flagged)} item(s) {' or '.join(sorted(failing))}: {shown}",
            file=sys.stderr,
        )
    return ExitCode.GATE if flagged else ExitCode.OK


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m verifier_audit.cli.checklist REPORT.json``: the command without the CLI."""
    p = argparse.ArgumentParser(
        prog="verifier-audit checklist", description="A security review checklist from a verifier-audit report JSON."
    )
    _arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
