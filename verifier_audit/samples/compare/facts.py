"""What ``compare`` keeps of each sample: correct or not, its canonical answer, the sums of
its token-entropy bounds and KL terms (``Facts``). The figures need only these, so the
samples (texts, per-token logprobs) can be dropped once they are reduced.

Canonical answers are extracted in the worker pool: completions are model output, and a
parser must not hang or crash the command on one of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...models import Task
from .. import metrics as M
from ..records import Sample


@dataclass
class Facts:
    """What the figures need of one sample."""

    task_id: str
    split: str
    correct: bool | None  # None: undecided
    answer: str | None  # canonical answer; None: unparseable
    tokens: int = 0
    ent_low: float | None = None  # sums over the sample's tokens
    ent_high: float | None = None  # NaN inside: unbounded
    kl_k1: float | None = None  # sums over tokens
    kl_k3: float | None = None
    authority: Any | None = None  # samples/authority.SampleAuthority, for a tool task; None otherwise


def token_entropy_sums(sample: Sample, vocab_size: int | None) -> tuple[int, float | None, float | None]:
    """(tokens, sum of lower bounds, sum of upper bounds) over a sample's tokens; None
    without top-K logprobs."""
    if not sample.top_logprobs:
        return len(sample.token_ids), None, None
    low, high = M.token_entropy_bounds(M.top_logprobs_matrix(sample.top_logprobs), vocab_size)
    return len(sample.token_ids), float(low.sum()), float(high.sum())


def kl_sums(sample: Sample) -> tuple[float | None, float | None]:
    if sample.ref_logprobs is None or sample.logprobs_kind != "raw" or not sample.logprobs:
        return None, None
    k1, k3 = M.kl_token_estimates(sample.logprobs, sample.ref_logprobs)
    return float(k1.sum()), float(k3.sum())


# --------------------------------------------------------------------------------------
# Canonical answers (run in the worker pool)
# --------------------------------------------------------------------------------------


def canonical_answer(text: str, task: Task) -> str | None:
    """The domain's canonical answer of a completion, None when there is none
    (``Domain.canonical_answer``: math writes a final answer back as canonical LaTeX, sql
    collapses the statements' whitespace, code normalises the program with ``ast.unparse``).
    A task of a domain not installed here gets the contract's default (whitespace
    collapsed)."""
    from ...domains import available, get_domain
    from ...domains.base import Domain

    domain = get_domain(task.domain) if task.domain in available() else Domain()
    return domain.canonical_answer(text, task)


class _AnswerJob:
    def __init__(self, items: Sequence[tuple[str, str]], tasks: dict[str, Task]):
        self.items, self.tasks = items, tasks

    def setup(self) -> None:
        pass

    def __call__(self, index: int) -> str | None:
        task_id, text = self.items[index]
        task = self.tasks.get(task_id)
        return None if task is None else canonical_answer(text, task)


def canonical_answers(
    items: Sequence[tuple[str, str]],
    tasks: dict[str, Task],
    *,
    workers: int = 2,
    timeout: float = 10.0,
    memory_mb: int | None = 4096,
) -> list[str | None]:
    """``canonical_answer`` of every (task id, text), in order; a call that times out or
    crashes is an unparseable answer."""
    from ...engine import pool

    out: list[str | None] = [None] * len(items)
    job = _AnswerJob(items, tasks)
    for res in pool.run(job, range(len(items)), workers=workers, timeout=timeout, memory_mb=memory_mb):
        if res.ok:
            out[res.index] = res.value
    return out
