"""The code oracle: a completion is correct when the program it contains computes what the
reference computes on every case (the visible tests' inputs and the generated ones).

* No code in the completion, code that does not parse, or no ``entry_point`` defined:
  incorrect.
* Any case where the candidate raises, crashes, exits, exhausts memory or time, or returns
  a different value (``compare.values_equal`` under the task's type policy): incorrect.
* A task with no usable case (the reference failed on every input): no label.
* A program that matches the reference on every case but differs on an input outside the
  task's contract (``inputs.contract``: "positive", "non-empty", ... ruled out) is correct,
  with a reason that starts with ``OUTSIDE_CONTRACT``: the audit drops such a near miss
  apart from the equivalent ones (``outside_contract``), never as weak tests.

A program that defines a correct function and then calls ``sys.exit(0)`` at module level is
correct: the sandbox goes on to call the function (the catalog's false-rejection probe).
"""

from __future__ import annotations

from ...models import Task
from ..base import OUTSIDE_CONTRACT, OracleLabel
from .cases import decoded_cases, decoded_outside, entry_point, run_candidate
from .extract import defines, extract_code


def check_reference(task: Task) -> str | None:
    """Why the task cannot be audited, or None."""
    name = (task.model_extra or {}).get("entry_point")
    if not name:
        return "no entry_point"
    if not defines(task.reference, name):
        return f"the reference does not define {name!r}"
    if "cases" in task.metadata and not decoded_cases(task)[0]:
        stats = task.metadata.get("case_stats", {})
        return (
            f"the reference produced no usable case ({stats.get('reference_status')}: {stats.get('reference_error')})"
        )
    return None


def label_completion(text: str, task: Task) -> OracleLabel:
    if not decoded_cases(task)[0]:
        return OracleLabel(None, "no usable test case")
    code = extract_code(text, entry_point(task))
    if code is None:
        return OracleLabel("incorrect", "no parseable Python code in the completion")
    verdict = run_candidate(code, task)
    if not verdict.correct:
        return OracleLabel("incorrect", verdict.reason)
    inputs, expected = decoded_outside(task)
    if inputs:
        apart = run_candidate(code, task, inputs=inputs, expected=expected)
        if not apart.correct:
            return OracleLabel("correct", f"{OUTSIDE_CONTRACT}: {verdict.reason}; differs outside it, {apart.reason}")
    return OracleLabel("correct", verdict.reason)
