"""CSV (or TSV) exports from Weights & Biases and TensorBoard:

* a wide table: a step column and one column per metric (a W&B history or chart export,
  a TensorBoard export); a W&B chart export names its columns ``<run> - <metric>`` and
  gives one run per ``<run>``;
* a TensorBoard long table, ``[run,]step,tag,value``, one run per ``run``;
* a TensorBoard one-metric file, ``Wall time,Step,Value``, the metric named by the file
  name ``run-<run>-tag-<tag>.csv`` (read.py merges the files of one run).

Wide tables go through numpy's C parser (``_csv_chunk``) where it takes the rows exactly;
otherwise the csv module (``_csv_slow``) reads them, and names the row of any error.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...errors import InputError
from ..run import Series
from .columns import _Raw
from .detect import _strip_bom
from .names import _ALIAS_SET, STEP_KEYS, _is_candidate, _norm, _Want
from .parallel import _map_chunks

_FAST = True  # tests turn the fast path off to compare it with the csv module


_WANDB_COL = re.compile(r"^(?P<run>.+?) - (?P<metric>.+)$")
_TB_FILE = re.compile(r"^run[-_](?P<run>.*?)[-_]tag[-_](?P<tag>.+)$")


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9@]+", "_", name.lower()).strip("_")


def _name_from_tag(tag: str) -> str:
    """A TensorBoard tag as its file name writes it ("/" became "_") -> the log name it was,
    when it is one we know; else the tag unchanged."""
    if _is_candidate(tag, frozenset()):
        return tag
    sq = _squash(tag)
    for prefix, back in (("", ""), ("train_", "train/"), ("eval_", "eval/")):
        if not sq.startswith(prefix):
            continue
        rest = sq[len(prefix) :]
        for name in _ALIAS_SET:
            if _squash(name) == rest:
                return back + name
        m = re.fullmatch(r"rewards_(?P<fn>.+?)(?:_mean)?", rest)
        if m and not rest.endswith("_std"):
            return f"{back}rewards/{m.group('fn')}/mean"
        m = re.fullmatch(r"val_core_(?P<rest>.+)_mean@(?P<n>\d+)", rest)
        if m:
            return f"val-core/{m.group('rest')}/acc/mean@{m.group('n')}"
    return tag


def _find_step_col(header: list[str], steps: Sequence[str] = STEP_KEYS) -> int | None:
    for key in steps:
        for i, h in enumerate(header):
            if h == key:
                return i
    if steps != STEP_KEYS:
        return None
    lower = [h.lower() for h in header]
    for key in ("step", "global_step"):
        if key in lower:
            return lower.index(key)
    return None


def _csv_dialect(path: Path, header_line: str) -> str:
    if path.name.lower().endswith(".tsv") or ("\t" in header_line and "," not in header_line):
        return "\t"
    return ","


def _read_csv(path: Path, data: bytes, mapped: _Want) -> list[_Raw]:
    data = _strip_bom(data)
    try:
        text_head = data[: 1 << 16].decode("utf-8")
    except UnicodeDecodeError:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
        text_head = data[: 1 << 16].decode("utf-8", "ignore")
    nl = data.find(b"\n")
    header_line = (data if nl < 0 else data[:nl]).decode("utf-8", "replace").rstrip("\r")
    if not header_line.strip():
        raise InputError(
            f"{path}: empty, or no header row (a CSV needs a header with a step column and metric columns)"
        )
    delim = _csv_dialect(path, header_line)
    header = next(csv.reader([header_line], delimiter=delim))
    header = [h.strip() for h in header]
    lower = [h.lower() for h in header]
    del text_head
    # TensorBoard long format: [run,] step, tag, value
    if "tag" in lower and "value" in lower and _find_step_col(header, mapped.steps) is not None:
        return _read_csv_long(path, data, header, delim, mapped)
    # TensorBoard one-metric file: Wall time, Step, Value
    if "value" in lower and len(header) <= 3 and _find_step_col(header, mapped.steps) is not None:
        m = _TB_FILE.match(path.stem)
        tag = m.group("tag") if m else path.stem
        metric = _name_from_tag(tag)
        if metric not in mapped and _norm(metric) in mapped:
            metric = _norm(metric)
        rows = _csv_table(path, data, header, delim, [_find_step_col(header, mapped.steps), lower.index("value")])
        group = ("tb", m.group("run")) if m else ("tb-dir", str(path.parent.resolve()))
        raw = _Raw(
            str(path),
            "csv-tensorboard",
            {},
            [metric],
            label=(m.group("run") or None) if m else None,
            where="row",
            group=group,
        )
        if _is_candidate(metric, mapped):
            raw.columns[metric] = Series(rows[0], rows[1])
        return [raw]
    step_col = _find_step_col(header, mapped.steps)
    if step_col is None:
        raise InputError(
            f"{path}: no step column (looked for {', '.join(mapped.steps)}; name yours with "
            f"--metric step=NAME); its columns: "
            f"{', '.join(header[:15])}"
        )
    # Weights & Biases chart export: "<run> - <metric>", with "__MIN"/"__MAX" companions
    groups: dict[str | None, dict[str, int]] = {}
    found: dict[str | None, list[str]] = {}
    is_chart = any(
        _WANDB_COL.match(h) and not h.endswith(("__MIN", "__MAX")) for i, h in enumerate(header) if i != step_col
    )
    for i, h in enumerate(header):
        if i == step_col or not h or h in mapped.steps or h.startswith("_"):
            continue
        run, metric = None, h
        if is_chart:
            m = _WANDB_COL.match(h)
            if m is None:
                continue
            if h.endswith(("__MIN", "__MAX")):
                continue
            run, metric = m.group("run"), m.group("metric")
        found.setdefault(run, []).append(metric)
        if _is_candidate(metric, mapped) or _is_candidate(h, mapped):
            groups.setdefault(run, {})[metric if _is_candidate(metric, mapped) else h] = i
    runs = list(found) or [None]
    wanted = sorted({i for g in groups.values() for i in g.values()})
    table = _csv_table(path, data, header, delim, [step_col] + wanted) if wanted else None
    out = []
    for run in runs:
        cols = {}
        if table is not None:
            steps = table[0]
            for metric, i in groups.get(run, {}).items():
                values = table[1 + wanted.index(i)]
                _check_step_cells(path, steps, values, header[i])
                cols[metric] = Series(steps, values)
        fmt = "csv-wandb-chart" if is_chart else "csv"
        out.append(_Raw(str(path), fmt, cols, found.get(run, []), label=run, where="row"))
    return out


def _check_step_cells(path: Path, steps: np.ndarray, values: np.ndarray, name: str) -> None:
    bad = np.flatnonzero(~np.isfinite(steps) & np.isfinite(values))
    if len(bad):
        raise InputError(
            f"{path}: row {int(bad[0]) + 2}: {name} has a value but the step cell is empty "
            f"(every row with metrics needs its step)"
        )


_NONBLANK = re.compile(rb"\S")


def _csv_table(path: Path, data: bytes, header: list[str], delim: str, use: list[int]) -> list[np.ndarray]:
    """The columns ``use`` of the body as float arrays (empty cell: NaN). numpy's C parser
    first; the csv module (exact about the row of an error) when that fails."""
    nl = data.find(b"\n")
    if nl < 0 or _NONBLANK.search(data, nl + 1) is None:
        raise InputError(f"{path}: has a header but no rows: nothing logged yet")
    if _FAST and len(data) > (1 << 16) and data.find(b'"', nl + 1) < 0:
        results = _map_chunks(_csv_chunk, data, (len(header), delim, use), offset=nl + 1)
        if results is not None and all(r is not None for r in results):
            return [np.concatenate([r[j] for r in results]) for j in range(len(use))]
    return _csv_slow(path, data[nl + 1 :], header, delim, use)


def _csv_chunk(data: bytes, start: int, end: int, extra) -> list[np.ndarray] | None:
    """numpy's C parser on rows data[start:end] (no quotes there); None when a row is not
    exactly as wide as the header, a cell is not a number, or a line is blank."""
    ncols, delim, use = extra
    d = delim.encode()
    body = data[start:end]
    if b"\r" in body:
        body = body.replace(b"\r\n", b"\n")
    if b"\n\n" in body or body.startswith(b"\n"):
        return None
    if d + d in body or d + b"\n" in body:  # empty cells -> nan, one pass
        body = re.sub(re.escape(d) + rb"(?=" + re.escape(d) + rb"|\n)", d + b"nan", body)
    if b"\n" + d in body:
        body = body.replace(b"\n" + d, b"\nnan" + d)
    if body.startswith(d):
        body = b"nan" + body
    if body.endswith(d):
        body += b"nan"
    lines = body.count(b"\n") + (0 if body.endswith(b"\n") else 1)
    # loadtxt accepts a row with extra cells when usecols is given: count the cells
    if body.count(d) != lines * (ncols - 1):
        return None
    try:
        arr = np.loadtxt(
            io.BytesIO(body), delimiter=delim, usecols=use, dtype=np.float64, ndmin=2, comments=None, encoding=None
        )
    except (ValueError, IndexError):
        return None
    if arr.shape[0] != lines:
        return None
    return [arr[:, j].copy() for j in range(len(use))]


def _csv_slow(path: Path, body: bytes, header: list[str], delim: str, use: list[int]) -> list[np.ndarray]:
    text = body.decode("utf-8", "replace")
    out = [[] for _ in use]
    for rowno, row in enumerate(csv.reader(io.StringIO(text), delimiter=delim), 2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise InputError(
                f"{path}: row {rowno} has {len(row)} cells, the header {len(header)} "
                f"(a row cut short, or a stray '{delim}'?)"
            )
        if not row[use[0]].strip() and any(row[i].strip() for i in use[1:]):
            name = next(header[i] for i in use[1:] if row[i].strip())
            raise InputError(
                f"{path}: row {rowno}: {name} has a value but the step cell is empty "
                f"(every row with metrics needs its step)"
            )
        for j, i in enumerate(use):
            cell = row[i].strip()
            if not cell:
                out[j].append(math.nan)
                continue
            try:
                out[j].append(float(cell))
            except ValueError:
                raise InputError(f"{path}: row {rowno}: {header[i]} = {cell[:40]!r} is not a number") from None
    return [np.asarray(c, dtype=np.float64) for c in out]


def _read_csv_long(path: Path, data: bytes, header: list[str], delim: str, mapped: _Want) -> list[_Raw]:
    lower = [h.lower() for h in header]
    si, ti, vi = _find_step_col(header, mapped.steps), lower.index("tag"), lower.index("value")
    ri = lower.index("run") if "run" in lower else None
    text = data.decode("utf-8", "replace")
    acc: dict[str | None, dict[str, tuple[list, list]]] = {}
    found: dict[str | None, dict[str, None]] = {}
    reader = csv.reader(io.StringIO(text), delimiter=delim)
    next(reader, None)
    rows = 0
    for rowno, row in enumerate(reader, 2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise InputError(f"{path}: row {rowno} has {len(row)} cells, the header {len(header)}")
        rows += 1
        run = row[ri] if ri is not None else None
        tag = row[ti]
        found.setdefault(run, {}).setdefault(tag, None)
        if not _is_candidate(tag, mapped):
            continue
        cell_s, cell_v = row[si].strip(), row[vi].strip()
        if not cell_v:
            continue
        try:
            v = float(cell_v)
        except ValueError:
            raise InputError(f"{path}: row {rowno}: value {cell_v[:40]!r} of {tag} is not a number") from None
        try:
            s = float(cell_s)
        except ValueError:
            raise InputError(f"{path}: row {rowno}: step {cell_s[:40]!r} of {tag} is not a number") from None
        st, va = acc.setdefault(run, {}).setdefault(tag, ([], []))
        st.append(s)
        va.append(v)
    if rows == 0:
        raise InputError(f"{path}: has a header but no rows: nothing logged yet")
    out = []
    for run in found:
        cols = {tag: Series(np.asarray(s), np.asarray(v)) for tag, (s, v) in acc.get(run, {}).items()}
        out.append(_Raw(str(path), "csv-tensorboard-long", cols, list(found[run]), label=run, where="row"))
    return out
