"""The program oracle: a completion is correct when the program it contains, run in the
sandbox on every case of its task (visible, hidden, then generated: the task's input
generator's inputs, the reference's outputs, ``cases.generated_cases``), exits with status
0 and prints what the task's checker accepts as the expected output, every time.

No program in the completion: incorrect. A task whose generated cases cannot be made (the
generator or the reference fails on a seed): no label, with the reason.
"""

from __future__ import annotations

from ....models import Task
from ...base import OracleLabel
from .cases import GenerationError, all_cases, generated_cases, judge, program_of, task_checker


def label_completion(text: str, task: Task) -> OracleLabel:
    program = program_of(text)
    if program is None:
        return OracleLabel("incorrect", "no parseable Python program in the completion")
    try:
        cases = all_cases(task) + generated_cases(task)
    except GenerationError as exc:
        return OracleLabel(None, str(exc))
    if not cases:
        return OracleLabel(None, "no case")
    verdict = judge(program, cases, task_checker(task))
    return OracleLabel("correct" if verdict.correct else "incorrect", verdict.reason)
