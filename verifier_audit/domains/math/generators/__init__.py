"""All math candidates with known truth: near-misses, equivalents and the known-bad catalog.

``generate_all(tasks, seed)`` is what the engine calls. It is deterministic for a seed:
every (task, generator) pair gets its own ``random.Random`` seeded from a SHA-256 of
(seed, task id, generator name), so adding a task or a generator does not reshuffle the
others, and nothing depends on Python's per-process hash() salt.
"""

from __future__ import annotations

from typing import Optional

from ....catalog import CatalogEntry
from ....generation import assemble, list_categories
from ....models import Candidate, Task
from ...base import CategoryInfo
from . import equivalent, known_bad, near_miss

# name -> per-task generator; the name is part of the seed, so keep it stable.
PER_TASK = {"near_miss": near_miss.generate, "equivalent": equivalent.generate}


def generate_all(tasks: list[Task], seed: int, catalog: Optional[list[CatalogEntry]] = None) -> list[Candidate]:
    """Every candidate for ``tasks``: per-task generators, then the catalog (built-in by default)."""
    return assemble("math", tasks, seed, PER_TASK, known_bad.generate, catalog)


def categories(catalog: Optional[list[CatalogEntry]] = None) -> list[CategoryInfo]:
    """Every category the math generators and the catalog can produce, with its severity."""
    return list_categories("math", near_miss.KINDS, equivalent.KINDS, catalog)
