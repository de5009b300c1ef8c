"""What a verifier under audit may touch, and the findings when it touches more.

Each worker hands the verifier a private copy of the task's fixture (``task.database``);
the cached fixture itself is never given out. After every call:

* the copy is checked (size and mtime first, then a SHA-256 against the fixture): a change
  means the verifier let a candidate write to its database — a ``modified_fixture``
  finding — and the copy is restored so the next call starts clean;
* a leftover write-ahead log next to the copy means the same;
* the task's distilled test-suite databases (``metadata["databases"]``, read by the strong
  reference verifier) are shared, not copied: a change to one of them is reported the same
  way (size and mtime), and the distillation cache re-checks their hashes on the next run;
* a secret file in the worker's private directory (``va_secret.csv``, which hostile
  candidates try to ``read_csv``) is watched with inotify: an open of it means the verifier
  let a candidate read a file outside its fixture — a ``read_outside`` finding. The file is
  per worker, so a read is never attributed to another worker's call.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ...models import Task

SECRET_NAME = "va_secret.csv"
SECRET_TEXT = "secret\nva-canary-secret-row\n"

_IN_ACCESS, _IN_OPEN = 0x1, 0x20


@dataclass
class _Copy:
    fixture: Path
    path: Path
    fixture_hash: str
    stat: tuple[int, int]


_copies: dict[str, _Copy] = {}  # per worker process: task.database -> its private copy
_shared: dict[str, tuple[int, int]] = {}  # distilled databases -> their stat when first seen
_fixture_hashes: dict[str, str] = {}
_watch: dict[str, Optional[int]] = {}  # workdir -> inotify fd (None where unavailable)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _stat(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except FileNotFoundError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)


def _restore(copy: _Copy) -> None:
    for leftover in (copy.path, Path(f"{copy.path}.wal")):
        try:
            leftover.unlink()
        except FileNotFoundError:
            pass
    shutil.copyfile(copy.fixture, copy.path)
    os.chmod(copy.path, 0o644)  # writable on purpose: a verifier that writes is what we detect
    copy.stat = _stat(copy.path)


def _drain(fd: Optional[int]) -> bool:
    """True when the watched secret was opened or read since the last drain."""
    if fd is None:
        return False
    seen = False
    while True:
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return seen
        except OSError:
            return seen
        if not data:
            return seen
        seen = True


def _watch_secret(workdir: str) -> Optional[int]:
    if workdir in _watch:
        return _watch[workdir]
    secret = Path(workdir) / SECRET_NAME
    secret.write_text(SECRET_TEXT)
    fd = None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0 or libc.inotify_add_watch(fd, str(secret).encode(), _IN_OPEN | _IN_ACCESS) < 0:
            fd = None
    except (OSError, AttributeError):  # not Linux: no read detection, the rest still works
        fd = None
    _drain(fd)
    _watch[workdir] = fd
    return fd


def private_view(task: Task, workdir: str) -> Task:
    """The task as the verifier sees it: ``database`` is a private, restorable copy."""
    _watch_secret(workdir)
    if not task.database:
        return task
    copy = _copies.get(task.database)
    if copy is None:
        fixture = Path(task.database)
        if task.database not in _fixture_hashes:
            _fixture_hashes[task.database] = _sha256(fixture)
        target = Path(workdir) / "db" / fixture.name
        target.parent.mkdir(parents=True, exist_ok=True)
        copy = _Copy(fixture, target, _fixture_hashes[task.database], (0, 0))
        _restore(copy)
        _copies[task.database] = copy
    for path in task.metadata.get("databases", []):
        _shared.setdefault(path, _stat(Path(path)))
    return task.model_copy(update={"database": str(copy.path)})


def check_and_restore(task: Task, view: Task) -> list[str]:
    findings = []
    copy = _copies.get(task.database or "")
    if copy is not None:
        wal = Path(f"{copy.path}.wal")
        changed = _stat(copy.path) != copy.stat and (
            not copy.path.exists() or _sha256(copy.path) != copy.fixture_hash
        )
        if changed or wal.exists():
            findings.append(f"modified_fixture:{copy.fixture.name}")
            _restore(copy)
        else:
            copy.stat = _stat(copy.path)  # touched but identical: remember the new mtime
    for path in task.metadata.get("databases", []):
        if path in _shared and _stat(Path(path)) != _shared[path]:
            findings.append(f"modified_fixture:{Path(path).name}")
            _shared[path] = _stat(Path(path))
    workdir = str(copy.path.parent.parent) if copy is not None else os.getcwd()
    if _drain(_watch.get(workdir)):
        findings.append(f"read_outside:{SECRET_NAME}")
    return findings
