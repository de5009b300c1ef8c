"""All code candidates with known truth: AST mutants of the reference (near-misses),
equivalent rewrites, and the reward-hack catalog (adversarial_cases/code.yaml).

``generate_all(tasks, seed)`` is what the engine calls; deterministic for a seed (see
``verifier_audit.generation``). Every mutant is labelled incorrect and every rewrite
correct *by construction*; the oracle then drops the mutants it cannot tell from the
reference (equivalent mutants, counted in the report) and any rewrite it finds different.
"""

from __future__ import annotations

import random
from typing import Optional

from ....catalog import CatalogEntry
from ....generation import assemble, list_categories
from ....models import Candidate, Severity, Task
from ...base import CategoryInfo
from .. import known_bad
from . import mutants, rewrites

# Per task; a task may override with metadata["max_mutants"] (None: all of them, as the
# HumanEval mutant-survival analysis wants).
DEFAULT_MAX_MUTANTS = 8

# The answer as a model writes it: prose and a fenced block (tests the extraction).
PRESENTATION_KINDS = {"markdown_answer": ("medium", "the reference inside prose and a ```python fenced block")}


def _entry(task: Task) -> str:
    return (task.model_extra or {}).get("entry_point", "")


def _near_miss(task: Task, rng: random.Random) -> list[Candidate]:
    found = mutants.mutants(task.reference, _entry(task))
    cap = task.metadata.get("max_mutants", DEFAULT_MAX_MUTANTS)
    if cap is not None and len(found) > cap:
        found = _spread(found, cap, rng)
    return [
        Candidate(id=f"{task.id}/code.near_miss.{m.kind}/{i}", task_id=task.id, text=m.source, origin="near_miss",
                  category=f"code.near_miss.{m.kind}", severity=Severity(mutants.KINDS[m.kind][0]), label="incorrect",
                  note=m.description)
        for i, m in enumerate(found)
    ]


def _spread(found: list, cap: int, rng: random.Random) -> list:
    """``cap`` mutants covering as many kinds as possible: one per kind in a seeded order,
    then a second round, and so on; kept in source order."""
    by_kind: dict[str, list] = {}
    for m in found:
        by_kind.setdefault(m.kind, []).append(m)
    kinds = sorted(by_kind)
    rng.shuffle(kinds)
    for group in by_kind.values():
        rng.shuffle(group)
    chosen: list = []
    while len(chosen) < cap:
        for kind in kinds:
            if by_kind[kind] and len(chosen) < cap:
                chosen.append(by_kind[kind].pop())
    order = {id(m): i for i, m in enumerate(found)}
    return sorted(chosen, key=lambda m: order[id(m)])


def _equivalent(task: Task, rng: random.Random) -> list[Candidate]:
    out = [
        Candidate(id=f"{task.id}/code.equivalent.{kind}", task_id=task.id, text=source, origin="equivalent",
                  category=f"code.equivalent.{kind}", severity=Severity(rewrites.KINDS[kind][0]), label="correct",
                  note=rewrites.KINDS[kind][1])
        for kind, source in rewrites.rewrites(task.reference, _entry(task), rng)
    ]
    text = (f"Here is my solution.\n\n```python\n{task.reference.rstrip()}\n```\n\n"
            f"It handles the edge cases described in the docstring.")
    out.append(Candidate(id=f"{task.id}/code.equivalent.markdown_answer", task_id=task.id, text=text,
                         origin="equivalent", category="code.equivalent.markdown_answer",
                         severity=Severity.medium, label="correct", note=PRESENTATION_KINDS["markdown_answer"][1]))
    return out


PER_TASK = {"near_miss": _near_miss, "equivalent": _equivalent}


def generate_all(tasks: list[Task], seed: int, catalog: Optional[list[CatalogEntry]] = None) -> list[Candidate]:
    return assemble("code", tasks, seed, PER_TASK, known_bad.generate, catalog)


def categories(catalog: Optional[list[CatalogEntry]] = None) -> list[CategoryInfo]:
    return list_categories("code", mutants.KINDS, {**rewrites.KINDS, **PRESENTATION_KINDS}, catalog)
