"""Pass 1 of ``score``: every line of every samples file validated (``read_samples``'
checks: ``file:line`` in every error, duplicates, manifest consistency) while the file is
hashed, keeping no sample: per file its digest, the models it names and how many samples
each task has. ``line_fields`` reads a validated line again, fast."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError
from ..records import SampleChecks, iter_sample_lines, iter_samples, parse_sample, read_manifest


class ChangedWhileReading(InputError):
    pass


# ----------------------------------------------------------------------------- 1. validate


@dataclass
class FileScan:
    path: Path
    role: str | None
    suite: str
    suite_hash: str
    digest: str
    samples: int
    tasks: Counter  # task id -> samples of it
    models: dict[str, None]  # model names, in order of first appearance


def _scan_file(path: Path, role: str | None, on_sample: Callable[[], None] | None = None) -> FileScan:
    """Pass 1: every line validated (``read_samples``' checks), the file hashed."""
    manifest = read_manifest(path)
    checks = SampleChecks(path, manifest)
    digest = hashlib.sha256()
    tasks: Counter = Counter()
    models: dict[str, None] = {}
    n = 0
    for lineno, s in iter_samples(path, digest=digest):
        checks.check(lineno, s)
        tasks[s.task_id] += 1
        models.setdefault(s.model, None)
        n += 1
        if on_sample is not None:
            on_sample()
    if not n:
        raise InputError(f"{path}: no samples in it")
    return FileScan(
        path=path,
        role=role or manifest.role,
        suite=manifest.suite,
        suite_hash=manifest.suite_hash,
        digest=digest.hexdigest(),
        samples=n,
        tasks=tasks,
        models=models,
    )


def scan_files(rl_or_any: Sequence, base: Sequence = (), on_sample=None) -> list[FileScan]:
    """Read and validate every samples file, as ``score`` always did, keeping no sample.
    Roles: ``base`` files are "base" and the others "rl" when any ``base`` is given;
    otherwise each file's manifest ``role`` (may be None)."""
    base_paths = {Path(b).resolve() for b in base}
    rest = [p for p in rl_or_any if Path(p).resolve() not in base_paths]  # a --base file listed again is base
    if not base and not rest:
        raise InputError("no samples file given")
    files: list[FileScan] = []
    scanned: dict[Path, FileScan] = {}
    twice: Path | None = None
    for path, forced in [(Path(p), "base") for p in base] + [(Path(p), "rl" if base else None) for p in rest]:
        key = path.resolve()
        if key in scanned:  # read once: a second read finds what the first did
            twice = twice or path
            continue
        scanned[key] = _scan_file(path, forced, on_sample)
        files.append(scanned[key])
    if twice is not None:
        raise InputError(f"{twice}: given twice")
    return files


def first_unknown(files: list[FileScan], known: dict, limit: int = 5) -> list[str]:
    """``file:line: 'task'`` of the first samples of tasks not in ``known`` (an error's text:
    the files are read again up to them)."""
    out = []
    for f in files:
        if not any(t not in known for t in f.tasks):
            continue
        for lineno, line in iter_sample_lines(f.path):
            task_id = line_fields(f.path, lineno, line)[0]
            if task_id not in known:
                out.append(f"{f.path}:{lineno}: {task_id!r}")
                if len(out) >= limit:
                    return out
    return out


def line_fields(path: Path, lineno: int, line: str) -> tuple[str, int, str, str, str | None]:
    """(task id, sample index, model, text, source) of a line pass 1 validated: plain JSON
    when the types are exactly those of a valid sample, else the full validation."""
    try:
        obj = json.loads(line)
        t, i, m, x, src = obj["task_id"], obj["sample_index"], obj["model"], obj["text"], obj.get("source")
        if (
            type(t) is str
            and type(i) is int
            and type(m) is str
            and type(x) is str
            and (src is None or type(src) is str)
        ):
            return t, i, m, x, src
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    s = parse_sample(path, lineno, line)
    return s.task_id, s.sample_index, s.model, s.text, s.source
