"""Load task suites: a built-in name (``math``), a JSONL file with a field mapping, or a
generated one (``reasoning-gym:NAME``, ``reasoning-gym:NAME?size=200&seed=1``), or a
dataset another package ships (``bfcl:simple``: the BFCL v4 data in ``bfcl-eval``).

Every error names the file and the line, and says what to change: a suite is user input.

A file's ``--format`` is ``jsonl`` (ours, read here) or one a domain declares
(``Domain.suite_formats``: gsm8k, math, spider, humaneval, mbpp), and ``--suite humaneval``
is a dataset a domain declares (``Domain.suite_datasets``): this module asks the domain
registry for both and names no domain's loader. A suite named by a prefix belongs to whoever
declares the prefix (``domains.base.SuiteScheme``): a domain (the tool domain's ``bfcl:``)
or a framework adapter (``frameworks/_registry.py``: ``reasoning-gym:``, ``verifiers:``).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from . import domains

# A suite is made by a domain's or a framework adapter's loader (Suite lives with the contract).
from .domains.base import Suite, SuiteScheme

# The row readers live with the domains' loaders, which use them; importable from here too.
from .domains.suite_files import SuiteFile, jsonl_tasks, parse_field_mapping, read_jsonl, read_text, tasks_from_rows  # noqa: F401
from .errors import InputError
from .models import Task
from .resources import data_path

# FORMATS: "jsonl" and every domain's suite formats, in registry order ("jsonl", "gsm8k",
# "math", "spider", "humaneval", "mbpp"); DATASETS: the suites another package ships, loaded
# by name (--suite humaneval). Both are computed on first use (module __getattr__ below).


def __getattr__(name: str):
    if name == "FORMATS":
        return ("jsonl", *domains.suite_formats())
    if name == "DATASETS":
        return tuple(domains.suite_datasets())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def suite_schemes() -> tuple[SuiteScheme, ...]:
    """The suites named by a prefix: the framework adapters' (``reasoning-gym:``,
    ``verifiers:``), then every domain's (``bfcl:``, the tool domain's)."""
    from .frameworks._registry import SUITE_SCHEMES

    return (*SUITE_SCHEMES, *domains.suite_schemes())


def builtin_suites() -> dict[str, Path]:
    root = data_path("suites")
    return {p.parent.name: p for p in sorted(root.glob("*/tasks.jsonl"))} if root.is_dir() else {}


def load_suite(
    name_or_path: str,
    *,
    fields: list[str] | None = None,
    fmt: str = "jsonl",
    domain: str | None = None,
    db_dir: str | None = None,
    dialect: str | None = None,
    repo_dir: str | None = None,
) -> Suite:
    for scheme in suite_schemes():
        if name_or_path.startswith(scheme.prefix) and not Path(name_or_path).is_file():
            return domains.resolve(scheme.loader)(name_or_path, fields=fields, fmt=fmt, domain=domain)
    builtin = builtin_suites()
    datasets = domains.suite_datasets()
    if name_or_path in datasets and not Path(name_or_path).exists():
        fmt, locate = datasets[name_or_path]
        path, name = Path(domains.resolve(locate)()), name_or_path
    elif name_or_path in builtin:
        path, name = builtin[name_or_path], name_or_path
    else:
        path, name = Path(name_or_path), name_or_path
        if not path.is_file():
            schemes = [f"{s.prefix}{s.shown}" for s in suite_schemes() if s.shown]
            known = ", ".join([*builtin, *datasets, *schemes]) or "none installed"
            raise InputError(f"suite {name_or_path!r}: no such file, and not a built-in suite (built-in: {known})")
    loaders = domains.suite_formats()
    if fmt != "jsonl" and fmt not in loaders:
        formats = ", ".join(["jsonl", *loaders])
        raise InputError(f"--format {fmt!r}: expected one of {formats}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    if dialect is not None and fmt == "jsonl":
        raise InputError(
            f"--dialect {dialect}: only for a dataset format with databases of its own (--format spider, "
            "bird); a JSONL suite's SQL tasks run on DuckDB fixtures"
        )
    source = SuiteFile(
        path=path,
        fields=fields or [],
        domain=domain,
        db_dir=db_dir,
        cache_dir=_cache_dir,
        dialect=dialect,
        repo_dir=repo_dir,
    )
    tasks = _our_jsonl(source) if fmt == "jsonl" else domains.resolve(loaders[fmt])(source)
    return Suite(name=name, path=path, tasks=tasks, content_hash=digest)


def _our_jsonl(source: SuiteFile) -> list[Task]:
    """A suite file in our JSONL format. A file of a known format (``Domain.suite_signs``:
    GSM8K, MATH, spider, HumanEval, MBPP) read as ours fails with the suggestion of its
    ``--format``; one that reads as ours only because ``--field`` mapped a worked solution
    to the reference (GSM8K's ``answer``, MATH's ``solution``) is refused with it: the
    verifier would be handed the whole solution as the gold, and nothing would say so."""
    try:
        tasks = jsonl_tasks(source)
    except InputError as exc:
        hint = format_hint(source.path)
        if hint is None:
            raise
        raise InputError(f"{str(exc).rstrip('.')}. {hint}") from None
    check_references(source, tasks)
    return tasks


def _rows_of_any_shape(path: Path) -> list[tuple[str, dict]]:
    """(where, row) for the file's JSON objects: its lines, or the entries of one JSON list
    (spider); [] for anything else. Only to suggest a format: errors are not raised here."""
    try:
        return [(f"line {n}", row) for n, row in read_jsonl(path)]
    except InputError:
        pass
    try:
        data = json.loads(read_text(path))
    except (InputError, ValueError, RecursionError):
        return []
    return (
        [(f"entry {i}", row) for i, row in enumerate(data, 1) if isinstance(row, dict)]
        if isinstance(data, list)
        else []
    )


def format_hint(path: Path) -> str | None:
    """The ``--format`` that most of the file's rows look like, as a sentence; None if none."""
    rows = _rows_of_any_shape(path)
    for fmt, (_, sign) in domains.suite_signs().items():
        fits = [
            where
            for where, row in rows
            if all(k in row for k in sign.fields)
            and (
                not sign.pattern or (isinstance(row.get(sign.field), str) and re.search(sign.pattern, row[sign.field]))
            )
        ]
        if rows and 2 * len(fits) > len(rows):
            shape = f"the fields {', '.join(sign.fields)}" + (
                f", {sign.field} holding {sign.what}" if sign.what else ""
            )
            return (
                f"{len(fits)} of {len(rows)} rows have {shape}, as {fmt} rows do ({fits[0]} of {path}): "
                f"read it with --format {fmt}" + (f", {sign.reads}" if sign.reads else "") + "."
            )
    return None


def check_references(source: SuiteFile, tasks: list[Task]) -> None:
    """InputError when most references are worked solutions of a known format (its
    ``FormatSign.pattern``), naming the mapping, the first such line and the ``--format``."""
    mapped = parse_field_mapping(source.fields).get("reference")
    for fmt, (domain, sign) in domains.suite_signs().items():
        if not sign.pattern:
            continue
        worked = sum(1 for t in tasks if t.domain == domain and re.search(sign.pattern, t.reference))
        if 2 * worked <= len(tasks):
            continue
        line = next(
            (
                n
                for n, row in read_jsonl(source.path)
                if isinstance(row.get(mapped or "reference"), str)
                and re.search(sign.pattern, row[mapped or "reference"])
            ),
            1,
        )
        flag = f"--field reference={mapped}" if mapped else f"{source.path}: the field reference"
        raise InputError(
            f"{flag}: {worked} of {len(tasks)} references are {sign.what} (line {line} of "
            f"{source.path}): use --format {fmt}, {sign.reads}"
        )


def _cache_dir() -> Path:
    """The cache root, for loaders that stage files there (SuiteFile.cache_dir)."""
    from .cache_dir import default_cache_dir

    return default_cache_dir()


def select(suite: Suite, split: str | None = None, limit: int | None = None) -> list[Task]:
    tasks = suite.tasks
    if split:
        tasks = [t for t in tasks if t.split == split]
        if not tasks:
            raise InputError(f"suite {suite.name!r} has no tasks in split {split!r}")
    if limit is not None:
        tasks = tasks[:limit]
    return tasks
