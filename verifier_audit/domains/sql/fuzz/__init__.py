"""The test-suite method (Zhong, Yu & Klein 2020): small fuzzed databases, distilled per
task to the few that tell the gold apart from its near neighbours.

1. Constants (``constants``). Every gold of a schema is parsed (sqlglot) and its literals
   collected, each tied to the columns it is compared with, plus its +-1 neighbours (a day
   for dates, strings matching a LIKE pattern), so fuzzed rows hit the queries' boundaries.
2. A pool per schema (``pool``), built once: ``POOL_SIZE`` small databases in six shapes
   (``profiles``: empty and one-row tables, ties, NULLs, big groups sized to the golds'
   HAVING thresholds and LIMITs, repeated rows; 0-20 rows a table, more for large
   thresholds), values per column type (``values``), drawn from the column's constants,
   the base fixture's own values and random ones; primary keys unique, foreign keys
   pointing at generated parents (some dangling, NULL where nullable), self references
   included (``rows``). Files (``write``) under ``cache_dir/fuzz``, reused by every task
   of the schema and across runs.
3. Per task, greedy distillation (``distil``): neighbours =
   ``generators.near_miss.mutants(task)`` (``mutants``: a few simple mutants of our own
   when generators are absent). Neighbours the base
   database already separates need nothing more (the oracle always checks the base). Pool
   databases are visited in order and one is kept when it separates the gold from a
   neighbour not yet separated (different result, or the neighbour errors there); the
   visit stops after ``STALE_STOP`` fruitless databases in a row. A database where the
   gold errors or its LIMIT cuts a tie is never kept. When the pool
   leaves unseparated a neighbour that differs from the gold in a constant or a comparison
   operator, ``FALLBACK_SIZE`` task-specific databases (this gold's constants only,
   heavier weights) are tried; structural leftovers (DISTINCT on a key, LEFT JOIN under
   a WHERE on the right side) are almost always equivalent and get none. Then the set is
   topped up to ``MIN_DATABASES`` with pool databases where the gold's result is non-empty and
   differs from its base result, so that a hard-coded answer is caught as well.
4. Cache (``cache``): the distilled list per task (key: gold, schema DDL, base fixture,
   seed, version), as paths relative to the cache folder. A warm run reads ~150 small JSON
   files. ``suite.distil_all`` runs it all, in worker processes (``workers``) when there is
   enough work.

Deterministic for a seed: every random choice comes from a ``Random`` seeded with the
seed, the schema and the database's index; the order of visits is fixed. (A neighbour
whose runtime straddles the 0.25 s query limit could differ between runs; on databases
of this size queries take about a millisecond and runaways far longer.)
"""

# Tunables are re-exported for reading only: each is looked up in the module that uses it
# (``distil.STALE_STOP``, ``pool.POOL_SIZE``, ...), so patch it there.
from .cache import FUZZ_VERSION
from .constants import Constants, collect_constants
from .distil import FALLBACK_SIZE, MAX_ROWS, MIN_DATABASES, QUERY_TIMEOUT, STALE_STOP, Distilled, distil_task
from .mutants import neighbours, simple_mutants
from .pool import BASE_VALUES, POOL_SIZE, SchemaPool, base_values
from .profiles import Profile, profile_for
from .rows import generate_rows
from .suite import distil_all, distribution
from .workers import PARALLEL_FROM, default_workers
from .write import write_database

__all__ = [
    "BASE_VALUES",
    "FALLBACK_SIZE",
    "FUZZ_VERSION",
    "MAX_ROWS",
    "MIN_DATABASES",
    "PARALLEL_FROM",
    "POOL_SIZE",
    "QUERY_TIMEOUT",
    "STALE_STOP",
    "Constants",
    "Distilled",
    "Profile",
    "SchemaPool",
    "base_values",
    "collect_constants",
    "default_workers",
    "distil_all",
    "distil_task",
    "distribution",
    "generate_rows",
    "neighbours",
    "profile_for",
    "simple_mutants",
    "write_database",
]
