"""``verifier-audit run``: audit verifiers on a suite, print the report, write it in the
formats asked for, and exit on the gate (0 passed, 1 failed). With no verifier given (on
the command line or in [tool.verifier_audit]) it audits the suite's domain's reference
verifiers side by side, without a gate."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import ExitCode
from ..loading import STYLES
from ..settings import RUN
from ..suites import FORMATS
from .exits import mapped
from .options import add_no_progress, add_report_options, add_settings, add_suite_options, config_path, given_options

# run's --help lists the call's limits and the gate before --search, the table (docs/config.md) after
_GATE_FIRST = (
    "timeout",
    "threshold",
    "max_debt",
    "max_category",
    "max_false_rejection",
    "max_error_rate",
    "max_retry_rate",
    "max_nondeterminism",
    "max_call_seconds",
    "search",
)


def add_parser(subparsers) -> argparse.ArgumentParser:
    from .options import add_terminal_options

    run = subparsers.add_parser(
        "run",
        help="audit verifiers (no --verifier: those of [tool.verifier_audit], else the "
        "built-in reference verifiers side by side)",
    )
    add_settings(run, RUN, ("verifier",), extra={"style": {"choices": ("auto",) + STYLES}})
    add_suite_options(run, FORMATS)
    g = run.add_argument_group("verdicts and gate")
    add_settings(g, RUN, ("verdicts",), first=_GATE_FIRST)
    o = run.add_argument_group("output")
    add_report_options(o)
    o.add_argument("--results", type=Path, metavar="PATH", help="stream verdicts here (default: in the cache folder)")
    o.add_argument("--resume", action="store_true", help="continue an interrupted audit from its results file")
    o.add_argument("--all-categories", action="store_true", help="list every category, not only the misjudged")
    o.add_argument(
        "--by-task", action="store_true", help="list the surviving near-miss mutants of every task, for every verifier"
    )
    add_no_progress(o)
    add_terminal_options(o)
    return run


def project_config(args):
    """The [tool.verifier_audit] of ``run`` and ``generate`` (None: none), said on stderr with
    the waivers that expired."""
    from ..config import load_config

    path = config_path(args)
    if path is None:
        return None
    config = load_config(path)
    if not getattr(args, "quiet", False):
        print(f"config: {path}", file=sys.stderr)
    for w in config.expired_waivers():
        print(
            f"verifier-audit: waiver of {w.category} expired on {w.expires} ({w.reason}); it is gated again",
            file=sys.stderr,
        )
    return config


@mapped
def run(args) -> int:
    from ..plan import Group, audit_options, group_results, make_groups, suite_choice, waiver_sources
    from ..report.terminal import verdict_line
    from ..report.writers import write_reports
    from .options import use_color

    config = project_config(args)
    outputs = output_paths(args, config)  # checked now: a path that cannot be written fails before the audit
    given = given_options(args)
    if args.quiet:
        given["progress"] = False
    demo = not args.verifier and not (config and config.verifiers)
    if demo:  # the reference verifiers of the suite's own domain, side by side, no gate
        choice = suite_choice(given, config)
        options, timeout = audit_options(given, config, enforce_gate=False)
        groups = [Group(choice, options, [], timeout, waiver_sources(given, config))]
    else:
        groups = make_groups(given, config, args.verifier, args.style, args.verifier_options)
    reports = []
    color = use_color(args)
    for k, group in enumerate(groups):
        reports += _run_group(args, group, demo, group_results(args.results, k), color)
    write_reports(outputs, reports)
    print(verdict_line(reports, demo=demo, color=color))  # the last line on stdout, whatever else was printed
    if demo:
        return ExitCode.OK
    return gate_exit(reports, quiet=args.quiet)


def gate_exit(reports, quiet: bool = False) -> int:
    """ExitCode.GATE when a report failed its gate, saying on stderr which and why (the
    detailed view may have scrolled away, or stdout gone to a file); else ExitCode.OK. With
    ``quiet`` the verdict line on stdout says it alone."""
    from ..report.failure import display_spec
    from ..report.terminal import render_gate_failures

    failures = render_gate_failures(reports, display_spec)
    for line in failures if not quiet else ():
        print(line, file=sys.stderr)
    return ExitCode.GATE if failures else ExitCode.OK


def _run_group(args, group, demo: bool, results, color: bool = False) -> list:
    from ..domains import get_domain
    from ..plan import audit_group
    from ..report.failure import display_spec
    from ..report.terminal import render_gate, render_report, render_side_by_side, render_survival

    prepared, reports = audit_group(group, results)
    if args.quiet:  # the verdict line alone, printed by run()
        return reports
    if demo or len(reports) > 1:
        print(render_side_by_side(reports, color=color))
        if not demo:  # the side-by-side table has no room for the reasons
            for r in reports:
                print(f"\n{display_spec(r.verifier)}: {render_gate(r, color=color)}")
    else:
        print(render_report(reports[0], all_categories=args.all_categories, verdict=False, color=color))
    # Mutation analysis, only where it means something: in a domain that names the verifier
    # whose survival it prints (code: its near misses are mutants of a program that the
    # verifier's visible tests must kill, mutation testing proper). In math, SQL and tools the
    # near misses are already the near_miss.* categories above; their "survival" would repeat
    # those rates under another name (issue 31). Per task for that verifier in the demo, or
    # for all with --by-task; totals otherwise.
    survival_of = get_domain(prepared.domain).survival_verifier
    for r in reports:
        name = r.verifier.rpartition(":")[2]
        meaningful = survival_of is not None and (name == survival_of or not demo)
        if r.mutant_survival is not None and (args.by_task or meaningful):
            print("\n" + render_survival(r, by_task=args.by_task or (demo and name == survival_of)))
    print(f"results: {group.options.results}", file=sys.stderr)
    return reports


def output_paths(args, config) -> dict:
    """Format name -> (flag, path) of every report file asked for: ``options.report_paths``,
    with the config's ``report_dir`` when there is no ``--report-dir``."""
    from .options import report_paths

    if config and config.report_dir:
        return report_paths(
            args, Path(config.resolve_path(config.report_dir)), "report_dir (pyproject.toml [tool.verifier_audit])"
        )
    return report_paths(args)
