"""``math_env.py`` in the ``verifiers`` v1 API (verifiers 0.3.x and 0.4.x): a ``Taskset``
whose ``Task`` scores a trace with two ``@vf.reward`` methods -- exact match of the last
``\\boxed{}`` (weight 1.0) and a format bonus for writing a box at all (weight 0.2).

    verifier-audit run --verifier examples/verifiers_env/math_taskset.py:load_taskset --style verifiers

The audit scores each completion the way ``vf-replay`` re-scores a saved trace:
``Task.score(trace)`` offline, ``trace.reward`` the weighted sum (docs/frameworks-verifiers.md).
"""

from __future__ import annotations

from collections.abc import Iterable

import verifiers.v1 as vf
from problems import PROBLEMS, SYSTEM_PROMPT  # beside this file


class MathData(vf.TaskData):
    answer: str


class MathTask(vf.Task[MathData]):
    @vf.reward(weight=1.0)
    async def correct_answer(self, trace: vf.Trace) -> float:
        """1 when the last box holds the reference, character for character."""
        return 1.0 if vf.extract_boxed_answer(trace.last_reply).strip() == self.data.answer.strip() else 0.0

    @vf.reward(weight=0.2)
    async def boxed_format(self, trace: vf.Trace) -> float:
        """1 when the reply writes its answer in a box (whatever the answer is)."""
        return 1.0 if "\\boxed{" in trace.last_reply else 0.0


class MathTaskset(vf.Taskset[MathTask]):
    def load(self) -> Iterable[MathTask]:
        for row in PROBLEMS:
            yield MathTask(
                MathData(prompt=row["question"], answer=row["answer"], system_prompt=SYSTEM_PROMPT), self.config.task
            )


def load_taskset(**kwargs) -> MathTaskset:
    return MathTaskset(vf.TasksetConfig(**kwargs))


__all__ = ["MathTaskset"]
