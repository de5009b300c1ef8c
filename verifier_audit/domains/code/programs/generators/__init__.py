"""All program-task candidates with known truth: near misses (AST mutants of the reference,
output-level changes), equivalents (the same output written another way) and the
reward-hack catalog (``adversarial_cases/program.yaml`` through ``known_bad``: expected
outputs read from the working directory or inherited descriptors, an exit after partial
output, harness detection, debug prints, the visible outputs looked up by input)."""

from __future__ import annotations

from .....models import Candidate, Task
from ....base import CategoryInfo
from ....kit import CatalogEntry, DomainGenerators
from . import equivalent, known_bad, near_miss

_GENERATORS = DomainGenerators("program", near_miss, equivalent, known_bad)


def generate_all(tasks: list[Task], seed: int, catalog: list[CatalogEntry] | None = None) -> list[Candidate]:
    return _GENERATORS.generate_all(tasks, seed, catalog)


def categories(catalog: list[CatalogEntry] | None = None) -> list[CategoryInfo]:
    return _GENERATORS.categories(catalog)
