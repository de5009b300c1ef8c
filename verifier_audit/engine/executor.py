"""Where the calls of a job run: the one dispatch point between the front ends and the
executors, so that the audit, the oracle labelling and ``score``/``compare`` do not care.

``local`` (the default) is the worker pool of this machine (engine/pool.py); ``ray`` runs
the same pool on the nodes of a Ray cluster (engine/ray_executor.py, docs/ray.md). Both
yield one ``pool.Outcome`` per item whatever the calls do; the executor changes no verdict,
so it is not part of the results file's fingerprint and ``--resume`` works across them.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from typing import Any

from ..argtypes import EXECUTORS
from . import pool


def check_executor(executor: str) -> str:
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, not {executor!r}")
    return executor


def run_calls(
    job: Any, items: Iterable[int], *, executor: str = "local", ray_address: str | None = None, **pool_kwargs
) -> Generator[pool.Outcome, None, None]:
    """``pool.run(job, items, **pool_kwargs)`` on the chosen executor. With ``ray``, the
    calls run on every CPU of the cluster: ``workers`` (sized for this machine) is not
    passed on, but for ``bounded`` jobs (calls to a server: ``--workers`` is the load it
    takes); every other setting is the local pool's, on each node."""
    if check_executor(executor) == "local":
        return pool.run(job, items, **pool_kwargs)
    from . import ray_executor

    if not pool_kwargs.get("bounded"):
        pool_kwargs.pop("workers", None)
    pool_kwargs.pop("chunk", None)  # the local pool's message size; a Ray task's chunk is its own
    return ray_executor.run(job, items, address=ray_address, **pool_kwargs)


def run_lanes(
    lanes: Sequence[pool.Lane], *, executor: str = "local", ray_address: str | None = None, **pool_kwargs
) -> Generator[tuple[int, pool.Outcome], None, None]:
    """``pool.run_lanes(lanes, **pool_kwargs)`` on the chosen executor: (lane, Outcome) for
    every item. On Ray the lanes run one after another, each on the whole cluster."""
    if check_executor(executor) == "local":
        yield from pool.run_lanes(list(lanes), **pool_kwargs)
        return
    for k, lane in enumerate(lanes):
        for out in run_calls(
            lane.job,
            lane.items,
            executor=executor,
            ray_address=ray_address,
            clean=lane.clean,
            isolation=lane.isolation,
            tree_memory=lane.tree_memory,
            bounded=lane.bounded,
            **pool_kwargs,
        ):
            yield k, out
