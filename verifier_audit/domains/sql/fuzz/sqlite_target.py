"""Fuzzed databases for a task judged in SQLite (``--dialect sqlite``).

Distillation runs on the DuckDB conversion, whose schema keeps every declared NOT NULL,
UNIQUE and key (``loaders``), so the fuzzed rows respect them. Each distilled database is
then written as a SQLite file under the dataset's own DDL (``write.write_sqlite_copy``,
beside its DuckDB file, cached by the DDL's hash) and kept when the gold, run in SQLite,
answers there with determined rows: the oracle judges the task on the dataset's SQLite
file and these copies (``oracle.databases_of``), the same databases for gold and candidate.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ....models import Task
from ..dialects import target_dialect
from ..integrity import cached_intact
from ..oracle import gold_answer
from .cache import digest
from .write import sqlite_ddl, write_sqlite_copy


@lru_cache(maxsize=64)
def _ddl(sqlite_file: str) -> tuple[tuple[str, ...], str]:
    ddl = sqlite_ddl(sqlite_file)
    return ddl, digest(*ddl)


def sqlite_copies(task: Task) -> list[str]:
    """The task's distilled databases as SQLite files where its gold answers."""
    ddl, key = _ddl(str(task.metadata["sqlite_file"]))
    out = []
    for duck in task.metadata.get("databases") or []:
        source = Path(duck)
        target = source.with_name(f"{source.stem}-sqlite-{key}.sqlite")
        if not cached_intact(target, "fuzzed SQLite database"):
            write_sqlite_copy(source, ddl, target)
        if gold_answer(task.reference, target).usable:
            out.append(str(target))
    return out


def in_target_dialect(tasks: list[Task]) -> list[Task]:
    """``tasks`` with ``metadata['sqlite_databases']`` set for those judged in SQLite."""
    out = []
    for task in tasks:
        if target_dialect(task) == "sqlite" and task.metadata.get("sqlite_file"):
            task = task.model_copy(update={"metadata": {**task.metadata, "sqlite_databases": sqlite_copies(task)}})
        out.append(task)
    return out
