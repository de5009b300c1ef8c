"""The entry point, ``read_logs``: each file through the reader for its format, TensorBoard
one-metric files of one run merged, each run resolved to canonical names and named."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ...errors import InputError
from ..run import Run
from .columns import _Raw
from .console import _read_console
from .detect import FORMATS, _first_line, _read_bytes, _strip_bom, detect_format
from .jsonl import _read_jsonl
from .names import STEP_KEYS, _check_canonical, _Want
from .resolve import _resolve
from .tables import _read_csv
from .trl import _read_trl

# File names that say nothing about the run: such a run is named after its folder instead.
GENERIC_STEMS = {
    "trainer_state",
    "metrics",
    "log",
    "logs",
    "train",
    "training",
    "history",
    "events",
    "wandb-history",
    "output",
    "stdout",
    "console",
    "run",
}


def _read_one(path: Path, fmt: str | None, mapped: _Want) -> list[_Raw]:
    data = _strip_bom(_read_bytes(path))
    if not data or data.isspace():
        raise InputError(f"{path}: empty file: nothing logged yet")
    kind = fmt or detect_format(path, data)
    if kind == "trl":
        return _read_trl(path, data, mapped)
    if kind == "csv":
        return _read_csv(path, data, mapped)
    head = _first_line(data)
    if kind == "verl" and not head.startswith(b"{"):
        return _read_console(path, data, mapped)
    if kind in ("verl", "jsonl"):
        if not head.startswith(b"{"):
            raise InputError(f"{path}:1: not a JSON object: --format {kind} needs one JSON object per line")
        return _read_jsonl(path, data, mapped, "verl-jsonl" if kind == "verl" else "jsonl")
    raise InputError(f"--format {kind}: unknown format; use one of {', '.join(FORMATS)}")


def read_logs(
    paths: Sequence,
    *,
    fmt: str | None = None,
    mapping: dict[str, str] | None = None,
    names: Sequence[str] | None = None,
) -> list[Run]:
    """One Run per training run in ``paths`` (in order), with canonical metric names.

    ``fmt``: one of FORMATS, or None to detect per file. ``mapping``: canonical -> the log's
    name (applied to every file; a mapped name a file lacks is an error). ``names``: one per
    run read (default: from the file, else from the path). Raises InputError naming the file
    (and line or row) for anything it cannot read."""
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"--format {fmt}: unknown format; use one of {', '.join(FORMATS)}")
    mapping = dict(mapping or {})
    for canonical in mapping:
        _check_canonical(canonical)
    step = mapping.pop("step", None)
    mapped = _Want(mapping.values(), (step,) if step else STEP_KEYS)
    if not paths:
        raise InputError("no log given: verifier-audit monitor LOG... (trainer_state.json, verl metrics, CSV)")
    raws: list[_Raw] = []
    for p in paths:
        raws += _read_one(Path(p), fmt, mapped)
    # TensorBoard one-metric files of one run become one
    merged: list[_Raw] = []
    by_group: dict[tuple, _Raw] = {}
    for r in raws:
        if r.group is None:
            merged.append(r)
            continue
        if r.group in by_group:
            into = by_group[r.group]
            into.columns.update(r.columns)
            into.found += [f for f in r.found if f not in into.found]
            if r.source not in into.source.split(" + "):
                into.source += " + " + r.source
            continue
        by_group[r.group] = r
        merged.append(r)
    runs = [_resolve(r, mapping) for r in merged]
    if names:
        names = list(names)
        if len(names) != len(runs):
            listing = "; ".join(f"{r.source}" + (f" ({m.label})" if m.label else "") for r, m in zip(runs, merged))
            raise InputError(
                f"--name is given {len(names)} time(s) but {len(runs)} run(s) were read ({listing}); "
                f"give one --name per run, in order"
            )
        chosen = names
    else:
        chosen = [m.label or _default_name(Path(m.source.split(" + ")[0])) for m in merged]
    for run, name in zip(runs, _unique(chosen, [m.source for m in merged])):
        run.name = name
    return runs


def _unique(names: list[str], sources: list[str]) -> list[str]:
    """Names as given, with duplicates told apart (by a longer path, else a counter)."""
    out = list(names)
    seen: dict[str, int] = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    for i, n in enumerate(names):
        if seen[n] > 1:
            parent = Path(sources[i].split(" + ")[0]).parent
            longer = f"{parent.name}/{n}" if parent.name and parent.name != n else n
            out[i] = longer
    count: dict[str, int] = {}
    final = []
    for n in out:
        count[n] = count.get(n, 0) + 1
        final.append(n if count[n] == 1 else f"{n} ({count[n]})")
    return final


def series_span(run: Run) -> tuple[float, float]:
    """First and last step logged for any metric of the run (``Run.span``)."""
    return run.span()


def _default_name(path: Path) -> str:
    stem = path.stem
    if stem.endswith(".jsonl") or stem.endswith(".json"):  # "x.jsonl.gz"-like leftovers
        stem = stem.rsplit(".", 1)[0]
    if stem.lower() in GENERIC_STEMS or re.fullmatch(r"checkpoint-\d+", path.parent.name or ""):
        parent = path.parent
        if re.fullmatch(r"checkpoint-\d+", parent.name) and parent.parent.name:
            return f"{parent.parent.name}/{parent.name}"
        if parent.name:
            return parent.name
    return stem
