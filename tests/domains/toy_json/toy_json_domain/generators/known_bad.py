"""Hostile completions: the toy catalog (``catalog.yaml``) filled in on tasks, through the
kit's template language with the toy's own placeholders."""

from __future__ import annotations

import json

from verifier_audit.domains.kit import (
    CatalogEntry,
    SkipInstance,
    check_templates,
    expand_template,
    instantiate_catalog,
)
from verifier_audit.models import Candidate, Task

from ..oracle import reference_object
from .near_miss import as_text, mutants

PLACEHOLDERS = {"reference", "wrong", "pretty", "duplicate_keys"}
# Which near miss stands in for {{wrong}}: the plainest first.
_WRONG_ORDER = ("off_by_one", "changed_string", "flipped_bool", "dropped_key")


def _wrong(obj: dict) -> str:
    found = {kind: wrong for kind, wrong, _ in mutants(obj)}
    for kind in _WRONG_ORDER:
        if kind in found:
            return as_text(found[kind])
    raise SkipInstance("no plain mistake fits")


def _duplicate_keys(obj: dict) -> str:
    """The object's keys twice: first with a wrong value, then the right one (a parser that
    keeps the last reads the reference; RFC 8259 leaves it to the parser)."""
    wrong = json.loads(_wrong(obj)) if len(obj) else {}
    first = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in wrong.items() if k in obj and v != obj[k])
    if not first:
        raise SkipInstance("no key to give twice")
    return "{" + first + ", " + json.dumps(obj)[1:]


def _fill(entry: CatalogEntry, task: Task) -> str:
    obj = reference_object(task)
    values = {
        "reference": lambda: task.reference,
        "wrong": lambda: _wrong(obj),
        "pretty": lambda: json.dumps(obj, indent=2),
        "duplicate_keys": lambda: _duplicate_keys(obj),
    }

    def resolve(name: str, args: str) -> str:
        return values[name]()

    return expand_template(entry.template, resolve)


def generate(tasks: list[Task], seed: int, catalog: list[CatalogEntry]) -> list[Candidate]:
    check_templates(catalog, PLACEHOLDERS)
    return instantiate_catalog(tasks, seed, catalog, fits=lambda entry, task: True, fill=_fill)
