"""What bounds a verifier's worker besides its memory and its clock: the size of the files it writes,
the processes its tree may hold, the kernel calls it may make, the environment it is given
-- and the work directories a killed audit left behind.

Why each:

* **File size** (``RLIMIT_FSIZE``, ``--file-mb``, default ``FILE_MB``). A verifier wrote a
  2 GiB file in its work directory: nothing bounded it, and the disk it fills is the
  audit's (and, under ``/tmp``, the machine's). The worker ignores ``SIGXFSZ``, so a write
  past the limit fails with ``EFBIG`` (``OSError: [Errno 27] File too large``) instead of
  killing the process, and the verdict's error says ``file size limit reached``; a
  verifier that restores the signal dies of it, a crash with the same words. The code
  sandbox's runs have a limit of their own (16 MiB, ``isolation/_confine.limit_resources``).
* **Processes** (``--max-processes``, default ``MAX_PROCESSES``). ``RLIMIT_NPROC`` was above
  ``pid_max`` and nothing else counted a worker's tree: 2,000 forks in one call succeeded,
  and a fork bomb takes the machine's PIDs from everyone. Where a pids cgroup can be made
  (root, the v1 ``pids`` hierarchy or a v2 cgroup whose parent delegates ``pids``), the
  worker joins one of its own before the verifier is imported and ``pids.max`` bounds its
  whole tree, threads included (the kernel counts tasks); a fork past it fails with
  ``EAGAIN`` and the verdict's error says ``process limit reached``. Elsewhere the bound is
  ``RLIMIT_NPROC``, which counts the processes of a uid: it binds at the ``namespaces``
  level, where each worker is a uid of its own, and not for root (documented gap).
* **Kernel calls** (``seccomp.deny_new_kernel_surfaces``): io_uring and new user
  namespaces are refused in every verifier's worker at the ``process`` and ``namespaces``
  levels (and in the code sandbox's runs, by its zygote).
* **The environment** (``verifier_audit/environment.py``): a worker that runs the verifier
  gets the allow-list and the variables passed to it by name, nothing else.
* **Work directories**. Each worker's directory is a ``tempfile.mkdtemp()`` of the default,
  neutral name (``tmpXXXXXXXX``: its cwd does not say it is an audit's), and it is
  written, before any worker uses it, in a ledger only the audit's user can open
  (``<cache dir>/workdirs``, mode 0700: one file per audit process, named by its pid,
  whose first line is the process's start time). The audit removes its directories as
  its workers end and its ledger file at exit; after a ``kill -9`` nobody does, so each
  audit, at its first worker, removes the directories of every ledger file whose process
  is gone -- checked by pid *and* start time, so a pid reused by another process is not
  taken for the audit that is gone.
"""

from __future__ import annotations

import atexit
import os
import resource
import secrets as _random
import shutil
import signal
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..cache_dir import default_cache_dir
from ..environment import mask, secret_values, worker_environment
from . import _memory as memory
from . import _seccomp as seccomp
from ._confine import UID_RANGE  # a worker's own uid at the namespaces level

FILE_MB = 1024  # the largest file a worker may write, MiB, unless --file-mb says otherwise
MAX_PROCESSES = 1024  # processes and threads a worker's tree may hold, unless --max-processes says otherwise

FILE_LIMIT_WORDS = "file size limit reached"
PROCESS_LIMIT_WORDS = "process limit reached"
_EFBIG = "[Errno 27]"
_REFUSED_FORK = ("[Errno 11]", "can't start new thread", "Resource temporarily unavailable")


# --------------------------------------------------------------------------- the environment


def job_environment(job, environ=None) -> dict[str, str]:
    """The environment a worker of ``job`` gets: for a job that runs the verifier (it names
    the variables it needs: ``env_names``), the allow-list and those; for the audit's own
    jobs (the oracle's), the audit's environment as it is."""
    environ = os.environ if environ is None else environ
    names = getattr(job, "env_names", None)
    return dict(environ) if names is None else worker_environment(environ, names)


def secrets_of(jobs: Iterable) -> list[str]:
    """The values masked in what the workers of ``jobs`` send back (environment.py)."""
    names: set[str] = set()
    for job in jobs:
        names.update(getattr(job, "env_names", None) or ())
    return secret_values(os.environ, names)


# --------------------------------------------------------------------------- the pids cgroup


def _pids_parent() -> str | None:
    """Where this process's cgroup of the v1 ``pids`` hierarchy is on disk, if mounted."""
    try:
        with open("/proc/self/cgroup") as fh:
            own = next(
                (line.rstrip("\n").split(":", 2)[2] for line in fh if "pids" in line.split(":", 2)[1].split(",")), None
            )
    except (OSError, IndexError):
        return None
    if own is None:
        return None
    for root, point, fstype, options in memory._mountinfo():
        if fstype == "cgroup" and "pids" in options and (own == root or own.startswith(root.rstrip("/") + "/")):
            return os.path.join(point, own[len(root.rstrip("/")) :].lstrip("/"))
    return None


def provision_pids(max_processes: int | None, memory_cgroup: str | None) -> tuple[str | None, bool]:
    """A cgroup bounding a worker's tree to ``max_processes`` tasks: (path, made here). The
    worker's v2 memory cgroup when it has the pids controller too (not ours to remove:
    the memory bound's), else a fresh one in the v1 pids hierarchy; (None, False) where
    neither can be had."""
    if not max_processes:
        return None, False
    if memory_cgroup and os.path.exists(os.path.join(memory_cgroup, "pids.max")):
        try:
            memory._write(os.path.join(memory_cgroup, "pids.max"), str(max_processes))
            return memory_cgroup, False
        except OSError:
            pass
    parent = _pids_parent()
    if parent is None:
        return None, False
    memory._remove_stale(parent)  # ours, emptied by a worker killed with its audit
    path = os.path.join(parent, f"{memory._NAME}pids-{_random.token_hex(8)}")
    try:
        os.mkdir(path, 0o755)
        memory._write(os.path.join(path, "pids.max"), str(max_processes))
    except OSError:
        memory.release(("cgroup", path))
        return None, False
    return path, True


@dataclass
class WorkerLimits:
    """One worker's bounds, made by the parent (``for_worker``) and entered by the worker
    (``join``, then ``enter``). Holds no secret: it is handed to the worker."""

    file_mb: int | None = FILE_MB
    max_processes: int | None = MAX_PROCESSES
    pids: str | None = None  # the cgroup whose pids.max bounds the tree
    owned: bool = False  # the pids cgroup was made for this worker (removed with it)
    filtered: bool = True  # seccomp (every level but none)

    @classmethod
    def for_worker(
        cls, file_mb: int | None, max_processes: int | None, isolation: str, tree: bool, memory_cgroup: str | None
    ) -> WorkerLimits:
        """``tree``: the job runs the verifier (its calls may fork: ``pool.Lane.tree_memory``);
        only such a worker is bounded here. The audit's own jobs (the oracle, building a
        SQL domain's fixtures, which may write a database of gigabytes) are trusted code."""
        if not tree:
            return cls(None, None, None, False, False)
        pids, owned = provision_pids(max_processes, memory_cgroup) if isolation != "none" else (None, False)
        return cls(file_mb, max_processes, pids, owned, isolation != "none")

    # ------------------------------------------------------------------ in the worker

    def join(self) -> None:
        """Before the lockdown (the cgroup's files are reached through the host's mounts):
        move this process into the pids cgroup; nothing of it stays open."""
        if self.pids:
            memory._write(os.path.join(self.pids, "cgroup.procs"), "0")

    def enter(self, job) -> None:
        """Before the verifier is imported: the file size limit, the process bound where no
        cgroup gives one, the seccomp filter, the job's environment."""
        if self.file_mb:
            limit = self.file_mb * 2**20
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails (EFBIG), the call errs
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        if self.max_processes and not self.pids and os.getuid() >= UID_RANGE[0]:
            try:  # counts this uid's processes: only where the worker is a uid of its own
                resource.setrlimit(resource.RLIMIT_NPROC, (self.max_processes, self.max_processes))
            except (ValueError, OSError):
                pass
        if self.filtered and seccomp.supported() and not seccomp.deny_new_kernel_surfaces():
            raise OSError("the seccomp filter (io_uring, user namespaces) could not be installed")
        if getattr(job, "env_names", None) is not None:  # a forked worker has the audit's: trim it
            kept = job_environment(job)
            os.environ.clear()
            os.environ.update(kept)

    # ------------------------------------------------------------------ in the parent

    def explain(self, error: str | None, secrets: list[str]) -> str | None:
        """A call's error as stored and shown: secrets masked, and the limit it hit said
        after it (the exception's type stays first: the report counts errors by it). A
        refused fork or thread (EAGAIN) is the process limit's when the worker's cgroup has
        refused one: the count alone cannot say which call it was, the worker runs the next
        call of its chunk before the parent reads this one's result."""
        if error is None:
            return None
        error = mask(error, secrets)
        if self.file_mb and (_EFBIG in error or "SIGXFSZ" in error) and FILE_LIMIT_WORDS not in error:
            # No number: a code-domain call may have hit its sandbox run's own limit (16 MiB).
            error = f"{error} ({FILE_LIMIT_WORDS})"
        if (
            any(words in error for words in _REFUSED_FORK)
            and PROCESS_LIMIT_WORDS not in error
            and self._forks_refused()
        ):
            error = f"{error} ({PROCESS_LIMIT_WORDS}: {self.max_processes} processes and threads per worker)"
        return error

    def _forks_refused(self) -> int:
        """How many forks the kernel refused in this worker's cgroup at pids.max (v1 and v2
        count them in pids.events)."""
        if not self.pids:
            return 0
        try:
            with open(os.path.join(self.pids, "pids.events")) as fh:
                return sum(int(line.split()[1]) for line in fh if line.split()[:1] == ["max"])
        except (OSError, ValueError, IndexError):
            return 0

    def release(self) -> None:
        if self.owned and self.pids:
            memory.release(("cgroup", self.pids))
        self.pids, self.owned = None, False


# --------------------------------------------------------------------------- work directories


def ledger_dir() -> Path:
    return default_cache_dir() / "workdirs"


def _start_time(pid: int) -> str | None:
    """The start time of process ``pid`` (clock ticks since boot), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rpartition(b")")[2].split()[19].decode()
    except (OSError, IndexError):
        return None


_swept: int | None = None  # the pid that swept (a forked child sweeps again, for itself)


def make_workdir() -> str:
    """A fresh work directory for a worker, written in this process's ledger first."""
    global _swept
    if _swept != os.getpid():
        _swept = os.getpid()
        sweep_stale_workdirs()
        atexit.register(_forget, os.getpid())
    path = tempfile.mkdtemp()
    try:
        folder = ledger_dir()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        entry = folder / str(os.getpid())
        fd = os.open(entry, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            if os.fstat(fd).st_size == 0:
                os.write(fd, f"start {_start_time(os.getpid())}\n".encode())
            os.write(fd, (path + "\n").encode())
        finally:
            os.close(fd)
    except OSError:
        pass  # no ledger (a read-only home): the directory is still removed with its worker
    return path


def _forget(pid: int) -> None:
    """At a normal exit: the workers removed their directories; the ledger file goes."""
    if os.getpid() == pid:
        try:
            (ledger_dir() / str(pid)).unlink()
        except OSError:
            pass


def sweep_stale_workdirs() -> list[str]:
    """Remove the work directories of every ledger entry whose audit process is gone (its
    pid not running, or running with another start time); returns those removed."""
    removed: list[str] = []
    try:
        entries = list(ledger_dir().iterdir())
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            lines = entry.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        started = lines[0].partition(" ")[2] if lines and lines[0].startswith("start ") else None
        if started is not None and _start_time(int(entry.name)) == started:
            continue  # that audit is still running
        for line in lines[1:]:
            if _removable(line):
                shutil.rmtree(line, ignore_errors=True)
                removed.append(line)
        try:
            entry.unlink()
        except OSError:
            pass
    return removed


def _removable(path: str) -> bool:
    """A directory the ledger may name: absolute, of mkdtemp's default name, not a link (the
    ledger is the audit user's alone; this only keeps a damaged line from doing harm)."""
    import stat

    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (
        os.path.isabs(path) and os.path.basename(path).startswith(tempfile.gettempprefix()) and stat.S_ISDIR(st.st_mode)
    )
