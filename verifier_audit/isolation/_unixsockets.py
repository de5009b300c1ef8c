"""The host's socket files, covered in the sandbox's mount namespace (``namespaces`` level).

Why: ``connect()`` to a pathname Unix socket finds the socket by the inode of its file,
system-wide. The network namespace does not cover it, and neither does a read-only mount
(connecting is not a write to the file system). What decides is whether the path resolves
and the run may write to the socket file, and mode 666/777 sockets are common (D-Bus, the
journal, X servers, a docker.sock opened up, a Jupyter kernel, a Ray node). A seccomp
filter cannot help: it sees the address as a pointer, not as a path.

So the run must not be able to *resolve* such a path. At start, and again before each run,
the zygote:

* lays an empty tmpfs over ``/run`` (and ``/var/run`` where it is a directory of its own),
  where most sockets live (the interpreter's paths, if any are there, are bound back);
* covers with a bind mount every pathname socket the kernel has bound on the host that is
  still a socket in the zygote's view. The list comes from the socket tables of every
  network namespace (``/proc/<pid>/net/unix``, one process per namespace), read before the
  zygote leaves the host's; the host namespace's table stays open and is read again before
  each run (at most every ``REFRESH_MAX`` s on a host whose table costs over 1 ms of CPU
  time to read), so sockets bound since are covered too. The cover is a listening socket
  of the zygote of the same type, a tripwire: a connection to it is reported with the first bytes
  sent (``network: a connection to the unix socket PATH, sent '...'``). Past
  ``MAX_TRIPWIRES`` it is an empty read-only file (connect() then fails, ECONNREFUSED).
  Host sockets that were under ``/run`` get a tripwire at the same path in the new tmpfs.

A bind mount a run's namespace inherited is locked to it: a run that makes a user and
mount namespace of its own cannot lift the covers. Not covered (docs/code-sandbox.md):
a socket bound with a relative path, or bound in another mount namespace and visible here
under another path; one bound in another network namespace after the zygote started; an
extra hard link to a socket file.
"""

from __future__ import annotations

import os
import select
import socket
import stat
import time

from . import _confine as isolation
from ._evidence import printable

HIDDEN = ("/run", "/var/run")
MAX_TRIPWIRES = 64
MAX_COVERS = 4096
_PRIVATE = "/run/.va-walls"  # where the tripwires' own files are: root only, runs cannot reach them
_TYPES = {1: socket.SOCK_STREAM, 2: socket.SOCK_DGRAM, 5: socket.SOCK_SEQPACKET}
_MAX_NAMESPACES = 256
# The host's table is read again before every run. Only where one read costs more than
# _CHEAP_READ s of CPU time (thousands of sockets) is the next read deferred, by 50 times
# that cost (such a host pays at most 2% of its time), never longer than REFRESH_MAX s.
# The cost is the thread's CPU time, not wall time: on a loaded machine a preempted read
# takes long on the clock, and a deferral measured that way left a socket bound just
# before a run uncovered.
_CHEAP_READ = 0.001
_COST_FACTOR = 50
REFRESH_MAX = 0.2


def _parse(data: bytes) -> set[tuple[str, int]]:
    """(path, type) of each pathname socket of one table (abstract names start with @)."""
    out = set()
    for line in data.split(b"\n")[1:]:
        fields = line.split(None, 7)  # Num RefCount Protocol Flags Type St Inode Path
        if len(fields) == 8 and fields[7].startswith(b"/"):
            try:
                out.add((fields[7].decode("utf-8", "surrogateescape"), int(fields[4], 16)))
            except ValueError:
                pass
    return out


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


class HostTables:
    """Opened before the zygote leaves the host's network namespace."""

    def __init__(self):
        self.own = os.open("/proc/self/net/unix", os.O_RDONLY)
        self.others: set[tuple[str, int]] = set()
        try:
            seen = {os.readlink("/proc/self/ns/net")}
            pids = [p for p in os.listdir("/proc") if p.isdigit()]
        except OSError:
            return
        for pid in pids:
            if len(seen) > _MAX_NAMESPACES:
                break
            try:
                ns = os.readlink(f"/proc/{pid}/ns/net")
                if ns in seen:
                    continue
                seen.add(ns)
                with open(f"/proc/{pid}/net/unix", "rb") as fh:
                    self.others |= _parse(fh.read())
            except OSError:
                continue


class SocketCovers:
    """The covers of one zygote; ``hide_run`` in its mount namespace, ``start`` in the
    process that serves runs."""

    def __init__(self, tables: HostTables):
        self.tables = tables
        self.kept: list[str] = []  # interpreter paths bound back under /run
        self.hidden: list[str] = []
        self._last = b""
        self._done: set[str] = set()  # paths looked at (covered, or not a socket here)
        self._ours: set[tuple[int, int]] = set()  # (dev, ino) of our tripwires and blank file
        self._wires: dict[int, tuple[socket.socket, str]] = {}
        self._blank: str | None = None
        self._covers = 0
        self._next_read = 0.0

    def hide_run(self) -> None:
        for root in HIDDEN:
            if os.path.isdir(root) and not os.path.islink(root):
                self.kept += isolation.cover_with_tmpfs(root, "size=1m,nr_inodes=4096,mode=755")
                self.hidden.append(root)
        if self.hidden:
            os.makedirs(_PRIVATE, 0o700, exist_ok=True)
            self._blank = os.path.join(_PRIVATE, "blank")
            os.close(os.open(self._blank, os.O_WRONLY | os.O_CREAT, 0o444))
            self._remember(self._blank)

    def _remember(self, path: str) -> None:
        st = os.lstat(path)
        self._ours.add((st.st_dev, st.st_ino))

    def start(self) -> None:
        # The host's own sockets first: other namespaces' tables also list what runs and
        # other zygotes bound in their own mount namespaces, and those must not use up the
        # tripwires before the host's services get theirs.
        self.refresh()
        self._cover(self.tables.others)

    def refresh(self) -> None:
        """Before each run: cover what the host bound since the last look."""
        started = time.monotonic()
        if started < self._next_read:
            return
        cpu = time.thread_time()
        try:
            data = _read_all(self.tables.own)
        except OSError:
            return
        cost = time.thread_time() - cpu
        if cost > _CHEAP_READ:
            self._next_read = started + min(REFRESH_MAX, _COST_FACTOR * cost)
        if data != self._last:
            self._last = data
            self._cover(_parse(data))

    def _under_hidden(self, path: str) -> bool:
        return any(path == h or path.startswith(h + "/") for h in self.hidden)

    @staticmethod
    def _priority(entry: tuple[str, int]) -> tuple[bool, str, int]:
        # Under the hidden roots first: the well-known services (D-Bus, docker.sock, the
        # journal) live under /run, and where a path there has no tripwire a connect()
        # reads FileNotFoundError, unreported. Then by path, so the choice is the same on
        # every host whatever its paths sort like.
        under_run = any(entry[0].startswith(root + "/") for root in HIDDEN)
        return (not under_run, entry[0], entry[1])

    def _cover(self, entries: set[tuple[str, int]]) -> None:
        for bound, kind in sorted(entries, key=self._priority):
            if self._covers >= MAX_COVERS or not self.hidden:
                return
            if bound.startswith(_PRIVATE + "/"):
                # Another zygote's own tripwire (its network namespace's table lists it), in
                # its mount namespace only. Covering those used up MAX_TRIPWIRES when several
                # sandboxes ran at once, and a host socket under /run then got no tripwire.
                continue
            # A re-created socket has a new inode under the same name: look again.
            if bound in self._done and not self._is_foreign_socket(bound):
                continue
            self._done.add(bound)
            try:
                # As this view resolves it (/var/run -> /run): the directories, not the socket.
                path = os.path.join(os.path.realpath(os.path.dirname(bound)), os.path.basename(bound))
                if self._under_hidden(path):
                    if not os.path.lexists(path) and len(self._wires) < MAX_TRIPWIRES:
                        self._tripwire(path, kind, at=path)
                elif self._is_foreign_socket(path):
                    self._mount_over(path, kind)
            except OSError:
                continue  # a path that vanished, or a place we cannot mount on: skip it

    def _is_foreign_socket(self, path: str) -> bool:
        try:
            st = os.lstat(path)
        except OSError:
            return False
        return stat.S_ISSOCK(st.st_mode) and (st.st_dev, st.st_ino) not in self._ours

    def _tripwire(self, target: str, kind: int, at: str) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, _TYPES.get(kind, socket.SOCK_STREAM))
        try:
            os.makedirs(os.path.dirname(at), 0o755, exist_ok=True)
            sock.bind(at)
            os.chmod(at, 0o777)  # any run may connect: that is what the wire is for
            if sock.type != socket.SOCK_DGRAM:
                sock.listen(16)
            sock.setblocking(False)
            self._remember(at)
        except OSError:
            sock.close()
            raise
        self._wires[sock.fileno()] = (sock, target)
        self._covers += 1
        return sock

    def _mount_over(self, path: str, kind: int) -> None:
        if len(self._wires) >= MAX_TRIPWIRES:
            # _blank is made by hide_run when it hid a directory; without one this fails as before.
            isolation.bind_file(self._blank, path)  # type: ignore[arg-type]
            self._covers += 1
            return
        source = os.path.join(_PRIVATE, f"wire-{self._covers}")
        sock = self._tripwire(path, kind, at=source)
        try:
            isolation.bind_file(source, path)
        except OSError:
            del self._wires[sock.fileno()]
            sock.close()
            raise

    def drain(self, found: list[str], limit: int = 64) -> None:
        """After a run: every connection or datagram that reached a tripwire."""
        if not self._wires:
            return
        ready, _, _ = select.select(list(self._wires), [], [], 0)
        for fd in ready:
            sock, target = self._wires[fd]
            for _ in range(limit):
                data = self._take(sock)
                if data is None:
                    break
                what = "a datagram to" if sock.type == socket.SOCK_DGRAM else "a connection to"
                sent = f", sent {printable(data)!r}" if data else ""
                found.append(f"network: {what} the unix socket {target}{sent}")

    @staticmethod
    def _take(sock: socket.socket) -> bytes | None:
        try:
            if sock.type == socket.SOCK_DGRAM:
                return sock.recv(256)
            conn, _ = sock.accept()
        except OSError:
            return None
        with conn:
            conn.setblocking(False)
            try:
                return conn.recv(256)
            except OSError:
                return b""
