"""Work on big files split into chunks of whole lines, one per idle core, in forked
processes (which see the file's bytes without copying them through a pipe). Where fork is
not available, or the file is small, the chunks run here one after the other.

``_map_chunks`` looks ``PARALLEL_MIN_BYTES`` and ``_idle_cores`` up in this module at each
call, so the tests and the benchmark change them here."""

from __future__ import annotations

import os

PARALLEL_MIN_BYTES = 32 << 20
# The file's bytes while workers run: set before the fork, so each worker inherits them.
_SHARED: list = []


def _chunk_bounds(data: bytes, n: int, offset: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    end = len(data) if end is None else end
    size = end - offset
    bounds, start = [], offset
    for i in range(1, n):
        cut = data.find(b"\n", offset + size * i // n, end)
        if cut < 0 or cut + 1 <= start:
            continue
        bounds.append((start, cut + 1))
        start = cut + 1
    bounds.append((start, end))
    return [b for b in bounds if b[1] > b[0]]


def _idle_cores() -> int:
    """Cores this process may use that others do not keep busy (the 1-minute load average,
    less the one this process is itself using), at most 8."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        busy = 0.0
    return max(1, min(8, cores, int(cores - max(0.0, busy - 1.0) + 0.5)))


def _run_shared(args):
    fn, start, end, extra = args
    return fn(_SHARED[0], start, end, extra)


def _map_chunks(fn, data: bytes, extra, offset: int = 0, end: int | None = None) -> list | None:
    """fn(data, start, end, extra) over chunks of whole lines of data[offset:end], results
    in file order."""
    cores = _idle_cores()
    one = _chunk_bounds(data, 1, offset, end)
    if len(data) < PARALLEL_MIN_BYTES or cores < 2:
        return [fn(data, s, e, extra) for s, e in one]
    import multiprocessing as mp

    try:
        ctx = mp.get_context("fork")
    except ValueError:
        return [fn(data, s, e, extra) for s, e in one]
    bounds = _chunk_bounds(data, cores, offset, end)
    _SHARED[:] = [data]
    try:
        with ctx.Pool(len(bounds)) as pool:
            return pool.map(_run_shared, [(fn, s, e, extra) for s, e in bounds])
    except Exception:  # noqa: BLE001 - workers that cannot start or die: do the work here
        return [fn(data, s, e, extra) for s, e in one]
    finally:
        _SHARED.clear()
