"""Tripwires in a worker: the evidence that a verifier executed model output.

A canary (``verifier_audit/canary.py``) does one harmless thing when it is run: it creates
``va_canary_<token>``, runs a ``mkdir`` of that name, or imports ``vacanary<token>``. A
worker arms its tripwires once, before its first call, and after every call ``collect()``
turns what they caught into findings, ``executes_model_output:<marker>: <evidence>``:

* **effects** -- a marker in the worker's private working directory or in its private
  temporary directory (``TMPDIR`` and ``tempfile`` point there, so a verifier's temporary
  directories are watched too). This is what C code (DuckDB's ``COPY TO``), a shell
  command and a fresh interpreter leave behind.
* **events** -- a PEP 578 audit hook records ``open``, ``os.mkdir``, ``import``,
  ``os.system``, ``subprocess.Popen``, ``os.exec``/``os.posix_spawn`` and ``exec`` events
  whose arguments carry a canary name (for ``exec``: a code object compiled from a string,
  not a file, holding one). It writes them to an unlinked log the worker holds open, so a
  canary that fires in a process the verifier forks (verl's per-call timeout process) is
  recorded too, and one that cleans up after itself (a temporary directory) still is.

An audit hook cannot be removed, and the log is checked by identity before each write (a
verifier that closes file descriptors never gets our lines in its own files). What the
tripwires cannot see -- model output run in a fresh interpreter whose effect lands outside
these directories -- is not found; the absence of findings counts as evidence only with
the canary categories that were tried (the checklist's executes_model_output item).
"""

from __future__ import annotations

import fcntl
import os
import re
import sys
import tempfile
from types import CodeType
from typing import Optional

from .. import canary

_EVENTS = frozenset({"open", "os.mkdir", "import", "os.system", "subprocess.Popen", "os.exec", "os.posix_spawn",
                     "os.spawn", "exec"})
_MARKS = (canary.PREFIX, canary.MODULE_PREFIX)
_MARKER = re.compile(rf"(?:{re.escape(canary.PREFIX)}|{re.escape(canary.MODULE_PREFIX)})[A-Za-z0-9_]+")
_LOG_FD_FLOOR = 900  # far above the descriptors a verifier dup2()s over
_MAX_PER_CALL = 4
_MAX_WALK = 2000

_sink: Optional[tuple[int, int, int]] = None  # (fd, st_dev, st_ino) of this process's log
_paused = False  # while collect() removes the markers itself (rmtree opens them)


def _marked(value) -> Optional[str]:
    """The canary name in ``value`` (str, bytes, path or a short sequence of them), if any."""
    if isinstance(value, (list, tuple)):
        for item in value[:16]:
            found = _marked(item)
            if found:
                return found
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    elif not isinstance(value, str):
        value = os.fspath(value) if hasattr(value, "__fspath__") else None
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
    if not isinstance(value, str) or not any(mark in value for mark in _MARKS):
        return None
    match = _MARKER.search(value)
    return match.group(0) if match else None


def _in_code(code: CodeType, depth: int = 0) -> Optional[str]:
    for const in code.co_consts:
        if isinstance(const, str):
            found = _marked(const)
            if found:
                return found
        elif isinstance(const, CodeType) and depth < 3:
            found = _in_code(const, depth + 1)
            if found:
                return found
    return _marked(code.co_names)


def _evidence(event: str, args: tuple) -> Optional[str]:
    if event == "exec":
        code = args[0] if args else None
        # Model output is compiled from a string ("<string>", "<candidate>"); modules from
        # files (ours included, which name the prefix) are not evidence.
        if isinstance(code, CodeType) and code.co_filename.startswith("<"):
            found = _in_code(code)
            return f"{found}\texec of code compiled from a string" if found else None
        return None
    if event in ("os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen"):
        args = args[:2] if event != "os.spawn" else args[1:3]
    else:
        args = args[:1]
    found = _marked(args)
    if not found:
        return None
    what = {"open": "opened", "os.mkdir": "os.mkdir", "import": "imported"}.get(event, event)
    return f"{found}\t{what}"


def _hook(event: str, args: tuple) -> None:
    # Never raises: an exception here would abort the verifier's own operation.
    if event not in _EVENTS or _sink is None or _paused:
        return
    try:
        line = _evidence(event, args)
        if line is None:
            return
        fd, dev, ino = _sink
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) == (dev, ino):
            os.write(fd, (line.replace("\n", " ") + "\n").encode("utf-8", "replace"))
    except Exception:  # noqa: BLE001 - a tripwire must not change what the verifier does
        pass


class Tripwires:
    """One worker's tripwires; arm once per process, after ``chdir(workdir)``."""

    def __init__(self, workdir: str):
        global _sink
        self.workdir = workdir
        self.tmpdir = os.path.join(workdir, "tmp")
        os.makedirs(self.tmpdir, exist_ok=True)
        # The verifier's temporary files land where a fired canary can be seen (and are
        # removed with the worker's directory).
        os.environ["TMPDIR"] = self.tmpdir
        tempfile.tempdir = self.tmpdir
        self.fd = self._open_log(workdir)
        if self.fd is not None:
            first = _sink is None
            st = os.fstat(self.fd)
            _sink = (self.fd, st.st_dev, st.st_ino)
            if first:
                sys.addaudithook(_hook)

    @staticmethod
    def _open_log(workdir: str) -> Optional[int]:
        """An unlinked, append-only log, on a descriptor number verifiers leave alone."""
        path = os.path.join(workdir, f".va-tripwire-{os.getpid()}")
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)
            os.unlink(path)
        except OSError:
            return None  # effects are still seen
        try:
            high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _LOG_FD_FLOOR)
        except OSError:  # a descriptor limit below the floor: keep the low one
            return fd
        os.close(fd)
        return high

    def _events(self) -> list[tuple[str, str]]:
        if self.fd is None:
            return []
        try:
            size = os.fstat(self.fd).st_size
            data = os.pread(self.fd, min(size, 1 << 16), 0) if size else b""
            os.ftruncate(self.fd, 0)
        except OSError:
            return []
        out = []
        for line in data.decode("utf-8", "replace").splitlines():
            marker, _, what = line.partition("\t")
            if marker:
                out.append((marker, f"{what} (audit hook)"))
        return out

    def _effects(self) -> list[tuple[str, str]]:
        out = [(canary.PREFIX + token, "left in the verifier's working directory") for token in canary.fired(self.workdir)]
        try:
            cwd = os.getcwd()
        except OSError:  # the verifier removed the directory it moved to
            cwd = self.workdir
        if cwd != self.workdir:
            out += [(canary.PREFIX + token, f"left in {cwd}") for token in canary.fired(cwd)]
        stack, seen = [self.tmpdir], 0
        while stack and seen < _MAX_WALK:
            where = stack.pop()
            out += [(canary.PREFIX + token, "left in the verifier's temporary directory")
                    for token in canary.fired(where)]
            try:
                entries = list(os.scandir(where))
            except OSError:
                continue
            seen += len(entries)
            stack += [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        return out

    def collect(self) -> list[str]:
        """The findings of the call that just ended (one per marker); resets the tripwires."""
        global _paused
        events = self._events()
        _paused = True
        try:
            effects = self._effects()
        finally:
            _paused = False
        by_marker: dict[str, list[str]] = {}
        for marker, what in events + effects:
            notes = by_marker.setdefault(marker, [])
            if what not in notes:
                notes.append(what)
        return [f"executes_model_output:{marker}: {'; '.join(notes)}"
                for marker, notes in list(by_marker.items())[:_MAX_PER_CALL]]
