"""JSONL metrics: verl's file logger (``{"step": N, "data": {...}}``; flat ``{"step": N,
...}`` lines too) or any logger writing one dict per line with a step key.

Two readers. ``_jsonl_slow`` goes line by line with json.loads: it is the reference, and
names the line of any error. ``_jsonl_fast`` matches lines by their layout (layout.py) and
reads a 1,000,000-line file in seconds; it gives up (None) on anything irregular, and the
reference reader takes over.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from ...errors import InputError
from ..run import Series
from .columns import _Columns, _flatten_verl, _Raw
from .layout import _layout, _layout_chunk
from .names import _is_candidate, _Want
from .parallel import _map_chunks
from .resolve import _resolve

_FAST = True  # tests turn the fast path off to compare it with the reference reader


def _read_jsonl(path: Path, data: bytes, mapped: _Want, fmt: str) -> list[_Raw]:
    raw = _jsonl_fast(path, data, mapped, fmt) if _FAST else None
    if raw is None:
        raw = _jsonl_slow(path, data, mapped, fmt)
    return [raw]


def _jsonl_lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _jsonl_slow(path: Path, data: bytes, mapped: _Want, fmt: str) -> _Raw:
    """Line by line with json.loads: the reference reader, exact about errors. A last line
    without its newline that does not parse was cut while being written: skipped, with a note."""
    lines = _jsonl_lines(data)
    cols = _Columns(path, mapped, "line")
    notes = []
    cut_last = not data.endswith(b"\n")
    nested = None
    loads = json.loads
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = loads(line)
        except UnicodeDecodeError:
            raise InputError(f"{path}:{number}: not UTF-8 text") from None
        except json.JSONDecodeError as exc:
            if cut_last and number == len(lines):
                notes.append(f"the last line ({number}) is cut short (the log is still being written?); skipped")
                continue
            raise InputError(
                f"{path}:{number}: not valid JSON: {exc.msg} at column {exc.colno} (each line must be one JSON object)"
            ) from None
        if not isinstance(d, dict):
            raise InputError(
                f"{path}:{number}: a JSON {type(d).__name__}, not an object of metrics "
                f"(each line must be one JSON object)"
            )
        if nested is None:
            nested = isinstance(d.get("data"), dict)
        if nested:
            d = _flatten_verl(d)
        cols.add(d, number)
    raw = cols.raw(fmt)
    raw.notes += notes
    return raw


def _jsonl_fast(path: Path, data: bytes, mapped: _Want, fmt: str, sample: int = 4000) -> _Raw | None:
    """Lines that share a layout with sampled lines, matched by one regular expression per
    layout over the whole file. None (use the line reader) unless every non-blank line
    matched exactly one layout and every captured value is a number or null.

    Rows of one layout come back in file order. Where a name is logged by several layouts
    (a train line and a train-and-eval line), the rows are put back in file order by the
    position of their line: the positions of the less frequent layouts come from the
    matches, those of the most frequent one are the remaining line starts."""
    last_nl = data.rfind(b"\n")
    if len(data) < (1 << 16) or last_nl < 0:
        return None
    blank_lines = b"\n\n" in data or b"\n\r\n" in data or data.startswith((b"\n", b"\r\n"))
    if blank_lines:
        starts, blank = _line_starts(data, last_nl)
        n_lines = int((~blank).sum())
    else:
        starts = blank = None
        n_lines = data.count(b"\n", 0, last_nl + 1)
    if n_lines == 0:
        return None
    # sample: the first lines and lines at an even stride through the file
    head = data[: min(last_nl + 1, 8 << 20)].split(b"\n")[:-1][: sample // 2]
    picks = []
    for pos in np.linspace(0, last_nl, num=sample // 2).astype(np.int64):
        st = data.rfind(b"\n", 0, int(pos)) + 1
        picks.append(data[st : data.find(b"\n", st)])
    layouts: list[tuple[bytes, list[str]]] = []
    compiled: list = []
    seen_count: list[int] = []
    found: dict[str, None] = {}
    nested = None
    for line in head + picks:
        if not line.strip():
            continue
        hit = next((j for j, c in enumerate(compiled) if c.match(line)), None)
        if hit is not None:  # laid out like a line already learnt: same keys
            seen_count[hit] += 1
            continue
        try:
            d = json.loads(line)
        except ValueError:
            return None
        if not isinstance(d, dict):
            return None
        if nested is None:
            nested = isinstance(d.get("data"), dict)
        flat = _flatten_verl(d) if nested else d
        for k in flat:
            found.setdefault(k, None)
        cands = frozenset(k for k in flat if _is_candidate(k, mapped))
        lay = _layout(line, cands, mapped.steps)
        if lay is None or len(layouts) >= 8:
            return None
        layouts.append(lay)
        compiled.append(re.compile(lay[0]))
        seen_count.append(1)
    step_key = next((k for k in mapped.steps if k in found), None)
    if step_key is None or any(step_key not in keys for _, keys in layouts):
        return None
    # the last line, when it has no newline: complete, or cut while being written
    notes = []
    tail_cols = None
    tail = data[last_nl + 1 :]
    if tail.strip():
        try:
            d = json.loads(tail)
        except ValueError:
            number = data.count(b"\n") + 1
            notes.append(f"the last line ({number}) is cut short (the log is still being written?); skipped")
        else:
            if not isinstance(d, dict):
                return None
            flat = _flatten_verl(d) if nested else d
            for k in flat:
                found.setdefault(k, None)
            tail_cols = _Columns(path, mapped, "line")
            tail_cols.step_key = step_key
            tail_cols.add(flat, data.count(b"\n") + 1)
    # names logged by more than one layout need the rows' positions to restore file order
    owners: dict[str, list[int]] = {}
    for j, (_, keys) in enumerate(layouts):
        for k in keys:
            if k not in mapped.steps:
                owners.setdefault(k, []).append(j)
    if tail_cols is not None:
        for k in tail_cols.steps:
            owners.setdefault(k, []).append(-1)
    shared = {j for js in owners.values() if len(js) > 1 for j in js}
    big = int(np.argmax(seen_count))
    plan = [
        (pattern, keys, keys.index(step_key), mapped.steps, j in shared and j != big)
        for j, (pattern, keys) in enumerate(layouts)
    ]
    results = _map_chunks(_layout_chunk, data, plan, end=last_nl + 1)
    if results is None or any(r is None for r in results):
        return None
    if sum(r[0] for r in results) != n_lines:
        return None
    merged: list = []
    for li in range(len(plan)):
        parts = [r[1][li] for r in results if r[1][li] is not None]
        if not parts:
            merged.append(None)
            continue
        steps = np.concatenate([p[0] for p in parts])
        values = {k: np.concatenate([p[1][k] for p in parts]) for k in parts[0][1]}
        pos = np.concatenate([p[2] for p in parts]) if plan[li][4] else None
        merged.append([steps, values, pos])
    if big in shared and merged[big] is not None:
        if starts is None:
            starts, blank = _line_starts(data, last_nl)
        others = [m[2] for m in merged if m is not None and m[2] is not None]
        rest = np.setdiff1d(starts[~blank], np.concatenate(others), assume_unique=True) if others else starts[~blank]
        if len(rest) != len(merged[big][0]):
            return None  # a line matched two layouts
        merged[big][2] = rest
    per_key: dict[str, list[tuple]] = {}
    for m in merged:
        if m is not None:
            for k, vals in m[1].items():
                per_key.setdefault(k, []).append((m[0], vals, m[2]))
    if tail_cols is not None:
        for k in tail_cols.steps:
            st = np.asarray(tail_cols.steps[k], dtype=np.float64)
            per_key.setdefault(k, []).append(
                (st, np.asarray(tail_cols.values[k], dtype=np.float64), np.full(len(st), last_nl + 1))
            )
    columns = {}
    for k, parts in per_key.items():
        st = np.concatenate([p[0] for p in parts])
        va = np.concatenate([p[1] for p in parts])
        if len(parts) > 1:  # file order across layouts, so the last value logged at a step wins
            order = np.argsort(np.concatenate([p[2] for p in parts]), kind="stable")
            st, va = st[order], va[order]
        ok = np.isfinite(va)
        if not np.isfinite(st[ok]).all():
            return None  # a value without a step: the line reader names the line
        columns[k] = Series(st, va)
    return _Raw(str(path), fmt, columns, [k for k in found if k not in mapped.steps], where="line", notes=notes)


def _line_starts(data: bytes, last_nl: int) -> tuple[np.ndarray, np.ndarray]:
    """Start of every line before the last newline, and which of them are blank."""
    buf = np.frombuffer(data, dtype=np.uint8, count=last_nl + 1)
    ends = np.flatnonzero(buf == 10)
    starts = np.r_[0, ends[:-1] + 1]
    lengths = ends - starts
    blank = (lengths == 0) | ((lengths == 1) & (buf[np.maximum(ends - 1, 0)] == 13))
    return starts, blank


class LiveRun:
    """A run read from log dicts as they are written (the live watch, verifier_audit/watch):
    ``add`` each line's dict, ``run()`` resolves what came so far exactly as ``read_logs``
    resolves the same lines from the file, so an alarm fires live where its replay fires."""

    def __init__(self, source: str, name: str = ""):
        self.name = name
        self._cols = _Columns(Path(source), _Want(), "line")
        self._lines = 0

    def add(self, line: dict) -> None:
        self._lines += 1
        self._cols.add(_flatten_verl(line), self._lines)

    def run(self):
        """The ``Run`` so far; None while no known metric has been logged."""
        raw = self._cols.raw("jsonl")
        if not raw.columns:
            return None
        run = _resolve(raw, {})
        run.name = self.name
        return run
