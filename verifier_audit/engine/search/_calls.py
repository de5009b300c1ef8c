"""Scoring texts the search makes: the verifier through the audit's worker pool (same
timeouts, isolation and memory bound as the audit's own calls), the oracle through a pool
of its own. Verifier calls are counted against the budget; oracle calls are not (they are
ours, and only the texts the verifier paid are labelled)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...domains import get_domain
from ...loading import VerifierSpec
from ...models import Candidate, Task
from .. import pool
from ..options import AuditOptions, Prepared
from ..oracle_job import OracleJob
from ..verifier_job import VerifierJob

# A verifier that keeps erroring measures nothing: stop after this many errors once they
# are over this share of the calls (a hanging verifier would otherwise spend the budget
# at one timeout a call).
MAX_ERRORS, MAX_ERROR_SHARE = 10, 0.2


@dataclass
class Scored:
    """One verifier call's score: a finite float, or None when the call failed (``error``
    says why: the verifier's error, a timeout, or "budget" for a call never made)."""

    score: float | None = None
    error: str | None = None


@dataclass
class Calls:
    """The verifier and the oracle, for one search; counts what it spends."""

    prepared: Prepared
    spec: VerifierSpec
    options: AuditOptions
    budget: int
    spent: int = 0
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)

    def __post_init__(self):
        self.tasks: dict[str, Task] = {t.id: t for t in self.prepared.tasks}
        self.domain = get_domain(self.prepared.domain)

    @property
    def left(self) -> int:
        return max(0, self.budget - self.spent)

    @property
    def failing(self) -> bool:
        return self.errors >= MAX_ERRORS and self.errors > MAX_ERROR_SHARE * self.spent

    def score(self, items: list[tuple[str, str]]) -> list[Scored]:
        """The verifier's score of each (task id, text), at most ``left`` of them (the rest
        are not scored: ``Scored(error="budget")``)."""
        todo = items[: self.left]
        out = [Scored(error="budget") for _ in items]
        if not todo:
            return out
        candidates = [_candidate(i, task_id, text) for i, (task_id, text) in enumerate(todo)]
        o = self.options
        job = VerifierJob(self.spec, candidates, self.tasks, self.domain, o.timeout, o.memory_mb)
        for r in pool.run(
            job,
            range(len(todo)),
            workers=o.workers,
            timeout=o.timeout,
            memory_mb=o.memory_mb,
            quiet=o.quiet_workers,
            clean=job.clean,
            isolation=job.isolation_level(o.isolation),
            tree_memory=True,
            bounded=job.bounded,
            file_mb=o.file_mb,
            max_processes=o.max_processes,
        ):
            value = r.value if r.ok else None
            if r.ok and isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                out[r.index] = Scored(score=float(value))
            else:
                error = r.error if not r.ok else f"TypeError: the worker returned {type(value).__name__}, not a score"
                kind = "timeout" if (error or "").startswith("timeout") else (r.error_kind or "exception")
                self.errors += 1
                self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1
                out[r.index] = Scored(error=error)
        self.spent += len(todo)
        return out

    def label(self, items: list[tuple[str, str]]) -> list[str | None]:
        """The oracle's label of each (task id, text): "correct", "incorrect" or None."""
        if not items:
            return []
        candidates = [_candidate(i, task_id, text) for i, (task_id, text) in enumerate(items)]
        job = OracleJob(self.domain, candidates, self.tasks)
        out: list[str | None] = [None] * len(items)
        for r in pool.run(
            job,
            range(len(items)),
            workers=self.options.workers,
            timeout=self.options.oracle_timeout,
            memory_mb=self.options.memory_mb,
        ):
            if r.ok:
                out[r.index] = r.value[0]
        return out


def _candidate(i: int, task_id: str, text: str) -> Candidate:
    # The worker sees (task id, text) only; the rest is a placeholder it never receives.
    return Candidate(
        id=f"search/{i}", task_id=task_id, text=text, origin="search", category="search", label="incorrect"
    )
