"""All toy candidates with known truth: near misses, equivalents and the hostile catalog
(``catalog.yaml`` in this package), wired by the kit as the built-in domains are."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from verifier_audit.domains.base import CategoryInfo
from verifier_audit.domains.kit import CatalogEntry, DomainGenerators, load_catalog
from verifier_audit.models import Candidate, Task

from . import equivalent, known_bad, near_miss

CATALOG = Path(__file__).resolve().parent.parent / "catalog.yaml"
_GENERATORS = DomainGenerators("toy_json", near_miss, equivalent, known_bad)


@cache
def catalog() -> list[CatalogEntry]:
    """The domain's own catalog file: a plugin ships its catalog, the package has none of it."""
    return load_catalog(CATALOG)


def generate_all(tasks: list[Task], seed: int) -> list[Candidate]:
    return _GENERATORS.generate_all(tasks, seed, catalog())


def categories() -> list[CategoryInfo]:
    return _GENERATORS.categories(catalog())
