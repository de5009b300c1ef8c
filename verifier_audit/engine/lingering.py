"""Work a verifier's call leaves running after it returns (docs/grader-behaviour.md, "Lingering
work"), seen from inside its worker.

A thread-based timeout (``func_timeout``, ``thread.join(timeout)``, a ``ThreadPoolExecutor``'s
``result(timeout=...)``) stops waiting, not working: the call returns its 0.0 while the thread
it gave up on computes on. In training such threads pile up in the reward worker until it
stalls. After each call the worker compares the threads (``threading.enumerate``) and child
processes (``/proc/self/task/<tid>/children``) it has with those it had before the call: one the
call started that is still alive, and still using CPU (its own CPU clock, read twice across a
few short joins), is work left running. An idle thread a grader keeps for its next calls (an
executor's worker waiting for work) uses none, and is not counted; work that sleeps is not
seen either.

The finding is ``lingering_work`` on the call that left it, with what was counted (threads,
processes) and the CPU time they had used; the pool then retires the worker
(``pool.RETIRING``), so no later call shares a process with that work.
"""

from __future__ import annotations

import os
import threading
import time

ROUNDS = 5  # joins of a left thread before it counts: a thread ending as the call returns is not work left
ROUND = 0.02  # each join's bound, in seconds: at most ROUNDS * ROUND per call that left a thread alive
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _children() -> set[int]:
    """The pids of this process's live (not zombie) children, from /proc (empty where it is
    not there). Only the Python threads' lists are read (``/proc/self/task/<tid>/children``,
    one file per thread, usually one, with ``os.read``: ~20 us): a child started by a thread of
    a C library (DuckDB's pool) is not seen."""
    pids: set[int] = set()
    for thread in threading.enumerate():
        try:
            fd = os.open(f"/proc/self/task/{thread.native_id}/children", os.O_RDONLY)
        except OSError:
            continue
        try:
            pids.update(int(p) for p in os.read(fd, 1 << 16).split())
        except (OSError, ValueError):
            pass
        finally:
            os.close(fd)
    return {pid for pid in pids if _process_cpu(pid) is not None} if pids else pids


def _process_cpu(pid: int) -> float | None:
    """A process's CPU time so far (user and system, its waited-for children included), in
    seconds; None when it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rpartition(")")[2].split()
    except OSError:
        return None
    if not fields or fields[0] in ("Z", "X"):
        return None
    try:
        return sum(int(f) for f in fields[11:15]) / TICKS
    except (ValueError, IndexError):
        return None


def _thread_cpu(thread: threading.Thread) -> float | None:
    """A thread's own CPU time in seconds (its CPU clock), None when it is gone."""
    if thread.ident is None or not thread.is_alive():
        return None
    try:
        return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
    except (OSError, AttributeError, OverflowError):
        return None


class Leftovers:
    """What one worker's calls leave running: ``before`` a call takes stock, ``after`` it
    returns the ``lingering_work`` finding (or nothing)."""

    def __init__(self) -> None:
        self.threads: set[threading.Thread] = set()
        self.children: set[int] | None = None  # as the last look left them: one read of /proc per call

    def before(self) -> None:
        self.threads = set(threading.enumerate())
        if self.children is None:
            self.children = _children()

    def after(self) -> list[str]:
        threads = [t for t in threading.enumerate() if t not in self.threads and t.is_alive()]
        now = _children()
        children = sorted(now - (self.children or set()))
        self.children = now
        if not threads and not children:
            return []
        working_threads: set[threading.Thread] = set()
        working_children: set[int] = set()
        start: dict[threading.Thread, float | None] = {}
        first: dict[int, float | None] = {}
        for k in range(ROUNDS):
            for t in threads:
                t.join(ROUND / max(1, len(threads)))
            if not threads:
                time.sleep(ROUND)
            if k == 0:  # the first reading after one join: a thread just started has settled (into its wait)
                start = {t: _thread_cpu(t) for t in threads}
                first = {pid: _process_cpu(pid) for pid in children}
                continue
            working_threads = {t for t in threads if _grew(start[t], _thread_cpu(t))}
            working_children = {pid for pid in children if _grew(first[pid], _process_cpu(pid))}
            if not any(t.is_alive() for t in threads) and not any(_process_cpu(p) is not None for p in children):
                return []  # it all ended within the grace: no work left
            if working_threads or working_children:
                break
        if not working_threads and not working_children:
            return []  # alive but idle: a pool's thread waiting for the next call
        used = sum(_thread_cpu(t) or 0.0 for t in working_threads) + sum(
            _process_cpu(p) or 0.0 for p in working_children
        )
        parts = []
        if working_threads:
            n = len(working_threads)
            parts.append(f"{n} thread{'s' if n != 1 else ''}")
        if working_children:
            n = len(working_children)
            parts.append(f"{n} child process{'es' if n != 1 else ''}")
        return [
            f"lingering_work:{' and '.join(parts)} still running after the call returned, "
            f"{used:.3f} s of CPU used so far"
        ]


def _grew(before: float | None, now: float | None) -> bool:
    return before is not None and now is not None and now > before
