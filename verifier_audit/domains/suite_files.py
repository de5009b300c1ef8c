"""Read a suite file's rows into tasks: JSONL lines, ``--field`` mappings, and the row ->
``Task`` step whose every error names the file and the line. Domain-neutral, so that the
domains' format loaders (``loaders.py``) and the suite reader (``suites.py``) share it
without the loaders importing the suite reader.

``SuiteFile`` is what the suite reader hands a format's loader (``Domain.suite_formats``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from pydantic import ValidationError

from ..errors import InputError
from ..models import Task


@dataclass(frozen=True)
class SuiteFile:
    """One suite file to load, as the user gave it (``--suite``, ``--field``, ``--domain``,
    ``--db-dir``). ``cache_dir`` returns the cache root; it is a call so that only loaders
    that stage files there (spider's converted databases) import what locates it."""

    path: Path
    fields: list[str]
    domain: Optional[str]
    db_dir: Optional[str]
    cache_dir: Callable[[], Path]


def jsonl_tasks(source: SuiteFile, transform: Optional[Callable[[dict], dict]] = None) -> list[Task]:
    """A JSONL suite file's tasks, rows mapped by ``--field`` and then by ``transform``
    (a dataset's row -> our fields: GSM8K, MATH)."""
    rows = read_jsonl(source.path)
    return tasks_from_rows(source.path, rows, mapping=parse_field_mapping(source.fields), domain=source.domain,
                           transform=transform)


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


def read_jsonl(path: Path) -> list[tuple[int, dict]]:
    """(line number, object) for every non-blank line; a broken line is an InputError."""
    rows = []
    try:
        fh = path.open(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from exc
    with fh:
        try:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(
                        f"{path}:{lineno}: invalid JSON ({exc.msg} at column {exc.colno}). "
                        "Each line must be one JSON object."
                    ) from None
                if not isinstance(obj, dict):
                    raise InputError(f"{path}:{lineno}: expected a JSON object, found {type(obj).__name__}")
                rows.append((lineno, obj))
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text ({exc.reason}); save the suite as UTF-8") from None
    return rows


def tasks_from_rows(
    path: Path,
    rows: list[tuple[int, dict]],
    *,
    mapping: Optional[dict[str, str]] = None,
    domain: Optional[str] = None,
    transform: Optional[Callable[[dict], dict]] = None,
) -> list[Task]:
    """Build tasks; ``transform`` turns a dataset's row into our fields (GSM8K, MATH loaders)."""
    mapping = mapping or {}
    tasks, seen = [], {}
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
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}" for e in exc.errors()
            )
            present = ", ".join(row) or "none"
            raise InputError(
                f"{path}:{lineno}: not a valid task ({problems}). Fields present: {present}. "
                "Map yours with --field, e.g. --field prompt=question --field reference=answer"
            ) from None
        if task.id in seen:
            raise InputError(f"{path}:{lineno}: duplicate task id {task.id!r} (first on line {seen[task.id]})")
        seen[task.id] = lineno
        tasks.append(task)
    if not tasks:
        raise InputError(f"{path}: the suite has no tasks")
    return tasks
