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

``run_lanes`` runs several jobs (an audit's verifiers) as lanes of one schedule: each lane
has workers of its own (two verifiers never share a process), the next lane starts when
the one before has handed out its last chunk, so its tail of slow calls overlaps the next
lane's work instead of leaving cores idle, and one budget bounds the ordinary calls in
flight across lanes. What runs inside a worker is worker_main.py; the clean server the
verifiers' workers start from is clean_server.py.
"""

from __future__ import annotations

import atexit
import json
import multiprocessing as mp
import os
import shutil
import signal
import time
import weakref
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any, Protocol

from ..environment import mask
from ..isolation import FILE_MB, MAX_PROCESSES, Witness, WorkerLimits, make_workdir, secrets_of
from .clean_server import CleanStart, clean_context, warm_clean_server, without_main_module
from .worker_main import MAX_MESSAGE, _guard_processes, worker_main  # noqa: F401 - the tests reach the guard here

__all__ = [
    "RETIRING",
    "Job",
    "Lane",
    "Outcome",
    "PoolError",
    "SLOW_AFTER",
    "TREE_TICK",
    "run",
    "run_lanes",
    "warm_clean_server",
]


class Job(Protocol):
    def setup(self) -> None:
        """Runs once in each fresh worker (imports the verifier, warms caches)."""

    def __call__(self, item: int, /) -> Any:
        """Runs one call; its return value is sent back to the parent (must pickle). The
        item is passed by position, so a job may name it as it likes (``index``)."""

    # Optional: ``after(item) -> list[str]`` runs after every call, ok or not, and returns
    # security findings ("kind:detail") to report with the call's outcome.


#: The findings after which a worker is not trusted with another call: the call changed what
#: later calls in its process pay (engine/persistence.py), or left work running in it
#: (engine/lingering.py). The worker is replaced, and the rest of its chunk goes to a fresh one.
RETIRING = ("persistent_state", "lingering_work")


def retires(outcome: Outcome) -> bool:
    """Whether this outcome's findings retire the worker that made it (``RETIRING``)."""
    return any(entry.partition(":")[0] in RETIRING for entry in outcome.security)


@dataclass
class Lane:
    """One job's calls in ``run_lanes``: its items, and how its workers are made (as
    ``run``'s ``clean``, ``isolation`` and ``tree_memory``)."""

    job: Job
    items: Iterable[int]
    clean: bool = False
    isolation: str = "process"
    tree_memory: bool = False
    # At most ``workers`` of its calls in flight, slow or not, and no spares: for calls to
    # a server (a reward server, an LLM judge), where ``--workers`` is the load it takes.
    bounded: bool = False
    # One call per worker: each call in a process no earlier call ran in (the rescoring
    # after a poisoning, engine/persistence.py; the tests' comparison).
    fresh: bool = False


@dataclass
class Outcome:
    index: int
    ok: bool
    value: Any = None
    error: str | None = None  # "timeout", "crash", or the exception, when not ok
    error_kind: str | None = None  # timeout | crash | exception
    seconds: float = 0.0
    security: list[str] = field(default_factory=list)


class _ProtocolError(Exception):
    pass


def _parse(raw: bytes, expected: int | None, setting_up: bool) -> list:
    """A worker's message, checked: ["ready", null] or ["setup_error", text] while it sets
    up, then only the result of the call the parent is waiting for (``expected``). Anything
    else makes the worker a crash: the verifier can write to the pipe too."""
    try:
        msg = json.loads(raw)
    except ValueError:
        raise _ProtocolError("the worker sent a message that is not JSON") from None
    if setting_up:
        if not (
            isinstance(msg, list)
            and len(msg) == 2
            and msg[0] in ("ready", "setup_error")
            and (msg[0] == "ready" or isinstance(msg[1], str))
        ):
            raise _ProtocolError("the worker sent a malformed message while setting up")
        return msg
    ok_shape = (
        isinstance(msg, list)
        and len(msg) == 6
        and type(msg[0]) is int
        and isinstance(msg[1], bool)
        and (msg[3] is None or isinstance(msg[3], str))
        and isinstance(msg[4], (int, float))
        and isinstance(msg[5], list)
        and all(isinstance(f, str) for f in msg[5])
    )
    if not ok_shape:
        raise _ProtocolError("the worker sent a malformed result")
    if msg[0] != expected:
        raise _ProtocolError(f"the worker sent a result for call {msg[0]} while call {expected} was running")
    return msg


_LIVE: weakref.WeakSet[_Worker] = weakref.WeakSet()
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


def _take_cgroup() -> str | None:
    """A fresh memory cgroup for a worker's tree, or None where none can be made. (Reusing
    the cgroups of ended workers would save ~10 ms each, but a cgroup's limits and counters
    outlive its processes, and other processes' ``provision`` remove empty ones as stale.)"""
    from ..isolation import memory

    kind, path = memory.provision()
    return path if kind == "cgroup" else None


class _Worker:
    def __init__(
        self,
        ctx,
        job,
        memory_mb: int | None,
        quiet: bool,
        clean: bool = False,
        isolation: str = "process",
        tree_memory: bool = False,
        lane: int = 0,
        file_mb: int | None = FILE_MB,
        max_processes: int | None = MAX_PROCESSES,
        tokens_of: Callable[[int], set] | None = None,
    ):
        self.lane = lane  # the index of its job in run_lanes
        # What its calls did, seen from outside the verifier's process (witness.py), asked
        # after each call.
        self.witness = Witness(ctx, tokens_of)
        self.workdir = make_workdir()  # a neutral name, in the ledger a killed audit's next run reads
        self.conn, child = ctx.Pipe()
        # The memory bound of the worker's whole tree (``tree_memory``): a cgroup where one
        # can be made (made here, joined by the worker, removed with it), else the parent's
        # watch (``over_memory``), from what the tree holds when the worker is ready.
        self.cgroup: str | None = None
        self.watch_limit: int | None = None  # bytes, for the parent's watch
        self.tree_limit = memory_mb * 2**20 if tree_memory and memory_mb and isolation != "none" else None
        if self.tree_limit:
            self.cgroup = _take_cgroup()
        self.limits = WorkerLimits.for_worker(file_mb, max_processes, isolation, tree_memory, self.cgroup)
        # Not daemonic: a daemonic process may not start children, and verifiers do (see
        # _guard_processes). The parent still never leaves one behind: stop() and kill()
        # end the worker's whole process group.
        self.proc = ctx.Process(
            target=worker_main,
            daemon=False,
            args=(
                job,
                child,
                memory_mb,
                self.workdir,
                quiet,
                None if clean else os.getpid(),
                isolation,
                self.cgroup,
                self.limits,
                self.witness.child,
            ),
        )
        if clean:
            with without_main_module():
                self.proc.start()
        else:
            self.proc.start()
        _LIVE.add(self)
        child.close()
        self.witness.started()
        self.assigned: deque[int] = deque()
        self.started = 0.0  # when the current call began (as seen by the parent)
        self.ready = False
        self.garbled: str | None = None  # what was wrong with a message it sent
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
        self.witness.close()
        if self.cgroup is not None:
            from ..isolation import memory

            memory.release(("cgroup", self.cgroup))
            self.cgroup = None
        self.limits.release()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def start_watch(self) -> None:
        """Once ready, without a cgroup: the tree may hold what it holds now plus the limit."""
        if self.tree_limit and self.cgroup is None:
            from ..isolation import memory

            self.watch_limit = memory.tree_memory(self.proc.pid) + self.tree_limit

    def over_memory(self) -> int | None:
        """The tree's memory in bytes when it is past the watch's limit, else None."""
        if self.watch_limit is None:
            return None
        from ..isolation import memory

        used = memory.tree_memory(self.proc.pid)
        return used if used > self.watch_limit else None

    def went_over_memory(self) -> bool:
        """Whether the kernel killed a process of this worker's tree at its memory limit."""
        if self.cgroup is None:
            return False
        from ..isolation import oom_kills

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


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "worker died"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class _IdleCores:
    """How many cores the machine left idle lately (idle and iowait of /proc/stat over the
    last ``WINDOW`` seconds; 0 where it cannot be read). Calls that wait (a sleep, a child
    process, a socket) hold a place in the budget without using a core; an idle core says
    so, and the pool may then run one call more without making ordinary calls contend."""

    WINDOW = 0.2

    def __init__(self):
        self._ticks = os.sysconf("SC_CLK_TCK")
        self._last, self._at, self.cores = self._read(), time.monotonic(), 0.0

    @staticmethod
    def _read() -> int | None:
        try:
            with open("/proc/stat", "rb") as fh:
                fields = fh.readline().split()
            return int(fields[4]) + int(fields[5])
        except (OSError, ValueError, IndexError):
            return None

    def sample(self, now: float) -> float:
        if self._last is not None and now - self._at >= self.WINDOW:
            ticks = self._read()
            if ticks is not None:
                self.cores = max(0.0, (ticks - self._last) / self._ticks / (now - self._at))
            self._last, self._at = ticks, now
        return self.cores


def run(
    job: Job,
    items: Iterable[int],
    *,
    clean: bool = False,
    isolation: str = "process",
    tree_memory: bool = False,
    bounded: bool = False,
    **settings,
) -> Generator[Outcome, None, None]:
    """Yield an Outcome for every item (in completion order), whatever the calls do.

    ``clean``: start the workers from a clean server instead of forking this process (the
    job must pickle); for jobs that run the verifier under audit, which must find none of
    the audit's data. ``isolation``: ``none``, ``process`` or ``namespaces``
    (isolation/_lockdown.py); ``tree_memory``: ``memory_mb`` bounds each worker's whole process
    tree too (a cgroup, else an accounted watch from here), for jobs whose calls may fork
    (verifiers); ``bounded``: never more than ``workers`` calls at once (calls to a server:
    ``Lane.bounded``). ``settings``: as ``run_lanes``."""
    lanes = run_lanes([Lane(job, items, clean, isolation, tree_memory, bounded)], **settings)
    try:
        for _, outcome in lanes:
            yield outcome
    finally:
        lanes.close()  # its workers stop now, not when the generator is collected


def run_lanes(
    lanes: list[Lane],
    *,
    workers: int = 2,
    timeout: float = 10.0,
    memory_mb: int | None = 4096,
    chunk: int = 32,
    quiet: bool = True,
    setup_timeout: float = 120.0,
    on_restart: Callable[[str], None] | None = None,
    on_wait: Callable[[list[float]], None] | None = None,
    spare: int | None = None,
    file_mb: int | None = FILE_MB,
    max_processes: int | None = MAX_PROCESSES,
) -> Generator[tuple[int, Outcome], None, None]:
    """Yield (lane, Outcome) for every item of every lane (in completion order), whatever
    the calls do. Lanes start in order: the next one when those before it have handed out
    every item (their last calls still running).

    ``on_wait`` is called before each wait with the start times (time.monotonic) of the
    calls in flight, at least twice a second: a progress bar keeps moving, and knows how
    long the slow calls have run, while no call completes.

    ``spare`` (default: ``workers``): workers a lane may add while calls run past
    ``SLOW_AFTER``. Such a call is most likely a hang that ends on its time limit (a
    catalog loop, a mutant that never leaves its loop), so it stops counting toward the
    ``workers`` calls in flight and a spare worker takes the next chunk: hangs overlap
    instead of holding a core's share of the queue. At most ``workers`` calls under
    ``SLOW_AFTER`` run at once (across lanes), as without spares, so ordinary calls never
    contend more than ``workers`` ways -- one more per core the machine leaves idle while
    they run (they wait, they do not compute: ``_IdleCores``); a slow call that is not a
    hang shares its core with at most one more. Spares stay until their lane has nothing
    left to hand out (a worker's start costs more than a hang). A ``bounded`` lane has
    neither spares nor the idle cores' calls: at most ``workers`` of its calls run.

    ``file_mb``: the largest file a ``tree_memory`` lane's worker (a verifier's) may write;
    ``max_processes``: the tasks its tree may hold (isolation/_limits.py; None: unbounded).
    What the workers send back (errors, findings) is masked of the audit's secrets."""
    queues = [deque(lane.items) for lane in lanes]
    if not any(queues):
        return
    yield from _Schedule(
        lanes,
        queues,
        workers=workers,
        timeout=timeout,
        memory_mb=memory_mb,
        chunk=chunk,
        quiet=quiet,
        setup_timeout=setup_timeout,
        on_restart=on_restart,
        on_wait=on_wait,
        spare=spare,
        file_mb=file_mb,
        max_processes=max_processes,
    ).outcomes()


class _Schedule:
    """One ``run_lanes`` call: its settings and its state (the lanes' queues, the workers,
    the items left), with each step of the loop a method. A class rather than one function
    whose closures share and rebind its locals, so that each step can be read, and named in a
    traceback, on its own. ``outcomes`` is the loop; ``read`` and ``watch``, the steps that
    hand outcomes in, are generators it delegates to (``hand_in`` counts each off ``left``)."""

    def __init__(
        self,
        lanes: list[Lane],
        queues: list[deque],
        *,
        workers: int,
        timeout: float,
        memory_mb: int | None,
        chunk: int,
        quiet: bool,
        setup_timeout: float,
        on_restart: Callable[[str], None] | None,
        on_wait: Callable[[list[float]], None] | None,
        spare: int | None,
        file_mb: int | None,
        max_processes: int | None,
    ):
        self.lanes, self.queues = lanes, queues
        self.left = sum(len(q) for q in queues)  # outcomes not yet handed out
        self.workers = max(1, workers)
        self.spare = self.workers if spare is None else max(0, spare)
        self.timeout, self.memory_mb, self.chunk, self.quiet = timeout, memory_mb, chunk, quiet
        self.setup_timeout, self.on_restart, self.on_wait = setup_timeout, on_restart, on_wait
        self.file_mb, self.max_processes = file_mb, max_processes
        # Workers are forked from this process, except ``clean`` ones (jobs that run the
        # verifier under audit): those start from a clean server and get the job as data.
        self.contexts = [clean_context() if lane.clean else mp.get_context("fork") for lane in lanes]
        self.payloads = [CleanStart(lane.job) if lane.clean else lane.job for lane in lanes]
        self.secrets = secrets_of(lane.job for lane in lanes)
        self.pool: list[_Worker] = []
        self.retired: list[_Worker] = []  # asked to stop (their lane has nothing left): joined at the end
        self.idle = _IdleCores()
        self.started_lanes = 0
        self.next_watch = 0.0  # when the accounted watch looks at the trees next

    def new_worker(self, k: int) -> _Worker:
        lane = self.lanes[k]
        return _Worker(
            self.contexts[k],
            self.payloads[k],
            self.memory_mb,
            self.quiet,
            lane.clean,
            lane.isolation,
            lane.tree_memory,
            k,
            self.file_mb,
            self.max_processes,
            getattr(lane.job, "canary_tokens", None),
        )

    def start_lanes(self) -> None:
        while self.started_lanes < len(self.lanes) and not any(self.queues[: self.started_lanes]):
            k = self.started_lanes
            self.started_lanes += 1
            self.pool.extend(self.new_worker(k) for _ in range(min(self.workers, len(self.queues[k]))))

    def fast_in_flight(self, now: float) -> int:
        # A bounded lane's calls count however long they run: they are requests to a server.
        return sum(1 for w in self.pool if w.assigned and (now - w.started < SLOW_AFTER or self.lanes[w.lane].bounded))

    def budget(self, now: float, k: int) -> int:
        return self.workers if self.lanes[k].bounded else self.workers + int(self.idle.sample(now) + 0.5)

    def dispatch(self, w: _Worker) -> None:
        queue = self.queues[w.lane]
        if not queue or not w.ready or w.assigned:
            return
        now = time.monotonic()
        if len(self.pool) > self.workers and self.fast_in_flight(now) >= self.budget(now, w.lane):
            return  # the budget is full: it waits for a call to end or turn slow
        # Smaller chunks near the end, so one worker is not left with the whole tail.
        size = 1 if self.lanes[w.lane].fresh else max(1, min(self.chunk, len(queue) // self.workers or 1))
        batch = [queue.popleft() for _ in range(min(size, len(queue)))]
        w.assigned.extend(batch)
        w.witness.expect(batch)
        w.started = now
        w.conn.send_bytes(json.dumps(batch).encode())

    def replace(self, w: _Worker, reason: str) -> None:
        self.queues[w.lane].extendleft(reversed(w.assigned))
        w.assigned.clear()
        w.kill()
        self.pool[self.pool.index(w)] = self.new_worker(w.lane)
        if self.on_restart:
            self.on_restart(reason)

    def recycle(self, w: _Worker) -> None:
        """A worker not trusted with another call (``retires``, a ``fresh`` lane): its
        unfinished chunk goes back to the queue, and a fresh worker takes its place while its
        lane has work left."""
        self.queues[w.lane].extendleft(reversed(w.assigned))
        w.assigned.clear()
        w.kill()
        if self.queues[w.lane]:
            self.pool[self.pool.index(w)] = self.new_worker(w.lane)
        else:
            self.pool.remove(w)

    def retire_idle(self) -> None:
        for w in [w for w in self.pool if w.ready and not w.assigned and not self.queues[w.lane]]:
            self.pool.remove(w)
            w.ask_to_stop()
            self.retired.append(w)

    def outcomes(self) -> Iterator[tuple[int, Outcome]]:
        """(lane, Outcome) of every item, in completion order: ``run_lanes``' loop."""
        self.start_lanes()
        try:
            while self.left:
                now = time.monotonic()
                pending = self.hand_out(now)
                ready = self.wait_ready(now, pending)
                for w in list(self.pool):
                    yield from self.read(w, ready)
                yield from self.watch()
                self.start_lanes()
                self.retire_idle()
        finally:
            self.stop()

    def hand_out(self, now: float) -> list[int]:
        """Chunks to the idle workers of the started lanes that have items left (their
        indices, returned), and a spare worker to the first of them when its budget allows."""
        pending = [k for k in range(self.started_lanes) if self.queues[k]]
        if pending:
            # Calls past SLOW_AFTER leave the budget: idle workers take chunks, and a
            # spare starts when none is idle (one at a time: a start costs CPU too).
            for w in list(self.pool):
                self.dispatch(w)
            k = pending[0]
            mine = [w for w in self.pool if w.lane == k]
            if (
                self.spare
                and not self.lanes[k].bounded
                and self.fast_in_flight(now) < self.budget(now, k)
                and len(mine) < self.workers + self.spare
                and all(w.ready and w.assigned for w in mine)
            ):
                self.pool.append(self.new_worker(k))
        return pending

    def wait_ready(self, now: float, pending: list[int]) -> list:
        """Wait for a worker's message, exit or witness report, or the next deadline (a call's
        time limit, a look at the budget or at the trees); what is ready."""
        pool = self.pool
        deadlines = [w.started + self.timeout for w in pool if w.assigned]
        if pending and (self.spare or len(pool) > self.workers) and any(w.assigned for w in pool):
            # Look again when the budget may have room: a call turns slow, a core idles.
            deadlines += [w.started + SLOW_AFTER for w in pool if w.assigned and now - w.started < SLOW_AFTER]
            deadlines.append(now + _IdleCores.WINDOW)
        if any(w.watch_limit is not None and w.assigned for w in pool):
            deadlines.append(self.next_watch)
        wait_for = max(0.0, min(deadlines) - now) if deadlines else 1.0
        if self.on_wait is not None:
            self.on_wait([w.started for w in pool if w.assigned])
            wait_for = min(wait_for, 0.5)
        return wait(
            [w.conn for w in pool] + [w.proc.sentinel for w in pool] + [w.witness.conn for w in pool], timeout=wait_for
        )

    def hand_in(self, w: _Worker, outcome: Outcome, **how) -> Iterator[tuple[int, Outcome]]:
        """The outcomes the witness lets out once it has looked at this one (``Witness.hand_in``
        with ``how``), each counted off ``left``."""
        for out in w.witness.hand_in(outcome, **how):
            self.left -= 1
            yield w.lane, out

    def read(self, w: _Worker, ready: list) -> Iterator[tuple[int, Outcome]]:
        """What this worker sent (ready, setup error, a result) or its death: outcomes."""
        secrets = self.secrets
        dead = False
        if w.witness.conn in ready:  # first: it came while the call in flight ran
            w.witness.news(w.assigned[0] if w.assigned else None)
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
                    w.witness.settle()
                    w.start_watch()
                    self.dispatch(w)
                elif msg[0] == "setup_error":
                    raise PoolError(f"worker setup failed: {mask(msg[1], secrets)}")
                else:
                    index, ok, value, err, seconds, fired = msg
                    w.assigned.popleft()
                    w.started = time.monotonic()
                    outcome = Outcome(
                        index,
                        ok,
                        value,
                        w.limits.explain(err, secrets),
                        None if ok else "exception",
                        seconds,
                        [mask(f, secrets) for f in fired],
                    )
                    if self.lanes[w.lane].fresh or retires(outcome):
                        # Its next call (if any) is rescored elsewhere: what the witness saw is this one's.
                        yield from self.hand_in(w, outcome, idle=True)
                        self.recycle(w)
                        return
                    if w.assigned and w.conn.poll(0):  # its next result is in: one look for both
                        w.witness.hold(outcome)
                    else:
                        yield from self.hand_in(w, outcome, idle=not w.assigned)
                    if not w.assigned:
                        self.dispatch(w)
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
                yield from self.hand_in(
                    w,
                    Outcome(
                        index,
                        False,
                        error=w.limits.explain(f"crash: {reason}", secrets),
                        error_kind="crash",
                        seconds=time.monotonic() - w.started,
                    ),
                )
            self.replace(w, reason)

    def watch(self) -> Iterator[tuple[int, Outcome]]:
        """The limits seen from here: a tree over its memory (the accounted watch, every
        TREE_TICK), a call past its time, a worker that never started."""
        now = time.monotonic()
        watch_now = now >= self.next_watch
        if watch_now:
            self.next_watch = now + TREE_TICK
        for w in list(self.pool):
            used = w.over_memory() if w.assigned and watch_now else None
            if used is not None:
                index = w.assigned.popleft()
                yield from self.hand_in(
                    w,
                    Outcome(
                        index,
                        False,
                        error=f"crash: MemoryError: the process tree "
                        f"went over its memory limit (accounted: {used / 2**20:.0f} "
                        "MiB)",
                        error_kind="crash",
                        seconds=now - w.started,
                    ),
                )
                self.replace(w, "memory")
            elif w.assigned and now - w.started > self.timeout and not _has_news(w):
                index = w.assigned.popleft()
                # The witness is asked before the kill: the worker's tree is still there.
                yield from self.hand_in(
                    w,
                    Outcome(
                        index,
                        False,
                        error=f"timeout after {self.timeout:g}s",
                        error_kind="timeout",
                        seconds=now - w.started,
                    ),
                )
                self.replace(w, "timeout")
            elif not w.ready and now - w.born > self.setup_timeout:
                raise PoolError(f"a worker did not start within {self.setup_timeout:g}s (verifier import hangs?)")

    def stop(self) -> None:
        everyone = self.pool + self.retired
        for w in self.pool:
            w.ask_to_stop()  # all first: the workers' exits (~25 ms each) overlap
        for w in everyone:
            w.stop()
