"""The ``verifier-audit`` command.

Exit codes (DESIGN.md): 0 gate passed, 1 gate failed, 2 usage or input error (the message
names the file, the line and what is wrong), 3 internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Optional, Sequence

from . import __version__, argtypes
from .config import ProjectConfig, find_config, load_config
from .domains import available, get_domain
from .engine.pool import PoolError
from .errors import InputError
from .loading import STYLES
from .models import ReportSet, to_json
from .monitor.cli import add_parser as add_monitor_parser
from .monitor.cli import run as cmd_monitor
from .plan import (
    Group,
    audit_group,
    audit_options,
    make_groups,
    prepare_group,
    suite_choice,
    waiver_sources,
)
from .report.checklist import add_parser as add_checklist_parser
from .report.checklist import run as cmd_checklist
from .report.failure import display_spec
from .report.terminal import render_gate, render_gate_failures, render_report, render_side_by_side, render_survival
from .scan.cli import add_parser as add_scan_parser
from .scan.cli import run as cmd_scan
from .samples.cli import add_parser as add_sample_parser
from .samples.cli import run as cmd_sample
from .samples.cli_compare import add_parser as add_compare_parser
from .samples.cli_compare import run as cmd_compare
from .samples.cli_logprobs import add_parser as add_logprobs_parser
from .samples.cli_logprobs import run as cmd_logprobs
from .samples.cli_score import add_parsers as add_score_parsers
from .samples.cli_score import run_import as cmd_import
from .samples.cli_score import run_score as cmd_score
from .suites import FORMATS

EXIT_OK, EXIT_GATE, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    """A usage error is its one line and where the help is, not argparse's usage block
    (which runs to twenty lines for ``run``). Subcommands' parsers are of this class too:
    add_subparsers makes them of the parent's class."""

    def error(self, message: str):
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message}\ntry '{self.prog} --help'\n")

    def parse_args(self, args=None, namespace=None):
        # argparse reports a subcommand's unknown options from the top parser ("try
        # 'verifier-audit --help'"); the subcommand's own parser points at the right help.
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = getattr(parsed, "command", None)
            owner = self.commands.choices.get(command, self) if getattr(self, "commands", None) else self
            owner.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed


def _suite_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("suite")
    g.add_argument("--suite", default=None, help="built-in suite name or a JSONL file (default: math, or the config's)")
    g.add_argument("--format", default=None, choices=FORMATS,
                   help="suite file format (gsm8k: '#### n' answers; math: \\boxed{} in a solution; "
                        "spider: Spider/BIRD JSON with SQLite databases)")
    g.add_argument("--db-dir", default=None, help="spider format: folder of <db_id>/<db_id>.sqlite (default: beside the JSON)")
    g.add_argument("--field", action="append", default=[], metavar="OURS=THEIRS",
                   help="map a suite field, e.g. --field prompt=question --field reference=answer")
    g.add_argument("--domain", default=None, help="domain of a suite file's tasks when its lines do not say (default: math)")
    g.add_argument("--split", choices=("train", "heldout", "shifted"), help="audit one split only")
    g.add_argument("--limit", type=argtypes.positive_int, help="audit the first N tasks only (a quick local run)")
    g.add_argument("--seed", type=int, default=None, help="generation seed (default 0): same seed, same candidates")
    g.add_argument("--workers", type=argtypes.workers, default=None, help="worker processes (default: cores, at most 8)")
    g.add_argument("--oracle-timeout", type=argtypes.positive_float, default=None, help="hard limit per oracle call, seconds (default 10)")
    g.add_argument("--memory-mb", type=argtypes.memory_mb, default=None,
                   help="address space a worker may add to what it maps at start (default 4096 MiB; 0: no limit)")
    argtypes.add_isolation_option(g)
    argtypes.add_executor_options(g)
    g.add_argument("--no-cache", action="store_true", help="regenerate and relabel candidates instead of using the cache")
    g.add_argument("--only", action="append", choices=("near_miss", "equivalent", "known_bad"), metavar="ORIGIN",
                   help="audit only candidates of this origin (repeatable): near_miss, equivalent, known_bad; "
                        "--only near_miss is a mutation analysis of the verifier's tests")
    c = p.add_argument_group("configuration")
    c.add_argument("--config", type=Path, metavar="PYPROJECT",
                   help="read [tool.verifier_audit] from this file (default: the nearest pyproject.toml that has one)")
    c.add_argument("--no-config", action="store_true", help="ignore [tool.verifier_audit] in pyproject.toml")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="verifier-audit",
        description="Measure how much a reward verifier can be fooled (false acceptance, false rejection, coverage debt).",
    )
    parser.add_argument("--version", action="version", version=f"verifier-audit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub  # for parse_args: which subcommand's help to point at

    run = sub.add_parser("run", help="audit verifiers (no --verifier: those of [tool.verifier_audit], else the built-in "
                                     "reference verifiers side by side)")
    run.add_argument("--verifier", action="append", default=[], metavar="SPEC",
                     help="package.module:function or path/to/file.py:function (repeatable)")
    run.add_argument("--style", choices=("auto",) + STYLES, default="auto",
                     help="call style: how the reward is loaded and called, as its framework does (default: from the "
                          "signature or the object; README, 'Frameworks')")
    run.add_argument("--verifier-option", action="append", default=[], metavar="KEY=VALUE", dest="verifier_options",
                     help="a setting of the style (repeatable): weights=1,0.5 (trl), data_source=gsm8k (verl), "
                          "model=NAME and template=FILE (judge), shape=json and field.completion=response (http)")
    _suite_args(run)
    g = run.add_argument_group("verdicts and gate")
    g.add_argument("--timeout", type=argtypes.positive_float, default=None,
                   help="hard limit per verifier call, seconds (default 10; the code domain: 4)")
    g.add_argument("--threshold", type=argtypes.rate, default=None, help="a score >= this is an acceptance (default 0.5)")
    g.add_argument("--max-debt", type=argtypes.rate, default=None, help="gate: coverage debt at most this (default 0.05)")
    g.add_argument("--max-category", type=argtypes.rate, default=None, help="gate: false acceptance of any one category at most this (default 0.5)")
    g.add_argument("--max-false-rejection", type=argtypes.rate, default=None, help="gate: false rejection at most this (default 0.10)")
    g.add_argument("--max-error-rate", type=argtypes.rate, default=None, metavar="RATE",
                   help="gate: share of verifier calls that errored (timeout, crash, exception) at most this (default 0.05)")
    g.add_argument("--search", type=argtypes.nonnegative_int, default=None, metavar="CALLS",
                   help="also search for exploits the fixed candidates miss, within CALLS verifier calls per verifier "
                        "(e.g. 3000): found families are <domain>.search.<family> categories, gated like the rest "
                        "(docs/search.md)")
    g.add_argument("--min-slice-n", type=argtypes.positive_int, default=None, metavar="N",
                   help="gate: --max-category also holds on every slice of a category (integer answers, queries "
                        "with a join, ...) with at least N candidates scored (default 10)")
    g.add_argument("--weights-from", type=Path, default=None, metavar="TASKS",
                   help="also report, and gate, the coverage debt reweighted to the mix of task slices in this file "
                        "(your own tasks, any format --suite reads)")
    g.add_argument("--slice-field", default=None, metavar="NAME",
                   help="the task metadata field that names a task's slice (default: slice; tasks without it are "
                        "sliced by the domain: answer type, query features, return type)")
    g.add_argument("--probe-sample", type=argtypes.nonnegative_int, default=None, metavar="N",
                   help="candidates rescored to check determinism and thread/process safety (default 24; 0: none)")
    g.add_argument("--no-format-probe", action="store_true",
                   help="show every verifier its candidates as generated (\\boxed{} in math), without first probing "
                        "which answer formats it reads (docs/answer-formats.md)")
    g.add_argument("--waive", action="append", default=[], metavar="CATEGORY",
                   help="do not gate on this category (left out of the per-category check and of the gated debt); "
                        "a category the domain does not have is an error")
    o = run.add_argument_group("output")
    o.add_argument("--json", type=Path, metavar="PATH", help="write the report JSON here")
    o.add_argument("--markdown", type=Path, metavar="PATH", help="write a Markdown summary here (a PR comment)")
    o.add_argument("--junit", type=Path, metavar="PATH",
                   help="write JUnit XML here: one test case per category, failed over its allowance")
    o.add_argument("--report-dir", type=Path, metavar="DIR",
                   help="write the report in every format here (report.json, .md, .html, .sarif, junit.xml)")
    o.add_argument("--html", type=Path, metavar="PATH", help="write a self-contained HTML report here")
    o.add_argument("--sarif", type=Path, metavar="PATH", help="write SARIF 2.1.0 here (code scanning)")
    o.add_argument("--results", type=Path, metavar="PATH", help="stream verdicts here (default: in the cache folder)")
    o.add_argument("--resume", action="store_true", help="continue an interrupted audit from its results file")
    o.add_argument("--all-categories", action="store_true", help="list every category, not only the misjudged")
    o.add_argument("--by-task", action="store_true", help="list the surviving near-miss mutants of every task, for every verifier")
    o.add_argument("--no-progress", action="store_true", help="no progress bar")

    gen = sub.add_parser("generate", help="write the oracle-confirmed candidates as JSONL")
    _suite_args(gen)
    gen.add_argument("--out", type=Path, help="output file (default: stdout)")
    gen.add_argument("--dropped", action="store_true", help="also write the candidates the oracle dropped, with the reason")

    dif = sub.add_parser("diff", help="compare two report JSON files: what got better and what got worse")
    dif.add_argument("old", type=Path)
    dif.add_argument("new", type=Path)
    dif.add_argument("--fail-on-regression", action="store_true",
                     help="exit 1 when the debt rose, a category got worse or a security finding appeared")

    add_checklist_parser(sub)
    add_scan_parser(sub)
    add_sample_parser(sub)
    add_logprobs_parser(sub)
    add_score_parsers(sub)
    add_compare_parser(sub)
    add_monitor_parser(sub)

    cat = sub.add_parser("catalog", help="list failure categories and catalog entries with their rationale "
                                         "(every installed domain, or --domain's)")
    cat.add_argument("--domain", default=None, help="only this domain's (default: every installed domain: "
                                                    + ", ".join(available()) + ")")
    cat.add_argument("--json", action="store_true", help="as JSON")
    return parser


def _given(args) -> dict:
    """The options the user gave on the command line (None: not given)."""
    names = ("suite", "format", "split", "limit", "seed", "workers", "timeout", "oracle_timeout", "memory_mb",
             "threshold", "max_debt", "max_category", "max_false_rejection", "max_error_rate", "domain", "db_dir",
             "resume", "probe_sample", "isolation", "min_slice_n", "weights_from", "slice_field", "search",
             "executor", "ray_address")
    given = {n: getattr(args, n, None) for n in names}
    given.update(fields=args.field, waive=getattr(args, "waive", []), no_cache=args.no_cache,
                 origins=getattr(args, "only", None),
                 progress=False if getattr(args, "no_progress", False) else None,
                 answer_formats=False if getattr(args, "no_format_probe", False) else None)
    return given


def _config(args) -> Optional[ProjectConfig]:
    if args.no_config:
        return None
    path = args.config or find_config()
    if args.config is not None and not args.config.is_file():
        raise InputError(f"--config {args.config}: no such file")
    if path is None:
        return None
    config = load_config(path)
    print(f"config: {path}", file=sys.stderr)
    for w in config.expired_waivers():
        print(f"verifier-audit: waiver of {w.category} expired on {w.expires} ({w.reason}); it is gated again",
              file=sys.stderr)
    return config


def _write_outputs(args, reports, config: Optional[ProjectConfig]) -> None:
    outputs = {"json": args.json, "markdown": args.markdown, "junit": args.junit, "html": args.html, "sarif": args.sarif}
    report_dir = args.report_dir or (Path(config.resolve_path(config.report_dir)) if config and config.report_dir else None)
    if report_dir is not None:
        defaults = {"json": "report.json", "markdown": "report.md", "junit": "junit.xml", "html": "report.html",
                    "sarif": "report.sarif"}
        outputs = {k: v or report_dir / defaults[k] for k, v in outputs.items()}
    for kind, path in outputs.items():
        if path is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_output(kind, reports), encoding="utf-8")


def render_output(kind: str, reports) -> str:
    """One report file of ``kind`` (json, markdown, junit, html, sarif) for these reports."""
    if kind == "json":
        payload = reports[0] if len(reports) == 1 else ReportSet(tool_version=__version__, reports=reports)
        return to_json(payload, indent=2) + "\n"
    if kind == "markdown":
        from .report.markdown import to_markdown

        return to_markdown(reports)
    if kind == "junit":
        from .report.junit import to_junit

        return to_junit(reports)
    if kind == "html":
        from .report.checklist import evaluate
        from .report.html import to_html

        return to_html(reports, {r.verifier: evaluate(r) for r in reports})
    if kind == "sarif":
        from .report.sarif import to_sarif

        return json.dumps(to_sarif(reports), indent=2, ensure_ascii=True) + "\n"
    raise ValueError(kind)


def cmd_run(args) -> int:
    config = _config(args)
    given = _given(args)
    demo = not args.verifier and not (config and config.verifiers)
    if demo:  # the reference verifiers of the suite's own domain, side by side, no gate
        choice = suite_choice(given, config)
        options, timeout = audit_options(given, config, enforce_gate=False)
        groups = [Group(choice, options, [], timeout, waiver_sources(given, config))]
    else:
        groups = make_groups(given, config, args.verifier, args.style, args.verifier_options)
    reports = []
    for group in groups:
        reports += _run_group(args, group, demo)
    _write_outputs(args, reports, config)
    if demo:
        return EXIT_OK
    return gate_exit(reports)


def gate_exit(reports) -> int:
    """EXIT_GATE when a report failed its gate, saying on stderr which and why (the
    detailed view may have scrolled away, or stdout gone to a file); else EXIT_OK."""
    failures = render_gate_failures(reports, display_spec)
    for line in failures:
        print(line, file=sys.stderr)
    return EXIT_GATE if failures else EXIT_OK


def _run_group(args, group: Group, demo: bool) -> list:
    prepared, reports = audit_group(group, args.results)
    if demo or len(reports) > 1:
        print(render_side_by_side(reports))
        if not demo:  # the side-by-side table has no room for the reasons
            for r in reports:
                print(f"\n{display_spec(r.verifier)}: {render_gate(r)}")
    else:
        print(render_report(reports[0], all_categories=args.all_categories))
    # Mutation analysis: per task for the verifier the domain names (its visible tests), or
    # for all with --by-task; totals otherwise.
    survival_of = getattr(get_domain(prepared.domain), "survival_verifier", None) if demo else None
    for r in reports:
        name = r.verifier.rpartition(":")[2]
        if r.mutant_survival is not None and (args.by_task or name == survival_of or (not demo and len(reports) == 1)):
            print("\n" + render_survival(r, by_task=args.by_task or name == survival_of))
    print(f"results: {group.options.results}", file=sys.stderr)
    return reports


def cmd_generate(args) -> int:
    config = _config(args)
    given = _given(args)
    options, _ = audit_options(given, config, enforce_gate=False)
    prepared = prepare_group(suite_choice(given, config), options)
    out = args.out.open("w", encoding="utf-8") if args.out else sys.stdout
    try:
        for c in prepared.candidates:
            out.write(to_json(c) + "\n")
        if args.dropped:
            for d in prepared.dropped:
                out.write(json.dumps({**d.model_dump(), "dropped": True}, ensure_ascii=True) + "\n")
    finally:
        if args.out:
            out.close()
    print(f"{len(prepared.candidates)} candidates; dropped {sum(prepared.dropped_counts.values())} "
          f"({', '.join(f'{k} {v}' for k, v in prepared.dropped_counts.items()) or 'none'})", file=sys.stderr)
    return EXIT_OK


def cmd_catalog(args) -> int:
    names = [args.domain] if args.domain else list(available())
    domains = {name: get_domain(name).categories() for name in names}
    if args.json:  # one flat list; each entry names its domain
        print(json.dumps([{"domain": name, **c.__dict__, "severity": c.severity.value}
                          for name, cats in domains.items() for c in cats], indent=2))
        return EXIT_OK
    for name, cats in domains.items():
        if len(domains) > 1:
            print(f"== {name} ({len(cats)} categories) ==\n")
        by_origin: dict[str, list] = {}
        for c in cats:
            by_origin.setdefault(c.origin, []).append(c)
        for origin, rows in by_origin.items():
            print(f"{origin} ({len(rows)})")
            for c in rows:
                ref = f"  [{c.reference}]" if c.reference else ""
                print(f"  {c.name:<44} {c.severity.value:<8} {c.description}{ref}")
            print()
    return EXIT_OK


def cmd_diff(args) -> int:
    from .report.diff import diff, load_reports, render_diff

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
    from .report.diff import EPSILON

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


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_INPUT
    handler = {"run": cmd_run, "generate": cmd_generate, "catalog": cmd_catalog, "diff": cmd_diff,
               "checklist": cmd_checklist, "scan": cmd_scan, "sample": cmd_sample,
               "logprobs": cmd_logprobs, "score": cmd_score, "import": cmd_import, "compare": cmd_compare,
               "monitor": cmd_monitor}[args.command]
    try:
        return handler(args)
    except InputError as exc:
        print(f"verifier-audit: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except PoolError as exc:
        print(f"verifier-audit: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        # The reader went away (`verifier-audit catalog | head`): not an error. Point stdout
        # at /dev/null so the interpreter's own flush at exit does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print("\nverifier-audit: interrupted; run the same command with --resume to continue", file=sys.stderr)
        return 130
    except Exception:  # noqa: BLE001 - the one place that turns a bug into exit 3
        traceback.print_exc()
        print(f"verifier-audit {__version__}: internal error (exit 3); please report it with the traceback above",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
