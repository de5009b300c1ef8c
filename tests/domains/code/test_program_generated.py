"""Generated inputs of program tasks: a task's input generator, run in the sandbox once per
seed, the reference run on each input (in the sandbox too) for the expected output, and
the oracle judging on the visible, hidden and generated cases. A mutant that the task's
six fixed cases miss is caught on a generated input."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier_audit.domains import get_domain
from verifier_audit.domains.code.programs.cases import (
    GenerationError,
    all_cases,
    generated_cases,
    judge,
    task_checker,
)
from verifier_audit.domains.code.programs.oracle import label_completion
from verifier_audit.models import Task
from verifier_audit.suites import load_suite

REFERENCE = "def main():\n    input()\n    print(max(map(int, input().split())))\n\n\nmain()\n"
# The planted mutant: a running maximum that starts at 0, right whenever a value is >= 0.
MUTANT = (
    "def main():\n    input()\n    best = 0\n    for v in map(int, input().split()):\n"
    "        best = max(best, v)\n    print(best)\n\n\nmain()\n"
)
# Lists of negatives only, where the mutant prints 0.
GENERATOR = (
    "import random\n\nrng = random.Random(int(input()))\nn = rng.randint(1, 6)\n"
    "print(n)\nprint(*[rng.randint(-99, -1) for _ in range(n)])\n"
)


def _case(values: list[int]) -> dict[str, str]:
    return {"input": f"{len(values)}\n{' '.join(map(str, values))}\n", "output": f"{max(values)}\n"}


def _task(**extra) -> Task:
    cases = {"visible": [_case([3, 1, 2]), _case([5])], "hidden": [_case([-4, 7]), _case([0, 9, 2]), _case([8, 8])]}
    return Task(
        id="programs_test/max_value",
        domain="program",
        prompt="The first line holds n, the second n integers. Print the largest.",
        reference=REFERENCE,
        metadata={"cases": cases, **extra},
    )


def test_generated_inputs_catch_a_mutant_the_fixed_cases_miss():
    plain, generated = _task(), _task(input_generator=GENERATOR)
    assert get_domain("program").check_task(generated) is None
    # the visible and hidden cases do not tell the mutant from the reference ...
    assert judge(MUTANT, all_cases(plain), task_checker(plain)).correct
    assert label_completion(MUTANT, plain).label == "correct"
    # ... the generated ones do (cases 6 on: the five fixed cases pass)
    made = generated_cases(generated)
    assert len(made) == 4 and all(c.output.strip().startswith("-") for c in made)
    label = label_completion(MUTANT, generated)
    assert label.label == "incorrect" and label.reason.startswith("case 6"), label.reason
    assert label_completion(REFERENCE, generated).label == "correct"
    # one generator run per seed, the same inputs every time
    assert generated_cases(_task(input_generator=GENERATOR, generated=2)) == made[:2]


def test_a_failing_generator_leaves_the_task_unlabelled_and_runs_in_the_sandbox():
    probe = Path("/etc/va-generator-probe")
    escaping = "open('/etc/va-generator-probe', 'w').write('x')\nprint(1)\n"
    task = _task(input_generator=escaping)
    with pytest.raises(GenerationError, match="input_generator, seed 1: status 1"):
        generated_cases(task)
    assert not probe.exists()
    label = label_completion(REFERENCE, task)
    assert label.label is None and "fix the generator" in label.reason
    # the reference failing on a generated input is a broken task too
    refusing = _task(input_generator="print('not a number')\n")
    assert label_completion(REFERENCE, refusing).label is None


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"input_generator": "def (:"}, "metadata.input_generator"),
        ({"input_generator": GENERATOR, "generated": 0}, "metadata.generated 0"),
        ({"generated": True}, "metadata.generated True"),
    ],
)
def test_a_bad_generator_layout_is_dropped_with_the_reason(extra, message):
    assert message in get_domain("program").check_task(_task(**extra))


def test_the_suite_carries_generators_and_its_references_pass_them():
    tasks = {t.id: t for t in load_suite("programs").tasks}
    assert len(tasks) >= 80 and all("input_generator" in t.metadata for t in tasks.values())
    task = tasks["programs/min_max"]
    assert label_completion(task.reference, task).label == "correct"
    assert len(generated_cases(task)) == 4
