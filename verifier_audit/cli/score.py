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
from .exits import mapped
from .options import add_no_progress, add_report_options, add_terminal_options, config_path, report_paths, use_color


def add_parser(subparsers) -> argparse.ArgumentParser:
    from ..loading import STYLES
    from ..suites import FORMATS

    sc = subparsers.add_parser(
        "score", help="false acceptance and rejection of a verifier on real model samples (samples files)",
        description="Label every sample with the domain's oracle and score it with the verifier: false acceptance "
                    "and false rejection on real outputs, per model and split, the disagreeing samples, and an RL "
                    "policy against its base (docs/samples-import-score.md).")
    sc.add_argument("files", nargs="*", type=Path, metavar="SAMPLES",
                    help="samples files (verifier-audit sample or import); with --base, these are the RL policies")
    sc.add_argument("--base", action="append", default=[], type=Path, metavar="FILE",
                    help="a base model's samples file (repeatable): the others are compared with it as RL policies")
    sc.add_argument("--verifier", action="append", default=[], required=True, metavar="SPEC",
                    help="package.module:function or path/to/file.py:function (repeatable)")
    sc.add_argument("--style", choices=("auto",) + STYLES, default="auto", help="call style (default: from the signature)")
    sc.add_argument("--verifier-option", action="append", default=[], metavar="KEY=VALUE", dest="verifier_options",
                    help="a setting of the style, as for run (README, 'Frameworks')")
    sc.add_argument("--suite", default=None, help="the suite the samples were made on (default: the files' manifest)")
    sc.add_argument("--suite-format", default="jsonl", choices=FORMATS, help="format of a suite file (default jsonl)")
    g = sc.add_argument_group("verdicts and gate (as for run)")
    g.add_argument("--threshold", type=argtypes.rate, default=None, help="a score >= this is an acceptance (default 0.5)")
    g.add_argument("--max-debt", type=argtypes.rate, default=None,
                   help="gate: coverage debt (mean false acceptance of the model/split categories) at most this (default 0.05)")
    g.add_argument("--max-category", type=argtypes.rate, default=None,
                   help="gate: false acceptance of any one model/split category at most this (default 0.5)")
    g.add_argument("--max-false-rejection", type=argtypes.rate, default=None, help="gate: false rejection at most this (default 0.10)")
    g.add_argument("--max-error-rate", type=argtypes.rate, default=None, metavar="RATE",
                   help="gate: share of verifier calls that errored at most this (default 0.05)")
    g.add_argument("--max-retry-rate", type=argtypes.rate, default=None, metavar="RATE",
                   help="gate: share of a remote verifier's requests that were retried at most this (default 0.05)")
    g.add_argument("--waive", action="append", default=[], metavar="CATEGORY",
                   help="do not gate on this category (one of the domain's or of the samples'; another is an error)")
    g.add_argument("--timeout", type=argtypes.positive_float, default=None, help="hard limit per verifier call, seconds")
    g.add_argument("--oracle-timeout", type=argtypes.positive_float, default=None, help="hard limit per oracle call (default 10)")
    g.add_argument("--workers", type=argtypes.workers, default=None, help="worker processes (default: cores, at most 8)")
    g.add_argument("--memory-mb", type=argtypes.memory_mb, default=None,
                   help="address-space limit per worker (default 4096 MiB; 0: no limit)")
    argtypes.add_isolation_option(g)
    argtypes.add_limit_options(g)
    argtypes.add_executor_options(g)
    g.add_argument("--seed", type=int, default=None, help="seed of the probes' sample (default 0)")
    g.add_argument("--probe-sample", type=argtypes.nonnegative_int, default=None, metavar="N",
                   help="samples rescored to check determinism and thread/process safety (default 24; 0: none)")
    o = sc.add_argument_group("output")
    add_report_options(o)  # the JSON and the Markdown carry the samples sections too
    o.add_argument("--results", type=Path, metavar="PATH", help="stream verdicts here (default: in the cache folder)")
    o.add_argument("--resume", action="store_true", help="continue an interrupted scoring from its results file")
    o.add_argument("--block-size", type=argtypes.positive_int, default=None, metavar="N",
                   help="samples read, labelled and scored at a time: memory is bounded by it, not by the number "
                        "of samples (default 20000; docs/samples-import-score.md)")
    o.add_argument("--show", type=argtypes.nonnegative_int, default=10, metavar="N",
                   help="disagreeing samples shown of each kind (default 10; the JSON keeps up to 50)")
    add_no_progress(o)
    add_terminal_options(o)
    c = sc.add_argument_group("configuration")
    c.add_argument("--config", type=Path, metavar="PYPROJECT", help="read [tool.verifier_audit] (gate, workers) from this file")
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
    given = {s.option_name: getattr(args, argparse_dest(s)) for s in settings_of(SCORE)
             if not s.name.startswith("verifiers[]") and s.name != "suite"}
    given.update(resume=args.resume, progress=False if args.no_progress or args.quiet else None)
    options, timeout = audit_options(given, config)
    options.results = args.results
    resolved = resolve_many([(spec, args.style, args.verifier_options) for spec in args.verifier],
                            isolation=options.isolation, timeout=args.inspect_timeout, memory_mb=options.memory_mb,
                            pass_env=pass_env(given, config))
    specs = unique_names([part for spec in resolved for part in with_parts(spec)])
    result = score_samples(args.files, specs, options, base=args.base, suite=args.suite,
                           suite_format=args.suite_format, timeout=timeout,
                           log=lambda m: None if args.quiet else print(m, file=sys.stderr),
                           block_size=args.block_size)
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
    write_reports(outputs, result.reports,
                  result.addenda("".join(section_markdown(s, show=args.show) for s in result.sections)))
    print(verdict_line(result.reports, color=color))  # the last line on stdout
    failures = render_gate_failures(result.reports, display_spec)
    for line in failures if not args.quiet else ():
        print(line, file=sys.stderr)
    return ExitCode.GATE if failures else ExitCode.OK
