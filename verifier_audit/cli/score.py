"""``verifier-audit score SAMPLES... --verifier SPEC``: false acceptance and rejection of a
verifier on real model samples (``samples/score/`` labels, scores and renders them;
docs/samples-import-score.md).

Importing this module imports neither torch nor the engine. Exit codes as ``run``: 0
passed, 1 the gate failed on the samples, 2 usage or input error (the message names the
file and the line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import argtypes
from ..errors import ExitCode
from ..settings import SCORE
from .exits import mapped
from .options import (
    add_no_progress,
    add_report_options,
    add_settings,
    add_terminal_options,
    config_path,
    report_paths,
    use_color,
)

# score's --help lists the gate first, then how the calls run
_SCORE_GATE = (
    "threshold",
    "max_debt",
    "max_category",
    "max_false_rejection",
    "max_error_rate",
    "max_retry_rate",
    "max_nondeterminism",
    "max_call_seconds",
    "waive",
    "timeout",
    "oracle_timeout",
    "workers",
    "memory_mb",
    "isolation",
    "inspect_timeout",
    "file_mb",
    "max_processes",
    "pass_env",
    "executor",
    "ray_address",
    "seed",
    "probe_sample",
)


def add_parser(subparsers) -> argparse.ArgumentParser:
    from ..loading import STYLES
    from ..suites import FORMATS

    sc = subparsers.add_parser(
        "score",
        help="false acceptance and rejection of a verifier on real model samples (samples files)",
        description="Label every sample with the domain's oracle and score it with the verifier: false acceptance "
        "and false rejection on real outputs, per model and split, the disagreeing samples, and an RL "
        "policy against its base (docs/samples-import-score.md).",
    )
    sc.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="SAMPLES",
        help="samples files (verifier-audit sample or import); with --base, these are the RL policies",
    )
    sc.add_argument(
        "--base",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="a base model's samples file (repeatable): the others are compared with it as RL policies",
    )
    add_settings(
        sc,
        SCORE,
        (),
        first=("spec", "style", "options", "suite"),
        extra={"spec": {"required": True}, "style": {"choices": ("auto",) + STYLES}},
    )
    sc.add_argument("--suite-format", default="jsonl", choices=FORMATS, help="format of a suite file (default jsonl)")
    g = sc.add_argument_group("verdicts and gate (as for run)")
    add_settings(g, SCORE, ("suite", "verdicts"), first=_SCORE_GATE)
    o = sc.add_argument_group("output")
    add_report_options(o)  # the JSON and the Markdown carry the samples sections too
    o.add_argument("--results", type=Path, metavar="PATH", help="stream verdicts here (default: in the cache folder)")
    o.add_argument("--resume", action="store_true", help="continue an interrupted scoring from its results file")
    o.add_argument(
        "--block-size",
        type=argtypes.positive_int,
        default=None,
        metavar="N",
        help="samples read, labelled and scored at a time: memory is bounded by it, not by the number "
        "of samples (default 20000; docs/samples-import-score.md)",
    )
    o.add_argument(
        "--show",
        type=argtypes.nonnegative_int,
        default=10,
        metavar="N",
        help="disagreeing samples shown of each kind (default 10; the JSON keeps up to 50)",
    )
    add_no_progress(o)
    add_terminal_options(o)
    c = sc.add_argument_group("configuration")
    c.add_argument(
        "--config", type=Path, metavar="PYPROJECT", help="read [tool.verifier_audit] (gate, workers) from this file"
    )
    c.add_argument("--no-config", action="store_true", help="ignore [tool.verifier_audit] in pyproject.toml")
    return sc


def _config(args):
    from ..config import load_config

    path = config_path(args)
    if path is None:
        return None
    print(f"config: {path}", file=sys.stderr)
    return load_config(path)


@mapped
def run(args) -> int:
    from ..engine.inspection import resolve_many
    from ..errors import InputError
    from ..loading import with_parts
    from ..plan import audit_options, check_waivers, pass_env, unique_names, waiver_sources
    from ..report.failure import display_spec
    from ..report.terminal import render_gate_failures, render_report, verdict_line
    from ..report.writers import write_reports
    from ..samples.score import render_section, score_samples, section_markdown
    from ..settings import SCORE, argparse_dest, settings_of

    if not args.files and not args.base:
        raise InputError("no samples file given: verifier-audit score SAMPLES.jsonl --verifier SPEC")
    config = _config(args)
    outputs = report_paths(args)  # checked now: a path that cannot be written is exit 2 before the scoring
    # One option per setting of score (settings.py) but the verifiers' and the suite's (read below).
    given = {
        s.option_name: getattr(args, argparse_dest(s))
        for s in settings_of(SCORE)
        if not s.name.startswith("verifiers[]") and s.name != "suite"
    }
    given.update(resume=args.resume, progress=False if args.no_progress or args.quiet else None)
    options, timeout = audit_options(given, config)
    options.results = args.results
    resolved = resolve_many(
        [(spec, args.style, args.verifier_options) for spec in args.verifier],
        isolation=options.isolation,
        timeout=args.inspect_timeout,
        memory_mb=options.memory_mb,
        pass_env=pass_env(given, config),
    )
    specs = unique_names([part for spec in resolved for part in with_parts(spec)])
    result = score_samples(
        args.files,
        specs,
        options,
        base=args.base,
        suite=args.suite,
        suite_format=args.suite_format,
        timeout=timeout,
        log=lambda m: None if args.quiet else print(m, file=sys.stderr),
        block_size=args.block_size,
    )
    # The samples' categories are known only once they are labelled, so a misspelled
    # waiver is found here, after the scoring and before anything is reported.
    check_waivers(options.gate, result.prepared.domain, result.categories, waiver_sources(given, config))
    color = use_color(args)
    for report, section in zip(result.reports, result.sections) if not args.quiet else ():
        print(render_report(report, verdict=False, color=color))
        print()
        print(render_section(section, show=args.show))
        print()
    if not args.quiet:
        print(f"results: {result.results_path}", file=sys.stderr)
    write_reports(
        outputs, result.reports, result.addenda("".join(section_markdown(s, show=args.show) for s in result.sections))
    )
    print(verdict_line(result.reports, color=color))  # the last line on stdout
    failures = render_gate_failures(result.reports, display_spec)
    for line in failures if not args.quiet else ():
        print(line, file=sys.stderr)
    return ExitCode.GATE if failures else ExitCode.OK
