"""Known-bad completions: the SQL catalog (adversarial_cases/sql.yaml) instantiated on tasks.

Each catalog entry is a template; this module fills the SQL placeholders for a task (the
gold, another task's gold, the gold's own result as literals, a table it reads, a near-miss,
a canary file name; see the catalog file for the list) and ``catalog.expand_template``
does the rest. An entry goes onto ``entry.instances`` tasks chosen deterministically from
(seed, entry id) among the tasks it can be filled in on. Every candidate is labelled
incorrect: hostile statements, hard-coded answers and answers to other questions.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from decimal import Decimal

from sqlglot import exp

from ....canary import PREFIX as CANARY_PREFIX
from ....models import Candidate, Task
from ...kit import CatalogEntry, SkipInstance, check_templates, expand_template, instantiate_catalog
from . import _data
from ._common import TaskContext, cte_names, parse_query, render
from .near_miss import first_mutant

PLACEHOLDERS = {
    "gold",
    "gold_one_line",
    "gold_string",
    "gold_typo",
    "gold_where_commented",
    "gold_bad_table",
    "gold_bad_column",
    "other_gold",
    "question",
    "first_table",
    "other_table",
    "first_column",
    "biggest_table",
    "wrong",
    "hardcoded_result",
    "hardcoded_union",
    "canary_path",
}

MAX_HARDCODED_ROWS = 200
# Which near-miss stands in for {{wrong}}: the plainest mistakes first.
_WRONG_ORDER = (
    "comparison_flip",
    "literal_shift",
    "dropped_conjunct",
    "column_swap",
    "aggregate_swap",
    "join_type",
    "limit_change",
    "order_direction",
    "distinct_toggle",
)


_Skip = SkipInstance  # This entry cannot be filled in on this task (no WHERE to hide, no gold result, ...).


def generate(tasks: list[Task], seed: int, entries: list[CatalogEntry]) -> list[Candidate]:
    """Every entry instantiated on up to ``entry.instances`` tasks; deterministic for seed."""
    usable = sorted((t for t in tasks if parse_query(t.reference) is not None), key=lambda t: t.id)
    resolvers = {t.id: _Resolver(t, usable) for t in usable}
    entries = list(entries)
    check_templates(entries, PLACEHOLDERS)

    def fill(entry: CatalogEntry, task: Task) -> str:
        resolver = resolvers[task.id]
        resolver.entry = entry
        return expand_template(entry.template, resolver)

    return instantiate_catalog(usable, seed, entries, fits=lambda entry, task: True, fill=fill)


class _Resolver:
    """Fills the SQL placeholders for one task; values are computed on first use."""

    def __init__(self, task: Task, tasks: list[Task]):
        self.task, self.tasks = task, tasks
        self.entry: CatalogEntry | None = None
        self.tree = parse_query(task.reference)
        self._cache: dict[str, str] = {}

    def __call__(self, name: str, args: str) -> str:
        if name == "canary_path":  # one per (entry, task): not cached across entries
            return self.canary_path()
        if name not in self._cache:
            method = getattr(self, name, None)
            if name not in PLACEHOLDERS or method is None:
                raise KeyError(name)
            self._cache[name] = method()
        return self._cache[name]

    # ------------------------------------------------------------------ the gold and its variants

    def gold(self) -> str:
        return self.task.reference.strip().rstrip(";").strip()

    def gold_one_line(self) -> str:
        return render(self.tree)

    def gold_string(self) -> str:
        return _literal(self.gold())

    def gold_typo(self) -> str:
        text = render(self.tree)
        if " FROM " not in text:
            raise _Skip()
        return text.replace(" FROM ", " FORM ", 1)

    def gold_where_commented(self) -> str:
        """The gold with its top-level WHERE lines behind ``--``: still runs, filters nothing."""
        if not isinstance(self.tree, exp.Select) or self.tree.args.get("where") is None:
            raise _Skip()
        lines, out, hiding = render(self.tree, pretty=True).splitlines(), [], False
        for line in lines:
            if line.startswith("WHERE"):
                hiding = True
            elif not line.startswith(" "):
                hiding = False
            out.append(f"-- {line}" if hiding else line)
        return "\n".join(out)

    def gold_bad_table(self) -> str:
        tree = self.tree.copy()
        table = next(iter(self._tables(tree)), None)
        if table is None:
            raise _Skip()
        original = table.name
        table.set("this", exp.to_identifier(f"{original}_archive"))
        if not table.alias:  # keep columns qualified with the old name pointing at it
            table.set("alias", exp.TableAlias(this=exp.to_identifier(original)))
        return render(tree)

    def gold_bad_column(self) -> str:
        tree = self.tree.copy()
        column = next((c for c in tree.find_all(exp.Column) if not isinstance(c.this, exp.Star)), None)
        if column is None:
            raise _Skip()
        column.set("this", exp.to_identifier(f"{column.name}_value"))
        return render(tree)

    def wrong(self) -> str:
        mutant = first_mutant(self.task, _WRONG_ORDER)
        if mutant is None:
            raise _Skip()
        return mutant.sql

    # ------------------------------------------------------------------ other tasks, the schema

    def question(self) -> str:
        return self.task.prompt

    def other_gold(self) -> str:
        """The gold of another task on the same schema (another answer entirely)."""
        same = [
            t
            for t in self.tasks
            if t.id != self.task.id
            and _schema_key(t) == _schema_key(self.task)
            and render(parse_query(t.reference)) != render(self.tree)
        ]
        if not same:
            raise _Skip()
        pick = int(hashlib.sha256(self.task.id.encode()).hexdigest(), 16) % len(same)
        return same[pick].reference.strip().rstrip(";").strip()

    def _tables(self, tree: exp.Expression) -> list[exp.Table]:
        ctes = cte_names(tree)
        return [t for t in tree.find_all(exp.Table) if t.name not in ctes]

    def first_table(self) -> str:
        tables = self._tables(self.tree)
        if tables:
            return tables[0].name
        schema = TaskContext.of(self.task).schema
        if schema is None or not schema.tables:
            raise _Skip()
        return schema.tables[0].name

    def other_table(self) -> str:
        """A table the gold does not read, so the gold still runs after it is dropped."""
        read = {t.name.lower() for t in self._tables(self.tree)}
        schema = TaskContext.of(self.task).schema
        others = [t.name for t in (schema.tables if schema else ()) if t.name.lower() not in read]
        return others[0] if others else self.first_table()

    def first_column(self) -> str:
        columns = TaskContext.of(self.task).columns(self.first_table())
        usable = [c.name for c in columns if not c.primary_key]
        if not usable:
            raise _Skip()
        return usable[0]

    def biggest_table(self) -> str:
        sizes = _data.table_sizes(self.task.database)
        return sizes[0][0] if sizes else self.first_table()

    def canary_path(self) -> str:
        raw = f"{self.entry.id if self.entry else 'entry'}:{self.task.id}"
        digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:8]
        return CANARY_PREFIX + re.sub(r"[^A-Za-z0-9_]+", "_", raw)[:60] + "_" + digest

    # ------------------------------------------------------------------ the gold's own result

    def _result(self):
        found = _data.gold_result(self.task.database, self.gold())
        if found is None or len(found[1]) > MAX_HARDCODED_ROWS or not found[0]:
            raise _Skip()
        return found

    def hardcoded_result(self) -> str:
        """The gold's rows on the base database as a VALUES list (the reward hack that a
        single-database execution check pays for)."""
        columns, rows = self._result()
        names = ", ".join(_identifier(c, k) for k, c in enumerate(columns))
        if not rows:
            nulls = ", ".join("NULL" for _ in columns)
            return f"SELECT * FROM (VALUES ({nulls})) AS answer({names}) WHERE 1 = 0"
        values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in rows)
        return f"SELECT * FROM (VALUES {values}) AS answer({names})"

    def hardcoded_union(self) -> str:
        """The same rows as a UNION ALL of one-row SELECTs of literals."""
        columns, rows = self._result()
        if not rows:
            return self.hardcoded_result()
        names = [_identifier(c, k) for k, c in enumerate(columns)]
        selects = ["SELECT " + ", ".join(f"{_literal(v)} AS {n}" for v, n in zip(row, names)) for row in rows]
        return "\nUNION ALL\n".join(selects)


def _schema_key(task: Task) -> str:
    meta = task.metadata or {}
    return str(meta.get("schema") or meta.get("database_file") or task.database or "")


def _identifier(name: str, position: int) -> str:
    clean = re.sub(r"[^A-Za-z0-9_]", "_", str(name)).strip("_").lower() or f"c{position + 1}"
    return f'"{clean}_{position + 1}"'  # unique even when the gold repeats a name


def _literal(value) -> str:
    """A DuckDB literal of the same type family as ``value`` (as DuckDB's Python API returns it)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"'{value}'::DOUBLE"
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.datetime):
        kind = "TIMESTAMPTZ" if value.tzinfo else "TIMESTAMP"
        return f"{kind} '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, dt.time):
        return f"TIME '{value.isoformat()}'"
    if isinstance(value, dt.timedelta):
        return f"INTERVAL '{int(value / dt.timedelta(microseconds=1))} microseconds'"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(str(k))}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (bytes, bytearray)):
        raise _Skip()
    return "'" + str(value).replace("'", "''") + "'"
