"""verl's console log: lines holding ``step:N - key:value - key:value`` (any prefix before
``step:``; values as Python or numpy prints them). Other lines are skipped."""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import InputError
from .columns import _Columns, _Raw
from .detect import _CONSOLE_RE, _strip_bom
from .names import _is_candidate, _Want

_CONSOLE_VALUE = re.compile(
    r"^(?:np\.(?:float|int)\d*\(|numpy\.float\d*\(|tensor\()?\s*"
    r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|NaN|[-+]?inf)\s*\)?\s*$"
)


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
        raise InputError(
            f"{path}: no verl metric line (expected lines with 'step:N - key:value - ...', "
            f"as verl's console logger prints them); for another format give --format"
        )
    raw = cols.raw("verl-console")
    return [raw]
