"""TRL's ``trainer_state.json``: its ``log_history`` list (or a bare JSON list of log dicts).

TRL's GRPO names (``reward``, ``reward_std``, ``frac_reward_zero_std``, ``entropy``, ``kl``,
``completions/mean_length``, ``rewards/<fn>/mean``) and ``eval_*`` are built-in aliases
(names.py), so a TRL log needs no mapping."""

from __future__ import annotations

import json
from pathlib import Path

from ...errors import InputError
from ...report.text import article
from .columns import _Columns, _Raw
from .detect import _strip_bom
from .names import STEP_KEYS, _is_candidate, _Want


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
            raise InputError(
                f"{path}: no log_history: not a TRL trainer_state.json (its keys: {keys}); "
                f"for a JSONL metrics file give --format jsonl"
            )
        history = doc["log_history"]
    else:
        history = doc
    if not isinstance(history, list):
        raise InputError(f"{path}: log_history is {article(type(history).__name__)}, not a list of log entries")
    if not history:
        raise InputError(
            f"{path}: log_history is empty: the run has logged nothing yet (TRL logs every logging_steps steps)"
        )
    cols = _Columns(path, mapped, "entry")
    for i, entry in enumerate(history):
        if not isinstance(entry, dict):
            raise InputError(f"{path}: log_history entry {i} is {article(type(entry).__name__)}, not a dict of metrics")
        step_key = mapped.steps[0] if mapped.steps != STEP_KEYS else "step"
        if step_key not in entry and any(_is_candidate(k, mapped) for k in entry):
            raise InputError(
                f"{path}: log_history entry {i} has metrics but no {step_key!r} (keys: {', '.join(list(entry)[:10])})"
            )
        cols.step_key = step_key
        cols.add(entry, i)
    raw = cols.raw("trl")
    raw.where = "log_history entry"
    return [raw]
