"""``verifier-audit scan FILE_OR_MODULE... [--json PATH] [--report REPORT_JSON]``.

Output reads like a linter's (``scan/_text.py``): ``path:line:col: rule-id [severity]
message``, then with ``--report`` a line saying whether the audit confirmed it, then one
summary line. Exit 0: no finding; 1: findings; 2: a target or the report cannot be read
(the message names the file and what to fix). ``python -m verifier_audit.cli.scan TARGET...``
runs it without the rest of the CLI.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import ExitCode
from ..models import Severity
from .exits import mapped


def add_parser(subparsers) -> argparse.ArgumentParser:
    """``verifier-audit scan``: register the subcommand on the CLI's subparsers."""
    p = subparsers.add_parser(
        "scan",
        help="read a verifier's source (without running it) and flag eval of model "
        "output, substring matching, last-number extraction, ...",
    )
    _arguments(p)
    return p


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "targets",
        nargs="+",
        metavar="FILE_OR_MODULE",
        help="a .py file, a directory, or an importable module name (found, not imported); "
        "FILE.py:function or package.module:function scans that function and the module's "
        "functions it calls; the functions and classes of other files it references through imports are "
        "scanned too (not the standard library or sympy/numpy/torch)",
    )
    p.add_argument("--json", type=Path, metavar="PATH", help="also write the findings here, as a JSON list")
    p.add_argument(
        "--report",
        type=Path,
        metavar="REPORT_JSON",
        help="a report (or report set) from `verifier-audit run --json` of the same verifier: mark each "
        "finding confirmed, not confirmed or unknown by what the audit measured",
    )
    p.add_argument(
        "--min-severity",
        choices=[s.value for s in Severity],
        default="low",
        help="report only findings at least this severe (default: low, all)",
    )


@mapped
def run(args) -> int:
    """Scan, confirm against --report, print; the exit code says whether anything was found."""
    from ..audit_files import write_output
    from ..errors import InputError
    from ..models import SEVERITY_WEIGHT
    from ..report.diff import load_reports
    from ..scan import confirm, scan_target
    from ..scan._text import to_text

    scans = [scan_target(target) for target in args.targets]
    findings = [f for scan in scans for f in scan.findings]
    files = list(dict.fromkeys(name for scan in scans for name in scan.files))
    reports = list(load_reports(args.report).values()) if args.report is not None else None
    floor = SEVERITY_WEIGHT[Severity(args.min_severity)]
    findings = [f for f in findings if SEVERITY_WEIGHT[f.severity] >= floor]
    if reports:
        findings = [confirm([f], _report_for(f, reports))[0] for f in findings]
    sys.stdout.write(to_text(findings, args.targets, args.report, files))
    sys.stdout.flush()
    if args.json is not None:
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            write_output(
                "--json",
                args.json,
                json.dumps([f.model_dump(mode="json") for f in findings], indent=2, ensure_ascii=True) + "\n",
            )
        except OSError as exc:
            raise InputError(f"{args.json}: cannot write: {exc.strerror}") from exc
    return ExitCode.GATE if findings else ExitCode.OK  # a finding, or none


def _report_for(finding, reports):
    """The report that audits the finding's code; else the first (confirm then says why
    the report cannot speak for it)."""
    from ..scan._confirm import audits_elsewhere

    return next((r for r in reports if audits_elsewhere(r, finding) is None), reports[0])


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m verifier_audit.cli.scan TARGET...``: the command without the CLI."""
    p = argparse.ArgumentParser(
        prog="verifier-audit scan",
        description="Read a verifier's source without running it and flag what reviewers look for.",
    )
    _arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
