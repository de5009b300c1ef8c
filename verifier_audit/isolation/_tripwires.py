"""Tripwires in a worker: the evidence that a verifier executed model output.

A canary (``verifier_audit/canary.py``) does one harmless thing when it is run: it creates
``va_canary_<token>``, runs a ``mkdir`` of that name, or imports ``vacanary<token>``. A
worker arms its tripwires once, before its first call, and after every call ``collect()``
turns what they caught into findings, ``executes_model_output:<marker>: <evidence>``:

* **events** -- a PEP 578 audit hook records ``open``, ``os.mkdir``, ``import``,
  ``os.system``, ``subprocess.Popen``, ``os.exec``/``os.posix_spawn`` and ``exec`` events
  whose arguments carry a canary name (for ``exec``: a code object compiled from a string,
  not a file, holding one), wherever the path points and in whatever thread; and the
  removal (``os.remove``, ``os.rmdir``, ``shutil.rmtree``, ``os.rename``) of a canary's
  marker that exists, so a verifier that cleans up after a canary fired still shows it.
  Lines go to an unlinked log the worker holds open, so events in processes the verifier
  forks (verl's per-call timeout process) are recorded too.
* **effects** -- a marker found after the call. Searched: the worker's private working
  directory and its private temporary directory (``TMPDIR`` and ``tempfile`` point there);
  and the places the call went to, which the hook logs as well: directories it moved to
  (``os.chdir``), the working directory of every process it started, absolute
  directories named in a command it ran, and directories it made. This is what C code
  (DuckDB's ``COPY TO``), a shell and a fresh interpreter -- which has no audit hook of
  ours -- leave behind. In places the worker does not own, only markers made since the
  previous call are taken (and removed), so an old marker is never credited to this call.
* **the kernel** (``hostwatch.py``, Linux as root) -- a marker created by a process of this
  worker on any writable file system, wherever the path points (DuckDB's ``COPY TO`` and
  ``ATTACH`` to an absolute path raise no Python event and name no place), even when it
  is gone again; and an open of a decoy file (``/etc/passwd``, ``/etc/shadow``,
  credentials), a ``read_outside`` finding. Where fanotify cannot run, ``/tmp``,
  ``/var/tmp`` and ``/dev/shm`` are searched as well, and the rest is reported unobserved.

An audit hook cannot be removed, and the log is checked by identity before each write (a
verifier that closes file descriptors never gets our lines in its own files). What the
tripwires cannot see -- a fresh interpreter that moves itself somewhere its parent never
named and cleans up there, a canary still running in a thread after the call returned --
is not found (docs/canaries.md lists the blind spots); the absence of findings counts as
evidence only with the canary categories that were tried (the checklist's
executes_model_output item).
"""

from __future__ import annotations

import fcntl
import os
import re
import sys
import tempfile
import time
from types import CodeType

from .. import canary
from . import _hostwatch as hostwatch

_PROCESS_EVENTS = frozenset({"os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn"})
_REMOVAL_EVENTS = {"os.remove": "removed", "os.rmdir": "removed", "shutil.rmtree": "removed", "os.rename": "moved"}
_EVENTS = frozenset({"open", "os.mkdir", "import", "exec", "os.chdir"}) | _PROCESS_EVENTS | frozenset(_REMOVAL_EVENTS)
_MARKS = (canary.PREFIX, canary.MODULE_PREFIX)
_MARKER = re.compile(rf"(?:{re.escape(canary.PREFIX)}|{re.escape(canary.MODULE_PREFIX)})[A-Za-z0-9_]+")
# An absolute path inside a command line ("cd /tmp/x && python -c ...").
_ABSOLUTE = re.compile(r"(?<![\w.~-])/[^\s'\"`;|&<>()*?$]*")
_LOG_FD_FLOOR = 900  # far above the descriptors a verifier dup2()s over
_MAX_PER_CALL = 4
_MAX_WALK = 2000
_MAX_PLACES = 16  # places outside the worker's own looked in per call
# File times come from the kernel's coarse clock, up to a tick behind time.time_ns(): read
# that clock (Linux's CLOCK_REALTIME_COARSE) to say "since", or allow a tick elsewhere.
_CLOCK_REALTIME_COARSE = 5
_CLOCK_SLACK_NS = 50_000_000
_SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm")  # searched after each call where the kernel watch is missing
_SHARED_WHY = "a temporary directory every process shares"
_SCRATCH_WHY = "the worker's private scratch (its writes never reach the host)"
_PLACE = "@"  # a log line "@<hex of the path>\t<why>": a place to look in after the call
WHY = {
    "chdir": "a directory the verifier moved to",
    "process": "the working directory of a process it started",
    "named": "named in a command it ran",
    "made": "a directory it made",
}

_sink: tuple[int, int, int] | None = None  # (fd, st_dev, st_ino) of this process's log
_paused = False  # while collect() removes the markers itself (rmtree opens them)
_logged: set[tuple[str, str]] = set()  # (place, why) this process logged since the last collect()


def _text(value) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, str):
        return value
    if hasattr(value, "__fspath__"):
        return _text(os.fspath(value))
    return None


def _marked(value) -> str | None:
    """The canary name in ``value`` (str, bytes, path or a short sequence of them), if any."""
    if isinstance(value, (list, tuple)):
        for item in value[:16]:
            found = _marked(item)
            if found:
                return found
        return None
    value = _text(value)
    if value is None or not any(mark in value for mark in _MARKS):
        return None
    match = _MARKER.search(value)
    return match.group(0) if match else None


def _in_code(code: CodeType, depth: int = 0) -> str | None:
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


def _dir_fd(value) -> int | None:
    return value if isinstance(value, int) and value >= 0 else None


def _exists(path, dir_fd) -> bool:
    try:
        os.lstat(path, dir_fd=_dir_fd(dir_fd))
        return True
    except (OSError, TypeError, ValueError):
        return False


def _evidence(event: str, args: tuple) -> str | None:
    if event == "exec":
        code = args[0] if args else None
        # Model output is compiled from a string ("<string>", "<candidate>"); modules from
        # files (ours included, which name the prefix) are not evidence.
        if isinstance(code, CodeType) and code.co_filename.startswith("<"):
            found = _in_code(code)
            return f"{found}\texec of code compiled from a string" if found else None
        return None
    if event in _REMOVAL_EVENTS:
        # A marker that exists was made by a canary that ran; the verifier removing it
        # (its temporary directory's cleanup, an rmtree of va_canary_*) is the last chance
        # to see it. A name that does not exist proves nothing.
        found = _marked(args[:1])
        dir_fd = args[2] if event == "os.rename" and len(args) > 2 else (args[1] if len(args) > 1 else None)
        if found and _exists(args[0], dir_fd):
            return f"{found}\t{_REMOVAL_EVENTS[event]} by the verifier after it was made"
        return None
    if event == "os.chdir":
        return None
    if event in _PROCESS_EVENTS:
        args = args[:2] if event != "os.spawn" else args[1:3]
    else:
        args = args[:1]
    found = _marked(args)
    if not found:
        return None
    what = {"open": "opened", "os.mkdir": "os.mkdir", "import": "imported"}.get(event, event)
    return f"{found}\t{what}"


def _absolute(path) -> str | None:
    """``path`` (str, bytes, path-like or a directory descriptor) made absolute, or None."""
    if isinstance(path, int):
        try:
            return os.readlink(f"/proc/self/fd/{path}")
        except OSError:
            return None
    path = _text(path)
    if not path:
        return None
    if not os.path.isabs(path):
        try:
            path = os.path.join(os.getcwd(), path)
        except OSError:
            return None
    return os.path.normpath(path)


def _command_strings(event: str, args: tuple) -> list:
    command = {
        "os.system": args[:1],
        "subprocess.Popen": args[1:2],
        "os.exec": args[1:2],
        "os.posix_spawn": args[1:2],
        "os.spawn": args[2:3],
    }[event]
    out = []
    for item in command:
        out += list(item[:16]) if isinstance(item, (list, tuple)) else [item]
    return out


def _places(event: str, args: tuple) -> list[tuple[str | None, str]]:
    """The directories, outside the worker's own, where this event's effects may land."""
    if event == "os.chdir":
        return [(_absolute(args[0]), "chdir")] if args else []
    if event == "os.mkdir":
        return [(_absolute(args[0]), "made")] if args and _dir_fd(args[2] if len(args) > 2 else None) is None else []
    if event not in _PROCESS_EVENTS:
        return []
    cwd = args[2] if event == "subprocess.Popen" and len(args) > 2 and args[2] is not None else "."
    out = [(_absolute(cwd), "process")]
    for item in _command_strings(event, args):
        text = _text(item)
        if text:
            out += [(os.path.normpath(p), "named") for p in _ABSOLUTE.findall(text)[:8]]
    return out


def _write(line: str) -> None:
    if _sink is None:  # only _hook writes, after the same check
        return
    fd, dev, ino = _sink
    st = os.fstat(fd)
    if (st.st_dev, st.st_ino) == (dev, ino):
        os.write(fd, (line.replace("\n", " ") + "\n").encode("utf-8", "replace"))


def _hook(event: str, args: tuple) -> None:
    # Never raises: an exception here would abort the verifier's own operation.
    if event not in _EVENTS or _sink is None or _paused:
        return
    try:
        line = _evidence(event, args)
        if line is not None:
            _write(line)
        if event in ("open", "import", "exec") or event in _REMOVAL_EVENTS:
            return
        for path, why in _places(event, args):
            if path and (path, why) not in _logged and len(_logged) < 2 * _MAX_PLACES:
                _logged.add((path, why))
                _write(f"{_PLACE}{os.fsencode(path).hex()}\t{why}")
    except Exception:  # noqa: BLE001 - a tripwire must not change what the verifier does
        pass


def _file_clock_ns() -> int:
    """Now, on the clock file times are stamped with (never later than a file made after)."""
    if sys.platform.startswith("linux"):
        try:
            return time.clock_gettime_ns(_CLOCK_REALTIME_COARSE)
        except OSError:
            pass
    return time.time_ns() - _CLOCK_SLACK_NS


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


class Tripwires:
    """One worker's tripwires; arm once per process. ``contained``: the worker runs behind
    the lockdown (isolation/_lockdown.py), where the only writable places are its working
    directory and its private /tmp, /var/tmp and /dev/shm: those are searched after every
    call, and nothing else can receive a marker."""

    def __init__(self, workdir: str, contained: bool = False, witnessed: bool = False):
        """``witnessed``: a witness outside this process (isolation/_witness.py) holds the
        kernel's watch for this worker; the tripwires here are an extra source then, and
        start none of their own (a verifier could close it)."""
        global _sink
        self.workdir = workdir
        self.contained = contained
        self.witnessed = witnessed
        # Where to list a scratch directory's entries more cheaply than through it: the
        # upper layer of the lockdown's /tmp and /var/tmp overlays, which holds only what
        # this worker wrote there (a merged listing of a busy host /tmp costs milliseconds).
        self.layers: dict[str, str] = {}
        self.tmpdir = os.path.join(workdir, "tmp")
        os.makedirs(self.tmpdir, exist_ok=True)
        # The verifier's temporary files land where a fired canary can be seen (and are
        # removed with the worker's directory).
        os.environ["TMPDIR"] = self.tmpdir
        tempfile.tempdir = self.tmpdir
        self.since = _file_clock_ns()  # markers elsewhere older than this are not ours
        # Anywhere else on the host (C code raises no audit event): markers created and
        # decoy files opened by this worker's processes, seen by the kernel (hostwatch.py).
        self.host, why = (None, None) if witnessed else hostwatch.HostWatch.start(canary.PREFIX, hostwatch.decoys())
        self.blind = (
            []
            if self.host is not None or contained or witnessed
            else [
                f"canaries created and decoy files opened outside the worker's own directories, except in "
                f"{', '.join(_SHARED_TMP)} (no fanotify here: {why})"
            ]
        )
        self.fd = self._open_log(workdir)
        if self.fd is not None:
            first = _sink is None
            st = os.fstat(self.fd)
            _sink = (self.fd, st.st_dev, st.st_ino)
            if first:
                sys.addaudithook(_hook)

    @staticmethod
    def _open_log(workdir: str) -> int | None:
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

    def _log(self) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
        """(marker, evidence) lines and {place: [why, ...]} logged since the last call."""
        if self.fd is None:
            return [], {}
        try:
            size = os.fstat(self.fd).st_size
            data = os.pread(self.fd, min(size, 1 << 16), 0) if size else b""
            os.ftruncate(self.fd, 0)
        except OSError:
            return [], {}
        events: list[tuple[str, str]] = []
        places: dict[str, list[str]] = {}
        for line in data.decode("utf-8", "replace").splitlines():
            head, _, what = line.partition("\t")
            if head.startswith(_PLACE):
                try:
                    whys = places.setdefault(os.fsdecode(bytes.fromhex(head[1:])), [])
                except ValueError:
                    continue
                if what not in whys:
                    whys.append(what)
            elif head:
                events.append((head, f"{what} (audit hook)"))
        return events, places

    def _effects(self, places: dict[str, list[str]]) -> list[tuple[str, str]]:
        out = [
            (canary.PREFIX + token, "left in the verifier's working directory") for token in canary.fired(self.workdir)
        ]
        stack, seen = [self.tmpdir], 0
        while stack and seen < _MAX_WALK:
            where = stack.pop()
            out += [
                (canary.PREFIX + token, "left in the verifier's temporary directory") for token in canary.fired(where)
            ]
            try:
                entries = list(os.scandir(where))
            except OSError:
                continue
            seen += len(entries)
            stack += [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        try:
            cwd = os.getcwd()
        except OSError:  # the verifier removed the directory it moved to
            cwd = self.workdir
        if cwd != self.workdir:
            places = {cwd: ["chdir"], **places}
        for where, whys in list(places.items())[: _MAX_PLACES + 1]:
            if where == self.workdir or _inside(where, self.tmpdir):
                continue  # seen above
            why = "; ".join(WHY.get(w, w) for w in whys)
            out += [
                (canary.PREFIX + token, f"left in {where} ({why})")
                for token in canary.fired(where, since_ns=self.since, listed=self.layers.get(where))
            ]
        return out

    def collect(self) -> list[str]:
        """The findings of the call that just ended (one per marker); resets the tripwires."""
        global _paused
        events, places = self._log()
        _logged.clear()
        if (self.host is None and not self.witnessed) or self.contained:
            # No kernel watch, or private scratch the kernel's watch of the host's file
            # systems does not see: look in the temporary directories.
            why = _SCRATCH_WHY if self.contained else _SHARED_WHY
            places.update({d: [why] for d in _SHARED_TMP if d not in places})
        _paused = True
        try:
            effects = self._effects(places)
            outside, others = self._host({marker for marker, _ in effects})
        finally:
            _paused = False
            self.since = _file_clock_ns()
        by_marker: dict[str, list[str]] = {}
        for marker, what in events + effects + outside:
            notes = by_marker.setdefault(marker, [])
            if what not in notes:
                notes.append(what)
        return [
            f"executes_model_output:{marker}: {'; '.join(notes)}"
            for marker, notes in list(by_marker.items())[:_MAX_PER_CALL]
        ] + others

    def _host(self, reported: set[str]) -> tuple[list[tuple[str, str]], list[str]]:
        """(marker, evidence) for markers the kernel saw this worker create anywhere that the
        scan above did not report, and the other entries: decoys opened (``read_outside``)
        and what the watch could not see (``unobserved``, once each)."""
        if self.host is None:
            blind, self.blind = self.blind, []
            return [], [f"unobserved:{b}" for b in blind]
        found = self.host.collect()
        markers = [
            (name, hostwatch.created(where, there)) for name, where, there in found.created if name not in reported
        ]
        others = [hostwatch.read_outside(path) for path in found.opened]
        return markers, others + [f"unobserved:{b}" for b in found.blind]
