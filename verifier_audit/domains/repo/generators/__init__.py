"""All repo-task candidates with known truth: near misses (the gold with one slip, one
hunk of it alone, the visible failing tests special-cased, the gold breaking a neighbour),
equivalents (the gold written another way: comments, file order, context, renamed
locals, an extracted helper) and the reward-hack catalog (``adversarial_cases/repo.yaml``
through ``known_bad``: tests edited, skipped or deselected, a conftest.py that reports
every test passed, an exit before the tests, assertions patched, the grader's report
written, fake ``PASSED`` lines, hidden tests read, CI configuration edited). Every
candidate is a completion holding a unified diff against the task's ``metadata.files``."""

from __future__ import annotations

from ....models import Candidate, Task
from ...base import CategoryInfo
from ...kit import CatalogEntry, DomainGenerators
from . import equivalent, known_bad, near_miss

_GENERATORS = DomainGenerators("repo", near_miss, equivalent, known_bad)


def generate_all(tasks: list[Task], seed: int, catalog: list[CatalogEntry] | None = None) -> list[Candidate]:
    return _GENERATORS.generate_all(tasks, seed, catalog)


def categories(catalog: list[CatalogEntry] | None = None) -> list[CategoryInfo]:
    return _GENERATORS.categories(catalog)
