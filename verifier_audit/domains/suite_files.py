"""Read a suite file's rows into tasks: JSONL lines, ``--field`` mappings, and the row ->
``Task`` step whose every error names the file and the line. Domain-neutral, so that the
domains' format loaders (``loaders.py``) and the suite reader (``suites.py``) share it
without the loaders importing the suite reader.

``SuiteFile`` is what the suite reader hands a format's loader (``Domain.suite_formats``).

Every reader of a suite file's text -- JSONL here (ours, gsm8k, math, the tool loader),
``.jsonl.gz`` (code), a JSON list (spider) -- decodes it with ``decode_text``, so that a
file that is not UTF-8 is one error everywhere: the file, the line, the byte offset and the
fix. Every JSON line goes through ``json_rows``, which holds each row to the bounds of
``input_limits`` (nesting, string length), and ``tasks_from_rows`` asks the task's domain
for its own (``check_input``: the tool domain's call arguments, which are JSON inside the
reference's text).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from ..errors import InputError
from ..models import Task
from .input_limits import LIMITS, MAX_DEPTH, may_exceed, over_limits

UTF8_FIX = "save the file as UTF-8"


@dataclass(frozen=True)
class SuiteFile:
    """One suite file to load, as the user gave it (``--suite``, ``--field``, ``--domain``,
    ``--db-dir``, ``--dialect``, ``--repo-dir``). ``cache_dir`` returns the cache root; it is a call so that only loaders
    that stage files there (spider's converted databases) import what locates it."""

    path: Path
    fields: list[str]
    domain: str | None
    db_dir: str | None
    cache_dir: Callable[[], Path]
    dialect: str | None = None  # --dialect: the engine a format with databases judges in (None: its default)
    repo_dir: str | None = None  # --repo-dir: the swebench format's folder of local checkouts


def jsonl_tasks(source: SuiteFile, transform: Callable[[dict], dict] | None = None) -> list[Task]:
    """A JSONL suite file's tasks, rows mapped by ``--field`` and then by ``transform``
    (a dataset's row -> our fields: GSM8K, MATH)."""
    rows = read_jsonl(source.path)
    return tasks_from_rows(
        source.path, rows, mapping=parse_field_mapping(source.fields), domain=source.domain, transform=transform
    )


def parse_field_mapping(pairs: list[str]) -> dict[str, str]:
    """``["prompt=question", "reference=answer"]`` -> {"prompt": "question", ...}."""
    mapping = {}
    for pair in pairs:
        ours, sep, theirs = pair.partition("=")
        if not sep or not ours or not theirs:
            raise InputError(f"--field {pair!r}: expected OURS=THEIRS, e.g. --field reference=answer")
        if ours not in Task.model_fields:
            raise InputError(f"--field {pair!r}: {ours!r} is not a task field; one of {', '.join(Task.model_fields)}")
        mapping[ours] = theirs
    return mapping


def read_text(path: Path) -> str:
    """The file's text, decoded by ``decode_text``; an unreadable file is an InputError."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return decode_text(path, data)


def decode_text(path: Path, data: bytes) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped). Bytes that are not UTF-8
    are an InputError naming the file, the line, the byte's offset in the file and in its
    line, and the fix -- Python's own message names only a position in a file it never
    saw, and ``errors="replace"`` would turn a Latin-1 ``é`` in a reference into U+FFFD
    silently, a different gold."""
    bom = 3 if data[:3] == b"\xef\xbb\xbf" else 0
    try:
        return data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = bom + exc.start
        line = data.count(b"\n", 0, offset) + 1
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        raise InputError(
            f"{path}:{line}: not UTF-8 text: byte 0x{data[offset]:02x} at byte offset {offset} "
            f"(column {column} of line {line}, {exc.reason}); {UTF8_FIX}, e.g. "
            f"iconv -f latin1 -t utf-8 {Path(path).name}"
        ) from None


def read_jsonl(path: Path) -> list[tuple[int, dict]]:
    """(line number, object) for every non-blank line; a broken line is an InputError."""
    return json_rows(path, read_text(path))


def json_rows(path: Path, text: str) -> list[tuple[int, dict]]:
    """(line number, object) for every non-blank line of JSONL text, each within the
    bounds of ``input_limits``; a line that is not a JSON object, or breaks a bound, is an
    InputError naming the file and the line. Lines end at ``\\n`` only (not
    ``splitlines``: a JSON string may hold U+2028), so the numbers agree with
    ``decode_text``'s."""
    rows = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{path}:{lineno}: invalid JSON ({exc.msg} at column {exc.colno}). Each line must be one JSON object."
            ) from None
        except RecursionError:
            raise InputError(
                f"{path}:{lineno}: objects and lists nested deeper than the limit of {MAX_DEPTH} levels ({LIMITS})"
            ) from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}:{lineno}: expected a JSON object, found {type(obj).__name__}")
        if may_exceed(line):
            check_limits(path, lineno, obj)
        rows.append((lineno, obj))
    return rows


def check_limits(path: Path, line: int | str, value) -> None:
    """InputError naming the file and line (or entry) when ``value`` breaks a bound."""
    problem = over_limits(value)
    if problem is not None:
        raise InputError(f"{path}:{line}: {problem} ({LIMITS}); shorten it or split the task")


def tasks_from_rows(
    path: Path,
    rows: list[tuple[int, dict]],
    *,
    mapping: dict[str, str] | None = None,
    domain: str | None = None,
    transform: Callable[[dict], dict] | None = None,
) -> list[Task]:
    """Build tasks; ``transform`` turns a dataset's row into our fields (GSM8K, MATH loaders)."""
    mapping = mapping or {}
    tasks, seen, checks = [], {}, {}
    for lineno, row in rows:
        fields = dict(row)
        for ours, theirs in mapping.items():
            if theirs not in row:
                raise InputError(
                    f"{path}:{lineno}: no field {theirs!r} (mapped to {ours!r}); fields present: {', '.join(row) or 'none'}"
                )
            fields[ours] = row[theirs]
        if transform is not None:
            try:
                fields = transform(fields)
            except (KeyError, ValueError) as exc:
                raise InputError(f"{path}:{lineno}: {exc}") from None
        fields.setdefault("id", f"{path.stem}-{lineno}")
        fields.setdefault("domain", domain or "math")
        if domain is not None:
            fields["domain"] = domain
        fields["id"] = str(fields["id"])
        for name in ("prompt", "reference"):
            if name in fields and not isinstance(fields[name], str):
                fields[name] = str(fields[name])
        try:
            task = Task.model_validate(fields)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}" for e in exc.errors())
            present = ", ".join(row) or "none"
            raise InputError(
                f"{path}:{lineno}: not a valid task ({problems}). Fields present: {present}. "
                "Map yours with --field, e.g. --field prompt=question --field reference=answer"
            ) from None
        if task.domain not in checks:
            checks[task.domain] = _domain_check(task.domain)
        problem = checks[task.domain](task) if checks[task.domain] is not None else None
        if problem is not None:
            raise InputError(f"{path}:{lineno}: {problem}")
        if task.id in seen:
            raise InputError(f"{path}:{lineno}: duplicate task id {task.id!r} (first on line {seen[task.id]})")
        seen[task.id] = lineno
        tasks.append(task)
    if not tasks:
        raise InputError(f"{path}: the suite has no tasks")
    return tasks


def _domain_check(domain: str) -> Callable[[Task], str | None] | None:
    """The domain's ``check_input`` (``domains.base.Domain``): why it refuses a task as
    input, or None. An unknown domain is left to the code that needs it."""
    from . import available, get_domain

    if domain not in available():
        return None
    return get_domain(domain).check_input
