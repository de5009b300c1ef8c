"""Reference program verifiers, weakest first. The audit runs them side by side.

Each is native style ``(completion, task)``, and each grades as a stdin/stdout grader does
(verl's ``prime_code`` in its stdin mode, LiveCodeBench's stdio comparison): it takes the
program out of the completion, runs it once per case with the case's input on stdin (in
the sandbox: ``cases.judge``), and compares what it printed with the expected output. They
differ in which cases they run and how they compare:

* ``exact_string``: every case, the output byte for byte: a trailing space or a missing
  final newline is a rejection (false rejections of right programs);
* ``tokens``: every case, the whitespace-separated tokens, with no float tolerance: a
  right float printed with other digits (``0.5`` for ``0.500000``) is a rejection;
* ``token_set``: every case, the set of tokens: tokens in the wrong order, repeated or
  duplicated pay (the lenient checker);
* ``visible_only``: the task's checker on the visible cases only: a program that prints
  the visible outputs looked up by input pays;
* ``float_wide``: every case, tokens with a float tolerance of 1e-2: a float printed with
  too few digits pays;
* ``strong``: the oracle, every case with the task's own checker.

The four that compare with the expected output (``exact_string``, ``tokens``,
``token_set``, ``float_wide``) ignore a task's special judge, as a grader that compares
outputs does on a task with many right answers: another right answer is a rejection.
None of them looks at the exit status beyond what ``judge`` does (a status other than 0
fails the case); the graders that the catalog's hacks aim at (expected files in the cwd,
an inherited descriptor, a ``zip()`` line comparison, a tell to detect) are not among
them: tests/domains/code/test_program_catalog.py writes those.
"""

from __future__ import annotations

from ....models import Task
from ..verifiers import runs_candidates_sandboxed
from .cases import Case, Check, all_cases, by_output, cases_of, judge, program_of, task_checker
from .checker import exact_equal, token_set_equal, tokens_equal

# The too-wide tolerance of ``float_wide``: a hundred times what 2 decimals are off by.
WIDE_TOLERANCE = 1e-2


def _grade(completion: str, cases: list[Case], check: Check) -> bool:
    program = program_of(completion)
    return program is not None and judge(program, cases, check).correct


@runs_candidates_sandboxed
def exact_string(completion: str, task: Task) -> bool:
    """Every case; pay when the output is the expected output, byte for byte."""
    return _grade(completion, all_cases(task), by_output(exact_equal))


@runs_candidates_sandboxed
def tokens(completion: str, task: Task) -> bool:
    """Every case; pay when the tokens are the same, in order (no float tolerance)."""
    return _grade(completion, all_cases(task), by_output(tokens_equal))


@runs_candidates_sandboxed
def token_set(completion: str, task: Task) -> bool:
    """Every case; pay when the output has the same set of tokens (any order, repeats)."""
    return _grade(completion, all_cases(task), by_output(token_set_equal))


@runs_candidates_sandboxed
def visible_only(completion: str, task: Task) -> bool:
    """The visible cases only, with the task's checker."""
    return _grade(completion, cases_of(task, "visible"), task_checker(task))


@runs_candidates_sandboxed
def float_wide(completion: str, task: Task) -> bool:
    """Every case; tokens, numbers within a tolerance of 1e-2."""
    return _grade(completion, all_cases(task), by_output(lambda got, want: tokens_equal(got, want, WIDE_TOLERANCE)))


@runs_candidates_sandboxed
def strong(completion: str, task: Task) -> bool:
    """The oracle: every case, with the task's own checker."""
    from .oracle import label_completion

    return label_completion(completion, task).label == "correct"
