"""Candidates in the verifier's dialect (``--dialect sqlite``).

The generators edit the gold as sqlglot reads it in DuckDB's dialect (the form of the gold
that runs on the converted database, ``metadata['duckdb_reference']``) and render DuckDB
SQL. For a task judged in SQLite every query of a near-miss or an equivalent is then
transpiled to SQLite (``sqlglot.transpile(..., write="sqlite")``) and kept only when
sqlglot reads the result back as one SQLite query: a rewrite SQLite cannot parse (issue
33: ``SUBSTRING(x FROM 1 FOR 4)``, PostgreSQL's spelling) is never offered as an
equivalent. Whether it runs and returns the gold's answer is the oracle's check, in SQLite
on the SQLite files (``oracle.databases_of``); the engine drops any it does not confirm.
Catalog (known-bad) candidates are written for any dialect and are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ....models import Candidate, Task
from ..dialects import source_view, target_dialect, transpiled

_FENCE = re.compile(r"(```sql[ \t]*\n)(.*?)(\n?```)", re.S)
_TRANSLATED = ("near_miss", "equivalent")


def _translate_text(text: str, dialect: str) -> str | None:
    fences = list(_FENCE.finditer(text))
    if not fences:  # a bare query
        out = transpiled(text, dialect)
        return None if out is None else out + ";"
    parts, last = [], 0
    for m in fences:
        out = transpiled(m.group(2), dialect)
        if out is None:
            return None
        parts += [text[last : m.start()], m.group(1), out + ";", m.group(3)]
        last = m.end()
    return "".join(parts + [text[last:]])


def in_target_dialect(
    generate_all: Callable[[list[Task], int], list[Candidate]],
) -> Callable[[list[Task], int], list[Candidate]]:
    """``generate_all`` with every task's near-misses and equivalents in its dialect."""

    def generate(tasks: list[Task], seed: int, *args, **kwargs) -> list[Candidate]:
        dialect = {t.id: target_dialect(t) for t in tasks}
        out = []
        for cand in generate_all([source_view(t) for t in tasks], seed, *args, **kwargs):
            target = dialect.get(cand.task_id, "duckdb")
            if target == "duckdb" or cand.origin not in _TRANSLATED:
                out.append(cand)
                continue
            text = _translate_text(cand.text, target)
            if text is not None:
                out.append(cand.model_copy(update={"text": text}))
        return out

    return generate
