"""All program-task candidates with known truth: near misses (AST mutants of the reference,
output-level changes, a visible-case lookup) and equivalents (the same output written
another way). The reward-hack catalog of program tasks (reading expected outputs from the
working directory or inherited descriptors, exit codes after partial output, harness
detection) is not written yet: ``known_bad`` makes nothing."""

from __future__ import annotations

from .....models import Candidate, Task
from ....base import CategoryInfo
from ....kit import CatalogEntry, DomainGenerators
from . import equivalent, near_miss


class _NoCatalog:
    """No catalog yet (``adversarial_cases/program.yaml`` does not exist)."""

    @staticmethod
    def generate(tasks: list[Task], seed: int, catalog: list[CatalogEntry]) -> list[Candidate]:
        return []


_GENERATORS = DomainGenerators("program", near_miss, equivalent, _NoCatalog)


def generate_all(tasks: list[Task], seed: int, catalog: list[CatalogEntry] | None = None) -> list[Candidate]:
    return _GENERATORS.generate_all(tasks, seed, catalog)


def categories(catalog: list[CatalogEntry] | None = None) -> list[CategoryInfo]:
    return _GENERATORS.categories(catalog)
