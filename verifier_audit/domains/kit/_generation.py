"""What every domain's candidate generators share.

* ``rng_for`` — stable seeding: a ``random.Random`` from a SHA-256 of (seed, parts), so a
  candidate depends only on its own task and generator, never on Python's per-process
  ``hash()`` salt or on which other tasks are in the run.
* ``make_candidates`` — a generator's chosen texts as ``Candidate`` s: the category
  ``<domain>.<origin>.<kind>``, the severity from the kind table, and the id scheme.
* ``assemble`` and ``list_categories`` — a domain's per-task generators plus its catalog,
  as ``generate_all`` and ``categories`` (what the Domain protocol asks for);
  ``DomainGenerators`` wires them for the usual trio of modules (near-miss, equivalent,
  catalog).
* ``instantiate_catalog`` — each catalog entry on up to ``entry.instances`` tasks chosen
  by the seed; the domain says which tasks fit and how to fill a template in.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable
from typing import Literal, NamedTuple

from ...models import SEVERITY_WEIGHT, Candidate, Severity, Task
from ..base import CategoryInfo
from ._catalog import CatalogEntry, CatalogError, TemplateError, builtin_catalog, check_template


def rng_for(seed: int, *parts: str) -> random.Random:
    """A Random seeded from a stable hash of (seed, parts): same inputs, same stream."""
    key = "\x1f".join([str(seed), *parts]).encode("utf-8")
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


class Chosen(NamedTuple):
    """One text a per-task generator keeps: its kind, the completion, a note for the report
    and the answer format it is written in (None: not known)."""

    kind: str
    text: str
    note: str
    format: str | None = None


# How a candidate's id ends after ``<task>/<category>``: "/<n>" numbering the candidates of
# one category from 0, "/<n>" numbering all of the call's candidates, or nothing (one per kind).
IdScheme = Literal["per_category", "running", "kind"]


def make_candidates(
    domain: str,
    task_id: str,
    chosen: Iterable[tuple],
    *,
    origin: str,
    label: str,
    kinds: dict,
    ids: IdScheme = "per_category",
) -> list[Candidate]:
    """One Candidate per chosen ``(kind, text, note[, format])`` (a ``Chosen``), in order.

    The category is ``<domain>.<origin>.<kind>``; ``kinds`` maps a kind to its (severity,
    description), the severity as the enum or its name. The ids are part of the results
    and the cache: a domain keeps the ``ids`` scheme it has always had."""
    counters: dict[str, int] = {}
    out = []
    for running, item in enumerate(chosen):
        kind, text, note, fmt = Chosen(*item)
        category = f"{domain}.{origin}.{kind}"
        index = counters.get(category, 0)
        counters[category] = index + 1
        suffix = {"per_category": f"/{index}", "running": f"/{running}", "kind": ""}[ids]
        out.append(
            Candidate(
                id=f"{task_id}/{category}{suffix}",
                task_id=task_id,
                text=text,
                origin=origin,
                category=category,
                severity=Severity(kinds[kind][0]),
                label=label,
                note=note,
                format=fmt,
            )
        )
    return out


class SkipInstance(Exception):
    """This catalog entry cannot be filled in on this task (the domain says why)."""


PerTask = Callable[[Task, random.Random], list[Candidate]]


def assemble(
    domain: str,
    tasks: list[Task],
    seed: int,
    per_task: dict[str, PerTask],
    known_bad: Callable[[list[Task], int, list[CatalogEntry]], list[Candidate]],
    catalog: list[CatalogEntry] | None = None,
) -> list[Candidate]:
    """Per-task generators (each name is part of its seed: keep names stable), then the catalog."""
    out: list[Candidate] = []
    for task in tasks:
        for name, generate in per_task.items():
            out.extend(generate(task, rng_for(seed, task.id, name)))
    out.extend(known_bad(tasks, seed, builtin_catalog(domain) if catalog is None else catalog))
    return out


def list_categories(
    domain: str, near_miss_kinds: dict, equivalent_kinds: dict, catalog: list[CatalogEntry] | None = None
) -> list[CategoryInfo]:
    """Every category a domain can produce; kinds map name -> (severity, description)."""
    # Kind tables may spell severities as strings; CategoryInfo always carries the enum.
    infos = [
        CategoryInfo(f"{domain}.near_miss.{kind}", "near_miss", Severity(severity), description)
        for kind, (severity, description) in near_miss_kinds.items()
    ]
    infos += [
        CategoryInfo(f"{domain}.equivalent.{kind}", "equivalent", Severity(severity), description)
        for kind, (severity, description) in equivalent_kinds.items()
    ]
    by_category: dict[str, list[CatalogEntry]] = {}
    for entry in builtin_catalog(domain) if catalog is None else catalog:
        by_category.setdefault(entry.category, []).append(entry)
    for name, group in by_category.items():
        severity = max((e.severity for e in group), key=lambda s: SEVERITY_WEIGHT[Severity(s)])
        description = " / ".join(e.rationale for e in group)
        reference = "; ".join(dict.fromkeys(e.reference for e in group))
        infos.append(CategoryInfo(name, "known_bad", severity, description, reference))
    return infos


class DomainGenerators:
    """``generate_all`` and ``categories`` of a domain whose generators are a near-miss module
    and an equivalent module (each with ``generate(task, rng)`` and a ``KINDS`` table) and a
    catalog module (``generate(tasks, seed, catalog)``). The per-task names "near_miss" and
    "equivalent" are part of every candidate's seed: they must not change."""

    def __init__(self, domain: str, near_miss, equivalent, known_bad):
        self.domain, self.near_miss, self.equivalent, self.known_bad = domain, near_miss, equivalent, known_bad

    def generate_all(self, tasks: list[Task], seed: int, catalog: list[CatalogEntry] | None = None) -> list[Candidate]:
        """Every candidate for ``tasks``: per-task generators, then the catalog (built-in by default)."""
        per_task = {"near_miss": self.near_miss.generate, "equivalent": self.equivalent.generate}
        return assemble(self.domain, tasks, seed, per_task, self.known_bad.generate, catalog)

    def categories(self, catalog: list[CatalogEntry] | None = None) -> list[CategoryInfo]:
        """Every category the generators and the catalog can produce, with its severity."""
        return list_categories(self.domain, self.near_miss.KINDS, self.equivalent.KINDS, catalog)


def check_templates(entries: Iterable[CatalogEntry], placeholders) -> None:
    """Fail early, naming the file and the entry, on a template with an unknown placeholder."""
    for entry in entries:
        try:
            check_template(entry.template, known=placeholders)
        except TemplateError as exc:
            raise CatalogError(f"{entry.source or 'catalog'}: entry {entry.id!r}: field 'template': {exc}") from None


def instantiate_catalog(
    tasks: list[Task],
    seed: int,
    entries: Iterable[CatalogEntry],
    *,
    fits: Callable[[CatalogEntry, Task], bool],
    fill: Callable[[CatalogEntry, Task], str],
) -> list[Candidate]:
    """Each entry on up to ``entry.instances`` of the tasks it ``fits``, in a seeded order.

    ``fill`` returns the candidate's text or raises SkipInstance (then the next task is
    tried) or TemplateError (a broken catalog: reported with the entry's file and id)."""
    out: list[Candidate] = []
    for entry in entries:
        eligible = [t for t in tasks if fits(entry, t)]
        rng_for(seed, "known_bad", entry.id).shuffle(eligible)
        made = 0
        for task in eligible:
            if made >= entry.instances:
                break
            try:
                text = fill(entry, task)
            except SkipInstance:
                continue
            except TemplateError as exc:
                raise CatalogError(
                    f"{entry.source or 'catalog'}: entry {entry.id!r}: field 'template': {exc}"
                ) from None
            out.append(
                Candidate(
                    id=f"{task.id}/{entry.category}/{entry.id}",
                    task_id=task.id,
                    text=text,
                    origin="known_bad",
                    category=entry.category,
                    severity=entry.severity,
                    label=entry.label,
                    label_source="catalog+oracle",
                    note=f"catalog entry {entry.id}",
                )
            )
            made += 1
    return out


def instantiate_by_kinds(
    tasks: list[Task],
    seed: int,
    entries: Iterable[CatalogEntry],
    *,
    placeholders: Iterable[str],
    kinds: Callable[[Task], set[str]],
    fill: Callable[[CatalogEntry, Task], str],
) -> list[Candidate]:
    """A known-bad generator whose entries fit a task by its ``kinds`` (an entry with
    ``applies_to`` fits the tasks that have one of those kinds; one without fits all): the
    templates checked against ``placeholders``, then ``instantiate_catalog`` over the tasks
    in id order. Deterministic for ``seed``."""
    entries = list(entries)
    check_templates(entries, placeholders)
    of = {t.id: kinds(t) for t in tasks}
    return instantiate_catalog(
        sorted(tasks, key=lambda t: t.id),
        seed,
        entries,
        fits=lambda e, task: not e.applies_to or bool(set(e.applies_to) & of[task.id]),
        fill=fill,
    )
