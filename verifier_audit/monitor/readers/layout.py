"""The JSONL fast path's matching: lines that share a layout (what one logger writes) are
matched by one regular expression instead of being parsed one by one. ``_layout`` learns
the expression from one line, ``_layout_chunk`` runs it over a chunk of the file, and the
captured scalars become floats."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence

import numpy as np

from .names import STEP_KEYS
from .parallel import _chunk_bounds

_SCALAR = rb"(-?[0-9][0-9.eE+-]*|NaN|-?Infinity|null|true|false)"
_SCALAR_NC = rb"(?:-?[0-9][0-9.eE+-]*|NaN|-?Infinity|null|true|false)"
_STRING_NC = rb'"(?:[^"\\\n]|\\.)*"'
_TOKEN = re.compile(
    rb'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<scalar>-?[0-9][0-9.eE+-]*|NaN|-?Infinity|null|true|false)'
    rb"|(?P<punct>[{}\[\]:,]))"
)


def _layout(line: bytes, candidates: frozenset, steps: Sequence[str] = STEP_KEYS) -> tuple[bytes, list[str]] | None:
    """A regular expression matching lines laid out like ``line`` (same keys, order and
    spacing), capturing the scalar values of candidate keys and of step keys; and the
    captured keys in order. None when the line holds arrays or repeats a key."""
    pos, out, keys, seen = 0, [rb"^[ \t]*"], [], set()
    pending_key: str | None = None
    expect_value = False
    line = line.rstrip(b"\r")
    while pos < len(line):
        m = _TOKEN.match(line, pos)
        if m is None:
            if line[pos:].strip() == b"":
                break
            return None
        lead = line[pos : m.start(m.lastgroup)]
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


SUBCHUNK = 16 << 20  # bytes matched at a time: bounds the memory the matched rows take


def _layout_chunk(data: bytes, start: int, end: int, plan: list):
    """One chunk of lines: (lines matched, per layout None or (steps, {key: values},
    line positions or None))."""
    matched = 0
    acc: list[list] = [[] for _ in plan]
    rxs = [re.compile(p[0], re.MULTILINE) for p in plan]
    for s, e in _chunk_bounds(data, max(1, (end - start) // SUBCHUNK), start, end):
        for li, (rx, (_, keys, _si, _step_keys, want_pos)) in enumerate(zip(rxs, plan)):
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


def _rows_to_floats(rows: list, width: int) -> np.ndarray | None:
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


def _floats(col: Sequence[bytes]) -> np.ndarray | None:
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
