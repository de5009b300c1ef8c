"""The memory limit of a run's whole process tree (levels ``rlimits`` and up).

``RLIMIT_AS`` bounds one process. A run may fork (``RLIMIT_NPROC`` allows 32), so under
``memory_mb=256`` eight children could hold 200 MiB each. Each zygote therefore also
bounds its runs' tree, with the strongest mechanism the machine offers (``provision``):

* **cgroup** (the v2 memory controller, else the v1 one), where this process may create a
  cgroup (root and a writable cgroup file system). The parent makes one cgroup per zygote;
  the zygote moves *itself* into it once, so every run it forks is inside from its first
  instruction (moving a process per run would cost an RCU grace period each time), and
  removes it when it ends (the parent too, at close; an empty one left by a zygote killed
  with its parent is removed by the next ``provision``). Before each run the zygote sets
  the limit to what the cgroup holds then plus ``memory_mb``: the kernel charges
  everything the tree allocates (anonymous memory, tmpfs and memfd pages, page tables,
  pipe and socket buffers) and, at the limit, OOM-kills inside the cgroup, never outside
  it. Each run sets its ``oom_score_adj`` to 1000 (with either mechanism), so the victim
  is one of its processes, never the zygote (which is also exempt, -1000, where it has
  CAP_SYS_RESOURCE). Any OOM kill during a run makes it a ``memory`` failure and the
  zygote kills its tree at the next tick (v2 with an exempt zygote: the kernel kills the
  whole tree at once, ``memory.oom.group``). The peak is the kernel's
  (``memory.max_usage_in_bytes``, ``memory.peak``), over what the cgroup held when the
  run started.
* **watcher**, elsewhere: while a run lives, the zygote sums every ``TICK`` seconds the
  proportional set size (``Pss_Anon + Pss_Shmem``) of each process of the tree and the size
  of memory files they hold open (memfd, deleted files), and kills the tree past the limit.
  An accounted limit, not a hard one: the tree may overshoot by what it allocates in one
  tick, and kernel buffers (pipes, sockets, in-flight file descriptors) are not counted.

The zygote side is a ``Guard``: ``before_run`` (limit), ``in_run`` (in the forked run,
still root), ``over`` (each tick), ``after_run`` (went over? peak).
"""

from __future__ import annotations

import errno
import os
import secrets
import signal
import time

TICK = 0.01  # seconds between checks while a run lives
_NAME = "va-sandbox-"
_STALE_AFTER = 30.0  # seconds: a live zygote joins its cgroup within milliseconds of its making


# --------------------------------------------------------------------------- in the parent


def _mountinfo() -> list[tuple[str, str, str, set[str]]]:
    """(mount root, mount point, fs type, super options) of each mount of this process."""
    out = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as fh:
            for line in fh:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) >= 5 and len(tail) >= 3:
                    out.append((fields[3], fields[4], tail[0], set(tail[2].split(","))))
    except OSError:
        pass
    return out


def _own_cgroup(version: int) -> str | None:
    """This process's cgroup path in the v2 hierarchy, or in the v1 memory hierarchy."""
    try:
        with open("/proc/self/cgroup") as fh:
            for line in fh:
                _hid, controllers, path = line.rstrip("\n").split(":", 2)
                if (version == 2 and _hid == "0" and controllers == "") or (
                    version == 1 and "memory" in controllers.split(",")
                ):
                    return path
    except (OSError, ValueError):
        pass
    return None


def _on_disk(version: int) -> str | None:
    """Where this process's cgroup of that hierarchy is in the file system."""
    path = _own_cgroup(version)
    if path is None:
        return None
    for root, point, fstype, options in _mountinfo():
        if (version == 2 and fstype == "cgroup2") or (version == 1 and fstype == "cgroup" and "memory" in options):
            if path == root or path.startswith(root.rstrip("/") + "/"):
                return os.path.join(point, path[len(root.rstrip("/")) :].lstrip("/"))
    return None


def _read(path: str) -> str:
    with open(path) as fh:
        return fh.read()


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _parents(version: int) -> list[str]:
    """Where a v2 cgroup with the memory controller can be made: this process's cgroup, or
    the nearest ancestor that delegates memory to its children (a cgroup that holds
    processes cannot, the root excepted). v1 has no such rule: this process's cgroup."""
    here = _on_disk(version)
    if here is None:
        return []
    if version == 1:
        return [here]
    found = []
    mount_point = next((p for _r, p, t, _o in _mountinfo() if t == "cgroup2" and here.startswith(p)), "/")
    while here.startswith(mount_point):
        try:
            if "memory" in _read(os.path.join(here, "cgroup.subtree_control")).split():
                found.append(here)
                break
        except OSError:
            pass
        if here == mount_point:
            break
        here = os.path.dirname(here)
    return found


def _remove_stale(parent: str) -> None:
    """Empty cgroups of ours, made a while ago: their zygote is gone and nobody removed them
    (zygotes remove their own when they end, their parent at close; both can be killed).
    Never by owner pid: processes in other PID namespaces share the parent cgroup."""
    try:
        names = [n for n in os.listdir(parent) if n.startswith(_NAME)]
    except OSError:
        return
    for name in names:
        path = os.path.join(parent, name)
        try:
            if (
                time.time() - os.stat(path).st_ctime > _STALE_AFTER
                and not _read(os.path.join(path, "cgroup.procs")).split()
            ):
                os.rmdir(path)  # fails (EBUSY) if a process joined meanwhile: then it is not stale
        except OSError:
            continue


def provision(kind: str | None = None) -> tuple[str, str]:
    """The tree-memory mechanism for a new zygote: ``("cgroup", path)`` of a fresh cgroup of
    our own, or ``("watcher", "")``. ``kind`` forces one (``"watcher"`` always works)."""
    if kind not in (None, "cgroup", "watcher"):
        raise ValueError(f"tree memory must be 'cgroup' or 'watcher', not {kind!r}")
    if kind != "watcher":
        for version in (2, 1):
            for parent in _parents(version):
                _remove_stale(parent)
                path = os.path.join(parent, f"{_NAME}{secrets.token_hex(8)}")
                try:
                    os.mkdir(path, 0o755)
                except OSError:
                    continue
                if os.path.exists(os.path.join(path, "memory.max" if version == 2 else "memory.limit_in_bytes")):
                    return ("cgroup", path)
                release(("cgroup", path))
        if kind == "cgroup":
            raise RuntimeError(
                "no cgroup with a memory controller can be made here (needs root and a writable cgroup fs)"
            )
    return ("watcher", "")


def cgroup_available() -> bool:
    spec = provision()
    release(spec)
    return spec[0] == "cgroup"


def release(spec: tuple[str, str]) -> None:
    """Kill whatever is left in a zygote's cgroup and remove it (the parent, at close)."""
    kind, path = spec
    if kind != "cgroup" or not path:
        return
    # Cgroups made inside this one first (a code sandbox started in an engine worker makes
    # its zygotes' there): a cgroup with children cannot be removed.
    try:
        children = [e.path for e in os.scandir(path) if e.is_dir(follow_symlinks=False)]
    except OSError:
        children = []
    for child in children:
        release(("cgroup", child))
    for _ in range(100):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                return
        try:
            _write(os.path.join(path, "cgroup.kill"), "1")  # v2, kernel 5.14+
        except OSError:
            try:
                for pid in _read(os.path.join(path, "cgroup.procs")).split():
                    try:
                        if int(pid) > 0:  # 0: a process of another PID namespace (kill(0) is our group)
                            os.kill(int(pid), signal.SIGKILL)
                    except (ProcessLookupError, PermissionError, ValueError):
                        pass
            except OSError:
                return
        time.sleep(0.01)


# --------------------------------------------------------------------------- in the zygote


class Guard:
    """No tree limit (the ``process`` level)."""

    name = ""
    tick: float | None = None

    def leave(self) -> None:
        pass

    def before_run(self, memory_mb: int) -> None:
        pass

    def in_run(self) -> None:
        pass

    def over(self) -> bool:
        return False

    def after_run(self) -> tuple[bool, int | None]:
        return False, None


class _Bounded(Guard):
    """What both bounds share: runs make themselves the OOM killer's first choice."""

    tick = TICK

    def __init__(self):
        # Opened now, through the host's mounts: inside the mount namespace /proc is read-only.
        self.proc = os.open("/proc", os.O_PATH | os.O_DIRECTORY)

    def _adjust_oom(self, value: int) -> None:
        fd = os.open("self/oom_score_adj", os.O_WRONLY, dir_fd=self.proc)
        try:
            os.write(fd, str(value).encode())
        finally:
            os.close(fd)

    def close(self) -> None:
        """Close every descriptor this guard holds (the engine's workers, which run the
        verifier in their own process: a descriptor of the host's /proc or cgroup file
        system would let it write there, past the read-only mounts)."""
        for name in ("proc", "dir", "parent", "home", "_peak_fd"):
            fd = getattr(self, name, None)
            if isinstance(fd, int):
                try:
                    os.close(fd)
                except OSError:
                    pass
                setattr(self, name, None)
        for fd in getattr(self, "_fds", {}).values():
            try:
                os.close(fd)
            except OSError:
                pass
        if hasattr(self, "_fds"):
            self._fds: dict = {}  # a subclass keeps its own keys (CgroupGuard: (file, mode))

    def in_run(self) -> None:
        # The highest score: a run is always the OOM killer's first choice, in its cgroup
        # and on the host (raising one's own score needs no privilege).
        self._adjust_oom(1000)


class CgroupGuard(_Bounded):
    """The zygote and its runs in a cgroup of their own (see the module doc)."""

    def __init__(self, path: str):
        super().__init__()
        self.dir = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        self.parent = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
        self.leaf = os.path.basename(path)
        self.v2 = os.path.exists(os.path.join(path, "memory.max"))
        home = _on_disk(2 if self.v2 else 1)  # where this process is now, to go back to
        self.home = os.open(home, os.O_RDONLY | os.O_DIRECTORY) if home else None
        self.name = "cgroup v2" if self.v2 else "cgroup v1"
        self._limit_file = "memory.max" if self.v2 else "memory.limit_in_bytes"
        self._swap_file = "memory.swap.max" if self.v2 else "memory.memsw.limit_in_bytes"
        self._has_swap_file = self._exists(self._swap_file)
        self._limit: int | None = None
        self._base = 0
        self._ooms = 0
        self._peak_fd: int | None = None
        self._fds: dict[tuple[str, int], int] = {}

    def _exists(self, name: str) -> bool:
        try:
            os.stat(name, dir_fd=self.dir)
            return True
        except OSError:
            return False

    def _fd(self, name: str, flags: int) -> int:
        """The cgroup's files stay open: a run costs a few preads and pwrites, no opens."""
        key = (name, flags)
        if key not in self._fds:
            self._fds[key] = os.open(name, flags, dir_fd=self.dir)
        return self._fds[key]

    def _put(self, name: str, text: str) -> None:
        os.pwrite(self._fd(name, os.O_WRONLY), text.encode(), 0)

    def _get(self, name: str) -> str:
        return os.pread(self._fd(name, os.O_RDONLY), 4096, 0).decode()

    def join(self) -> None:
        """Move this process (the zygote) into the cgroup, exempt from the OOM killer where
        it may be (CAP_SYS_RESOURCE); its runs make themselves its first choice anyway."""
        self._put("cgroup.procs", "0")
        try:
            self._adjust_oom(-1000)
            exempt = True
        except PermissionError:
            exempt = False
        if self.v2:
            if self._has_swap_file:
                self._put(self._swap_file, "0")
            if exempt:  # the kernel kills the whole tree at once; else the next tick does
                self._put("memory.oom.group", "1")

    def leave(self) -> None:
        """When the zygote ends: back to the cgroup it came from, and remove ours if it is
        the last process there (so a zygote whose parent was killed leaves nothing)."""
        try:
            if self.home is not None:
                fd = os.open("cgroup.procs", os.O_WRONLY, dir_fd=self.home)
                try:
                    os.write(fd, b"0")
                finally:
                    os.close(fd)
            os.rmdir(self.leaf, dir_fd=self.parent)
        except OSError:
            pass

    def _usage(self) -> int:
        return int(self._get("memory.current" if self.v2 else "memory.usage_in_bytes"))

    def _oom_kills(self) -> int:
        for line in self._get("memory.events" if self.v2 else "memory.oom_control").splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def before_run(self, memory_mb: int) -> None:
        self._base = self._usage()
        # On a whole MiB: the limit then rarely changes between runs, and is rarely written.
        limit = (-(-self._base // 2**20) + memory_mb) * 2**20 if memory_mb > 0 else None
        if limit != self._limit:
            value = "max" if limit is None and self.v2 else str(limit if limit is not None else -1)
            self._set_limit(value, raising=self._limit is not None and (limit is None or limit > self._limit))
            self._limit = limit
        self._ooms = self._oom_kills()
        if self.v2:
            try:
                self._peak_fd = os.open("memory.peak", os.O_RDWR, dir_fd=self.dir)
                os.write(self._peak_fd, b"reset")  # a peak of this fd's own, from now (6.12+)
            except OSError:
                if self._peak_fd is not None:
                    os.close(self._peak_fd)
                self._peak_fd = None
        else:
            self._put("memory.max_usage_in_bytes", "0")  # resets the peak to the usage now

    def _set_limit(self, value: str, raising: bool) -> None:
        # v1: memsw (memory + swap) must stay >= the memory limit, so order the two writes.
        # v2: swap is simply off (memory.swap.max = 0, set once).
        if self.v2 or not self._has_swap_file:
            self._put(self._limit_file, value)
            return
        first, second = (self._swap_file, self._limit_file) if raising else (self._limit_file, self._swap_file)
        self._put(first, value)
        self._put(second, value)

    def over(self) -> bool:
        return self._oom_kills() > self._ooms

    def after_run(self) -> tuple[bool, int | None]:
        went_over = self._oom_kills() > self._ooms
        peak = None
        if self.v2:
            if self._peak_fd is not None:
                try:
                    peak = int(os.pread(self._peak_fd, 64, 0).decode())
                except (OSError, ValueError):
                    peak = None
                os.close(self._peak_fd)
                self._peak_fd = None
        else:
            peak = int(self._get("memory.max_usage_in_bytes"))
        return went_over, None if peak is None else max(0, peak - self._base)


def _descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid``, from /proc/<pid>/task/*/children (host pids: the
    /proc we read is the host's, inside the PID namespace too)."""
    out: list[int] = []
    stack = [pid]
    while stack and len(out) < 4096:
        here = stack.pop()
        try:
            tids = os.listdir(f"/proc/{here}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{here}/task/{tid}/children") as fh:
                    kids = [int(p) for p in fh.read().split()]
            except (OSError, ValueError):
                continue
            out.extend(kids)
            stack.extend(kids)
    return out


def _process_memory(pid: int, files: dict) -> int:
    """Bytes ``pid`` holds: its share of anonymous and shared-memory pages, and (into
    ``files``, by inode, so a file held by many counts once) memory files it holds open."""
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            fields = dict(line.split(":", 1) for line in fh.read().splitlines()[1:] if ":" in line)
        kb = sum(int(fields[k].split()[0]) for k in ("Pss_Anon", "Pss_Shmem") if k in fields)
        if "Pss_Anon" not in fields:
            kb = int(fields.get("Pss", "0 kB").split()[0])
        total += kb * 1024
    except (OSError, ValueError, IndexError):
        try:  # unreadable (gone, or made itself non-dumpable): resident minus shared pages
            with open(f"/proc/{pid}/statm") as fh:
                size = fh.read().split()
            total += max(0, int(size[1]) - int(size[2])) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            pass
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return total
    for fd in fds:
        path = f"/proc/{pid}/fd/{fd}"
        try:
            target = os.readlink(path)
            if target.startswith("/memfd:") or target.endswith(" (deleted)"):
                st = os.stat(path)
                files[(st.st_dev, st.st_ino)] = st.st_blocks * 512
        except OSError:
            pass
    return total


def tree_memory(pid: int) -> int:
    """What the tree under ``pid`` (``pid`` itself excluded) holds in memory, as counted by
    the watcher."""
    files: dict = {}
    total = sum(_process_memory(p, files) for p in _descendants(pid))
    return total + sum(files.values())


class WatchGuard(_Bounded):
    """The accounted limit: the zygote sums the tree's memory every tick."""

    name = "watcher"

    def __init__(self):
        super().__init__()
        self._limit: int | None = None
        self._peak: int | None = None
        self._over = False

    def before_run(self, memory_mb: int) -> None:
        self._limit = memory_mb * 1024 * 1024 if memory_mb > 0 else None
        self._peak, self._over = None, False

    def over(self) -> bool:
        # Our pid as /proc names it: the host's, also where we are PID 1 of a namespace.
        used = tree_memory(int(os.readlink("/proc/self")))
        self._peak = used if self._peak is None else max(self._peak, used)
        self._over = self._over or (self._limit is not None and used > self._limit)
        return self._over

    def after_run(self) -> tuple[bool, int | None]:
        return self._over, self._peak


def open_guard(spec: tuple[str, str] | None) -> Guard:
    """In the zygote, before it enters its namespaces (the cgroup files are opened through
    the host's mounts)."""
    if spec is None:
        return Guard()
    kind, path = spec
    if kind == "cgroup":
        guard = CgroupGuard(path)
        guard.join()
        return guard
    return WatchGuard()
