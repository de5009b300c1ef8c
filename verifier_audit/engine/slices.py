"""Slices: which kind of task each candidate belongs to, and the user's own mix of them.

A task's slices are ``"dimension:value"`` strings. A suite may name its own with a
metadata field (``metadata["slice"]`` by default, ``--slice-field`` for another name: a
string or a list of strings); otherwise the domain reads them from the reference (its
``task_slices`` hook: math answer type and magnitude band, SQL query features, code return
type). The first slice is the task's primary one: ``--weights-from`` weighs those.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..errors import InputError
from ..models import Candidate, Task

DEFAULT_FIELD = "slice"


def task_slices(domain, task: Task, field: str = DEFAULT_FIELD) -> list[str]:
    named = (task.metadata or {}).get(field)
    if isinstance(named, str) and named:
        return [f"{field}:{named}"]
    if isinstance(named, list) and named and all(isinstance(v, str) and v for v in named):
        return [f"{field}:{v}" for v in named]
    return list(domain.task_slices(task))


def with_slices(domain, tasks: list[Task], candidates: list[Candidate], field: str = DEFAULT_FIELD) -> list[Candidate]:
    """The candidates, each carrying its task's slices (computed once per task)."""
    by_task = {t.id: task_slices(domain, t, field) for t in tasks}
    return [
        c if c.slices == by_task.get(c.task_id, []) else c.model_copy(update={"slices": by_task.get(c.task_id, [])})
        for c in candidates
    ]


@dataclass(frozen=True)
class SliceWeights:
    """The share of each primary slice among the user's own tasks (``--weights-from``)."""

    source: str
    dimension: str
    weights: dict[str, float]


def weights_of(tasks: list[Task], domain, source: str, *, field: str = DEFAULT_FIELD) -> SliceWeights:
    """The share of each primary slice among ``tasks`` (the user's own, read from
    ``source``: ``plan.load_weights`` reads them)."""
    primary: Counter[str] = Counter()
    for task in tasks:
        found = task_slices(domain, task, field)
        if found:
            primary[found[0]] += 1
    if not primary:
        raise InputError(
            f"--weights-from {source}: none of its {len(tasks)} tasks has a slice the {domain.name} "
            f"domain can read (name one with metadata[{field!r}])"
        )
    dimensions = {name.partition(":")[0] for name in primary}
    if len(dimensions) > 1:
        raise InputError(
            f"--weights-from {source}: its tasks' primary slices mix dimensions ({', '.join(sorted(dimensions))}); "
            "give every task the same kind of slice"
        )
    total = sum(primary.values())
    return SliceWeights(
        source=source,
        dimension=dimensions.pop(),
        weights={name: round(n / total, 6) for name, n in sorted(primary.items())},
    )
