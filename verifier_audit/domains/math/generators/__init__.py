"""All math candidates with known truth: near-misses, equivalents and the known-bad catalog.

``generate_all(tasks, seed)`` is what the engine calls; deterministic for a seed (see
``verifier_audit.domains.kit``).
"""

from __future__ import annotations

from ....models import Candidate, Task
from ...kit import CatalogEntry, DomainGenerators
from ..formats import without_final_period
from . import equivalent, known_bad, near_miss

_GENERATORS = DomainGenerators("math", near_miss, equivalent, known_bad)
categories = _GENERATORS.categories


def generate_all(tasks: list[Task], seed: int, catalog: list[CatalogEntry] | None = None) -> list[Candidate]:
    """Every candidate; a catalog candidate that ends with the task's reference and a period
    comes twice, with and without that period."""
    references = {t.id: t.reference for t in tasks}
    return [
        v
        for c in _GENERATORS.generate_all(tasks, seed, catalog)
        for v in _with_and_without_final_period(c, references[c.task_id])
    ]


def _with_and_without_final_period(candidate: Candidate, reference: str) -> list[Candidate]:
    """String-comparing graders read "-15." as another answer than "-15" (verl's gsm8k
    flexible grader compares the last number with its period), so a catalog trap that ends
    "..., not -15." with the gold -15 is no trap for them: it is also shown as "..., not -15"
    (formats.without_final_period)."""
    bare = without_final_period(candidate.text) if candidate.origin == "known_bad" else None
    if bare is None or not bare.rstrip().endswith(reference.strip()):
        return [candidate]
    return [
        candidate,
        candidate.model_copy(
            update={
                "id": candidate.id + "/no_period",
                "text": bare,
                "note": candidate.note + " (without its final period)",
            }
        ),
    ]


__all__ = ["generate_all", "categories", "near_miss", "equivalent", "known_bad"]
