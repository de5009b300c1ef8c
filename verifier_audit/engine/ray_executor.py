"""``--executor ray``: an audit's calls (the oracle's, the verifier's) on a Ray cluster, with
the local pool's contract (docs/ray.md).

``run`` has the signature and the contract of ``pool.run``: it yields one ``pool.Outcome`` per
item, whatever the calls do. It does not reimplement the pool: each Ray task takes a chunk
of item indices and runs them through the *local* ``pool.run(job, chunk, workers=1, ...)``
on its node. So the hard per-call timeout, a crash or a memory limit becoming an error
outcome, the verifier's own main thread, the worker's isolation (PID namespace, lockdown,
process-tree memory bound) and the code domain's sandbox are exactly the local pool's, on
every node. What Ray adds is where the chunks run, and one more way to fail: a node (or the
Ray worker process running a chunk) can die. The driver handles that here.

How a chunk travels and reports:

- The job (candidate texts, task views, the verifier spec) is put in the object store once
  (``ray.put``: cloudpickle) and each task reads it from there, unpickled once per Ray
  worker process (cached by its object id). For ``clean`` jobs the local pool on the node
  starts its worker from a clean forkserver, as it does locally.
- A task is a Ray *streaming generator*: it runs the local pool in a helper thread and sends
  what completed back every ``FLUSH`` seconds (a batch: one Ray object per verdict would
  cost more than a fast verifier's call), so verdicts reach the driver, and the results
  file, while the chunk runs, not when it ends. A batch is JSON text the driver checks
  field by field (plain data, as the local pool's pipe carries).
- The driver keeps as many chunks in flight as the cluster has CPUs (re-read every few
  seconds, so nodes joining or leaving are followed; ``workers`` given caps it), each task
  asking Ray for one CPU, and yields outcomes as batches arrive. An index is yielded once:
  a batch that repeats one (a resubmitted chunk's) is dropped.
- Chunks are sized to about ``CHUNK_SECONDS`` of calls by their mean duration so far
  (``FIRST_CHUNK`` items before any is known, ``chunk`` at most, the queue shared evenly
  among the slots at the end): each chunk pays for a local pool's start on its node, and a
  long one leaves the other nodes idle at the end.
- ``start`` (called by the front ends before the candidates' preparation) connects, fails
  at once on an address where nothing answers, and warms one Ray worker per CPU: Ray
  starts worker processes per driver, and each imports the domains and starts its clean
  server; this way that overlaps the preparation.
- A task that dies of a system failure (``NodeDiedError``, ``WorkerCrashedError``,
  ``ObjectLostError``, Ray's own out-of-memory kill, ...) is resubmitted by the driver with
  the indices it had not reported yet: nothing done is redone, nothing is lost. Ray's own
  task retry is off for these tasks (``max_retries=0``): Ray replays a streaming generator
  from its start and checks that it yields the same objects, while a chunk's batches depend
  on timing. The index the dead task was running (its first unreported one: the local pool
  with one worker runs a chunk in order) is charged for the failure; after
  ``MAX_ATTEMPTS`` failures it becomes a ``crash`` outcome instead of being resubmitted
  again, so a call that kills its node every time cannot stall the audit.
- An error raised by the local pool on the node (``PoolError``: the verifier's setup
  failed, the isolation level cannot be set up there) is raised on the driver as the same
  ``PoolError``, as the local pool raises it.

``on_wait`` is called at least twice a second with, per chunk in flight, when its current
call began as far as the driver can tell (the chunk's submission or its last batch).
"""

from __future__ import annotations

import json
import logging
import math
import os
import queue
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..isolation import FILE_MB, MAX_PROCESSES
from . import pool
from .pool import Outcome, PoolError

MISSING_RAY = "--executor ray needs Ray: pip install 'verifier-audit[ray]'"

FLUSH = 0.1  # seconds: a chunk sends what completed at most this long after it completed
MAX_BATCH = 512  # outcomes per batch at most (a very fast verifier)
MAX_ATTEMPTS = 3  # system failures charged to one call before it is a crash outcome
RESIZE_EVERY = 5.0  # seconds between reads of the cluster's CPU count
DEFAULT_CHUNK = 2048  # items per Ray task at most
# Seconds of calls a chunk is sized to, once the calls' mean duration is known: each task
# starts a local pool of its own (a worker from the clean server, its PID namespace and
# lockdown, canaries, the verifier's import: 0.2 s on a quiet 2-core machine, more when
# loaded), so short chunks pay that often, and long ones leave nodes idle at the end.
CHUNK_SECONDS = 4.0
FIRST_CHUNK = 16  # items per chunk until the first outcomes tell how long a call takes


class RayMissingError(InputError):
    """``--executor ray`` where Ray is not installed."""


def import_ray():
    """The ``ray`` module, or a RayMissingError that says how to install it."""
    try:
        import ray
    except ImportError:
        raise RayMissingError(MISSING_RAY) from None
    return ray


_REMOTE: dict[str, Any] = {}  # the chunk task as a Ray remote function; the job whose workers were warmed


def connect(address: str | None = None):
    """Connect this process to a Ray cluster once (later calls reuse the connection) and
    return the ``ray`` module. ``address`` None: as ``ray.init()`` resolves it (RAY_ADDRESS,
    else a cluster started on this machine, else a new local one); "auto": an existing
    cluster or an error; "host:port": that cluster. A process already connected (a user's
    own Ray driver) keeps its connection, whatever ``address`` says."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    _check_reachable(address)
    try:
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False, configure_logging=True)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = f"--ray-address {address}" if address else "ray.init() (RAY_ADDRESS, else a local cluster)"
        raise InputError(
            f"{where}: cannot connect to a Ray cluster ({type(exc).__name__}: {exc}); start one with "
            "`ray start --head` (docs/ray.md)"
        ) from None
    return ray


def _check_reachable(address: str | None) -> None:
    """A HOST:PORT (given, or in RAY_ADDRESS) where nothing answers is an InputError now:
    ``ray.init`` would retry it for minutes. Ray Client addresses (ray://) are refused:
    the executor is tested as a driver on a node of the cluster."""
    target = address or os.environ.get("RAY_ADDRESS") or ""
    where = f"--ray-address {address}" if address else f"RAY_ADDRESS={target}"
    if target.startswith("ray://"):
        raise InputError(
            f"{where}: Ray Client addresses are not supported; run the audit on a node of the "
            "cluster with --ray-address auto, or give the head's HOST:PORT (docs/ray.md)"
        )
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit() or target in ("auto", "local"):
        return  # auto, local, None: ray.init's own answer is quick
    import socket

    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as exc:
        raise InputError(
            f"{where}: no Ray cluster answers there ({exc.strerror or exc}); start one with "
            "`ray start --head --port PORT` on the head node (docs/ray.md)"
        ) from None


def start(address: str | None = None) -> None:
    """Connect now and warm one Ray worker per CPU of the cluster in the background: the
    imports (sympy, DuckDB, sqlglot) and the clean server a chunk's local pool needs, so
    that they overlap the candidates' preparation on this machine, as ``pool.warm_clean_server``
    does locally. A wrong address is an InputError here, before the preparation."""
    ray = connect(address)
    job = ray.get_runtime_context().get_job_id()
    if _REMOTE.get("warmed") == job:
        return
    _REMOTE["warmed"] = job
    warm = ray.remote(_warm_worker).options(num_cpus=1, max_retries=0)
    for _ in range(max(1, _cluster_cpus(ray))):
        warm.remote()  # fire and forget: a failure only leaves that worker cold


def _warm_worker() -> None:
    _warm()
    pool.warm_clean_server()


# --- on the node -------------------------------------------------------------------------

_JOBS: dict[str, Any] = {}  # object id -> the job, unpickled once per Ray worker process


def _job_from(box: list) -> Any:
    import ray

    key = box[0].hex()
    if key not in _JOBS:
        _JOBS.clear()  # one audit's job at a time: the previous one's candidates can go
        _JOBS[key] = ray.get(box[0])
    return _JOBS[key]


def _warm() -> None:
    """Before the local pool forks this Ray worker (jobs that are not ``clean``): import
    what the clean server preloads (the domains' reference verifiers: sympy, DuckDB,
    sqlglot), as the audit's own process has when its pool forks. Otherwise every chunk's
    fresh worker would import them again (about a second for sympy alone). Trusted code
    only; once per Ray worker process."""
    import importlib

    importlib.import_module("verifier_audit.engine.clean_preload")


class _Stop(Exception):
    pass


def _chunk(box: list, indices: list[int], settings: dict, driver: dict):
    """Run ``indices`` of the job in ``box`` through the local pool with one worker and
    yield JSON batches of outcomes: [[index, ok, value, error, error_kind, seconds,
    security], ...]. ``box``: [the job's ObjectRef] (in a list, so Ray leaves it a ref)."""
    results: queue.Queue = queue.Queue()
    stop = threading.Event()

    def check_stop(_started) -> None:  # the pool's on_wait: at least twice a second
        if stop.is_set():
            raise _Stop()

    def work() -> None:
        try:
            with _driver_context(driver):
                job = _job_from(box)  # here: its classes may live in the driver's project
                if not settings.get("clean"):
                    _warm()
                for out in pool.run(job, indices, workers=1, on_wait=check_stop, **settings):
                    results.put(
                        [out.index, out.ok, out.value, out.error, out.error_kind, out.seconds, list(out.security)]
                    )
                    if stop.is_set():
                        break
        except _Stop:
            pass
        except BaseException as exc:  # noqa: BLE001 - handed to the generator, which raises it
            results.put(exc)
        finally:
            results.put(None)

    # The pool runs in a helper thread so that this generator can send what completed on a
    # clock, not only when the next call completes. The calls themselves still run in the
    # main thread of their own worker process (a fork or a clean forkserver child).
    thread = threading.Thread(target=work, name="verifier-audit-chunk", daemon=True)
    thread.start()
    try:
        batch: list = []
        finished = False
        while not finished:
            deadline = time.monotonic() + FLUSH
            while len(batch) < MAX_BATCH:
                try:
                    item = results.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if item is None:
                    finished = True
                    break
                if isinstance(item, BaseException):
                    if batch:
                        yield json.dumps(batch, ensure_ascii=True)
                    raise item
                batch.append(item)
            if batch:
                yield json.dumps(batch, ensure_ascii=True)
                batch = []
    finally:
        stop.set()  # cancelled, or the driver went away: the pool stops its worker
        thread.join(timeout=30)


class _driver_context:
    """The driver's working directory and import path, where this node has them, while the
    job is unpickled and the local pool starts its worker: a verifier named by a relative
    path, or a module of the user's project, is found as it is on the driver (same paths on
    every node, or a shared file system; docs/ray.md). Ray reuses its worker processes, so
    both are put back."""

    def __init__(self, driver: dict):
        self.driver = driver

    def __enter__(self):
        self.cwd, self.path = os.getcwd(), list(sys.path)
        cwd = self.driver.get("cwd")
        if cwd and os.path.isdir(cwd):
            os.chdir(cwd)
        # After the node's own entries: the node's Ray and packages are never shadowed by a
        # same-named path of the driver's; what only the driver had (its project) is added.
        sys.path.extend(p for p in self.driver.get("path", []) if p not in self.path and (p == "" or os.path.isdir(p)))
        return self

    def __exit__(self, *exc):
        sys.path[:] = self.path
        try:
            os.chdir(self.cwd)
        except OSError:
            pass
        return False


# --- on the driver -----------------------------------------------------------------------


@dataclass
class _InFlight:
    indices: list[int]  # the chunk, in the order its local pool runs it
    active: float  # when its current call began, as seen from here (submission, last batch)
    reported: set[int] = field(default_factory=set)

    def unreported(self, seen: set[int]) -> list[int]:
        return [i for i in self.indices if i not in self.reported and i not in seen]


def _system_errors(ray) -> tuple:
    """Failures of the cluster, not of the call or of our code: the chunk is resubmitted."""
    E = ray.exceptions
    names = (
        "NodeDiedError",
        "WorkerCrashedError",
        "ObjectLostError",
        "OutOfMemoryError",
        "LocalRayletDiedError",
        "RaySystemError",
        "ObjectFetchTimedOutError",
        "ObjectReconstructionFailedError",
        "OwnerDiedError",
    )
    return tuple(getattr(E, n) for n in names if hasattr(E, n))


def _parse_batch(raw: Any, expected: set[int]) -> list[Outcome]:
    """A task's batch, checked: JSON of rows [index, ok, value, error, error_kind, seconds,
    security] for indices of its chunk. Anything else is a bug or a tampered node: an error."""
    rows = json.loads(raw) if isinstance(raw, (str, bytes)) else None
    if not isinstance(rows, list):
        raise PoolError("a Ray task sent a batch that is not a JSON list")
    outs = []
    for row in rows:
        if not (
            isinstance(row, list)
            and len(row) == 7
            and type(row[0]) is int
            and row[0] in expected
            and isinstance(row[1], bool)
            and (row[3] is None or isinstance(row[3], str))
            and row[4] in (None, "timeout", "crash", "exception")
            and isinstance(row[5], (int, float))
            and isinstance(row[6], list)
            and all(isinstance(s, str) for s in row[6])
        ):
            raise PoolError(f"a Ray task sent a malformed outcome: {str(row)[:200]}")
        outs.append(Outcome(row[0], row[1], row[2], row[3], row[4], float(row[5]), row[6]))
    return outs


def _cluster_cpus(ray) -> int:
    """The CPUs of the cluster's live nodes (0: none; -1: the cluster did not answer)."""
    try:
        return int(ray.cluster_resources().get("CPU", 0))
    except Exception:  # noqa: BLE001 - the GCS busy or reconnecting: keep going as before
        return -1


def run(
    job: pool.Job,
    items: Iterable[int],
    *,
    workers: int | None = None,
    timeout: float = 10.0,
    memory_mb: int | None = 4096,
    chunk: int = DEFAULT_CHUNK,
    quiet: bool = True,
    setup_timeout: float = 120.0,
    on_restart: Callable[[str], None] | None = None,
    on_wait: Callable[[list[float]], None] | None = None,
    clean: bool = False,
    isolation: str = "process",
    tree_memory: bool = False,
    bounded: bool = False,
    address: str | None = None,
    file_mb: int | None = FILE_MB,
    max_processes: int | None = MAX_PROCESSES,
) -> Generator[Outcome, None, None]:
    """Yield an Outcome for every item (in completion order), whatever the calls do, running
    them on a Ray cluster (``address``: as ``connect``). As ``pool.run``, except:
    ``workers``: chunks in flight at most (None: the cluster's CPUs, followed as nodes join
    and leave); ``chunk``: items per Ray task at most (each starts a local pool of one
    worker on its node, with ``timeout``, ``memory_mb``, ``quiet``, ``setup_timeout``,
    ``clean``, ``isolation``, ``tree_memory`` and ``bounded`` as given); ``on_restart`` is called with
    the reason when a chunk is resubmitted after a node or Ray worker died. Items are
    distinct indices (a repeated one is run once)."""
    pending: deque[int] = deque(dict.fromkeys(items))
    total = len(pending)
    if total == 0:
        return
    ray = connect(address)
    system_errors = _system_errors(ray)
    settings = dict(
        timeout=timeout,
        memory_mb=memory_mb,
        quiet=quiet,
        setup_timeout=setup_timeout,
        clean=clean,
        isolation=isolation,
        tree_memory=tree_memory,
        bounded=bounded,
        file_mb=file_mb,
        max_processes=max_processes,
    )
    driver = {"cwd": os.getcwd(), "path": list(sys.path)}
    box = [ray.put(job)]
    task = _remote(ray)
    flying: dict[Any, _InFlight] = {}
    seen: set[int] = set()
    charged: Counter = Counter()  # index -> system failures while it was the one running
    slots, resized = (workers or max(1, _cluster_cpus(ray))), time.monotonic()
    no_cpu_since: float | None = None  # since when the cluster has had no CPU
    spent = [0.0, 0]  # seconds of the calls done so far, and how many

    def submit() -> None:
        # The queue shared evenly among the slots, at most ``chunk``, and about
        # CHUNK_SECONDS of calls by their mean duration so far (FIRST_CHUNK before any).
        size = min(chunk, math.ceil(len(pending) / max(1, slots)))
        if spent[1]:
            size = min(size, max(1, int(CHUNK_SECONDS / max(spent[0] / spent[1], 1e-6))))
        else:
            size = min(size, FIRST_CHUNK)
        batch = [pending.popleft() for _ in range(max(1, min(size, len(pending))))]
        flying[task.remote(box, batch, settings, driver)] = _InFlight(batch, time.monotonic())

    try:
        while len(seen) < total:
            if time.monotonic() - resized > RESIZE_EVERY:
                cpus, resized = _cluster_cpus(ray), time.monotonic()
                if workers is None and cpus > 0:
                    slots = cpus
                no_cpu_since = (no_cpu_since or resized) if cpus == 0 else None
                if no_cpu_since is not None and resized - no_cpu_since > setup_timeout:
                    raise PoolError(
                        f"the Ray cluster has had no CPU for {setup_timeout:g}s (its worker nodes died "
                        "or left?): nothing can run the calls"
                    )
            while pending and len(flying) < slots:
                submit()
            if on_wait is not None:
                on_wait([f.active for f in flying.values()])
            ready, _ = ray.wait(list(flying), num_returns=1, timeout=0.5 if on_wait is not None else 1.0)
            dead: list[tuple[_InFlight, str]] = []  # chunks whose task died, and why
            for gen in ready:
                f = flying[gen]
                try:
                    raw = ray.get(next(gen))
                except StopIteration:
                    del flying[gen]
                    if f.unreported(seen):  # ended without a word on some (should not happen): as if it died
                        dead.append((f, "the Ray task ended without reporting every call"))
                    continue
                except Exception as exc:  # noqa: BLE001 - sorted below
                    failure = _system_failure(exc, system_errors)
                    if failure is None:
                        del flying[gen]
                        cause = getattr(exc, "cause", None)
                        if isinstance(cause, PoolError):  # raised by the local pool on the node
                            raise PoolError(str(cause)) from None
                        raise
                    del flying[gen]
                    dead.append((f, failure))
                    if isinstance(exc, ray.exceptions.ObjectLostError) or isinstance(
                        getattr(exc, "cause", None), ray.exceptions.ObjectLostError
                    ):
                        box[0] = ray.put(job)  # the job's copy may be what was lost
                    continue
                for out in _parse_batch(raw, set(f.indices)):
                    f.reported.add(out.index)
                    if out.index in seen:
                        continue  # a resubmitted chunk's repeat: one verdict per index
                    seen.add(out.index)
                    spent[0] += out.seconds
                    spent[1] += 1
                    yield out
                f.active = time.monotonic()
            # A dead task's chunk is resubmitted (its unreported indices, first in the
            # queue); the call it was running is charged, and is a crash after MAX_ATTEMPTS.
            for f, reason in dead:
                left = f.unreported(seen)
                if not left:
                    continue
                charged[left[0]] += 1
                if charged[left[0]] >= MAX_ATTEMPTS:
                    index = left.pop(0)
                    seen.add(index)
                    yield Outcome(
                        index,
                        False,
                        error=f"crash: the Ray task running it died {MAX_ATTEMPTS} times ({reason})",
                        error_kind="crash",
                        seconds=time.monotonic() - f.active,
                    )
                pending.extendleft(reversed(left))
                if on_restart is not None:
                    on_restart(f"ray: {reason}")
    finally:
        for gen in flying:
            try:
                ray.cancel(gen)
            except Exception:  # noqa: BLE001 - already finished, or its node gone
                pass


def _remote(ray):
    """The chunk task, made a Ray remote function once per process."""
    if "chunk" not in _REMOTE:
        _REMOTE["chunk"] = ray.remote(_chunk).options(num_cpus=1, num_returns="streaming", max_retries=0)
    return _REMOTE["chunk"]


def _system_failure(exc: BaseException, system_errors: tuple) -> str | None:
    """Why the task died, when ``exc`` is a failure of the cluster (resubmit its chunk);
    None for an error of the task itself."""
    cause = getattr(exc, "cause", None)  # RayTaskError wraps what the task raised
    for e in (exc, cause):
        if isinstance(e, system_errors):
            first = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
            return f"{type(e).__name__}: {first}" if first else type(e).__name__
    return None
