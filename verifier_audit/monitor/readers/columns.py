"""What a reader hands over: ``_Raw``, the candidate columns of one run and every name it
saw; and ``_Columns``, which builds one from log dicts (TRL's log_history, JSONL lines,
console lines), so those readers share one notion of a step and of a missing value."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import InputError
from ..run import Series
from .names import STEP_KEYS, _is_candidate, _Want


@dataclass
class _Raw:
    source: str
    fmt: str
    columns: dict[str, Series] = field(default_factory=dict)  # log name -> series
    found: list[str] = field(default_factory=list)  # every metric name seen (for messages)
    label: str | None = None  # a run name the file itself gives (W&B chart export, TensorBoard)
    notes: list[str] = field(default_factory=list)
    where: str = ""  # "line" or "row", for messages
    group: tuple | None = None  # TensorBoard one-metric files with the same group merge


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
    raise InputError(f"{path}:{number}: {key} = {shown} is not a number ({where} {number}); fix or drop that {where}")


class _Columns:
    """Accumulates (step, value) per candidate name from dicts, in log order."""

    def __init__(self, path: Path, mapped: _Want, where: str):
        self.path, self.mapped, self.where = path, mapped, where
        self.step_keys = getattr(mapped, "steps", STEP_KEYS)
        self.steps: dict[str, list] = {}
        self.values: dict[str, list] = {}
        self.found: dict[str, None] = {}
        self.step_key: str | None = None
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
                raise InputError(
                    f"{self.path}:{number}: {k} is logged without a step ({self.where} {number} "
                    f"has no {expected}); every {self.where} with metrics needs its step"
                )
            s = _to_float(step, self.path, self.where, number, self.step_key or "step")
            self.steps.setdefault(k, []).append(s)
            self.values.setdefault(k, []).append(x)

    def raw(self, fmt: str) -> _Raw:
        cols = {
            k: Series(np.asarray(self.steps[k], dtype=np.float64), np.asarray(self.values[k], dtype=np.float64))
            for k in self.steps
        }
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
