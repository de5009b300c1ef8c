"""What the processes of one worker do anywhere on the host, seen by the kernel (Linux
fanotify): files and directories created with a canary's name on any writable file
system, and opens of decoy files -- account databases and credentials that no reward
function needs (``DECOYS``).

Why the kernel: C code does not raise Python's audit events. A SQL verifier that lets
DuckDB run ``COPY (...) TO '/some/dir/va_canary_...'``, ``ATTACH '/elsewhere/va_canary_...'``
or ``read_text('/etc/passwd')`` leaves nothing in the worker's directories and nothing in
its audit log; the kernel still sees the file created and the decoy opened.

Whose event it is: as root, every worker runs in a PID namespace of its own
(``pool._guard_processes``), and fanotify reports a process the reader cannot see as pid
0, so an event that carries a pid came from the worker or a process it started -- never
from another worker or the rest of the machine. Without such a namespace, the process must
be the worker or one in its process group, looked up while the event is read (a process
that has already exited then goes unattributed: not found, never credited to this call).
A decoy open counts only from the worker or a live process of its namespace that shares
its mounts: a process in a mount namespace of its own is the code domain's sandbox, whose
read-only view of the host is the audit's own wall (or a namespace the verifier made). An
open of /etc/passwd by a process without HOME is the C library looking for a home
directory (a Python started with an empty environment does it at start): not counted.

One fanotify group per worker: a filesystem mark (``FAN_CREATE``, ``FAN_MOVED_TO``, with
directories) on every writable file system in ``/proc/self/mountinfo``, and an inode mark
(``FAN_OPEN``) on each decoy that exists. Events carry the parent directory's handle and
the entry's name (``FAN_REPORT_DFID_NAME``, Linux 5.9), so nothing is opened for the
machine's other creations; only a canary's name is resolved to a directory
(``open_by_handle_at``), reported, and removed. The queue is unlimited, drained after
every call. Needs CAP_SYS_ADMIN (root); ``HostWatch.start`` says why not otherwise, and the
caller reports that as a blind spot (``unobserved``), as it does file systems that cannot
be marked and a watch the verifier closed.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import stat
import struct
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..canary import MODULE_PREFIX

# Files no reward function needs to open. /etc/passwd only while HOME is set: without it
# the C library reads it to find a home directory (DuckDB does, on connect).
DECOYS = (
    "/etc/shadow",
    "/etc/gshadow",
    "~/.ssh/id_rsa",
    "~/.ssh/id_ecdsa",
    "~/.ssh/id_ed25519",
    "~/.aws/credentials",
    "~/.netrc",
    "~/.git-credentials",
    "~/.pgpass",
    "~/.docker/config.json",
    "~/.kube/config",
)
PASSWD = "/etc/passwd"

_FAN_CLOEXEC, _FAN_NONBLOCK, _FAN_UNLIMITED_QUEUE = 0x1, 0x2, 0x10
_FAN_REPORT_DFID_NAME = 0x400 | 0x800
_FAN_MARK_ADD, _FAN_MARK_FILESYSTEM = 0x1, 0x100
_FAN_OPEN, _FAN_MOVED_TO, _FAN_CREATE, _FAN_Q_OVERFLOW, _FAN_ONDIR = 0x20, 0x80, 0x100, 0x4000, 0x40000000
_FAN_EVENT_ON_CHILD = 0x08000000
_INFO_DFID_NAME = 2
_METADATA = struct.Struct("=IBBHQii")  # event_len, vers, reserved, metadata_len, mask, fd, pid
_METADATA_VERSION = 3
_FD_FLOOR = 920  # far above the descriptors a verifier dup2()s over (the tripwire log sits at 900)
_MAX_READ = 64 << 20  # bytes of events read per call; more means some were not looked at
# File systems nobody writes files to (or that fanotify cannot mark).
_PSEUDO = frozenset(
    {
        "proc",
        "sysfs",
        "cgroup",
        "cgroup2",
        "devpts",
        "mqueue",
        "debugfs",
        "tracefs",
        "securityfs",
        "pstore",
        "bpf",
        "configfs",
        "fusectl",
        "hugetlbfs",
        "autofs",
        "binfmt_misc",
        "nsfs",
        "efivarfs",
        "rpc_pipefs",
        "selinuxfs",
    }
)


@dataclass
class Found:
    """What one call did outside the worker's own directories."""

    created: list[tuple[str, str, bool]] = field(default_factory=list)  # (name, directory, still there)
    opened: list[str] = field(default_factory=list)  # decoy paths
    blind: list[str] = field(default_factory=list)  # why some events may be missing
    imported: list[str] = field(default_factory=list)  # decoy modules opened (isolation/_witness.py): module names
    pending: list[tuple[int, bytes, bytes]] = field(default_factory=list)  # markers created, not yet taken


def read_outside(path: str) -> str:
    """The finding for a decoy file opened by a process of the worker."""
    return f"read_outside:{path}: opened by a process of this worker during the call (fanotify)"


def created(where: str, there: bool) -> str:
    """The evidence of a marker the kernel saw created in ``where``."""
    return (
        f"created in {where} (fanotify)" if there else f"created in {where} and gone before the call ended (fanotify)"
    )


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fanotify_init.argtypes = [ctypes.c_uint, ctypes.c_uint]
    libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p]
    libc.open_by_handle_at.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    return libc


def _high(fd: int) -> int:
    """``fd`` moved to a descriptor number verifiers leave alone (close-on-exec)."""
    try:
        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _FD_FLOOR)
    except OSError:
        return fd
    os.close(fd)
    return high


def _unescape(field_text: str) -> str:
    # mountinfo writes space, tab, newline and backslash as octal escapes
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field_text = field_text.replace(code, char)
    return field_text


def writable_filesystems() -> list[tuple[str, str]]:
    """(mount point, type) of one mount per writable file system, from mountinfo."""
    out: list[tuple[str, str]] = []
    seen = set()
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return out
    for line in lines:
        mine, _, theirs = line.partition(" - ")
        fields, rest = mine.split(), theirs.split()
        if len(fields) < 6 or not rest:
            continue
        device, point, options, kind = fields[2], _unescape(fields[4]), fields[5].split(","), rest[0]
        if kind in _PSEUDO or "ro" in options or device in seen:
            continue
        seen.add(device)
        out.append((point, kind))
    return out


def decoys(home: str | None = None) -> list[str]:
    """The decoy files that exist here (``~`` is HOME; none under it without HOME)."""
    home = os.environ.get("HOME") if home is None else home
    paths = [PASSWD] if home else []
    for path in DECOYS:
        if path.startswith("~/"):
            if not home:
                continue
            path = os.path.join(home, path[2:])
        paths.append(path)
    return [p for p in paths if os.path.isfile(p)]


class HostWatch:
    """One worker's fanotify group (see the module doc). ``start``, then ``collect`` after
    every call."""

    def __init__(
        self, libc, fd: int, prefix: str, mounts: dict[int, tuple[int, str]], decoys: dict[str, str], blind: list[str]
    ):
        self.libc, self.fd, self.prefix = libc, fd, prefix.encode()
        self.mounts = mounts  # fsid -> (directory fd, mount point)
        self.decoys = decoys  # name -> path (for names no two decoys share)
        self.pending_blind = blind  # reported with the first collect()
        self.identity = os.fstat(fd).st_ino
        self.pid = os.getpid()  # the process credited (``subject``), as fanotify names it
        self.host: int | None = None  # its pid in /proc, where that is another process
        self.mnt = os.readlink("/proc/self/ns/mnt")
        self.nested = _in_own_pid_namespace()
        self.shown: dict[int, list[tuple[str, str]]] = {}  # fsid -> [(a root as read here, the name to report)]

    @classmethod
    def start(cls, prefix: str, decoy_paths: Iterable[str]) -> tuple[HostWatch | None, str | None]:
        """(the watch, None), or (None, why it cannot run here)."""
        if not sys.platform.startswith("linux"):
            return None, "fanotify is Linux only"
        try:
            libc = _libc()
        except (OSError, AttributeError) as exc:
            return None, f"no fanotify in the C library ({exc})"
        flags = _FAN_CLOEXEC | _FAN_NONBLOCK | _FAN_UNLIMITED_QUEUE | _FAN_REPORT_DFID_NAME
        fd = libc.fanotify_init(flags, os.O_RDONLY | os.O_CLOEXEC | os.O_LARGEFILE)
        if fd < 0:
            err = ctypes.get_errno()
            why = "needs root (CAP_SYS_ADMIN)" if err == 1 else os.strerror(err)
            return None, f"fanotify_init failed: {why}"
        fd = _high(fd)
        watch = cls(libc, fd, prefix, {}, {}, [])
        for point, kind in writable_filesystems():
            watch.mark_filesystem(point, kind)
        if not watch.mounts:
            os.close(fd)
            return None, "fanotify could mark no file system"
        for path in decoy_paths:
            if libc.fanotify_mark(fd, _FAN_MARK_ADD, _FAN_OPEN, -1, os.fsencode(path)) == 0:
                name = os.path.basename(path)
                watch.decoys[name] = "" if name in watch.decoys else path  # "": two decoys of one name
        return watch, None

    def mark_filesystem(self, point: str, kind: str, shown: str | None = None) -> bool:
        """Watch creations on the file system of ``point``. ``shown``: the name to report for
        its root, when ``point`` is not a path others would know (a mount of another
        process's namespace, reached through /proc: isolation/_witness.py); markers there are
        reported and left in place (a private scratch goes with its worker). False, and a
        blind spot, where fanotify cannot mark it."""
        if (
            self.libc.fanotify_mark(
                self.fd,
                _FAN_MARK_ADD | _FAN_MARK_FILESYSTEM,
                _FAN_CREATE | _FAN_MOVED_TO | _FAN_ONDIR,
                -1,
                os.fsencode(point),
            )
            != 0
        ):
            self.pending_blind.append(
                f"files created on {shown or point} ({kind}): fanotify cannot watch it "
                f"({os.strerror(ctypes.get_errno())})"
            )
            return False
        try:
            dir_fd = _high(os.open(point, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
            fsid = os.statvfs(point).f_fsid
            self.mounts[fsid] = (dir_fd, point)
            if shown is not None:
                self.shown.setdefault(fsid, []).append((os.readlink(f"/proc/self/fd/{dir_fd}"), shown))
        except OSError:
            pass  # creations there are seen; their directory is not named
        return True

    def mark_children(self, directory: str) -> bool:
        """Watch opens of the files in ``directory`` (a decoy module directory)."""
        return (
            self.libc.fanotify_mark(self.fd, _FAN_MARK_ADD, _FAN_OPEN | _FAN_EVENT_ON_CHILD, -1, os.fsencode(directory))
            == 0
        )

    def subject(self, ns_pid: int, host_pid: int) -> None:
        """Attribute to another process than the one that started the watch: the worker
        ``ns_pid`` (``host_pid`` in /proc), whose mounts a decoy's opener must share. For a
        witness outside the worker (isolation/_witness.py); by default the watch's own process."""
        self.pid, self.host = ns_pid, host_pid
        self.mnt = os.readlink(f"/proc/{host_pid}/ns/mnt")

    def collect(self) -> Found:
        """What processes of this worker created with the prefix, or which decoys they
        opened, since the last collect(); markers still there are removed."""
        found = Found(blind=self.pending_blind)
        self.pending_blind = []
        for event in self.events(found):
            self.sort(event, found)
        found.created = [self.take(*pending) for pending in found.pending]
        found.pending = []
        return found

    def events(self, found: Found):
        """The events queued since the last read, (mask, pid, fsid, handle, name); what may
        be missing goes to ``found.blind``."""
        if not self._intact():
            found.blind.append(
                "files created and decoys opened outside the worker: the verifier closed or "
                "replaced the audit's fanotify descriptor"
            )
            return
        data = bytearray()
        while len(data) < _MAX_READ:
            try:
                chunk = os.read(self.fd, 1 << 18)
            except OSError:  # BlockingIOError: nothing more
                break
            if not chunk:
                break
            data += chunk
        else:
            found.blind.append(
                "files created and decoys opened outside the worker: more events than the audit reads per call"
            )
        for mask, pid, fsid, handle, name in _events(bytes(data)):
            if mask & _FAN_Q_OVERFLOW:
                found.blind.append("files created and decoys opened outside the worker: events were lost")
                continue
            if pid == 0 or name is None:
                continue
            yield mask, pid, fsid, handle, name

    def sort(self, event, found: Found) -> None:
        """One event into ``found``: a decoy or decoy module opened (judged now, while its
        process lives), or a marker created (``found.pending``: ``take`` it later)."""
        mask, pid, fsid, handle, name = event
        if mask & _FAN_OPEN:
            text = name.decode("utf-8", "replace")
            if text.startswith(MODULE_PREFIX) and text.endswith(".py"):
                if self._ours(pid) and text[:-3] not in found.imported:
                    found.imported.append(text[:-3])
                return
            path = self.decoys.get(text)
            if not path:
                path = self._path(fsid, handle, name) or text
            if (
                self._ours(pid, same_mounts=True)
                and path not in found.opened
                and not (path == PASSWD and self._home_lookup(pid))
            ):
                found.opened.append(path)
        elif mask & (_FAN_CREATE | _FAN_MOVED_TO) and name.startswith(self.prefix) and self._ours(pid):
            found.pending.append((fsid, handle, name))

    # -- internals ---------------------------------------------------------------------

    def _intact(self) -> bool:
        """Our descriptor still holds our group (a verifier may close descriptors, and a
        number it reuses must not be read as events)."""
        try:
            return (
                os.readlink(f"/proc/self/fd/{self.fd}") == "anon_inode:[fanotify]"
                and os.fstat(self.fd).st_ino == self.identity
            )
        except OSError:
            return False

    def _ours(self, pid: int, same_mounts: bool = False) -> bool:
        """Whether the process ``pid`` (as fanotify reports it) is this worker or one it
        started. ``same_mounts``: and it sees the worker's mounts -- a process in a mount
        namespace of its own is the code domain's sandbox (whose read-only view of the
        host is the audit's own wall, judged by its known_bad categories), or one the
        verifier made: not credited, and documented as a blind spot."""
        if pid == self.pid:
            return True
        if self.nested and not same_mounts:
            return True  # in this worker's own PID namespace, every visible pid is the worker's
        host = _host_pid(pid) if self.nested else pid
        if host is None:
            return False  # gone already: not credited to this call
        try:
            if not self.nested:
                with open(f"/proc/{host}/stat", "rb") as fh:
                    fields = fh.read().rpartition(b")")[2].split()
                if int(fields[2]) != os.getpgrp():  # the process group, after state and ppid
                    return False
            return not same_mounts or os.readlink(f"/proc/{host}/ns/mnt") == self.mnt
        except (OSError, ValueError, IndexError):
            return False

    def _home_lookup(self, pid: int) -> bool:
        """True when the process that opened /etc/passwd has no HOME: the C library reads
        the file to find a home directory (a Python started with an empty environment
        does, at start), which is no candidate's doing. Not known: treated as such."""
        if pid == self.pid and self.host is None:
            return "HOME" not in os.environ
        host = self.host if pid == self.pid else _host_pid(pid) if self.nested else pid
        try:
            with open(f"/proc/{host}/environ", "rb") as fh:
                return not any(entry.startswith(b"HOME=") for entry in fh.read().split(b"\0"))
        except (OSError, TypeError):
            return True

    def _directory(self, fsid: int, handle: bytes) -> int | None:
        """An fd of the directory ``handle`` names (caller closes it), or None."""
        entries = [self.mounts[fsid]] if fsid in self.mounts else list(self.mounts.values())
        for mount_fd, _ in entries:
            fd = self.libc.open_by_handle_at(mount_fd, handle, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            if fd >= 0:
                return fd
        return None

    def _path(self, fsid: int, handle: bytes, name: bytes) -> str | None:
        fd = self._directory(fsid, handle)
        if fd is None:
            return None
        try:
            return os.path.join(os.readlink(f"/proc/self/fd/{fd}"), os.fsdecode(name))
        except OSError:
            return None
        finally:
            os.close(fd)

    def take(self, fsid: int, handle: bytes, name: bytes, remove: bool = True) -> tuple[str, str, bool]:
        """(name, its directory, whether it was still there); removed when it was (and
        ``remove``)."""
        text = os.fsdecode(name)
        fd = self._directory(fsid, handle)
        if fd is None:
            return text, "(a directory the audit could not name)", False
        try:
            where = os.readlink(f"/proc/self/fd/{fd}")
            try:
                st = os.lstat(text, dir_fd=fd)
            except OSError:
                return text, self._shown(fsid, where), False
            if fsid in self.shown or not remove:  # another process's private scratch goes with that process
                return text, self._shown(fsid, where), True
            if stat.S_ISDIR(st.st_mode):
                if sys.version_info >= (3, 11):
                    shutil.rmtree(text, dir_fd=fd, ignore_errors=True)
                else:  # rmtree has no dir_fd before 3.11: reach the directory through its descriptor
                    shutil.rmtree(f"/proc/self/fd/{fd}/{text}", ignore_errors=True)
            else:
                try:
                    os.unlink(text, dir_fd=fd)
                except OSError:
                    pass
            return text, where, True
        except OSError:
            return text, "(a directory the audit could not name)", False
        finally:
            os.close(fd)

    def _shown(self, fsid: int, where: str) -> str:
        for real, shown in self.shown.get(fsid, []):
            if _inside(where, real):
                rest = os.path.relpath(where, real)
                return shown if rest == "." else os.path.join(shown, rest)
        return where


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _host_pid(ns_pid: int) -> int | None:
    """The pid in /proc of the live process of this process's own PID namespace that it
    calls ``ns_pid``, or None (every process's NSpid is read: only for a decoy open by a
    process other than the worker, which is rare)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            mine = next(line.split()[1:] for line in fh if line.startswith("NSpid:"))
        my_ns = os.readlink("/proc/self/ns/pid")
    except (OSError, StopIteration):
        return None
    level = len(mine) - 1  # our namespace's column in everyone's NSpid line
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as fh:
                ids = next(line.split()[1:] for line in fh if line.startswith("NSpid:"))
            # Only processes of this very namespace: a deeper one (the code sandbox's runs, a
            # namespace the verifier made) is not looked up, and so not credited.
            if len(ids) == level + 1 and int(ids[level]) == ns_pid and os.readlink(f"/proc/{entry}/ns/pid") == my_ns:
                return int(entry)
        except (OSError, StopIteration, ValueError):
            continue
    return None


def _in_own_pid_namespace() -> bool:
    """True when this process sees itself under another pid than /proc's namespace does:
    it runs in a PID namespace of its own, below the one /proc belongs to."""
    try:
        return int(os.readlink("/proc/self")) != os.getpid()
    except (OSError, ValueError):
        return False


def _events(data: bytes):
    """(mask, pid, fsid, directory handle, name) of each event in a read buffer."""
    offset = 0
    while offset + _METADATA.size <= len(data):
        length, version, _, meta_len, mask, _fd, pid = _METADATA.unpack_from(data, offset)
        if length < _METADATA.size or version != _METADATA_VERSION:
            return
        fsid, handle, name = 0, b"", None
        info = offset + meta_len
        while info + 4 <= offset + length:
            kind, _, info_len = struct.unpack_from("=BBH", data, info)
            if info_len < 4:
                break
            if kind == _INFO_DFID_NAME and info_len >= 20:
                low, high = struct.unpack_from("=II", data, info + 4)
                fsid = low | (high << 32)
                size = struct.unpack_from("=I", data, info + 12)[0]
                handle = data[info + 12 : info + 20 + size]  # struct file_handle, as open_by_handle_at wants it
                name = data[info + 20 + size : info + info_len].split(b"\0", 1)[0]
            info += info_len
        yield mask, pid, fsid, handle, name
        offset += length
