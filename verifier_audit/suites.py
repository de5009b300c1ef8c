"""Load task suites: a built-in name (``math``) or a JSONL file, with a field mapping.

Every error names the file and the line, and says what to change: a suite is user input.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from pydantic import ValidationError

from .errors import InputError
from .models import Task
from .resources import data_path

FORMATS = ("jsonl", "gsm8k", "math", "spider", "humaneval", "mbpp")
# Suites that are a dataset another package ships, loaded by name: --suite humaneval.
DATASETS = ("humaneval",)


@dataclass
class Suite:
    name: str
    path: Path
    tasks: list[Task]
    content_hash: str  # of the file's bytes: part of every cache key and results fingerprint

    @property
    def domain(self) -> str:
        return self.tasks[0].domain if self.tasks else "math"


def builtin_suites() -> dict[str, Path]:
    root = data_path("suites")
    return {p.parent.name: p for p in sorted(root.glob("*/tasks.jsonl"))} if root.is_dir() else {}


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


def load_suite(
    name_or_path: str,
    *,
    fields: Optional[list[str]] = None,
    fmt: str = "jsonl",
    domain: Optional[str] = None,
    db_dir: Optional[str] = None,
) -> Suite:
    builtin = builtin_suites()
    if name_or_path in DATASETS and not Path(name_or_path).exists():
        from .domains.code.loaders import humaneval_file

        name_or_path, fmt, name = str(humaneval_file()), "humaneval", "humaneval"
        path = Path(name_or_path)
    elif name_or_path in builtin:
        path, name = builtin[name_or_path], name_or_path
    else:
        path, name = Path(name_or_path), name_or_path
        if not path.is_file():
            known = ", ".join([*builtin, *DATASETS]) or "none installed"
            raise InputError(f"suite {name_or_path!r}: no such file, and not a built-in suite (built-in: {known})")
    if fmt not in FORMATS:
        raise InputError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    if fmt == "spider":  # a JSON list with SQLite databases beside it, not JSONL
        from .domains.sql.loaders import load_spider
        from .engine.audit import default_cache_dir

        tasks = load_spider(path, db_dir, default_cache_dir() / "sql")
        return Suite(name=name, path=path, tasks=tasks, content_hash=digest)
    if fmt in ("humaneval", "mbpp"):  # code datasets: their own row shapes, and .jsonl.gz
        from .domains.code import loaders

        tasks = loaders.load_humaneval(path) if fmt == "humaneval" else loaders.load_mbpp(path)
        return Suite(name=name, path=path, tasks=tasks, content_hash=digest)
    rows = read_jsonl(path)
    transform = None
    if fmt != "jsonl":
        from .domains.math import loaders  # dataset formats of the math domain

        transform = {"gsm8k": loaders.gsm8k_row, "math": loaders.math_row}[fmt]
    tasks = tasks_from_rows(path, rows, mapping=parse_field_mapping(fields or []), domain=domain, transform=transform)
    return Suite(name=name, path=path, tasks=tasks, content_hash=digest)


def select(suite: Suite, split: Optional[str] = None, limit: Optional[int] = None) -> list[Task]:
    tasks = suite.tasks
    if split:
        tasks = [t for t in tasks if t.split == split]
        if not tasks:
            raise InputError(f"suite {suite.name!r} has no tasks in split {split!r}")
    if limit is not None:
        tasks = tasks[:limit]
    return tasks
