"""A toy fifth domain, JSON extraction, as a third-party distribution would write one: the
task gives a record to extract as a JSON object (``Task.reference``: the object's JSON),
and a completion is right when the object it states equals it. It exists to prove the
domain contract (docs/architecture.md, "Adding things"): it subclasses
``verifier_audit.domains.base.Domain``, imports nothing of the package but the contract,
the generator kit and the models, lives wholly in this folder, and is registered under the
``verifier_audit.domains`` entry point by its tests (``toy_json_support.register``), never
by a line in the package. It takes part in generation (near misses, equivalents and a
hostile catalog, through the kit), labelling (``oracle``), slices, answer formats, the
exploit search and suites named by a prefix (``toy_json:N``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from verifier_audit.domains.base import CategoryInfo, Domain, OracleLabel, SuiteScheme
from verifier_audit.models import Candidate, Task

NAME = "toy_json"


class ToyJsonDomain(Domain):
    name = NAME
    reference_verifiers = {
        "substring": f"{__name__}.verifiers:substring",
        "exact_string": f"{__name__}.verifiers:exact_string",
        "loads_equal": f"{__name__}.verifiers:loads_equal",
        "strong": f"{__name__}.verifiers:strong",
    }
    suite_schemes = (SuiteScheme("toy_json:", f"{__name__}.suite:toy_suite", "N"),)
    default_timeout = 5.0

    def check_task(self, task: Task) -> str | None:
        from .oracle import check_task

        return check_task(task)

    def generate(self, tasks: list[Task], seed: int) -> Iterable[Candidate]:
        from .generators import generate_all

        return generate_all(tasks, seed)

    def label(self, text: str, task: Task) -> OracleLabel:
        from .oracle import label_completion

        return label_completion(text, task)

    def categories(self) -> list[CategoryInfo]:
        from .generators import categories

        return categories()

    def answer_formats(self) -> list:
        from .formats import FORMATS

        return FORMATS

    def reference_completion(self, task: Task, rng: random.Random) -> str:
        from .formats import reference_completion

        return reference_completion(task, rng)

    def format_of(self, text: str) -> str | None:
        from .formats import format_of

        return format_of(text)

    def answer_span(self, text: str) -> str:
        from .oracle import answer_text

        return answer_text(text)

    def task_slices(self, task: Task) -> list[str]:
        from .slices import task_slices

        return task_slices(task)

    def search_operators(self) -> dict[str, Callable]:
        from .search import OPERATORS

        return OPERATORS

    def lazy_policies(self, task: Task) -> dict[str, list[str]]:
        from .search import lazy_policies

        return lazy_policies(task)


DOMAIN = ToyJsonDomain()
