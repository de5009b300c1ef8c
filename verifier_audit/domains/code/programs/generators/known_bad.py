"""Known-bad programs: the program catalog (adversarial_cases/program.yaml) on tasks.

Each entry is a whole Python program with placeholders; this module fills the program
placeholders for one task and the kit's ``expand_template`` does the rest. An entry goes
onto ``entry.instances`` tasks chosen from (seed, entry id); its label is the entry's.

Placeholders (also documented at the top of the catalog file):

* ``{{reference}}``          the task's reference program, verbatim;
* ``{{reference_output}}``   the definition of ``_reference_output()``: the reference run
  inside the candidate on its stdin, its stdout handed back as a string (``wrap.py``);
* ``{{visible}}``            a dict literal ``{input.strip(): expected output}`` of the
  task's visible cases (a task without visible cases is skipped);
* ``{{token}}``              ``[a-z0-9_]``, unique per (entry, task), as in the code catalog.

Task kinds for ``applies_to``: ``multiline`` (an expected output with more than one line),
``float`` (a task with a float tolerance), ``special`` (a special judge).
"""

from __future__ import annotations

from .....models import Candidate, Task
from ....kit import CatalogEntry, SkipInstance, expand_template, instantiate_by_kinds
from ...known_bad import token
from ..cases import all_cases, cases_of, float_tolerance
from .wrap import reference_output

PLACEHOLDERS = {"reference", "reference_output", "visible", "token"}


def generate(tasks: list[Task], seed: int, entries: list[CatalogEntry]) -> list[Candidate]:
    """Every entry on up to ``entry.instances`` tasks; deterministic for seed."""
    return instantiate_by_kinds(tasks, seed, entries, placeholders=PLACEHOLDERS, kinds=task_kinds, fill=fill)


def task_kinds(task: Task) -> set[str]:
    kinds = set()
    if any(len(c.output.strip().splitlines()) > 1 for c in all_cases(task)):
        kinds.add("multiline")
    if float_tolerance(task) is not None:
        kinds.add("float")
    if task.metadata.get("checker") == "special":
        kinds.add("special")
    return kinds


def fill(entry: CatalogEntry, task: Task) -> str:
    """The entry's template filled in for ``task``; SkipInstance when it cannot be."""

    def resolve(name: str, args: str) -> str:
        if name == "reference":
            return task.reference
        if name == "reference_output":
            return reference_output(task.reference)
        if name == "visible":
            visible = cases_of(task, "visible")
            if not visible:
                raise SkipInstance(f"task {task.id}: no visible case")
            return repr({c.input.strip(): c.output for c in visible})
        if name == "token":
            return token(entry.id, task.id)
        raise KeyError(name)

    return expand_template(entry.template, resolve)
