"""All code candidates with known truth: AST mutants of the reference (near-misses),
output-level near-misses (``outputs``: the reference's answer in a wrong shape), equivalent
rewrites, and the reward-hack catalog (adversarial_cases/code.yaml).

``generate_all(tasks, seed)`` is what the engine calls; deterministic for a seed (see
``verifier_audit.domains.kit``). Every mutant is labelled incorrect and every rewrite
correct *by construction*; the oracle then drops the mutants it cannot tell from the
reference (equivalent mutants, counted in the report) and any rewrite it finds different.
"""

from __future__ import annotations

import random

from ....models import Candidate, Task
from ...base import CategoryInfo
from ...kit import CatalogEntry, assemble, list_categories, make_candidates, sample_kinds
from .. import known_bad
from . import mutants, outputs, rewrites

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
        # As many kinds as the cap allows: one per kind in a seeded order, then a second
        # round, and so on; kept in source order.
        found = sample_kinds(found, rng, cap=cap, draw="round_robin", order="source")
    # Ids number the task's mutants from 0 across kinds (``running``), as they always have.
    return make_candidates(
        "code",
        task.id,
        [(m.kind, m.source, m.description) for m in found],
        origin="near_miss",
        label="incorrect",
        kinds=mutants.KINDS,
        ids="running",
    )


def _equivalent(task: Task, rng: random.Random) -> list[Candidate]:
    # One rewrite per kind: ids end in the kind (``kind``).
    found = rewrites.rewrites(task.reference, _entry(task), rng)
    chosen = [(kind, source, rewrites.KINDS[kind][1]) for kind, source in found]
    text = (
        f"Here is my solution.\n\n```python\n{task.reference.rstrip()}\n```\n\n"
        f"It handles the edge cases described in the docstring."
    )
    chosen.append(("markdown_answer", text, PRESENTATION_KINDS["markdown_answer"][1]))
    return make_candidates(
        "code",
        task.id,
        chosen,
        origin="equivalent",
        label="correct",
        kinds={**rewrites.KINDS, **PRESENTATION_KINDS},
        ids="kind",
    )


def _outputs(task: Task, rng: random.Random) -> list[Candidate]:
    # All of them (a handful per task, by return type): not drawn, so rng is unused.
    del rng
    out = []
    for origin, label, kinds in (
        ("near_miss", "incorrect", outputs.KINDS),
        ("equivalent", "correct", outputs.EQUIVALENT_KINDS),
    ):
        chosen = [(kind, source, note) for o, kind, source, note in outputs.output_variants(task) if o == origin]
        out += make_candidates("code", task.id, chosen, origin=origin, label=label, kinds=kinds, ids="kind")
    return out


# The names seed each generator (kit.rng_for): a new one is added under a new name.
PER_TASK = {"near_miss": _near_miss, "equivalent": _equivalent, "outputs": _outputs}


def generate_all(tasks: list[Task], seed: int, catalog: list[CatalogEntry] | None = None) -> list[Candidate]:
    return assemble("code", tasks, seed, PER_TASK, known_bad.generate, catalog)


def categories(catalog: list[CatalogEntry] | None = None) -> list[CategoryInfo]:
    return list_categories(
        "code",
        {**mutants.KINDS, **outputs.KINDS},
        {**rewrites.KINDS, **PRESENTATION_KINDS, **outputs.EQUIVALENT_KINDS},
        catalog,
    )
