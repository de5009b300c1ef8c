"""The shape of a database, as fixtures, fuzzing and generators need it.

Built from a fixture's DDL (``fixtures.load_schema``) or read from any DuckDB file
(``fixtures.schema_from_database``), so loaded datasets (Spider, BIRD) work the same way.
Foreign keys are recorded here rather than declared in the DDL: fixtures keep dangling
keys on purpose (DuckDB would refuse them), while fuzzing still respects the relations.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # DuckDB type: INTEGER, BIGINT, VARCHAR, DATE, TIMESTAMP, DOUBLE, DECIMAL(10,2), BOOLEAN
    nullable: bool = True
    primary_key: bool = False
    unique: bool = False
    references: tuple[str, str] | None = None  # (table, column) this column points to


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"{self.name} has no column {name!r}")


@dataclass(frozen=True)
class Schema:
    name: str
    tables: tuple[Table, ...]
    ddl: str  # CREATE TABLE statements, in dependency order

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(f"schema {self.name} has no table {name!r}")
