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

from ..settings import AUDIT_SETTINGS, RUN, SCORE, Setting, argparse_dest, setting, settings_of

NO_PROGRESS_HELP = "no progress bar"


def add_no_progress(p) -> None:
    p.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)


def add_terminal_options(p) -> None:
    """``-q/--quiet`` and ``--color``: how much of the terminal report is printed, and in colour
    or not (docs/reports.md, "Reading the terminal report")."""
    p.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only the verdict line (and errors): the report files are written as usual",
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the terminal report (FAILED red, PASSED green, security findings red); auto: when "
        "stdout is a terminal and NO_COLOR is not set (FORCE_COLOR forces it); never in files",
    )


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


def flag_arguments(s: Setting, front: str) -> dict:
    """The keyword arguments of ``add_argument`` for a setting's flag, all from its row: its
    range (or type), whether it repeats, its choices, metavar and help (``score_help`` in
    ``score`` where it has one). Its default is None (plan decides) unless the row says."""
    words = s.score_help if front == SCORE and s.score_help else s.help
    if s.switch:
        return {"action": "store_true", "help": words}
    kwargs = {"dest": argparse_dest(s), "default": s.flag_default, "help": words}
    if s.many:
        kwargs["action"] = "append"
    if s.check is not None or s.parse is not None:
        kwargs["type"] = s.check or s.parse
    if s.choices is not None:
        kwargs["choices"] = s.choices
    if s.metavar is not None:
        kwargs["metavar"] = s.metavar
    return kwargs


def add_settings(
    p,
    front: str,
    groups: tuple[str, ...],
    first: tuple[str, ...] = (),
    extra: dict | None = None,
    before: dict | None = None,
    table: tuple[Setting, ...] = AUDIT_SETTINGS,
) -> None:
    """Add to ``p`` (a parser or an argument group) the flag of each setting of ``table`` that
    ``front`` offers in one of ``groups`` (``Setting.group``) and ``p``'s parser does not
    have yet: those named in ``first`` (option names) in that order, then the others in the
    table's order -- so a new row is a flag of every front end it names, with no edit here.

    ``extra``: option name -> more ``add_argument`` arguments, for what only a layer above
    the table knows (the suite formats, the call styles) or only one front end says
    (score's required ``--verifier``). ``before``: option name -> a function of ``p`` that
    adds a flag that is no setting just before that one (``--no-cache`` before ``--only``),
    where the --help has always listed it."""
    rows = {s.option_name: s for s in table if front in s.fronts}
    named = [rows[name] for name in first]
    chosen = named + [s for s in rows.values() if s.group in groups and s not in named]
    for s in chosen:
        if s.flag in p._option_string_actions:  # given in an earlier group of the same parser
            continue
        if before and s.option_name in before:
            before[s.option_name](p)
        p.add_argument(s.flag, **{**flag_arguments(s, front), **(extra or {}).get(s.option_name, {})})


def add_executor_options(p) -> None:
    """``--executor`` and ``--ray-address`` from their rows, for ``compare``: it runs the
    oracle's calls as an audit does but is no front end of the other settings."""
    for name in ("executor", "ray_address"):
        s = setting(name)
        p.add_argument(s.flag, **flag_arguments(s, RUN))


def _add_no_cache(p) -> None:
    p.add_argument(
        "--no-cache", action="store_true", help="regenerate and relabel candidates instead of using the cache"
    )


def add_suite_options(p: argparse.ArgumentParser, formats, front: str = RUN) -> None:
    """The suite, the worker pool and the configuration of ``run`` and ``generate``: the
    settings of the "suite" group (settings.py) and ``--no-cache``."""
    g = p.add_argument_group("suite")
    add_settings(g, front, ("suite",), extra={"format": {"choices": formats}}, before={"origins": _add_no_cache})
    c = p.add_argument_group("configuration")
    c.add_argument(
        "--config",
        type=Path,
        metavar="PYPROJECT",
        help="read [tool.verifier_audit] from this file (default: the nearest pyproject.toml that has one)",
    )
    c.add_argument("--no-config", action="store_true", help="ignore [tool.verifier_audit] in pyproject.toml")


def given_options(args) -> dict:
    """The options of ``run`` and ``generate`` the user gave on the command line (None: not
    given), as ``plan.audit_options`` reads them: one per setting of ``run`` (settings.py)
    but for what names the verifiers and the report folder, which ``run`` reads itself."""
    given = {
        s.option_name: getattr(args, argparse_dest(s), None)
        for s in settings_of(RUN)
        if not s.name.startswith("verifiers[]") and s.name != "report_dir"
    }
    given.update(
        resume=getattr(args, "resume", None),
        no_cache=args.no_cache,
        progress=False if getattr(args, "no_progress", False) else None,
        answer_formats=False if getattr(args, "no_format_probe", False) else None,
    )
    return given


def config_path(args) -> Path | None:
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
