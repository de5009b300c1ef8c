"""The results file: verdicts streamed as JSON lines as they come, so an audit can resume.

Line 1 is a header with a fingerprint of everything that decides the verdicts (suite
contents, split, limit, seed, verifiers, timeout, tool version). A resume with a
different fingerprint is refused rather than mixing two audits. After a ``kill -9`` the
last line may be cut short: it is dropped and its call is redone, nothing else is lost.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..models import Verdict, to_json


def fingerprint(settings: dict[str, Any]) -> str:
    blob = json.dumps(settings, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


class ResultsStore:
    def __init__(self, path: Path, settings: dict[str, Any], *, resume: bool):
        self.path = Path(path)
        self.settings = settings
        self.fingerprint = fingerprint(settings)
        self.done: dict[tuple[str, str], Verdict] = {}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if resume and self.path.exists() and self.path.stat().st_size > 0:
            self._load()
            self._fh = self.path.open("a", encoding="utf-8")
        else:
            self._fh = self.path.open("w", encoding="utf-8")
            header = {"kind": "header", "fingerprint": self.fingerprint, "settings": settings}
            self._write(header)

    def _load(self) -> None:
        raw = self.path.read_bytes()
        # Keep only whole lines: a write cut by kill -9 leaves a tail with no newline.
        whole = raw[: raw.rfind(b"\n") + 1]
        if len(whole) != len(raw):
            with self.path.open("r+b") as fh:
                fh.truncate(len(whole))
        lines = whole.decode("utf-8", errors="replace").splitlines()
        try:
            header = json.loads(lines[0]) if lines else {}
        except json.JSONDecodeError:
            header = {}
        if header.get("kind") != "header":
            raise InputError(f"{self.path}: not a verifier-audit results file (no header line); remove it or pass another --results")
        if header.get("fingerprint") != self.fingerprint:
            old = header.get("settings", {})
            changed = sorted(k for k in set(old) | set(self.settings) if old.get(k) != self.settings.get(k))
            raise InputError(
                f"{self.path}: written by a different audit (settings that differ: {', '.join(changed) or 'tool version'}). "
                "Resume with the same options, or drop --resume to start over."
            )
        for lineno, line in enumerate(lines[1:], 2):
            try:
                verdict = Verdict.model_validate(json.loads(line))
            except ValueError:
                continue  # a damaged line: its call is simply redone
            self.done[(verdict.verifier, verdict.candidate_id)] = verdict

    def _write(self, obj: dict) -> None:
        self._fh.write(json.dumps(obj, ensure_ascii=True) + "\n")
        self._fh.flush()

    def append(self, verdict: Verdict) -> None:
        self._fh.write(to_json(verdict) + "\n")
        self._fh.flush()  # in the kernel's hands now: survives kill -9 of this process
        self.done[(verdict.verifier, verdict.candidate_id)] = verdict

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
