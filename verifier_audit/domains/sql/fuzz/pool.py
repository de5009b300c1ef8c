"""The pool of one schema: ``POOL_SIZE`` fuzzed databases built once, reused by every
task of the schema and across runs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from random import Random

from .. import database as db
from ..integrity import cached_intact
from ..schema import Schema
from .constants import Constants
from .profiles import profile_for
from .rows import generate_rows
from .write import write_database

POOL_SIZE = 18
BASE_VALUES = 30  # distinct values per column sampled from the base fixture


def base_values(schema: Schema, base: Path) -> dict[tuple[str, str], list]:
    """Up to BASE_VALUES distinct non-NULL values of every column of the base fixture."""
    out = {}
    for table in schema.tables:
        for column in table.columns:
            q = f'SELECT DISTINCT "{column.name}" FROM "{table.name}" WHERE "{column.name}" IS NOT NULL ORDER BY 1'
            result = db.run_query(base, q, timeout=5.0, max_rows=2000)
            values = [r[0] for r in result.rows] if result.ok else []
            step = max(1, len(values) // BASE_VALUES)
            out[(table.name, column.name)] = values[::step][:BASE_VALUES]
    return out


@dataclass
class SchemaPool:
    schema: Schema
    base: Path
    constants: Constants
    base_values: dict
    directory: Path
    seed: int

    def path(self, index: int) -> Path:
        return self.directory / f"pool-{index:02d}.duckdb"

    def paths(self) -> list[Path]:
        return [self.path(i) for i in range(POOL_SIZE)]

    def build(self, index: int) -> Path:
        target = self.path(index)
        if not cached_intact(target, "fuzzed database"):
            rng = Random(f"{self.seed}:{self.schema.name}:pool:{index}")
            profile = profile_for(index, rng, self.constants)
            write_database(
                target, self.schema, generate_rows(self.schema, self.constants, self.base_values, profile, rng)
            )
        return target
