"""The isolation mechanisms, one function each: resource limits, the uid drop, and the
namespaces with their file-system view. ``server`` decides which to apply at which level.

The file-system view (``namespaces`` level) is set up once per zygote, not per run:

* every mount is remounted read-only in the zygote's private mount namespace, so a write
  to the host's files fails with EROFS, whoever the writer is;
* the working directories live on a small tmpfs (``workroot``); ``/tmp``, ``/var/tmp`` and
  ``/dev/shm`` are private scratch tmpfs mounts (``cover_with_tmpfs``, set up by walls.py),
  the only other writable places, never the host's; ``/run`` is an empty one
  (unixsockets.py);
* directories the sandbox uid cannot traverse on the way to the interpreter (a pyenv under
  ``/root``, mode 0700) are covered by an empty tmpfs, and only the paths Python needs are
  bound back in: the candidate can start ``python`` and import installed packages, and sees
  nothing else of that home directory.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys
import time

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 32, 1024, 2048, 4096
MS_REC, MS_PRIVATE, MS_RELATIME, MS_STRICTATIME = 16384, 1 << 18, 1 << 21, 1 << 24
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4
# Mount options that must survive a read-only bind remount (dropping nosuid would be a
# privilege gain for anything setuid on that mount).
_KEPT_FLAGS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
    "strictatime": MS_STRICTATIME,
}
# A failed read-only remount of one of these is fatal: they are where escapes would land.
_MUST_BE_READONLY = ("/", "/tmp", "/var/tmp", "/dev/shm", "/root", "/home")

# Each zygote runs its candidates as its own uid from this range (root only), so RLIMIT_NPROC
# counts one zygote's processes: a fork bomb in one run cannot starve a concurrent one.
UID_RANGE = (200_000, 2_000_000_000)

_libc = ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def prctl(option: int, value: int) -> int:
    return _libc.prctl(option, value, 0, 0, 0)


def _address_space() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def limit_resources(timeout: float, memory_mb: int, nproc: int = 32) -> None:
    cpu = int(timeout) + 1
    # Headroom above the run's starting size: a run forked from a large worker (target mode)
    # must not start above its own limit (see engine/pool.py's _limit_memory).
    mem = _address_space() + memory_mb * 1024 * 1024
    for res, value in (
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (mem, mem)),
        (resource.RLIMIT_FSIZE, (16 * 1024 * 1024,) * 2),
        (resource.RLIMIT_NOFILE, (64, 64)),
        (resource.RLIMIT_NPROC, (nproc, nproc)),
        (resource.RLIMIT_CORE, (0, 0)),
    ):
        resource.setrlimit(res, value)


def cpu_seconds(pid: int) -> float:
    """CPU time of a running child, all its threads, from the kernel's per-process CPU
    clock (clock_getcpuclockid: ``~pid << 3 | CPUCLOCK_SCHED``); 0 once it has ended. Not
    /proc: inside a PID namespace of its own a process sees the host's /proc."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)
    except OSError:
        return 0.0


def drop_privileges(uid: int) -> None:
    """Become ``uid`` with no supplementary groups; RLIMIT_NPROC only binds a non-root uid."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def namespaces_available() -> bool:
    """Probed in a forked child, so this process's namespaces are untouched."""
    pid = os.fork()
    if pid == 0:
        os._exit(0 if _libc.unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def enter_namespaces() -> None:
    """New PID (for children), network and mount namespaces. The network namespace has no
    interface up, loopback included."""
    _check(_libc.unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS), "unshare")
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")


def private_ipc() -> None:
    """A new IPC namespace for this process (a run, still root): the SysV shared memory,
    message queues and semaphores and the POSIX message queues it makes die with its tree,
    and it sees none of the host's or of an earlier run's. Per run, not per zygote: runs of
    one zygote must not meet either (the unshare costs no measurable time)."""
    _check(_libc.unshare(CLONE_NEWIPC), "unshare(CLONE_NEWIPC)")


def _mounts() -> list[tuple[str, set[str]]]:
    """(mount point, per-mount options) from /proc/self/mountinfo, parents before children."""
    out = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as fh:
        for line in fh:
            fields = line.split()
            point = fields[4].encode().decode("unicode_escape") if "\\" in fields[4] else fields[4]
            out.append((point, set(fields[5].split(","))))
    return out


def _searchable_by_others(path: str) -> bool:
    try:
        return bool(os.stat(path).st_mode & 0o001)
    except OSError:
        return True  # missing: nothing to expose


def needed_paths() -> list[str]:
    """What a Python started inside the sandbox needs to see: the interpreter, its prefixes
    and every import path of this process."""
    paths = {os.path.dirname(os.path.realpath(sys.executable)), sys.prefix, sys.base_prefix, sys.exec_prefix}
    paths.update(p for p in sys.path if p and os.path.isdir(p))
    return sorted(os.path.realpath(p) for p in paths)


def expose_interpreter(mode: int = 0o755) -> list[str]:
    """Cover each directory the sandbox uid cannot traverse on the way to a needed path with
    an empty tmpfs, and bind the needed child directories back in. Returns the covered
    directories. Only the first untraversable ancestor of each path is handled."""
    plan: dict[str, set[str]] = {}  # blocked ancestor -> names of children to keep
    for path in needed_paths():
        parts = path.strip("/").split("/")
        for i in range(1, len(parts)):
            ancestor = "/" + "/".join(parts[:i])
            if not _searchable_by_others(ancestor):
                plan.setdefault(ancestor, set()).add(parts[i])
                break
    for ancestor, children in sorted(plan.items()):
        # Hold each child open (O_PATH) before the tmpfs hides it, then bind it back.
        held = {name: os.open(os.path.join(ancestor, name), os.O_PATH) for name in sorted(children)}
        _check(
            _libc.mount(
                b"tmpfs", ancestor.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, f"size=64k,mode={mode:o}".encode()
            ),
            f"mount tmpfs {ancestor}",
        )
        for name, fd in held.items():
            target = os.path.join(ancestor, name)
            os.mkdir(target, 0o755)
            _check(
                _libc.mount(f"/proc/self/fd/{fd}".encode(), target.encode(), None, MS_BIND | MS_REC, None),
                f"bind {target}",
            )
            os.close(fd)
    return sorted(plan)


def private_workroot(path: str, size_mb: int) -> None:
    """A fresh tmpfs at ``path``: the only writable place once everything else is read-only."""
    _check(
        _libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, f"size={size_mb}m,mode=711".encode()),
        f"mount tmpfs {path}",
    )


def _ancestor_or_self(path: str, of: str) -> bool:
    path, of = path.rstrip("/"), of.rstrip("/")
    return of == path or of.startswith(path + "/")


def cover_with_tmpfs(root: str, options: str) -> list[str]:
    """A fresh, empty tmpfs over ``root`` (``options``: size, nr_inodes, mode), with the
    interpreter's paths under it, if any, bound back read-only. Returns those paths. Used
    for the scratch ``/tmp``, ``/var/tmp``, ``/dev/shm`` (walls.py) and for ``/run``
    (unixsockets.py)."""
    held = {p: os.open(p, os.O_PATH) for p in needed_paths() if _ancestor_or_self(root, p) and p != root}
    _check(
        _libc.mount(b"tmpfs", root.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options.encode()), f"mount tmpfs {root}"
    )
    for path, fd in held.items():
        bind_back(path, fd)
        os.close(fd)
    return sorted(held)


def bind_file(source: str, target: str) -> None:
    """Bind ``source`` over the non-directory ``target`` (a host socket file)."""
    _check(
        _libc.mount(source.encode(), target.encode("utf-8", "surrogateescape"), None, MS_BIND, None),
        f"bind over {target}",
    )


def bind_back(path: str, held_fd: int) -> None:
    """Bind ``held_fd`` (an O_PATH fd taken before a tmpfs covered ``path``) back at
    ``path``, read-only: an interpreter that lives under /tmp stays usable."""
    os.makedirs(path, 0o755, exist_ok=True)
    _check(
        _libc.mount(f"/proc/self/fd/{held_fd}".encode(), path.encode(), None, MS_BIND | MS_REC, None), f"bind {path}"
    )
    _check(
        _libc.mount(None, path.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY | _kept_flags(path), None),
        f"remount {path} read-only",
    )


def _kept_flags(point: str) -> int:
    """The flags of the topmost mount at ``point`` a read-only remount must keep (in a user
    namespace, dropping one the mount's creator set is refused)."""
    options = dict(_mounts()).get(point, set())
    flags = 0
    for name, flag in _KEPT_FLAGS.items():
        if name in options:
            flags |= flag
    return flags


# ioctl numbers of <linux/sockios.h> and the flag of <net/if.h>
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1


def loopback_up() -> None:
    """Bring ``lo`` up in this (new, empty) network namespace. Nothing else is there: a run
    reaches only what the zygote itself listens on (the tripwire of walls.py)."""
    import fcntl
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifreq = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(s.fileno(), _SIOCGIFFLAGS, ifreq))[1]
        fcntl.ioctl(s.fileno(), _SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | _IFF_UP))


def readonly_everything(except_under: str, keep: tuple[str, ...] = ()) -> list[str]:
    """Remount every mount read-only, keeping its other flags; returns the mount points that
    refused (pseudo file systems may), and raises when one of _MUST_BE_READONLY refuses.
    ``keep``: mount points (not what is mounted under them) left as they are."""
    refused = []
    # A remount reaches the topmost mount at a point: keep that one's flags (in a user
    # namespace, clearing a flag its creator set -- nosuid on a tmpfs stacked over the
    # host's /dev/shm -- is refused).
    top = dict(_mounts())
    for point, options in top.items():
        if point == except_under or point.startswith(except_under.rstrip("/") + "/") or point in keep:
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for name, flag in _KEPT_FLAGS.items():
            if name in options:
                flags |= flag
        if _libc.mount(None, point.encode("utf-8", "surrogateescape"), None, flags, None) != 0:
            if point in _MUST_BE_READONLY:
                _check(-1, f"remount {point} read-only")
            refused.append(point)
    return refused
