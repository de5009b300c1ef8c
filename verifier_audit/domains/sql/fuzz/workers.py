"""Pool building and distillation in worker processes, when there is enough work."""

from __future__ import annotations

import os
from pathlib import Path

from .distil import distil_task
from .plan import Plan
from .pool import SchemaPool

PARALLEL_FROM = 12  # fewer tasks than this to distil: no worker processes


class PoolJob:
    """Builds pool databases in worker processes (item = index into ``work``)."""

    def __init__(self, work: list[tuple[SchemaPool, int]]):
        self.work = work

    def setup(self) -> None:
        pass

    def __call__(self, item: int) -> str:
        pool, index = self.work[item]
        return str(pool.build(index))


class DistilJob:
    def __init__(self, plans: list[Plan], pools: dict[str, SchemaPool], root: Path, seed: int):
        self.plans, self.pools, self.root, self.seed = plans, pools, root, seed

    def setup(self) -> None:
        pass

    def __call__(self, item: int) -> dict:
        plan = self.plans[item]
        result = distil_task(
            plan.task, plan.base, self.pools[plan.schema.name], self.root / "fallback" / plan.key, self.seed
        )
        return {
            "databases": [os.path.relpath(p, self.root) for p in result.databases],
            "neighbours": result.neighbours,
            "unseparated": result.unseparated,
            "from_pool": result.from_pool,
            "from_fallback": result.from_fallback,
            "error": result.error,
        }


def run_parallel(job, n: int, workers: int) -> list:
    """Results of job(0..n-1), in worker processes when there is enough work."""
    if n < PARALLEL_FROM or workers <= 1:
        return [job(i) for i in range(n)]
    from ....engine import pool as engine_pool

    out: list = [None] * n
    for outcome in engine_pool.run(job, range(n), workers=workers, timeout=300, memory_mb=None, chunk=4):
        out[outcome.index] = outcome.value if outcome.ok else None
    for i in range(n):  # a worker that crashed: redo here rather than lose the task
        if out[i] is None:
            out[i] = job(i)
    return out


def default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))
