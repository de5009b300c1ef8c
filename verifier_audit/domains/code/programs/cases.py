"""A program task's layout, and running a program on its cases.

A program task (docs/code-domain.md, "Program tasks"): ``domain`` is ``"program"``,
``prompt`` the problem statement, ``reference`` a whole Python program that reads stdin and
writes stdout, and in ``metadata``:

* ``cases``: ``{"visible": [{"input": "...", "output": "..."}, ...], "hidden": [...]}``,
  the (stdin, expected stdout) pairs; ``visible`` are the ones a prompt shows (a grader
  that runs only those is the ``visible_only`` verifier), ``hidden`` the rest;
* ``checker``: ``"tokens"`` (default) or ``"exact"`` (checker.py), or ``"special"``: a
  special judge for tasks with many right answers, ``metadata.judge``, the source of a
  Python function ``judge(input, expected, output) -> bool`` that runs in the sandbox (task
  code never runs in the parent), once per case, in a run of its own;
* ``float_tolerance``: a number, absolute or relative, for tasks whose answers are floats;
* ``alternatives``: other right programs (on a special-judge task, ones that print another
  right answer): equivalent candidates;
* ``input_generator``: optional, a Python program that prints one input given a seed (an
  integer on its stdin); the oracle runs it ``generated`` times (default
  ``GENERATED``), seeds 1, 2, ..., in the sandbox, and the reference on each input, in the
  sandbox too, for the expected output: generated cases, judged after the task's own
  (``generated_cases``).
* ``unusable``: why a dataset loader read the row but it cannot be audited (a call-based
  task, no solution to trust): the task is dropped with that reason.

Every run goes through the code domain's sandbox (``Sandbox.run_program``: the run's stdin
is the case's input, its stdout comes back as data), and its output is compared here, in
the parent: the program never sees an expected output.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ....models import Task
from ..cases import process_sandbox
from ..extract import defines, extract_code
from ..sandbox import SandboxResult
from .checker import CHECKERS, Same, checker_of

# CPU time per case: the suite's references take a few ms; a spinning mutant ends here
# (read from the run's CPU clock by the zygote, whatever signals it ignores). The wall
# clock is the backstop for a program that waits (a blocked read, a sleep).
CPU_LIMIT = 0.5
WALL_LIMIT = 3.0
MEMORY_MB = 256
# Generated inputs per task with an input generator, unless ``metadata.generated`` says.
GENERATED = 4
MAX_GENERATED = 50


@dataclass(frozen=True)
class Case:
    input: str
    output: str


@dataclass(frozen=True)
class Verdict:
    correct: bool
    reason: str = ""


def cases_of(task: Task, which: str) -> list[Case]:
    """The task's ``"visible"`` or ``"hidden"`` cases."""
    rows = (task.metadata.get("cases") or {}).get(which) or []
    return [Case(str(r["input"]), str(r["output"])) for r in rows]


def all_cases(task: Task) -> list[Case]:
    return cases_of(task, "visible") + cases_of(task, "hidden")


class GenerationError(RuntimeError):
    """A task's input generator, or its reference on a generated input, failed: the task's
    generated cases cannot be made (the oracle then labels nothing on it)."""


def generated_cases(task: Task) -> list[Case]:
    """The task's generated cases (none without ``metadata.input_generator``): its generator
    run once per seed in the sandbox, and the reference run on each input in the sandbox
    for the expected output. Made once per process for a (generator, reference, count).
    Raises GenerationError naming the seed when a run fails."""
    generator = task.metadata.get("input_generator")
    if not generator:
        return []
    return list(_generated(str(generator), task.reference, int(task.metadata.get("generated", GENERATED))))


@functools.lru_cache(maxsize=256)
def _generated(generator: str, reference: str, count: int) -> tuple[Case, ...]:
    made = []
    for seed in range(1, count + 1):
        produced = run_case(generator, Case(f"{seed}\n", ""))
        if produced.exit_status != 0 or not produced.stdout.strip():
            raise GenerationError(
                f"metadata.input_generator, seed {seed}: status {produced.exit_status} ({produced.kind}), "
                f"printed {produced.stdout[:80]!r} {produced.stderr[-200:]}; fix the generator: it must print "
                "one input and exit with status 0"
            )
        expected = run_case(reference, Case(produced.stdout, ""))
        if expected.exit_status != 0:
            raise GenerationError(
                f"the reference on the input of generator seed {seed}: status {expected.exit_status} "
                f"({expected.kind}) {expected.stderr[-200:]}; fix the generator or the reference"
            )
        made.append(Case(produced.stdout, expected.stdout))
    return tuple(made)


def float_tolerance(task: Task) -> float | None:
    value = task.metadata.get("float_tolerance")
    return None if value is None else float(value)


# Whether a program's output is right for a case: (output, case) -> bool.
Check = Callable[[str, "Case"], bool]


def by_output(same: Same) -> Check:
    """A check that compares the output with the case's expected output only."""
    return lambda got, case: same(got, case.output)


def task_checker(task: Task) -> Check:
    """The task's own check: its special judge, or its checker and float tolerance."""
    if task.metadata.get("checker") == "special":
        source = str(task.metadata.get("judge") or "")
        return lambda got, case: special_judge(source, case, got)
    return by_output(checker_of(task.metadata.get("checker", "tokens"), float_tolerance(task)))


def special_judge(source: str, case: Case, output: str) -> bool:
    """The task's ``judge(input, expected, output)``, run in the sandbox: right only when it
    returns True itself (a bool, handed back as data), within the limits of a program run."""
    result = process_sandbox().run(
        source,
        call="judge",
        args=(case.input, case.output, output),
        timeout=WALL_LIMIT,
        cpu_timeout=CPU_LIMIT,
        memory_mb=MEMORY_MB,
    )
    return result.ok and result.value is True


def check_layout(task: Task) -> str | None:
    """Why the task cannot be audited as a program task, or None."""
    unusable = task.metadata.get("unusable")
    if unusable:  # a dataset loader's reason (loaders.py: a call-based task, no solution)
        return str(unusable)
    cases = task.metadata.get("cases")
    if not isinstance(cases, dict):
        return 'no metadata.cases (a program task has {"visible": [...], "hidden": [...]} of {"input", "output"})'
    for which in ("visible", "hidden"):
        rows = cases.get(which) or []
        if not isinstance(rows, list) or not all(
            isinstance(r, dict) and isinstance(r.get("input"), str) and isinstance(r.get("output"), str) for r in rows
        ):
            return f'metadata.cases.{which}: expected a list of {{"input": str, "output": str}}'
    if not all_cases(task):
        return "metadata.cases: no case"
    checker = task.metadata.get("checker", "tokens")
    if checker not in (*CHECKERS, "special"):
        return f"metadata.checker {checker!r}: expected one of {', '.join(CHECKERS)}, special"
    if checker == "special" and not defines(str(task.metadata.get("judge") or ""), "judge"):
        return "metadata.checker 'special' needs metadata.judge: the source of def judge(input, expected, output)"
    alternatives = task.metadata.get("alternatives", [])
    if not isinstance(alternatives, list) or not all(isinstance(a, str) for a in alternatives):
        return "metadata.alternatives: expected a list of programs (strings)"
    generator = task.metadata.get("input_generator")
    if generator is not None and (not isinstance(generator, str) or program_of(generator) is None):
        return "metadata.input_generator: expected the source of a Python program that prints one input"
    count = task.metadata.get("generated", GENERATED)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_GENERATED:
        return f"metadata.generated {count!r}: expected a whole number from 1 to {MAX_GENERATED}"
    tolerance = task.metadata.get("float_tolerance")
    if tolerance is not None and (not isinstance(tolerance, (int, float)) or tolerance < 0):
        return f"metadata.float_tolerance {tolerance!r}: expected a number >= 0"
    if program_of(task.reference) is None:
        return "the reference is no parseable Python program"
    return None


def program_of(text: str) -> str | None:
    """The program in a completion (a fenced block, or the whole text when it parses)."""
    return extract_code(text, "")


def run_case(program: str, case: Case) -> SandboxResult:
    return process_sandbox().run_program(
        program, case.input, timeout=WALL_LIMIT, cpu_timeout=CPU_LIMIT, memory_mb=MEMORY_MB
    )


def run_cases(program: str, cases: list[Case]) -> Iterator[SandboxResult]:
    """``run_case`` on each case, in order, lazily, for about one fork per program
    (``Sandbox.run_program_cases``: the cases one after the other in one process, each
    with its own stdin, ``__main__`` and the same limits as a lone run)."""
    return process_sandbox().run_program_cases(
        program, [c.input for c in cases], timeout=WALL_LIMIT, cpu_timeout=CPU_LIMIT, memory_mb=MEMORY_MB
    )


def judge(program: str, cases: list[Case], check: Check) -> Verdict:
    """Run ``program`` on each case, in order, until one fails: the output judged by
    ``check``, a status other than 0 (an exception, ``sys.exit(1)``, a signal, the clock or
    the memory limit) a failure whatever it printed. A failure of a case that shared its
    process with earlier ones (``batched``) is run again alone before it counts: a failure
    is always a lone run's, as ``python prog.py < input`` would give it."""
    for number, (case, result) in enumerate(zip(cases, run_cases(program, cases)), 1):
        if result.batched and (result.exit_status != 0 or not check(result.stdout, case)):
            result = run_case(program, case)
        if result.exit_status != 0:
            return Verdict(False, f"case {number}: {result.kind}: {result.error}")
        if not check(result.stdout, case):
            return Verdict(False, f"case {number}: wrong output {result.stdout[:80]!r}")
    return Verdict(True, f"{len(cases)} cases passed")
