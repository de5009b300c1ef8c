"""The whole suite: ``distil_all`` gives every task its base fixture and its distilled
fuzzed databases, from the cache where it can."""

from __future__ import annotations

import os
from pathlib import Path

from ....models import Task
from .. import database as db
from ..integrity import cached_intact
from .cache import pool_key, read_cache, task_key, write_cache
from .constants import collect_constants
from .plan import Plan
from .pool import SchemaPool, base_values
from .workers import DistilJob, PoolJob, default_workers, run_parallel


def distil_all(tasks: list[Task], seed: int, cache_dir: str | os.PathLike, *, workers: int | None = None) -> list[Task]:
    """Copies of ``tasks`` with ``database`` (the base fixture) and
    ``metadata['databases']`` (the distilled fuzzed databases) set; see the package doc."""
    from .. import fixtures

    cache_dir = Path(cache_dir)
    root = cache_dir / "fuzz"
    workers = default_workers() if workers is None else workers
    plans: list[Plan] = []
    verified: dict[Path, bool] = {}  # each cached database hashed once per run
    for task in tasks:
        schema = fixtures.schema_for(task)
        base = Path(fixtures.fixture_path(task, cache_dir / "fixtures")).resolve()
        key = task_key(seed, task, schema, base)
        plan = Plan(task, schema, base, key)
        plan.cached = read_cache(root, key, verified)
        plans.append(plan)

    todo = [p for p in plans if p.cached is None]
    if todo:
        pools = _pools_for(plans, todo, root, seed)
        # Distillation reads every pool database: each is checked, and a changed one rebuilt.
        work = [
            (pool, i)
            for pool in pools.values()
            for i, path in enumerate(pool.paths())
            if not verified.get(path) and not cached_intact(path, "fuzzed database")
        ]
        run_parallel(PoolJob(work), len(work), workers)
        for pool in pools.values():
            db.mark_shared(pool.directory)
        results = run_parallel(DistilJob(todo, pools, root, seed), len(todo), workers)
        for plan, result in zip(todo, results):
            write_cache(root, plan.key, result)
            plan.cached = [root / p for p in result["databases"]]
    return [
        p.task.model_copy(
            update={
                "database": str(p.base),
                "metadata": {**p.task.metadata, "databases": [str(x) for x in p.cached]},
            }
        )
        for p in plans
    ]


def _pools_for(plans: list[Plan], todo: list[Plan], root: Path, seed: int) -> dict[str, SchemaPool]:
    pools = {}
    for name in {p.schema.name for p in todo}:
        members = [p for p in plans if p.schema.name == name]
        schema, base = members[0].schema, members[0].base
        constants = collect_constants(sorted({p.task.reference for p in members}))
        key = pool_key(seed, schema, base, constants)
        pools[name] = SchemaPool(
            schema, base, constants, base_values(schema, base), root / "pool" / f"{name}-{key}", seed
        )
        pools[name].directory.mkdir(parents=True, exist_ok=True)
    return pools


def distribution(tasks: list[Task]) -> dict[int, int]:
    """How many tasks got how many distilled databases."""
    out: dict[int, int] = {}
    for task in tasks:
        n = len(task.metadata.get("databases") or [])
        out[n] = out.get(n, 0) + 1
    return dict(sorted(out.items()))
