"""Rows for every table of a schema under a profile: primary keys unique, foreign keys
pointing at generated parents (some dangling, NULL where nullable), self references
included."""

from __future__ import annotations

from dataclasses import dataclass
from random import Random
from typing import Any

from ..schema import Column, Schema, Table
from .constants import Constants
from .profiles import Profile
from .values import base_kind, convert, random_value


@dataclass
class _Source:
    """Where one column's values come from."""

    constants: list
    base: list
    cursor: int = -1  # next constant to use (round-robin)


def _value(column: Column, source: _Source, profile: Profile, rng: Random) -> Any | None:
    r = rng.random()
    if source.constants and r < profile.p_const:
        # Round-robin from a random start rather than independent draws: every constant
        # of a long list shows up somewhere in the pool (salary = 100000 exactly).
        if source.cursor < 0:
            source.cursor = rng.randrange(len(source.constants))
        value = convert(source.constants[source.cursor % len(source.constants)], column, rng)
        source.cursor += 1
        if value is not None:
            return value
    if source.base and r < profile.p_const + profile.p_base:
        return rng.choice(source.base)
    return random_value(column, rng, profile.domain is not None)


def generate_rows(
    schema: Schema, constants: Constants, base_values: dict, profile: Profile, rng: Random
) -> dict[str, list[tuple]]:
    """Rows for every table of ``schema`` under ``profile``: keys unique, foreign keys
    mostly pointing at generated parents (self references included)."""
    out: dict[str, list[tuple]] = {}
    keys_of: dict[tuple[str, str], list] = {}  # (table, column) -> values generated there
    for table in schema.tables:
        n = rng.randint(profile.min_rows, profile.max_rows)
        rows = _TableFiller(table, constants, base_values, profile, rng, keys_of).rows(n)
        out[table.name] = rows
        for i, column in enumerate(table.columns):
            keys_of[(table.name, column.name)] = [r[i] for r in rows if r[i] is not None]
    return out


class _TableFiller:
    def __init__(
        self, table: Table, constants: Constants, base_values: dict, profile: Profile, rng: Random, keys_of: dict
    ):
        self.table, self.profile, self.rng, self.keys_of = table, profile, rng, keys_of
        self.sources = {
            c.name: _Source(constants.by_column.get(c.name.lower(), []), base_values.get((table.name, c.name), []))
            for c in table.columns
        }
        self.key_columns = [i for i, c in enumerate(table.columns) if c.primary_key]
        self.unique = [i for i, c in enumerate(table.columns) if c.unique and not c.primary_key]
        self.domains: dict[str, list] = {}

    def rows(self, n: int) -> list[tuple]:
        single = len(self.key_columns) == 1
        own_keys: list = []
        if single:  # drawn first, so that self references can point at them
            column = self.table.columns[self.key_columns[0]]
            own_keys = self._distinct(column, n)
            self.keys_of[(self.table.name, column.name)] = own_keys
        if self.profile.domain:  # a few values per column: ties and big groups
            for c in self.table.columns:
                if not c.primary_key and not c.unique:
                    values = [self._fresh(c) for _ in range(self.profile.domain)]
                    self.domains[c.name] = [v for v in values if v is not None] or values
        rows: list[tuple] = []
        seen_keys: set = set()
        seen_unique: dict[int, set] = {i: set() for i in self.unique}
        for attempt in range(len(own_keys) if single else n * 3):
            if not single and len(rows) >= n:
                break
            if rows and self.rng.random() < self.profile.p_dup:
                row = list(self.rng.choice(rows))  # a repeated row: only keys change
                for i in self.key_columns + self.unique:
                    row[i] = self._cell(self.table.columns[i])
            else:
                row = [self._cell(c) for c in self.table.columns]
            if single:
                row[self.key_columns[0]] = own_keys[attempt]
            key = tuple(row[i] for i in self.key_columns)
            if any(v is None for v in key) or (self.key_columns and key in seen_keys):
                continue
            if any(row[i] is not None and row[i] in seen_unique[i] for i in self.unique):
                continue
            seen_keys.add(key)
            for i in self.unique:
                seen_unique[i].add(row[i])
            rows.append(tuple(row))
        return rows

    def _cell(self, column: Column) -> Any | None:
        if column.nullable and not column.primary_key and self.rng.random() < self.profile.p_null:
            return None
        domain = self.domains.get(column.name)
        if domain:
            return self.rng.choice(domain)
        return self._fresh(column)

    def _fresh(self, column: Column) -> Any | None:
        rng = self.rng
        if column.references is not None:
            parents = self.keys_of.get(column.references)
            if parents and rng.random() >= self.profile.p_dangling:
                return rng.choice(parents)
            if parents is not None:  # dangling: a key no parent row has
                top = max((p for p in parents if isinstance(p, int) and not isinstance(p, bool)), default=0)
                value = convert(top + rng.randint(1, 5), column, rng)
                if value is not None:
                    return value
        source = self.sources[column.name]
        value = _value(column, source, self.profile, rng)
        if value is None and not column.nullable:
            value = rng.choice(source.base) if source.base else random_value(column, rng, False)
        return value

    def _distinct(self, column: Column, n: int) -> list:
        values: list = []
        for _ in range(n * 4):
            if len(values) >= n:
                break
            if base_kind(column.type) == "int" and self.rng.random() < 0.6:
                value = self.rng.randint(1, max(3, 2 * n))  # small dense ids: joins find partners
            else:
                value = _value(column, self.sources[column.name], self.profile, self.rng)
            if value is not None and value not in values:
                values.append(value)
        return values
