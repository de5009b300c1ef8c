"""All SQL candidates with known truth: near-miss mutants, equivalent rewrites and the
known-bad catalog.

``generate_all(tasks, seed)`` is what the engine calls. It is deterministic for a seed:
every (task, generator) pair gets its own ``random.Random`` seeded from a SHA-256 of
(seed, task id, generator name), so adding a task or a generator does not reshuffle the
others, and nothing depends on Python's per-process hash() salt.
"""

from __future__ import annotations

from typing import Optional

from ....catalog import CatalogEntry, builtin_catalog
from ....models import Candidate, SEVERITY_WEIGHT, Severity, Task
from ...base import CategoryInfo
from . import equivalent, known_bad, near_miss
from ._common import rng_for

# name -> per-task generator; the name is part of the seed, so keep it stable.
PER_TASK = {"near_miss": near_miss.generate, "equivalent": equivalent.generate}


def generate_all(tasks: list[Task], seed: int, catalog: Optional[list[CatalogEntry]] = None) -> list[Candidate]:
    """Every candidate for ``tasks``: per-task generators, then the catalog (built-in by default)."""
    out: list[Candidate] = []
    for task in tasks:
        for name, generate in PER_TASK.items():
            out.extend(generate(task, rng_for(seed, task.id, name)))
    entries = builtin_catalog("sql") if catalog is None else catalog
    out.extend(known_bad.generate(tasks, seed, entries))
    return out


def categories(catalog: Optional[list[CatalogEntry]] = None) -> list[CategoryInfo]:
    """Every category the SQL generators and the catalog can produce, with its severity."""
    infos = [CategoryInfo(f"sql.near_miss.{kind}", "near_miss", severity, description)
             for kind, (severity, description) in near_miss.KINDS.items()]
    infos += [CategoryInfo(f"sql.equivalent.{kind}", "equivalent", severity, description)
              for kind, (severity, description) in equivalent.KINDS.items()]
    entries = builtin_catalog("sql") if catalog is None else catalog
    by_category: dict[str, list[CatalogEntry]] = {}
    for entry in entries:
        by_category.setdefault(entry.category, []).append(entry)
    for name, group in by_category.items():
        severity = max((e.severity for e in group), key=lambda s: SEVERITY_WEIGHT[Severity(s)])
        description = " / ".join(e.rationale for e in group)
        reference = "; ".join(dict.fromkeys(e.reference for e in group))
        infos.append(CategoryInfo(name, "known_bad", severity, description, reference))
    return infos
