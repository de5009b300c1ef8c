"""``verifier-audit monitor LOG...``: training health from training logs (``monitor/``
reads the logs, fires the alarms and renders the report; docs/monitor.md).

Importing this module imports neither numpy nor matplotlib: ``run`` checks for them and
says how to install them. Exit codes as ``run``: 0 no alarm, 1 an alarm fired, 2 usage or
input error. ``python -m verifier_audit.cli.monitor LOG...`` runs it without the rest of
the CLI.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import ExitCode
from .exits import mapped
from .options import config_path

FORMATS = ("trl", "verl", "csv", "jsonl")  # readers.FORMATS, repeated so the parser needs no numpy


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "monitor",
        help="training health from training logs: entropy collapse, reward-variance collapse, KL drift, "
        "length, train vs validation, one reward term climbing alone",
        description="Read training metrics (TRL trainer_state.json, verl JSONL or console logs, W&B or TensorBoard "
        "CSV exports, any JSONL with --metric) and report, per run, the alarms that fired with the step "
        "and the numbers behind them, the entropy-reward fit R = -a exp(H) + b and its ceiling, and a "
        "verdict in plain words. Several logs are compared side by side. Exit 0: no alarm; 1: an alarm "
        "fired; 2: input error (docs/monitor.md).",
    )
    p.add_argument(
        "logs",
        nargs="+",
        type=Path,
        metavar="LOG",
        help="a training log: trainer_state.json, metrics.jsonl, a verl console log, an exported .csv",
    )
    p.add_argument("--format", choices=FORMATS, default=None, help="the logs' format (default: detected per file)")
    p.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="CANONICAL=NAME",
        help="read the log's NAME as a canonical metric (reward, reward_std, frac_reward_zero_std, "
        "entropy, kl, length, val_accuracy, reward_fn/<name>; step=NAME names the step key); "
        "repeatable",
    )
    p.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="NAME",
        help="a run's name in the report, once per run in order (default: from the file or its path)",
    )
    o = p.add_argument_group("output")
    o.add_argument("--json", type=Path, metavar="PATH", help="write the report as JSON here")
    o.add_argument("--html", type=Path, metavar="PATH", help="write a self-contained HTML page with the plots here")
    o.add_argument("--png-dir", type=Path, metavar="DIR", help="write the plots as PNG files here (needs matplotlib)")
    c = p.add_argument_group("configuration")
    c.add_argument(
        "--config",
        type=Path,
        metavar="PYPROJECT",
        help="read alarm thresholds from [tool.verifier_audit.monitor] of this file (default: the nearest "
        "pyproject.toml with a [tool.verifier_audit] table)",
    )
    c.add_argument("--no-config", action="store_true", help="ignore pyproject.toml: default thresholds")
    return p


def _thresholds(args):
    """Thresholds from the project config (or the defaults), and the config's path."""
    from ..config import check_monitor_section, load_config
    from ..monitor.alarms import Thresholds

    path = config_path(args)
    if path is None:
        return Thresholds(), None
    config = load_config(path)
    print(f"config: {path}", file=sys.stderr)
    values = check_monitor_section(path, path.read_text(encoding="utf-8"), config.monitor, required=True)
    return Thresholds(**values), str(path)


@mapped
def run(args) -> int:
    from ..audit_files import write_output
    from ..errors import InputError
    from ..monitor import report as Rp
    from ..monitor.readers import parse_mapping, read_logs
    from ..report import png

    if args.png_dir is not None and not png.matplotlib_available():
        raise InputError(f"--png-dir needs matplotlib, not installed here: {png.PNG_HINT}")
    thresholds, config_path = _thresholds(args)
    mapping = parse_mapping(args.metric)
    runs = read_logs(args.logs, fmt=args.format, mapping=mapping, names=args.name or None)
    report, fired = Rp.build_report(runs, thresholds, config_path)
    sys.stdout.write(Rp.render_text(report))
    sys.stdout.flush()
    try:
        if args.json is not None:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            write_output("--json", args.json, Rp.to_json(report))
            print(f"wrote {args.json}", file=sys.stderr)
        if args.html is not None:
            args.html.parent.mkdir(parents=True, exist_ok=True)
            write_output("--html", args.html, Rp.render_html(report, runs, fired))
            print(f"wrote {args.html}", file=sys.stderr)
        if args.png_dir is not None:
            for path in Rp.write_pngs(report, runs, fired, args.png_dir):
                print(f"wrote {path}", file=sys.stderr)
    except OSError as exc:
        raise InputError(f"cannot write {exc.filename}: {exc.strerror}") from exc
    return ExitCode.GATE if report.exit_code else ExitCode.OK  # an alarm fired


def main(argv=None) -> int:
    """``python -m verifier_audit.cli.monitor LOG...``: the subcommand on its own."""
    parser = argparse.ArgumentParser(prog="verifier-audit")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["monitor", *(sys.argv[1:] if argv is None else argv)])
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
