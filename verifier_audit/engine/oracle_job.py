"""The oracle's calls as a worker-pool job: label each candidate (index into a list) with
the domain's oracle. The audit's labelling step, the format probe and the exploit search
all run it."""

from __future__ import annotations

from ..domains.base import Domain
from ..models import Candidate, Task


class OracleJob:
    def __init__(self, domain: Domain, candidates: list[Candidate], tasks: dict[str, Task]):
        self.domain, self.candidates, self.tasks = domain, candidates, tasks

    def setup(self) -> None:
        pass

    def __call__(self, index: int):
        c = self.candidates[index]
        result = self.domain.label(c.text, self.tasks[c.task_id])
        return result.label, result.reason
