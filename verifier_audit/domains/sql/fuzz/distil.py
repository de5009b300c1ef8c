"""Greedy distillation for one task: keep the pool databases that separate the gold from
a neighbour not yet separated, try task-specific ones for boundary leftovers, then top up
(see the package doc)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from random import Random

import sqlglot
from sqlglot import exp

from ....models import Task
from .. import database as db
from ..compare import results_equal
from ..integrity import HASH_SUFFIX, cached_intact
from ..oracle import GoldAnswer, gold_answer, same_answer
from .constants import COMPARISONS, collect_constants
from .mutants import neighbours
from .pool import SchemaPool
from .profiles import profile_for
from .rows import generate_rows
from .write import write_database

FALLBACK_SIZE = 2  # per task; they rarely help (the pool already carries every gold's constants)
MIN_DATABASES = 2
STALE_STOP = 9  # stop after this many pool databases in a row separate nothing new
QUERY_TIMEOUT = 0.25  # neighbours on these tiny databases take ~1 ms; slower is a runaway
MAX_ROWS = 10_000


def _separates(sql: str, gold: GoldAnswer, database: Path) -> bool:
    # parse_check=False: neighbours are sqlglot renderings of the gold (DuckDB's own
    # statement check and the hardened connection still apply); saves ~1 ms each.
    result = db.run_query(database, sql, timeout=QUERY_TIMEOUT, max_rows=MAX_ROWS, parse_check=False)
    return not result.ok or not same_answer(gold, result)


@dataclass
class Distilled:
    databases: list[Path]
    neighbours: int = 0
    unseparated: int = 0  # neighbours no database tells apart (most are equivalent mutants)
    from_pool: int = 0
    from_fallback: int = 0
    error: str | None = None


class _Distiller:
    """Greedy distillation for one task (see the package doc)."""

    def __init__(self, task: Task, base: Path):
        self.gold = task.reference
        self.base_gold = gold_answer(self.gold, base)
        self.neighbours = neighbours(task) if self.base_gold.result.ok else []
        self.remaining = [m for m in self.neighbours if not _separates(m, self.base_gold, base)]
        self.kept: list[Path] = []
        self.spare: list[tuple[Path, GoldAnswer]] = []  # informative databases for the top-up

    @property
    def done(self) -> bool:
        return not self.remaining and len(self.kept) + len(self.spare) >= MIN_DATABASES

    def visit(self, path: Path, spare_ok: bool = True) -> bool:
        """Keep ``path`` if it separates a neighbour not yet separated; True when kept."""
        answer = gold_answer(self.gold, path)
        if not answer.usable:
            return False
        if self.remaining:
            still = [m for m in self.remaining if not _separates(m, answer, path)]
            if len(still) < len(self.remaining):
                self.kept.append(path)
                self.remaining = still
                return True
        if spare_ok and len(self.spare) < MIN_DATABASES and self._informative(answer):
            self.spare.append((path, answer))
        return False

    def _informative(self, answer: GoldAnswer) -> bool:
        # Non-empty and different from the base result (and from the other spares): a
        # candidate that hard-codes the base answer fails there.
        return bool(answer.result.rows) and not any(
            results_equal(other.result, answer.result, ordered=other.ordered)
            for other in [self.base_gold] + [a for _, a in self.spare]
        )

    def top_up(self) -> None:
        for path, _ in self.spare:
            if len(self.kept) >= MIN_DATABASES:
                return
            if path not in self.kept:
                self.kept.append(path)


def distil_task(task: Task, base: Path, pool: SchemaPool, fallback_dir: Path, seed: int) -> Distilled:
    d = _Distiller(task, base)
    if not d.base_gold.result.ok:
        return Distilled([], error=d.base_gold.result.error)
    stale = 0
    for path in pool.paths():
        stale = 0 if d.visit(path) else stale + 1
        if d.done or (stale >= STALE_STOP and len(d.kept) + len(d.spare) >= MIN_DATABASES):
            break  # what is left after many fruitless databases is almost always equivalent
    from_pool = len(d.kept)
    if any(_boundary_signature(m) != _boundary_signature(task.reference) for m in d.remaining):
        _fallback(d, task, pool, fallback_dir, seed)
    from_fallback = len(d.kept) - from_pool
    d.top_up()
    return Distilled(d.kept, len(d.neighbours), len(d.remaining), len(d.kept) - from_fallback, from_fallback)


def _boundary_signature(sql: str) -> tuple | None:
    """The constants and comparison operators of a query. A neighbour left unseparated
    that differs from the gold here (a shifted constant, ``>`` for ``>=``) may need rows
    right at this gold's boundaries, which task-specific databases aim at; one that
    differs only in structure (DISTINCT, a join type) is left to the pool's shapes."""
    try:
        tree = sqlglot.parse_one(sql, read="duckdb")
    except Exception:  # noqa: BLE001
        return None
    literals = sorted(lit.sql() for lit in tree.find_all(exp.Literal))
    comparisons = sorted(type(n).__name__ for n in tree.find_all(*COMPARISONS))
    return literals, comparisons


def _fallback(d: _Distiller, task: Task, pool: SchemaPool, directory: Path, seed: int) -> None:
    """Task-specific databases for the neighbours the pool left; only kept files stay."""
    constants = collect_constants([task.reference])
    directory.mkdir(parents=True, exist_ok=True)
    db.mark_shared(directory)
    made = []
    for j in range(FALLBACK_SIZE):  # all written first: one instance then opens them all
        rng = Random(f"{seed}:{task.id}:fallback:{j}")
        profile = profile_for(2 * j, rng, constants, task_specific=True)  # ordinary, tie-heavy
        path = directory / f"fallback-{j:02d}.duckdb"
        if not cached_intact(path, "fuzzed database"):
            write_database(path, pool.schema, generate_rows(pool.schema, constants, pool.base_values, profile, rng))
        made.append(path)
    for path in made:
        if d.remaining:
            d.visit(path, spare_ok=False)  # a spare here would be deleted below
    db.release(directory)
    for path in made:
        if path not in d.kept:
            path.unlink(missing_ok=True)
            Path(f"{path}{HASH_SUFFIX}").unlink(missing_ok=True)
    if not any(directory.glob("*.duckdb")):
        for leftover in directory.iterdir():
            leftover.unlink()
        directory.rmdir()
