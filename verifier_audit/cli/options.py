"""What the subcommands share: the flags that repeat from one subcommand to another (the
suite options of ``run`` and ``generate``, ``--no-progress``, ``--config``/``--no-config``).
Exit codes are ``errors.ExitCode``; errors become them in ``exits.py``.

The value types of the flags (numbers with their range) are ``verifier_audit/argtypes.py``:
they stay below the front ends because ``config.py`` and ``plan.py`` check the same ranges
for ``[tool.verifier_audit]``. Importing this module imports neither the engine nor the
domains' heavy dependencies: the parser of ``verifier-audit --help`` is built from it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from .. import argtypes
from ..settings import RUN, argparse_dest, settings_of

NO_PROGRESS_HELP = "no progress bar"


def add_no_progress(p) -> None:
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)


def add_terminal_options(p) -> None:
    """``-q/--quiet`` and ``--color``: how much of the terminal report is printed, and in colour
    or not (docs/reports.md, "Reading the terminal report")."""
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print only the verdict line (and errors): the report files are written as usual")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the terminal report (FAILED red, PASSED green, security findings red); auto: when "
                        "stdout is a terminal and NO_COLOR is not set (FORCE_COLOR forces it); never in files")


def use_color(args, stream=None) -> bool:
    """Whether the terminal report is coloured: ``--color always``/``never`` win; ``auto``
    follows NO_COLOR (set and not empty: no colour, https://no-color.org), then FORCE_COLOR
    (set and not empty or "0": colour, as Node and pytest read it), then whether ``stream``
    (stdout) is a terminal."""
    import os

    choice = getattr(args, "color", "auto")
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force is not None and force not in ("", "0"):
        return True
    stream = sys.stdout if stream is None else stream
    return bool(getattr(stream, "isatty", lambda: False)())


# --report-dir sits after this format's flag, where run's --help has always listed it.
_REPORT_DIR_AFTER = "junit"


def add_report_options(p) -> None:
    """A flag for each report format (``report.writers.WRITERS``: ``--json PATH``, ...) and
    ``--report-dir DIR`` (every format there): ``run`` and ``score`` write the same set."""
    from ..report.writers import WRITERS, report_dir_help

    for w in WRITERS.values():
        p.add_argument(w.flag, type=Path, metavar="PATH", help=w.help)
        if w.name == _REPORT_DIR_AFTER:
            p.add_argument("--report-dir", type=Path, metavar="DIR", help=report_dir_help())


def report_paths(args, report_dir: Path | None = None, dir_flag: str = "--report-dir") -> dict:
    """Format name -> (flag, path) of every report file asked for (``--json`` ...; every
    format under ``--report-dir``, else under ``report_dir``, named by ``dir_flag``), each
    checked by ``audit_files.check_output`` *before* the audit, and ``--results`` too: a
    folder, a path under /proc, a parent that does not exist or cannot be written is exit 2
    now, not an error once the audit is done."""
    from ..audit_files import check_output
    from ..report.writers import WRITERS

    outputs = {w.name: (w.flag, getattr(args, w.name)) for w in WRITERS.values() if getattr(args, w.name) is not None}
    if args.report_dir is not None:
        report_dir, dir_flag = args.report_dir, "--report-dir"
    if report_dir is not None:
        check_output(dir_flag, report_dir, folder=True)
        for w in WRITERS.values():
            outputs.setdefault(w.name, (dir_flag, report_dir / w.file_name))
    for flag, path in outputs.values():
        check_output(flag, path)
    if args.results is not None:  # not a report, but a bad path there failed the same way (exit 3, late)
        check_output("--results", args.results, parents=True)
    return outputs


def add_suite_options(p: argparse.ArgumentParser, formats) -> None:
    """The suite, the worker pool and the configuration of ``run`` and ``generate``."""
    g = p.add_argument_group("suite")
    g.add_argument("--suite", default=None, help="built-in suite name or a JSONL file (default: math, or the config's)")
    g.add_argument("--format", default=None, choices=formats,
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
    argtypes.add_limit_options(g)
    argtypes.add_executor_options(g)
    g.add_argument("--no-cache", action="store_true", help="regenerate and relabel candidates instead of using the cache")
    g.add_argument("--only", action="append", choices=("near_miss", "equivalent", "known_bad"), metavar="ORIGIN",
                   help="audit only candidates of this origin (repeatable): near_miss, equivalent, known_bad; "
                        "--only near_miss is a mutation analysis of the verifier's tests")
    c = p.add_argument_group("configuration")
    c.add_argument("--config", type=Path, metavar="PYPROJECT",
                   help="read [tool.verifier_audit] from this file (default: the nearest pyproject.toml that has one)")
    c.add_argument("--no-config", action="store_true", help="ignore [tool.verifier_audit] in pyproject.toml")


def given_options(args) -> dict:
    """The options of ``run`` and ``generate`` the user gave on the command line (None: not
    given), as ``plan.audit_options`` reads them: one per setting of ``run`` (settings.py)
    but for what names the verifiers and the report folder, which ``run`` reads itself."""
    given = {s.option_name: getattr(args, argparse_dest(s), None) for s in settings_of(RUN)
             if not s.name.startswith("verifiers[]") and s.name != "report_dir"}
    given.update(resume=getattr(args, "resume", None), no_cache=args.no_cache,
                 progress=False if getattr(args, "no_progress", False) else None,
                 answer_formats=False if getattr(args, "no_format_probe", False) else None)
    return given


def config_path(args) -> Optional[Path]:
    """The pyproject.toml to read (``--config``, else the nearest with a [tool.verifier_audit]
    table); None with ``--no-config`` or when there is none. A --config that is not a file
    is an input error."""
    from ..config import find_config
    from ..errors import InputError

    if args.no_config:
        return None
    if args.config is not None and not args.config.is_file():
        raise InputError(f"--config {args.config}: no such file")
    return args.config or find_config()
