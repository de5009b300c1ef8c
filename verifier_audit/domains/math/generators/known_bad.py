"""Known-bad completions: the math catalog (adversarial_cases/math.yaml) instantiated on tasks.

Each catalog entry is a template; this module fills the math placeholders
(``{{reference}}``, ``{{wrong}}``, ``{{question}}``, ``{{below}}``/``{{above}}``,
``{{magnitude}}``, ``{{canary}}``) for a task, and ``catalog.expand_template`` does the rest (repeat, filler,
char, seq). An entry goes onto ``entry.instances`` tasks chosen deterministically from
(seed, entry id) among the tasks whose answer kind it applies to. Every candidate is
labelled incorrect.
"""

from __future__ import annotations

import sympy

from ....canary import FORMS, make_token, payload
from ....models import Candidate, Task
from ...kit import CatalogEntry, SkipInstance, check_templates, expand_template, instantiate_catalog
from ..answer import Answer, Kind
from ..render import number_latex
from ._common import parse_reference
from .near_miss import as_interval, mutants

# Names this domain adds to the generic placeholder language (see the catalog file).
PLACEHOLDERS = {"reference", "wrong", "question", "below", "above", "magnitude", "canary"}

# Which near-miss stands in for {{wrong}}: the plainest mistake that fits the answer.
_WRONG_ORDER = (
    "off_by_one",
    "wrong_text",
    "swapped_tuple",
    "wrong_bracket",
    "set_subset",
    "matrix_entry",
    "wrong_coefficient",
    "sign_flip",
    "times_ten",
)


_Skip = SkipInstance  # This entry cannot be filled in on this task (e.g. {{below}} for a matrix answer).


def generate(tasks: list[Task], seed: int, entries: list[CatalogEntry]) -> list[Candidate]:
    """Every entry instantiated on up to ``entry.instances`` tasks; deterministic for seed."""
    answers = {t.id: parse_reference(t.reference) for t in tasks}
    usable = sorted((t for t in tasks if answers[t.id] is not None), key=lambda t: t.id)
    entries = list(entries)
    check_templates(entries, PLACEHOLDERS)
    return instantiate_catalog(
        usable,
        seed,
        entries,
        fits=lambda entry, task: _applies(entry, answers[task.id], task),
        fill=lambda entry, task: expand_template(entry.template, _Resolver(task, answers[task.id], entry)),
    )


def _kind_name(answer: Answer, task: Task) -> str:
    if as_interval(answer, (task.metadata or {}).get("answer_type", "")) is not None:
        return "interval"
    return answer.kind.value


def _applies(entry: CatalogEntry, answer: Answer, task: Task) -> bool:
    return not entry.applies_to or _kind_name(answer, task) in entry.applies_to


class _Resolver:
    """Fills the math placeholders for one (task, entry); values are computed on first use."""

    def __init__(self, task: Task, answer: Answer, entry: CatalogEntry):
        self.task, self.answer, self.entry = task, answer, entry
        self._wrong: str | None = None

    def __call__(self, name: str, args: str) -> str:
        if name == "reference":
            return self.task.reference
        if name == "question":
            return self.task.prompt
        if name == "wrong":
            return self.wrong()
        if name in ("below", "above"):
            return self.bound(name)
        if name == "magnitude":
            return number_latex(abs(self.real_value()))
        if name == "canary":
            form = args or "mkdir"
            if form not in FORMS:
                raise KeyError(f"canary:{form}")
            return payload(make_token(self.entry.id, self.task.id), form)
        raise KeyError(name)

    def wrong(self) -> str:
        if self._wrong is None:
            found = {}
            for m in mutants(self.answer, self.task):
                found.setdefault(m.kind, m.latex)
            choice = next((found[k] for k in _WRONG_ORDER if k in found), None)
            if choice is None:
                choice = next(iter(found.values()), None)
            if choice is None:
                raise _Skip()
            self._wrong = choice
        return self._wrong

    def real_value(self):
        value = self.answer.value if self.answer.kind is Kind.NUMBER else None
        if value is None or not value.is_real or self.answer.percent:
            raise _Skip()
        return value

    def bound(self, name: str) -> str:
        value = self.real_value()
        if name == "below":
            return str(int(sympy.floor(value)) - 3)
        return str(int(sympy.ceiling(value)) + 3)
