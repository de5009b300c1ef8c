"""The program oracle: a completion is correct when the program it contains, run in the
sandbox on every case of its task (visible and hidden), exits with status 0 and prints
what the task's checker accepts as the expected output, every time.

No program in the completion: incorrect. Generated inputs (an input generator per task,
the reference producing the expected outputs) are not run yet: the cases are the task's.
"""

from __future__ import annotations

from ....models import Task
from ...base import OracleLabel
from .cases import all_cases, judge, program_of, task_checker


def label_completion(text: str, task: Task) -> OracleLabel:
    cases = all_cases(task)
    if not cases:
        return OracleLabel(None, "no case")
    program = program_of(text)
    if program is None:
        return OracleLabel("incorrect", "no parseable Python program in the completion")
    verdict = judge(program, cases, task_checker(task))
    return OracleLabel("correct" if verdict.correct else "incorrect", verdict.reason)
