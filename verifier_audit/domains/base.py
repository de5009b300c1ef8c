"""What a domain provides to the engine. A new domain implements this and registers itself
under the ``verifier_audit.domains`` entry point; the engine never imports a domain by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Protocol

from ..models import Candidate, Label, Severity, Task


@dataclass(frozen=True)
class OracleLabel:
    """The oracle's judgement of one completion. ``label`` is None when it cannot tell."""

    label: Optional[Label]
    reason: str = ""


@dataclass(frozen=True)
class CategoryInfo:
    name: str
    origin: str
    severity: Severity
    description: str
    reference: str = ""  # public source for catalog entries


class Domain(Protocol):
    name: str
    #: name -> verifier spec ("package.module:function") of the built-in reference verifiers,
    #: weakest first; the no-argument demo run audits all of them side by side.
    reference_verifiers: dict[str, str]

    def check_task(self, task: Task) -> Optional[str]:
        """Why this task's reference is unusable (unparseable gold), or None when it is fine."""

    def generate(self, tasks: list[Task], seed: int) -> Iterable[Candidate]:
        """Candidates with their intended labels; deterministic for (tasks, seed).

        The engine confirms every label with ``label`` and drops those the oracle disagrees
        with (equivalent mutants, non-equivalent rewrites), counting them in the report."""

    def label(self, text: str, task: Task) -> OracleLabel:
        """The oracle. Runs inside a worker process with a hard time limit."""

    def categories(self) -> list[CategoryInfo]:
        """Every category the generators and catalogs can produce, for `verifier-audit catalog`."""
