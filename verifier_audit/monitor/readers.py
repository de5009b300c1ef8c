"""Training logs -> ``Run`` objects with canonical metric names.

``read_logs(paths)`` reads each file in the format it is written in (detected, or forced with
``fmt``) and returns one ``Run`` per training run found, in the order given. A file is
usually one run; a Weights & Biases chart export with several runs' columns, or a
TensorBoard long-format CSV with a ``run`` column, gives several; TensorBoard one-metric CSV
files (``Wall time,Step,Value``) of the same run are merged into one.

Formats (``FORMATS``), with what is recognized in each (docs/monitor.md has the tables):

* ``trl``   -- ``trainer_state.json``: its ``log_history`` list (or a bare JSON list of log
  dicts); TRL's GRPO names (``reward``, ``reward_std``, ``frac_reward_zero_std``,
  ``entropy``, ``kl``, ``completions/mean_length``, ``rewards/<fn>/mean``) and ``eval_*``;
* ``verl``  -- verl's metrics as JSONL (its file logger writes ``{"step": N, "data":
  {...}}``; flat ``{"step": N, ...}`` lines too) or its console log (lines holding
  ``step:N - key:value - key:value``, any prefix before ``step:``);
* ``csv``   -- a wide table (a step column and one column per metric: a Weights & Biases
  history or chart export, a TensorBoard export), a TensorBoard long table
  (``[run,]step,tag,value``), or a TensorBoard one-metric file (``Wall time,Step,Value``,
  the metric named by the file name ``run-<run>-tag-<tag>.csv``);
* ``jsonl`` -- any JSONL with one dict per line and a step key; names outside the tables
  below are mapped with ``mapping`` (``--metric canonical=theirs``).

Names are resolved the same way in every format: a name written with a ``train/`` prefix
(TRL through W&B or TensorBoard) counts without it, and ``eval/x`` counts as ``eval_x``.
Names that mean nothing here are left out; a log with no known name at all is an
``InputError`` that lists the names known and the names found.

Speed: a 1,000,000-line JSONL or CSV file reads in seconds. JSONL lines that share a layout
(what one logger writes) are matched by a regular expression learned from sampled lines,
and CSV goes through numpy's C parser; any irregularity falls back to the line-by-line
reader, which is the reference and names the line of any error.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

import numpy as np

from ..errors import InputError
from .run import CANONICAL, REWARD_FN_PREFIX, Run, Series

FORMATS = ("trl", "verl", "csv", "jsonl")

# The step: the first of these a log has. TRL through W&B logs "train/global_step" next to
# W&B's own "_step" counter, and the former is the trainer's step.
STEP_KEYS = ("step", "global_step", "train/global_step", "trainer/global_step", "Step", "_step",
             "iteration", "iter")

# canonical -> names in preference order (the first one a log has is used). Prefixes
# "train/" and "eval/" are normalized away before looking here (see _norm).
ALIASES: dict[str, tuple[str, ...]] = {
    "reward": ("reward", "critic/score/mean", "critic/rewards/mean"),
    "reward_std": ("reward_std",),
    "frac_reward_zero_std": ("frac_reward_zero_std",),
    "entropy": ("entropy", "actor/entropy", "actor/entropy_loss"),
    "kl": ("kl", "actor/kl_loss", "critic/kl"),
    "length": ("length", "completions/mean_length", "completion_length", "response_length/mean"),
    "val_accuracy": ("val_accuracy", "eval_accuracy", "eval_acc", "eval_reward"),
}
# Per-reward-function means: TRL's "rewards/<fn>/mean" (older TRL: "rewards/<fn>").
REWARD_FN_RE = re.compile(r"^rewards/(?P<fn>[^/]+)(?P<mean>/mean)?$")
# verl validation: "val-core/<data source>/<variable>/mean@<n>" (newer), "val/test_score/<source>" (older).
VAL_CORE_RE = re.compile(r"^val-core/(?P<ds>.+)/(?P<var>[^/]+)/mean@(?P<n>\d+)$")
VAL_OLD_RE = re.compile(r"^val/test_score/(?P<ds>.+)$")
VAL_VAR_ORDER = ("acc", "accuracy", "reward", "score")
# Names we know and deliberately do not use, with the reason (shown when they are the closest thing).
NOT_USED = {
    "actor/ppo_kl": ("actor/ppo_kl is the KL between the rollout policy and the updated one (the size of "
                     "one update), not the distance to the reference model; it is not used as kl "
                     "(map it with --metric kl=actor/ppo_kl to watch it anyway)"),
}
GENERIC_STEMS = {"trainer_state", "metrics", "log", "logs", "train", "training", "history", "events",
                 "wandb-history", "output", "stdout", "console", "run"}


def known_names() -> list[str]:
    """Every metric name recognized without a mapping, for messages and the docs."""
    out = []
    for canonical, names in ALIASES.items():
        out += [n for n in names if n not in out]
    out += ["rewards/<fn>/mean", "rewards/<fn>", "val-core/<data source>/<variable>/mean@<n>",
            "val/test_score/<data source>"]
    return out


def _norm(name: str) -> str:
    """A log name as looked up in ALIASES: "train/x" -> "x", "eval/x" -> "eval_x"."""
    if name.startswith("train/"):
        return name[6:]
    if name.startswith("eval/"):
        return "eval_" + name[5:]
    return name


_ALIAS_SET = {n for names in ALIASES.values() for n in names}


class _Want:
    """What the reader looks for beyond the built-in names: the log names a mapping asks
    for, and the step keys (``--metric step=NAME`` replaces STEP_KEYS)."""

    def __init__(self, names: Iterable[str] = (), steps: Sequence[str] = STEP_KEYS):
        self.names, self.steps = frozenset(names), tuple(steps)

    def __contains__(self, name: object) -> bool:
        return name in self.names


def _is_candidate(name: str, mapped) -> bool:
    """Could this log name become a canonical metric (before choosing among aliases)?"""
    if name in mapped:
        return True
    n = _norm(name)
    return (n in _ALIAS_SET or REWARD_FN_RE.match(n) is not None or VAL_CORE_RE.match(n) is not None
            or VAL_OLD_RE.match(n) is not None)


# --------------------------------------------------------------------------------------
# What a parser hands over: the candidate columns of one run, and every name it saw.


@dataclass
class _Raw:
    source: str
    fmt: str
    columns: dict[str, Series] = field(default_factory=dict)  # log name -> series
    found: list[str] = field(default_factory=list)  # every metric name seen (for messages)
    label: Optional[str] = None  # a run name the file itself gives (W&B chart export, TensorBoard)
    notes: list[str] = field(default_factory=list)
    where: str = ""  # "line" or "row", for messages
    group: Optional[tuple] = None  # TensorBoard one-metric files with the same group merge


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


# --------------------------------------------------------------------------------------
# Reading a file's bytes


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory; give the log file (trainer_state.json, metrics.jsonl, "
                         f"an exported .csv)") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _strip_bom(data: bytes) -> bytes:
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _first_line(data: bytes) -> bytes:
    for line in data[:1 << 16].split(b"\n", 50)[:50]:
        if line.strip():
            return line.strip()
    return b""


def detect_format(path: Path, data: bytes) -> str:
    """``trl``, ``verl``, ``csv`` or ``jsonl`` from the file's name and first bytes."""
    name = path.name.lower()
    head = _first_line(data)
    if name.endswith((".csv", ".tsv")):
        return "csv"
    if name == "trainer_state.json":
        return "trl"
    if head.startswith(b"[") or (head.startswith(b"{") and b'"log_history"' in data[:1 << 20]
                                 and not _is_json_line(head)):
        return "trl"
    if head.startswith(b"{"):
        if _is_json_line(head):
            try:
                first = json.loads(head)
            except ValueError:
                first = None
            if isinstance(first, dict) and "log_history" in first:
                return "trl"
            if isinstance(first, dict) and (isinstance(first.get("data"), dict)
                                            or any("/" in k and k.split("/")[0] in ("critic", "actor", "response_length",
                                                                                       "val-core", "timing_s", "perf")
                                                   for k in first)):
                return "verl"
            return "jsonl"
        return "trl"  # a pretty-printed JSON object
    if _CONSOLE_RE.search(data[:1 << 20].decode("utf-8", "replace")):
        return "verl"
    if b"," in head or b"\t" in head:
        return "csv"
    raise InputError(f"{path}: cannot tell the format (not JSON, JSONL, CSV, or a verl console log with "
                     f"'step:N - key:value' lines); give --format {'|'.join(FORMATS)}")


def _is_json_line(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


# --------------------------------------------------------------------------------------
# Columns from dicts (TRL log_history, the JSONL line reader)


def _to_float(value, path: Path, where: str, number: int, key: str) -> float:
    """A logged value as a float; None and booleans count as not logged. A string that is
    not a number is an error naming the place."""
    if value is None or isinstance(value, bool):
        return math.nan
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    shown = json.dumps(value)[:60] if not isinstance(value, str) else repr(value[:60])
    raise InputError(f"{path}:{number}: {key} = {shown} is not a number ({where} {number}); "
                     f"fix or drop that {where}")


class _Columns:
    """Accumulates (step, value) per candidate name from dicts, in log order."""

    def __init__(self, path: Path, mapped: _Want, where: str):
        self.path, self.mapped, self.where = path, mapped, where
        self.step_keys = getattr(mapped, "steps", STEP_KEYS)
        self.steps: dict[str, list] = {}
        self.values: dict[str, list] = {}
        self.found: dict[str, None] = {}
        self.step_key: Optional[str] = None
        self._wanted: dict[str, bool] = {}

    def add(self, d: dict, number: int) -> None:
        for k in d:
            if k not in self.found:
                self.found[k] = None
        if self.step_key is None:
            self.step_key = next((k for k in self.step_keys if k in d), None)
        step = d.get(self.step_key) if self.step_key is not None else None
        have_step = step is not None and not isinstance(step, bool)
        for k, v in d.items():
            wanted = self._wanted.get(k)
            if wanted is None:
                wanted = self._wanted[k] = k not in self.step_keys and _is_candidate(k, self.mapped)
            if not wanted or v is None:
                continue
            x = _to_float(v, self.path, self.where, number, k)
            if math.isnan(x):
                continue
            if not have_step:
                expected = self.step_key or " or ".join(repr(s) for s in self.step_keys[:6])
                raise InputError(f"{self.path}:{number}: {k} is logged without a step ({self.where} {number} "
                                 f"has no {expected}); every {self.where} with metrics needs its step")
            s = _to_float(step, self.path, self.where, number, self.step_key or "step")
            self.steps.setdefault(k, []).append(s)
            self.values.setdefault(k, []).append(x)

    def raw(self, fmt: str) -> _Raw:
        cols = {k: Series(np.asarray(self.steps[k], dtype=np.float64), np.asarray(self.values[k], dtype=np.float64))
                for k in self.steps}
        found = [k for k in self.found if k not in self.step_keys]
        return _Raw(str(self.path), fmt, cols, found, where=self.where)


def _flatten_verl(d: dict) -> dict:
    """verl's file logger nests the metrics: {"step": N, "data": {...}}."""
    data = d.get("data")
    if isinstance(data, dict):
        out = {k: v for k, v in d.items() if k != "data"}
        out.update(data)
        return out
    return d


# --------------------------------------------------------------------------------------
# TRL trainer_state.json


def _read_trl(path: Path, data: bytes, mapped: _Want) -> list[_Raw]:
    try:
        doc = json.loads(_strip_bom(data))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        cut = " (the file ends early: was it copied while being written?)" if exc.pos >= len(data.rstrip()) - 1 else ""
        raise InputError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg} at column {exc.colno}{cut}") from None
    if isinstance(doc, dict):
        if "log_history" not in doc:
            keys = ", ".join(list(doc)[:12])
            raise InputError(f"{path}: no log_history: not a TRL trainer_state.json (its keys: {keys}); "
                             f"for a JSONL metrics file give --format jsonl")
        history = doc["log_history"]
    else:
        history = doc
    if not isinstance(history, list):
        raise InputError(f"{path}: log_history is a {type(history).__name__}, not a list of log entries")
    if not history:
        raise InputError(f"{path}: log_history is empty: the run has logged nothing yet "
                         f"(TRL logs every logging_steps steps)")
    cols = _Columns(path, mapped, "entry")
    for i, entry in enumerate(history):
        if not isinstance(entry, dict):
            raise InputError(f"{path}: log_history entry {i} is a {type(entry).__name__}, not a dict of metrics")
        step_key = mapped.steps[0] if mapped.steps != STEP_KEYS else "step"
        if step_key not in entry and any(_is_candidate(k, mapped) for k in entry):
            raise InputError(f"{path}: log_history entry {i} has metrics but no {step_key!r} "
                             f"(keys: {', '.join(list(entry)[:10])})")
        cols.step_key = step_key
        cols.add(entry, i)
    raw = cols.raw("trl")
    raw.where = "log_history entry"
    return [raw]


# --------------------------------------------------------------------------------------
# JSONL: the line reader (reference) and the layout-matching fast path


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
            raise InputError(f"{path}:{number}: not valid JSON: {exc.msg} at column {exc.colno} "
                             f"(each line must be one JSON object)") from None
        if not isinstance(d, dict):
            raise InputError(f"{path}:{number}: a JSON {type(d).__name__}, not an object of metrics "
                             f"(each line must be one JSON object)")
        if nested is None:
            nested = isinstance(d.get("data"), dict)
        if nested:
            d = _flatten_verl(d)
        cols.add(d, number)
    raw = cols.raw(fmt)
    raw.notes += notes
    return raw


_SCALAR = rb"(-?[0-9][0-9.eE+-]*|NaN|-?Infinity|null|true|false)"
_SCALAR_NC = rb"(?:-?[0-9][0-9.eE+-]*|NaN|-?Infinity|null|true|false)"
_STRING_NC = rb'"(?:[^"\\\n]|\\.)*"'
_TOKEN = re.compile(rb'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<scalar>-?[0-9][0-9.eE+-]*|NaN|-?Infinity|null|true|false)'
                    rb'|(?P<punct>[{}\[\]:,]))')


def _layout(line: bytes, candidates: frozenset, steps: Sequence[str] = STEP_KEYS) -> Optional[tuple[bytes, list[str]]]:
    """A regular expression matching lines laid out like ``line`` (same keys, order and
    spacing), capturing the scalar values of candidate keys and of step keys; and the
    captured keys in order. None when the line holds arrays or repeats a key."""
    pos, out, keys, seen = 0, [rb"^[ \t]*"], [], set()
    pending_key: Optional[str] = None
    expect_value = False
    line = line.rstrip(b"\r")
    while pos < len(line):
        m = _TOKEN.match(line, pos)
        if m is None:
            if line[pos:].strip() == b"":
                break
            return None
        lead = line[pos:m.start(m.lastgroup)]
        out.append(re.escape(lead))
        tok = m.group(m.lastgroup)
        if m.lastgroup == "punct":
            if tok in b"[]":
                return None
            out.append(re.escape(tok))
            if tok == b":":
                expect_value = True
            elif tok == b"{":
                expect_value, pending_key = False, None
        elif expect_value:
            if m.lastgroup == "str":
                out.append(_STRING_NC)
            elif pending_key is not None and (pending_key in candidates or pending_key in steps):
                out.append(_SCALAR)
                keys.append(pending_key)
            else:
                out.append(_SCALAR_NC)
            expect_value, pending_key = False, None
        elif m.lastgroup == "str":
            try:
                key = json.loads(tok)
            except ValueError:
                return None
            if key in seen:
                return None
            seen.add(key)
            pending_key = key
            out.append(re.escape(tok))
        else:
            return None
        pos = m.end()
    out.append(rb"[ \t]*\r?$")
    return b"".join(out), keys


def _jsonl_fast(path: Path, data: bytes, mapped: _Want, fmt: str, sample: int = 4000) -> Optional[_Raw]:
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
    blank_lines = (b"\n\n" in data or b"\n\r\n" in data or data.startswith((b"\n", b"\r\n")))
    if blank_lines:
        starts, blank = _line_starts(data, last_nl)
        n_lines = int((~blank).sum())
    else:
        starts = blank = None
        n_lines = data.count(b"\n", 0, last_nl + 1)
    if n_lines == 0:
        return None
    # sample: the first lines and lines at an even stride through the file
    head = data[:min(last_nl + 1, 8 << 20)].split(b"\n")[:-1][:sample // 2]
    picks = []
    for pos in np.linspace(0, last_nl, num=sample // 2).astype(np.int64):
        st = data.rfind(b"\n", 0, int(pos)) + 1
        picks.append(data[st:data.find(b"\n", st)])
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
    tail = data[last_nl + 1:]
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
    plan = [(pattern, keys, keys.index(step_key), mapped.steps, j in shared and j != big)
            for j, (pattern, keys) in enumerate(layouts)]
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
            per_key.setdefault(k, []).append((st, np.asarray(tail_cols.values[k], dtype=np.float64),
                                              np.full(len(st), last_nl + 1)))
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


SUBCHUNK = 16 << 20  # bytes matched at a time: bounds the memory the matched rows take


def _layout_chunk(data: bytes, start: int, end: int, plan: list):
    """One chunk of lines: (lines matched, per layout None or (steps, {key: values},
    line positions or None))."""
    matched = 0
    acc: list[list] = [[] for _ in plan]
    rxs = [re.compile(p[0], re.MULTILINE) for p in plan]
    for s, e in _chunk_bounds(data, max(1, (end - start) // SUBCHUNK), start, end):
        for li, (rx, (_, keys, si, step_keys, want_pos)) in enumerate(zip(rxs, plan)):
            if want_pos:
                ms = list(rx.finditer(data, s, e))
                pos = np.fromiter((m.start() for m in ms), dtype=np.int64, count=len(ms))
                rows = [m.groups() for m in ms]
            else:
                rows, pos = rx.findall(data, s, e), None
            matched += len(rows)
            if not rows:
                continue
            arr = _rows_to_floats(rows, len(keys))
            if arr is None:
                return None
            acc[li].append((arr, pos))
    out = []
    for li, (_, keys, si, step_keys, want_pos) in enumerate(plan):
        if not acc[li]:
            out.append(None)
            continue
        arr = np.concatenate([a for a, _ in acc[li]])
        pos = np.concatenate([p for _, p in acc[li]]) if want_pos else None
        values = {k: arr[:, j].copy() for j, k in enumerate(keys) if j != si and k not in step_keys}
        out.append((arr[:, si].copy(), values, pos))
    return matched, out


def _rows_to_floats(rows: list, width: int) -> Optional[np.ndarray]:
    """Matched rows (tuples of captured bytes, or bytes when one was captured) as an
    (n, width) float array; None if a value is not a number (null, true, false: NaN)."""
    try:
        arr = np.array(rows, dtype=np.float64)
        return arr.reshape(len(rows), width)
    except ValueError:
        pass
    cols = [rows] if width == 1 else list(zip(*rows))
    conv = [_floats(c) for c in cols]
    if any(c is None for c in conv):
        return None
    return np.column_stack(conv)


# Work on big files is split into chunks of whole lines, one per core, in forked processes
# (which see the file's bytes without copying them through a pipe). Where fork is not
# available, or the file is small, the chunks run here one after the other.
PARALLEL_MIN_BYTES = 32 << 20
_SHARED: list = []


def _chunk_bounds(data: bytes, n: int, offset: int = 0, end: Optional[int] = None) -> list[tuple[int, int]]:
    end = len(data) if end is None else end
    size = end - offset
    bounds, start = [], offset
    for i in range(1, n):
        cut = data.find(b"\n", offset + size * i // n, end)
        if cut < 0 or cut + 1 <= start:
            continue
        bounds.append((start, cut + 1))
        start = cut + 1
    bounds.append((start, end))
    return [b for b in bounds if b[1] > b[0]]


def _idle_cores() -> int:
    """Cores this process may use that others do not keep busy (the 1-minute load average,
    less the one this process is itself using), at most 8."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        busy = 0.0
    return max(1, min(8, cores, int(cores - max(0.0, busy - 1.0) + 0.5)))


def _run_shared(args):
    fn, start, end, extra = args
    return fn(_SHARED[0], start, end, extra)


def _map_chunks(fn, data: bytes, extra, offset: int = 0, end: Optional[int] = None) -> Optional[list]:
    """fn(data, start, end, extra) over chunks of whole lines of data[offset:end], results
    in file order."""
    cores = _idle_cores()
    one = _chunk_bounds(data, 1, offset, end)
    if len(data) < PARALLEL_MIN_BYTES or cores < 2:
        return [fn(data, s, e, extra) for s, e in one]
    import multiprocessing as mp

    try:
        ctx = mp.get_context("fork")
    except ValueError:
        return [fn(data, s, e, extra) for s, e in one]
    bounds = _chunk_bounds(data, cores, offset, end)
    _SHARED[:] = [data]
    try:
        with ctx.Pool(len(bounds)) as pool:
            return pool.map(_run_shared, [(fn, s, e, extra) for s, e in bounds])
    except Exception:  # noqa: BLE001 - workers that cannot start or die: do the work here
        return [fn(data, s, e, extra) for s, e in one]
    finally:
        _SHARED.clear()


def _floats(col: Sequence[bytes]) -> Optional[np.ndarray]:
    """Captured scalars as floats (null, true, false: not logged); None if one is not a number."""
    try:
        return np.array(col, dtype=np.float64)
    except ValueError:
        pass
    out = np.empty(len(col), dtype=np.float64)
    for i, v in enumerate(col):
        if v in (b"null", b"true", b"false"):
            out[i] = math.nan
        else:
            try:
                out[i] = float(v)
            except ValueError:
                return None
    return out


def _read_jsonl(path: Path, data: bytes, mapped: _Want, fmt: str) -> list[_Raw]:
    raw = _jsonl_fast(path, data, mapped, fmt) if _FAST else None
    if raw is None:
        raw = _jsonl_slow(path, data, mapped, fmt)
    return [raw]


_FAST = True  # tests turn the fast paths off to compare them with the reference readers


# --------------------------------------------------------------------------------------
# verl console logs


_CONSOLE_RE = re.compile(r"(?:^|[\s(\[|:])step:\s*(\d+)\s+-\s+(\S.*?)\s*$", re.MULTILINE)
_CONSOLE_VALUE = re.compile(r"^(?:np\.(?:float|int)\d*\(|numpy\.float\d*\(|tensor\()?\s*"
                            r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|NaN|[-+]?inf)\s*\)?\s*$")


def _read_console(path: Path, data: bytes, mapped: _Want) -> list[_Raw]:
    """``step:12 - critic/score/mean:0.41 - actor/entropy:1.2 ...`` (verl's console logger;
    values as Python or numpy prints them). Other lines are skipped."""
    text = _strip_bom(data).decode("utf-8", "replace")
    cols = _Columns(path, mapped, "line")
    hits = 0
    for number, line in enumerate(text.splitlines(), 1):
        m = _CONSOLE_RE.search(line)
        if m is None:
            continue
        hits += 1
        d: dict = {"step": int(m.group(1))}
        for part in m.group(2).split(" - "):
            key, sep, value = part.partition(":")
            key = key.strip()
            if not sep or not key:
                continue
            vm = _CONSOLE_VALUE.match(value.strip())
            if vm is None:
                if _is_candidate(key, mapped):
                    raise InputError(f"{path}:{number}: {key}:{value.strip()[:40]} is not a number")
                d[key] = None
                continue
            d[key] = float(vm.group(1))
        cols.add(d, number)
    if hits == 0:
        raise InputError(f"{path}: no verl metric line (expected lines with 'step:N - key:value - ...', "
                         f"as verl's console logger prints them); for another format give --format")
    raw = cols.raw("verl-console")
    return [raw]


# --------------------------------------------------------------------------------------
# CSV: W&B and TensorBoard exports


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
        rest = sq[len(prefix):]
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


def _find_step_col(header: list[str], steps: Sequence[str] = STEP_KEYS) -> Optional[int]:
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
        text_head = data[:1 << 16].decode("utf-8")
    except UnicodeDecodeError:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
        text_head = data[:1 << 16].decode("utf-8", "ignore")
    nl = data.find(b"\n")
    header_line = (data if nl < 0 else data[:nl]).decode("utf-8", "replace").rstrip("\r")
    if not header_line.strip():
        raise InputError(f"{path}: empty, or no header row (a CSV needs a header with a step column and metric columns)")
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
        raw = _Raw(str(path), "csv-tensorboard", {}, [metric], label=(m.group("run") or None) if m else None,
                   where="row", group=group)
        if _is_candidate(metric, mapped):
            raw.columns[metric] = Series(rows[0], rows[1])
        return [raw]
    step_col = _find_step_col(header, mapped.steps)
    if step_col is None:
        raise InputError(f"{path}: no step column (looked for {', '.join(mapped.steps)}; name yours with "
                         f"--metric step=NAME); its columns: "
                         f"{', '.join(header[:15])}")
    # Weights & Biases chart export: "<run> - <metric>", with "__MIN"/"__MAX" companions
    groups: dict[Optional[str], dict[str, int]] = {}
    found: dict[Optional[str], list[str]] = {}
    is_chart = any(_WANDB_COL.match(h) and not h.endswith(("__MIN", "__MAX")) for i, h in enumerate(header)
                   if i != step_col)
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
        raise InputError(f"{path}: row {int(bad[0]) + 2}: {name} has a value but the step cell is empty "
                         f"(every row with metrics needs its step)")


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
    return _csv_slow(path, data[nl + 1:], header, delim, use)


def _csv_chunk(data: bytes, start: int, end: int, extra) -> Optional[list[np.ndarray]]:
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
        arr = np.loadtxt(io.BytesIO(body), delimiter=delim, usecols=use, dtype=np.float64, ndmin=2,
                         comments=None, encoding=None)
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
            raise InputError(f"{path}: row {rowno} has {len(row)} cells, the header {len(header)} "
                             f"(a row cut short, or a stray '{delim}'?)")
        if not row[use[0]].strip() and any(row[i].strip() for i in use[1:]):
            name = next(header[i] for i in use[1:] if row[i].strip())
            raise InputError(f"{path}: row {rowno}: {name} has a value but the step cell is empty "
                             f"(every row with metrics needs its step)")
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
    acc: dict[Optional[str], dict[str, tuple[list, list]]] = {}
    found: dict[Optional[str], dict[str, None]] = {}
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


# --------------------------------------------------------------------------------------
# Canonical names


def _mean_at_common(series: list[Series]) -> Series:
    common = series[0].steps
    for s in series[1:]:
        common = np.intersect1d(common, s.steps, assume_unique=True)
    vals = np.mean([np.interp(common, s.steps, s.values) for s in series], axis=0) if len(common) else np.zeros(0)
    return Series(common, vals)


def _resolve(raw: _Raw, mapping: dict[str, str]) -> Run:
    """Pick, per canonical metric, the log name it comes from; build the Run."""
    cols = raw.columns
    by_norm: dict[str, str] = {}
    for name in cols:
        by_norm.setdefault(_norm(name), name)
        by_norm.setdefault(name, name)
    metrics: dict[str, Series] = {}
    original: dict[str, str] = {}
    notes = list(raw.notes)

    def take(canonical: str, name: str) -> None:
        s = cols[name]
        if len(s) == 0:
            notes.append(f"{canonical}: {name} is in the log but holds no number")
            return
        metrics[canonical], original[canonical] = s, name

    for canonical, theirs in mapping.items():
        name = theirs if theirs in cols else by_norm.get(theirs)
        if name is None:
            have = raw.found
            close = difflib.get_close_matches(theirs, have, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            shown = ", ".join(have[:25]) + (f", ... ({len(have)} in all)" if len(have) > 25 else "")
            raise InputError(f"{raw.source}: --metric {canonical}={theirs}: the log has no metric {theirs!r}"
                             f"{hint} (its metrics: {shown or 'none'})")
        take(canonical, name)
    for canonical, names in ALIASES.items():
        if canonical in metrics:
            continue
        for n in names:
            if n in by_norm:
                take(canonical, by_norm[n])
                break
    # per-reward-function means
    fns: dict[str, tuple[bool, str]] = {}
    for norm, name in by_norm.items():
        if norm.startswith("eval_") or name.startswith("eval"):
            continue
        m = REWARD_FN_RE.match(norm)
        if m:
            fn, is_mean = m.group("fn"), m.group("mean") is not None
            if fn not in fns or (is_mean and not fns[fn][0]):
                fns[fn] = (is_mean, name)
    for fn, (_, name) in sorted(fns.items()):
        key = REWARD_FN_PREFIX + fn
        if key not in metrics:
            take(key, name)
    # validation from verl's val-core (one key per data source), averaged over sources
    if "val_accuracy" not in metrics:
        per_ds: dict[str, tuple[tuple, str]] = {}
        for norm, name in by_norm.items():
            m = VAL_CORE_RE.match(norm)
            if m:
                var = m.group("var")
                rank = (VAL_VAR_ORDER.index(var) if var in VAL_VAR_ORDER else len(VAL_VAR_ORDER), -int(m.group("n")))
                ds = m.group("ds")
                if ds not in per_ds or rank < per_ds[ds][0]:
                    per_ds[ds] = (rank, name)
        if not per_ds:
            for norm, name in by_norm.items():
                m = VAL_OLD_RE.match(norm)
                if m:
                    per_ds[m.group("ds")] = ((0, 0), name)
        chosen = [name for _, name in sorted(per_ds.values(), key=lambda t: t[1]) if len(cols[name])]
        if len(chosen) == 1:
            take("val_accuracy", chosen[0])
        elif len(chosen) > 1:
            s = _mean_at_common([cols[n] for n in chosen])
            if len(s):
                metrics["val_accuracy"], original["val_accuracy"] = s, " + ".join(chosen)
                notes.append(f"val_accuracy is the mean of {len(chosen)} validation sets: {', '.join(chosen)}")
            else:
                take("val_accuracy", chosen[0])
                notes.append(f"validation sets logged at different steps; val_accuracy is {chosen[0]} only")
    if "kl" not in metrics:
        for name, why in NOT_USED.items():
            if name in raw.found:
                notes.append(why)
    if not metrics:
        shown = ", ".join(raw.found[:30]) + (f", ... ({len(raw.found)} in all)" if len(raw.found) > 30 else "")
        raise InputError(
            f"{raw.source}: none of its metric names is one verifier-audit knows"
            + (f" (run {raw.label})" if raw.label else "") + ".\n"
            f"  found: {shown or 'no metric at all'}\n"
            f"  known: {', '.join(known_names())} (a 'train/' prefix is fine; 'eval/x' counts as 'eval_x')\n"
            f"  map yours with --metric CANONICAL=NAME, CANONICAL one of {', '.join(CANONICAL)} or "
            f"{REWARD_FN_PREFIX}<name>")
    return Run(name="", source=raw.source, metrics=metrics, original_names=original, notes=notes, format=raw.fmt)


# --------------------------------------------------------------------------------------
# The entry point


def parse_mapping(items: Iterable[str]) -> dict[str, str]:
    """``["reward=train/score", ...]`` -> {"reward": "train/score"}, checked."""
    out: dict[str, str] = {}
    for item in items:
        canonical, sep, theirs = item.partition("=")
        canonical, theirs = canonical.strip(), theirs.strip()
        if not sep or not canonical or not theirs:
            raise InputError(f"--metric {item!r}: expected CANONICAL=NAME, e.g. --metric reward=train/score")
        _check_canonical(canonical)
        if canonical in out:
            raise InputError(f"--metric {canonical} is given twice ({out[canonical]!r} and {theirs!r})")
        out[canonical] = theirs
    return out


def _check_canonical(canonical: str) -> None:
    if canonical in CANONICAL or canonical == "step":
        return
    if canonical.startswith(REWARD_FN_PREFIX) and len(canonical) > len(REWARD_FN_PREFIX):
        return
    raise InputError(f"--metric {canonical}=...: {canonical!r} is not a canonical metric; use one of "
                     f"{', '.join(CANONICAL)}, {REWARD_FN_PREFIX}<name> for one reward function, or step "
                     f"(the step key)")


def _read_one(path: Path, fmt: Optional[str], mapped: _Want) -> list[_Raw]:
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


def read_logs(paths: Sequence, *, fmt: Optional[str] = None, mapping: Optional[dict[str, str]] = None,
              names: Optional[Sequence[str]] = None) -> list[Run]:
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
            raise InputError(f"--name is given {len(names)} time(s) but {len(runs)} run(s) were read ({listing}); "
                             f"give one --name per run, in order")
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
    """First and last step logged for any metric of the run."""
    firsts = [float(s.steps[0]) for s in run.metrics.values() if len(s)]
    lasts = [float(s.steps[-1]) for s in run.metrics.values() if len(s)]
    return (min(firsts), max(lasts)) if firsts else (0.0, 0.0)


__all__ = ["FORMATS", "STEP_KEYS", "ALIASES", "read_logs", "parse_mapping", "detect_format", "known_names",
           "series_span"]
