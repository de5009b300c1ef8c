"""The math domain: final-answer verifiers (GSM8K, MATH, AIME style).

Shape shared by every domain: ``latex``/``extract``/``oracle`` decide truth,
``generators`` make candidates, ``verifiers`` are the naive-to-strong reference graders,
``loaders`` read public dataset formats.
"""

from __future__ import annotations

from typing import Iterable, Optional

from ...models import Candidate, Task
from ..base import CategoryInfo, OracleLabel

_PREFIX = "verifier_audit.domains.math.verifiers"


class MathDomain:
    name = "math"
    reference_verifiers = {
        "substring": f"{_PREFIX}:substring",
        "last_number": f"{_PREFIX}:last_number",
        "last_box_exact": f"{_PREFIX}:last_box_exact",
        "strong": f"{_PREFIX}:strong",
    }

    def check_task(self, task: Task) -> Optional[str]:
        from .answer import ParseError
        from .latex import parse_answer

        try:
            parse_answer(task.reference)
        except ParseError as exc:
            return f"reference {task.reference!r} does not parse: {exc}"
        return None

    def generate(self, tasks: list[Task], seed: int) -> Iterable[Candidate]:
        from .generators import generate_all

        return generate_all(tasks, seed)

    def label(self, text: str, task: Task) -> OracleLabel:
        from .oracle import label_completion

        return label_completion(text, task.reference)

    def categories(self) -> list[CategoryInfo]:
        from .generators import categories

        return categories()


DOMAIN = MathDomain()
