"""The isolation of a worker that runs the verifier under audit (``--isolation``).

Levels, each including the one before:

* ``none`` -- a plain worker process in its own process group (killed with its group on a
  timeout). Explicit only, and warned about: the verifier runs with the audit's privileges,
  and a daemon it starts (double fork + ``setsid``) outlives the audit.
* ``process`` -- the worker is PID 2 of a PID namespace of its own whose init reaps
  orphans (``pool._guard_processes``): nothing the verifier starts outlives its worker.
  Where namespaces cannot be made, a guard process kills the worker's group instead. The
  worker's whole tree is bounded in memory (``bound_memory``): a memory cgroup of its own
  where one can be made, limited to what the worker holds before the verifier's import
  plus ``memory_mb``, else the parent sums the tree's memory every ``pool.TREE_TICK``
  seconds and kills it past that (an accounted limit). Forked children cannot hold more
  than the limit together, as they could under ``RLIMIT_AS`` alone.
* ``namespaces`` (the default where the audit runs as root on Linux) -- the worker also
  enters mount, network and IPC namespaces of its own before the verifier is imported, and
  then gives up every capability:

  - every mount is read-only, except the worker's own working directory (on the host, where
    the canary sweep and the SQL fixture checks look); ``/tmp`` and ``/var/tmp`` are
    overlays whose writes land in a private tmpfs (the host's files there stay readable:
    a suite's data or a checkout under ``/tmp`` is still found); ``/dev/shm`` is a fresh
    tmpfs; ``/run`` is an empty one and every other socket file the host has bound is
    covered by a tripwire socket (``unixsockets.py``): a connection is a ``guard_escape``;
  - the network namespace has only its own loopback, up (a verifier's local server or
    multiprocessing manager works; nothing else is reachable);
  - SysV and POSIX IPC objects die with the worker (IPC namespace);
  - the worker becomes an unprivileged uid of its own, with an empty capability bounding
    set, ``no_new_privs`` and the keyring calls denied (seccomp): the read-only mounts
    cannot be lifted, nothing regains a privilege by ``exec``, and files only root may
    read stay closed. What the verifier must read is made traversable first: each 0700
    directory on the way to the interpreter, the audit's directory, the verifier's file
    and its tasks' files (a pyenv under ``/root``, pytest's temporary directories) is
    overlaid with an upper layer of mode 755, so it can be searched while what is in it
    keeps its own modes. Where such an overlay cannot be made, the uid stays 0 (without
    capabilities).

Domains whose verifier calls run in a sandbox of their own (code) get the same walls, but
that sandbox is started in setup and replaces its zygotes later, and its zygotes make
namespaces for their runs: instead of dropping every capability, such a worker becomes the
root of a user namespace of its own, mapped to an unprivileged host uid
(``Lockdown.enter_user_namespace``), before the verifier is imported. Its capabilities
reach only the namespaces it makes; the host's files, mounts and network stay as closed to
it as to any other unprivileged uid. Each call (the verifier's scoring, the candidate's
code) runs in the sandbox, under an unprivileged uid of its own, as before.
The mechanisms are this package's (``isolation/_confine``, ``_memory``, ``_seccomp``,
``_unixsockets``), shared with the code sandbox's zygote, which loads them without the rest
of ``verifier_audit``: this package imports nothing but the standard library.
"""

from __future__ import annotations

import ctypes
import os
import signal

from . import _confine as isolation
from . import _memory as memory
from . import _seccomp as seccomp
from ._confine import UID_RANGE  # each worker its own uid, as the sandbox's runs
from ._levels import WORKER_LEVELS
from ._unixsockets import HostTables, SocketCovers

LEVELS = WORKER_LEVELS  # a worker's levels, weakest first: the one table is _levels.py

OVERLAID = ("/tmp", "/var/tmp")  # host files readable, writes private
SCRATCH_MB = 256
_MNT_DETACH = 2
_PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS, _PR_CAP_AMBIENT = 24, 38, 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_PR_SET_DUMPABLE = 4
_CLONE_NEWUSER = 0x10000000
# The host uid a code-domain worker's user namespace maps its root to: outside UID_RANGE,
# which the namespace maps to itself for the sandbox's runs (two ranges of one map may not
# overlap on the host side), and below 2**31.
USERNS_UID_RANGE = (2_100_000_000, 2_140_000_000)
_CAP_VERSION_3 = 0x20080522
_libc = ctypes.CDLL(None, use_errno=True)


def worker_uid(user_namespace: bool = False) -> int:
    """A fresh unprivileged host uid for a worker (``user_namespace``: the one its user
    namespace's root maps to, ``Lockdown.enter_user_namespace``)."""
    import random

    return random.SystemRandom().randrange(*(USERNS_UID_RANGE if user_namespace else UID_RANGE))


def _host_uid() -> int:
    """The host uid this process's uid 0 maps to (its uid_map's first line)."""
    with open("/proc/self/uid_map") as fh:
        for row in fh:
            inside, outside, _ = (int(x) for x in row.split())
            if inside == 0:
                return outside
    return -1


def default_level() -> str:
    """``namespaces`` where they can be made (root on Linux), else ``process``."""
    return "namespaces" if _namespaces_available() else "process"


_probed: bool | None = None


def _namespaces_available() -> bool:
    global _probed
    if _probed is None:
        try:
            _probed = hasattr(os, "fork") and isolation.namespaces_available()
        except OSError:
            _probed = False
    return _probed


_userns_probed: bool | None = None


def user_namespaces_available() -> bool:
    """Whether this process can make a user namespace (``Lockdown.enter_user_namespace``);
    probed once, in a forked child."""
    global _userns_probed
    if _userns_probed is None:
        try:
            pid = os.fork()
            if pid == 0:
                os._exit(0 if _libc.unshare(_CLONE_NEWUSER) == 0 else 1)
            _, status = os.waitpid(pid, 0)
            _userns_probed = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        except OSError:
            _userns_probed = False
    return _userns_probed


def resolve_level(level: str | None) -> str:
    """The level an audit runs at: ``level`` checked, or the default. A level the machine
    cannot give is an error that says which one it can."""
    if level is None:
        return default_level()
    if level not in LEVELS:
        raise ValueError(f"isolation must be one of {', '.join(LEVELS)}, not {level!r}")
    if level == "namespaces" and not _namespaces_available():
        raise ValueError("isolation 'namespaces' needs Linux namespaces (run as root); use --isolation process")
    return level


class Lockdown:
    """One worker's walls at the ``namespaces`` level: entered once, in the worker, before
    the verifier is imported; ``drop_privileges`` once its setup no longer needs them."""

    def __init__(self, workdir: str, readable: tuple[str, ...] | None = None, user_namespace: int | None = None):
        """``readable``: the paths the verifier must read once it runs as an unprivileged
        uid (None: the uid is not dropped). ``user_namespace``: the host uid the worker's
        user namespace will map its root to (``enter_user_namespace``). Call
        ``bound_memory`` first: the cgroup's files are opened through the host's mounts."""
        self.workdir = workdir
        # Before the mount namespace: the helper writes the maps through the host's /proc.
        self._mapper = _Mapper(user_namespace) if user_namespace is not None else None
        self.overlays: list[str] = []
        self.uid: int | None = None  # the unprivileged uid the worker runs as, once dropped
        # Before the namespaces: the host's socket tables are read in its network namespace.
        tables = HostTables()
        isolation._check(
            _libc.unshare(isolation.CLONE_NEWNS | isolation.CLONE_NEWNET | isolation.CLONE_NEWIPC), "unshare"
        )
        isolation._check(
            _libc.mount(None, b"/", None, isolation.MS_REC | isolation.MS_PRIVATE, None), "mount --make-rprivate /"
        )
        # The working directory becomes a mount of its own (it stays writable, and on the
        # host), held open so that it can be bound back over the /tmp overlay.
        _bind(workdir, workdir)
        held = os.open(workdir, os.O_PATH)
        # Directories on the way to what the verifier reads that another uid cannot
        # traverse (a pyenv under /root, pytest's 0700 temporary directories), held now,
        # through the host's view, to be overlaid once the scratch is up.
        blocked = _untraversable([*isolation.needed_paths(), os.getcwd(), *readable]) if readable is not None else []
        lowers = {d: os.open(d, os.O_PATH | os.O_DIRECTORY) for d in blocked}
        # In a user namespace the worker is an unprivileged uid on the host: /proc stays
        # writable to what that uid may write there (its sandbox's runs raise their own
        # oom_score_adj through it, isolation/_memory.py); /proc/sys and every file of root's
        # refuse it all the same.
        isolation.readonly_everything(except_under=workdir, keep=("/proc",) if user_namespace is not None else ())
        try:
            self._scratch(held, lowers)
        finally:
            os.close(held)
            for fd in lowers.values():
                os.close(fd)
        self.exposed = readable is not None and len(self.lifted) == len(blocked)
        self.sockets = SocketCovers(tables)
        self.sockets.hide_run()
        self.sockets.start()
        isolation.loopback_up()

    def _scratch(self, held: int, lowers: dict[str, int]) -> None:
        """A fresh /dev/shm; /tmp and /var/tmp overlaid with private upper layers; and each
        directory of ``lowers`` overlaid with an upper of mode 755, which makes it
        traversable while what is in it keeps its own modes (a 0700 child stays closed).
        The layers' own tmpfs is detached once the overlays hold it: nothing can reach it."""
        self.lifted: list[str] = []
        self.uppers: dict[str, int] = {}  # overlaid root -> a descriptor of its upper layer
        shm = "/dev/shm"
        if os.path.isdir(shm) and not os.path.islink(shm):
            isolation.cover_with_tmpfs(shm, f"size={SCRATCH_MB}m,mode=1777")
            layers = os.path.join(shm, ".va-layers")
            os.mkdir(layers, 0o700)
            isolation._check(
                _libc.mount(
                    b"tmpfs",
                    layers.encode(),
                    b"tmpfs",
                    isolation.MS_NOSUID | isolation.MS_NODEV,
                    f"size={SCRATCH_MB}m,mode=700".encode(),
                ),
                "mount tmpfs (layers)",
            )
            try:
                for root in OVERLAID:
                    if (
                        os.path.isdir(root)
                        and not os.path.islink(root)
                        and _overlay(root, root, layers, os.stat(root).st_mode & 0o7777)
                    ):
                        self.overlays.append(root)
                        self.uppers[root] = _upper(layers)
                # Shallowest first: a deeper one is mounted over the shallower one's view,
                # its lower layer taken from the host's (one overlay deep, always).
                for path in sorted(lowers, key=lambda p: (p.count("/"), p)):
                    if _overlay(path, f"/proc/self/fd/{lowers[path]}", layers, 0o755):
                        self.lifted.append(path)
            finally:
                _libc.umount2(layers.encode(), _MNT_DETACH)
                os.rmdir(layers)
        if any(_inside(self.workdir, root) for root in self.overlays + self.lifted):
            isolation._check(
                _libc.mount(f"/proc/self/fd/{held}".encode(), self.workdir.encode(), None, isolation.MS_BIND, None),
                f"bind {self.workdir}",
            )

    def drop_privileges(self, uid: int | None = None) -> None:
        """No capability, now or after an ``exec`` (bounding set empty, no_new_privs), and no
        kernel keys (seccomp); with ``uid``, become that unprivileged uid, the work
        directory its own (the paths it reads were made traversable at the start). Fails
        closed: a worker that cannot is not started."""
        if seccomp.supported() and not seccomp.deny_keyrings():
            raise OSError("the seccomp filter could not be installed")
        isolation._check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        if uid is not None and not self.exposed:
            uid = None  # a directory the verifier needs could not be opened to it: stay uid 0
        if uid is not None:
            for root, dirs, files in os.walk(self.workdir):
                for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
                    os.lchown(name, uid, uid)
        for cap in range(64):
            if _libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:  # EINVAL: past the last
                isolation._check(-1, f"drop capability {cap} from the bounding set")
        if uid is not None:
            isolation.drop_privileges(uid)  # setuid away from 0 clears every capability
            isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)  # cleared by setuid
            self.uid = uid
            return
        header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
        data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable (two words each): none
        isolation._check(_libc.capset(header, data), "capset")

    def enter_user_namespace(self) -> None:
        """For a worker whose setup builds namespaces (the code domain's sandbox): instead of
        ``drop_privileges``, a user namespace of its own, in which it is uid 0 with every
        capability -- mapped to the constructor's ``user_namespace``, an unprivileged host
        uid outside ``UID_RANGE``, with no capability on the host. Those capabilities reach
        only what that namespace owns: the PID, mount, network and IPC namespaces its
        sandbox makes for its runs; not the mounts, network and files the lockdown gave it
        (they belong to the host's user namespace: read-only, its own loopback only, and a
        file of an unmapped owner -- root's -- is any other uid's to it). ``UID_RANGE`` is
        mapped too, each uid to itself: the sandbox's runs still become an unprivileged uid
        of their own. A helper forked before the lockdown (``_Mapper``: the host's /proc is
        out of reach after it) writes the maps (a range needs CAP_SETUID in the parent
        namespace). Then: not dumpable (its runs, another uid without capabilities, could
        not ptrace it anyway), no_new_privs, the keyring calls denied; ``isolation/_limits.py``
        refuses a further user namespace afterwards, to the verifier and to every run.
        Fails closed."""
        if self._mapper is None:
            raise OSError("this lockdown was made without a user namespace (Lockdown(user_namespace=uid))")
        uid = self._mapper.uid
        if seccomp.supported() and not seccomp.deny_keyrings():
            raise OSError("the seccomp filter could not be installed")
        isolation._check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        for root, dirs, files in os.walk(self.workdir):
            for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
                os.lchown(name, uid, uid)
        self._mapper.map()
        os.setgroups([])  # root's supplementary groups (gid 0) go
        os.setresgid(0, 0, 0)
        os.setresuid(0, 0, 0)  # the namespace's root: host uid ``uid``, its capabilities kept
        isolation.prctl(_PR_SET_DUMPABLE, 0)
        isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)  # cleared by the credential change
        if os.getuid() != 0 or _host_uid() != uid:
            raise OSError("the worker's user namespace does not map it to its own host uid")
        self.uid = uid

    def scratch_listings(self) -> dict[str, str]:
        """Overlaid root -> a path that lists its upper layer (for isolation/_tripwires.py)."""
        return {root: f"/proc/self/fd/{fd}" for root, fd in self.uppers.items()}

    def sweep(self) -> list[str]:
        """After a call: connections to the covered host sockets (``guard_escape``)."""
        found: list[str] = []
        self.sockets.drain(found)
        self.sockets.refresh()
        return [f"guard_escape:{f}" for f in found]


class _Mapper:
    """A helper forked while the worker is still root in the host's namespaces: once the
    worker has made its user namespace (``map``), it writes the namespace's uid and gid maps
    through the host's /proc and exits. It reads nothing but its pipe; the worker waits for
    it, so it is gone before the verifier is imported. A worker that fails before ``map``
    closes the pipe (it exits), and the helper with it."""

    def __init__(self, uid: int):
        self.uid = uid
        line = f"0 {uid} 1\n{UID_RANGE[0]} {UID_RANGE[0]} {UID_RANGE[1] - UID_RANGE[0]}\n"
        me = os.readlink("/proc/self")  # this process in the host's /proc, not its PID namespace's pid
        go_r, self._go = os.pipe()
        self._done, done_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)
                os.close(self._go)
                os.close(self._done)
                if os.read(go_r, 1) == b"u":
                    for name in ("uid_map", "gid_map"):
                        with open(f"/proc/{me}/{name}", "w") as fh:
                            fh.write(line)
                    os.write(done_w, b"k")
            except BaseException as exc:  # noqa: BLE001 - said to the worker, which fails closed
                try:
                    os.write(done_w, f"x{type(exc).__name__}: {exc}"[:500].encode())
                except OSError:
                    pass
            finally:
                os._exit(0)
        os.close(go_r)
        os.close(done_w)
        for fd in (self._go, self._done):
            os.set_inheritable(fd, False)

    def map(self) -> None:
        """unshare(CLONE_NEWUSER), then the helper writes the maps; fails closed."""
        try:
            isolation._check(_libc.unshare(_CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
            os.write(self._go, b"u")
            said = os.read(self._done, 512)
            if said != b"k":
                raise OSError(f"the user namespace's uid and gid maps could not be written ({said[1:].decode()})")
        finally:
            os.close(self._go)
            os.close(self._done)
            os.waitpid(self.pid, 0)


def bound_memory(cgroup: str | None, memory_mb: int | None) -> None:
    """In a worker, before the verifier is imported: move into ``cgroup`` (made for it by
    the parent) and limit it to what the worker holds now plus ``memory_mb``, so the whole
    tree the verifier may fork is bounded together (RLIMIT_AS bounds each process alone).
    Then every descriptor of the cgroup and of the host's /proc is closed: the verifier
    runs in this process, and through them it could lift its limit or write to the host's
    /proc past read-only mounts. Without a cgroup the parent watches the tree instead
    (``pool.run``'s accounted limit)."""
    if not cgroup:
        return
    guard = memory.CgroupGuard(cgroup)
    try:
        guard.join()
        try:
            guard._adjust_oom(0)  # join() exempts a zygote from the OOM killer; a worker stays killable
        except OSError:
            pass
        if memory_mb:
            guard.before_run(memory_mb)
    finally:
        guard.close()


def _overlay(target: str, lower: str, layers: str, mode: int) -> bool:
    """Overlay ``target`` (lower layer: ``lower``) with a private upper layer of ``mode``;
    False where the kernel refuses (no overlayfs: ``target`` then stays as it is)."""
    name = f"{len(os.listdir(layers))}"
    upper, work = os.path.join(layers, name, "upper"), os.path.join(layers, name, "work")
    os.makedirs(upper, 0o755)
    os.makedirs(work, 0o755)
    os.chmod(upper, mode)
    options = f"lowerdir={lower},upperdir={upper},workdir={work}".encode()
    return _libc.mount(b"overlay", target.encode(), b"overlay", isolation.MS_NOSUID | isolation.MS_NODEV, options) == 0


def _upper(layers: str) -> int:
    """A descriptor of the upper layer ``_overlay`` made last (kept for the canary sweep)."""
    name = str(len(os.listdir(layers)) - 1)
    return os.open(os.path.join(layers, name, "upper"), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def _untraversable(paths: list[str]) -> list[str]:
    """Every directory on the way to ``paths`` (themselves included) that a uid other than
    its owner's cannot search."""
    out = set()
    for path in paths:
        if not path or not os.path.isdir(path):
            continue
        parts = os.path.realpath(path).strip("/").split("/")
        for i in range(1, len(parts) + 1):
            here = "/" + "/".join(parts[:i])
            try:
                if not os.stat(here).st_mode & 0o001:
                    out.add(here)
            except OSError:
                break
    return sorted(out)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _bind(source: str, target: str) -> None:
    isolation._check(_libc.mount(source.encode(), target.encode(), None, isolation.MS_BIND, None), f"bind {target}")


def oom_kills(cgroup: str) -> int:
    """How many processes the kernel killed in ``cgroup`` at its limit (v2 or v1)."""
    for name in ("memory.events", "memory.oom_control"):
        try:
            with open(os.path.join(cgroup, name)) as fh:
                for line in fh:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return 0
