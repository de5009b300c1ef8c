"""What ``compare`` keeps of each sample: correct or not, its canonical answer, the sums of
its token-entropy bounds and KL terms (``Facts``). The figures need only these, so the
samples (texts, per-token logprobs) can be dropped once they are reduced.

Canonical answers are extracted in the worker pool: completions are model output, and a
parser must not hang or crash the command on one of them.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ...models import Task
from .. import metrics as M
from ..records import Sample


@dataclass
class Facts:
    """What the figures need of one sample."""

    task_id: str
    split: str
    correct: Optional[bool]  # None: undecided
    answer: Optional[str]  # canonical answer; None: unparseable
    tokens: int = 0
    ent_low: Optional[float] = None  # sums over the sample's tokens
    ent_high: Optional[float] = None  # NaN inside: unbounded
    kl_k1: Optional[float] = None  # sums over tokens
    kl_k3: Optional[float] = None
    authority: Optional[Any] = None  # samples/authority.SampleAuthority, for a tool task; None otherwise


def token_entropy_sums(sample: Sample, vocab_size: Optional[int]) -> tuple[int, Optional[float], Optional[float]]:
    """(tokens, sum of lower bounds, sum of upper bounds) over a sample's tokens; None
    without top-K logprobs."""
    if not sample.top_logprobs:
        return len(sample.token_ids), None, None
    low, high = M.token_entropy_bounds(M.top_logprobs_matrix(sample.top_logprobs), vocab_size)
    return len(sample.token_ids), float(low.sum()), float(high.sum())


def kl_sums(sample: Sample) -> tuple[Optional[float], Optional[float]]:
    if sample.ref_logprobs is None or sample.logprobs_kind != "raw" or not sample.logprobs:
        return None, None
    k1, k3 = M.kl_token_estimates(sample.logprobs, sample.ref_logprobs)
    return float(k1.sum()), float(k3.sum())


# --------------------------------------------------------------------------------------
# Canonical answers (run in the worker pool)
# --------------------------------------------------------------------------------------


def canonical_answer(text: str, task: Task) -> Optional[str]:
    """The domain's canonical answer of a completion, None when there is none.

    math: the single final answer (``extract.extract_answers``; several different answers
    are none), parsed and written back as canonical LaTeX (``render.to_latex``): ``1/2``,
    ``\\frac12`` and ``\\dfrac{1}{2}`` are one answer; ``0.5`` is another (a decimal keeps
    its form). sql: the extracted statements, whitespace collapsed. code: the extracted
    program, normalised by ``ast.unparse`` (comments and layout do not count).
    """
    if task.domain == "math":
        from ...domains.math.answer import ParseError
        from ...domains.math.extract import extract_answers
        from ...domains.math.latex import parse_answer
        from ...domains.math.render import to_latex

        found = extract_answers(text)
        if not found.answers or found.conflict:
            return None
        try:
            return to_latex(parse_answer(found.answers[-1]))
        except ParseError:
            return None
        except Exception:  # noqa: BLE001 - an odd value the renderer cannot write: keep the text
            return " ".join(found.answers[-1].split())
    if task.domain == "sql":
        from ...domains.sql.extract import extract_sql

        stmts = extract_sql(text)
        return "; ".join(" ".join(s.split()) for s in stmts) if stmts else None
    if task.domain == "code":
        from ...domains.code.cases import entry_point
        from ...domains.code.extract import extract_code

        code = extract_code(text, entry_point(task))
        if code is None:
            return None
        try:
            return ast.unparse(ast.parse(code))
        except (SyntaxError, ValueError, RecursionError):
            return code.strip()
    return " ".join(text.split()) or None


class _AnswerJob:
    def __init__(self, items: Sequence[tuple[str, str]], tasks: dict[str, Task]):
        self.items, self.tasks = items, tasks

    def setup(self) -> None:
        pass

    def __call__(self, index: int) -> Optional[str]:
        task_id, text = self.items[index]
        task = self.tasks.get(task_id)
        return None if task is None else canonical_answer(text, task)


def canonical_answers(items: Sequence[tuple[str, str]], tasks: dict[str, Task], *, workers: int = 2,
                      timeout: float = 10.0, memory_mb: Optional[int] = 4096) -> list[Optional[str]]:
    """``canonical_answer`` of every (task id, text), in order; a call that times out or
    crashes is an unparseable answer."""
    from ...engine import pool

    out: list[Optional[str]] = [None] * len(items)
    job = _AnswerJob(items, tasks)
    for res in pool.run(job, range(len(items)), workers=workers, timeout=timeout, memory_mb=memory_mb):
        if res.ok:
            out[res.index] = res.value
    return out
