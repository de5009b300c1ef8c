"""All SQL candidates with known truth: near-miss mutants, equivalent rewrites and the
known-bad catalog.

``generate_all(tasks, seed)`` is what the engine calls; deterministic for a seed (see
``verifier_audit.domains.kit``).
"""

from __future__ import annotations

from ...kit import DomainGenerators
from . import equivalent, known_bad, near_miss
from ._dialect import in_target_dialect

_GENERATORS = DomainGenerators("sql", near_miss, equivalent, known_bad)
generate_all = in_target_dialect(_GENERATORS.generate_all)  # --dialect sqlite: SQLite queries
categories = _GENERATORS.categories

__all__ = ["generate_all", "categories", "near_miss", "equivalent", "known_bad"]
