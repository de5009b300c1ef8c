"""A log file's bytes, and its format (``detect_format``) from its name and first bytes."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ...errors import InputError

FORMATS = ("trl", "verl", "csv", "jsonl")

# A verl console metrics line ("step:N - key:value - ...", any prefix before "step:"). Here
# because detection needs it; the console reader uses the same expression, so a file
# detected as a console log is one that reader can read.
_CONSOLE_RE = re.compile(r"(?:^|[\s(\[|:])step:\s*(\d+)\s+-\s+(\S.*?)\s*$", re.MULTILINE)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(
            f"{path}: is a directory; give the log file (trainer_state.json, metrics.jsonl, an exported .csv)"
        ) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _strip_bom(data: bytes) -> bytes:
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _first_line(data: bytes) -> bytes:
    for line in data[: 1 << 16].split(b"\n", 50)[:50]:
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
    if head.startswith(b"[") or (
        head.startswith(b"{") and b'"log_history"' in data[: 1 << 20] and not _is_json_line(head)
    ):
        return "trl"
    if head.startswith(b"{"):
        if _is_json_line(head):
            try:
                first = json.loads(head)
            except ValueError:
                first = None
            if isinstance(first, dict) and "log_history" in first:
                return "trl"
            if isinstance(first, dict) and (
                isinstance(first.get("data"), dict)
                or any(
                    "/" in k
                    and k.split("/")[0] in ("critic", "actor", "response_length", "val-core", "timing_s", "perf")
                    for k in first
                )
            ):
                return "verl"
            return "jsonl"
        return "trl"  # a pretty-printed JSON object
    if _CONSOLE_RE.search(data[: 1 << 20].decode("utf-8", "replace")):
        return "verl"
    if b"," in head or b"\t" in head:
        return "csv"
    raise InputError(
        f"{path}: cannot tell the format (not JSON, JSONL, CSV, or a verl console log with "
        f"'step:N - key:value' lines); give --format {'|'.join(FORMATS)}"
    )


def _is_json_line(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False
