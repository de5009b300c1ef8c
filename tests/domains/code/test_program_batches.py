"""One program on several inputs in one fork (``Sandbox.run_program_cases``, issue 35's
speed): every input's result is the one a lone ``run_program`` gives -- the same exit
status and stdout, the same per-input clocks -- and what a case changes in the process is
gone before the next one, or the next one runs alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.code.programs.cases import Case, judge
from verifier_audit.domains.code.programs.checker import tokens_equal
from verifier_audit.domains.code.sandbox import Sandbox

LIMITS = dict(timeout=3.0, cpu_timeout=0.5, memory_mb=256)

# Programs whose result depends on the input, and on what an earlier case in the same
# process could have left behind: each must read the same in a batch as alone.
PROGRAMS = {
    "sum": "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n",
    "status": "n = int(input())\nprint('partial')\nraise SystemExit(n % 4)\n",
    "raises": "n = int(input())\nprint(n)\nif n % 3 == 0:\n    raise ValueError(n)\n",
    "builtins": "import builtins\nprint(input())\nbuiltins.input = lambda: 'forged'\n",
    "cwd": "import os\nprint(sorted(os.listdir('.')), input())\nopen('left.txt', 'w').write('x')\nos.mkdir('d')\n",
    "environment": "import os\nprint(os.environ.get('SEEN'), input())\nos.environ['SEEN'] = '1'\n",
    "recursion": "import sys\nprint(sys.getrecursionlimit(), input())\nsys.setrecursionlimit(50)\n",
    "fds": "import os\nprint(sorted(os.listdir('/proc/self/fd')), input())\n",
    "exit0": "import os, sys\nn = int(input())\nprint(n)\nsys.stdout.flush()\nif n % 2:\n    os._exit(0)\n",
    "thread": "import threading, time\nn = int(input())\nprint(n)\nif n % 2:\n    threading.Thread(target=time.sleep, args=(0.2,)).start()\n",
    "syntax": "print(input()\n",
}


def _seen(result) -> tuple:
    return result.exit_status, result.stdout


@pytest.fixture(scope="module")
def box():
    with Sandbox(workers=1) as sandbox:
        yield sandbox


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@settings(max_examples=3, deadline=None)
@given(inputs=st.lists(st.integers(0, 99), min_size=2, max_size=4))
def test_a_batch_gives_each_input_what_a_lone_run_gives(box, name, inputs):
    stdins = [f"{n}\n" for n in inputs]
    together = list(box.run_program_cases(PROGRAMS[name], stdins, **LIMITS))
    alone = [box.run_program(PROGRAMS[name], s, **LIMITS) for s in stdins]
    assert [_seen(r) for r in together] == [_seen(r) for r in alone]


def test_a_clean_program_runs_its_inputs_in_one_process_with_the_clocks_of_each(box):
    # 0.06 s of CPU time per input, 0.1 s allowed per input: three inputs use 0.18 s together.
    burn = "import time\nn = int(input())\nend = time.process_time() + 0.06\nwhile time.process_time() < end:\n    pass\nprint(n * 2)\n"
    results = list(box.run_program_cases(burn, ["1\n", "2\n", "3\n"], timeout=3.0, cpu_timeout=0.1))
    assert [(r.exit_status, r.stdout) for r in results] == [(0, "2\n"), (0, "4\n"), (0, "6\n")]
    # One process: every input after the first ran where another had run before.
    assert [r.batched for r in results] == [False, True, True]


def test_an_input_that_spins_or_leaves_a_process_is_run_again_alone(box):
    spin = "n = int(input())\nwhile n == 2:\n    pass\nprint(n)\n"
    results = list(box.run_program_cases(spin, ["1\n", "2\n", "3\n"], timeout=3.0, cpu_timeout=0.1))
    assert [(r.kind, r.stdout, r.batched) for r in results] == [
        ("ok", "1\n", False),
        ("timeout", "", False),
        ("ok", "3\n", False),
    ]
    orphan = (
        "import os, time\nn = int(input())\nprint(n)\n"
        "if n == 1 and os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(5)\n    os._exit(0)\n"
    )
    results = list(box.run_program_cases(orphan, ["1\n", "2\n", "3\n"], **LIMITS))
    assert [(r.exit_status, r.stdout) for r in results] == [(0, "1\n"), (0, "2\n"), (0, "3\n")]
    assert not results[1].batched  # the case after the orphan had a fresh process


def test_judge_gives_a_failure_from_a_lone_run():
    # In a batch the second input sees math.pi changed by the first; alone it does not.
    program = "import math\nprint(round(math.pi, 2), input())\nmath.pi += 1\n"
    cases = [Case("a\n", "3.14 a\n"), Case("b\n", "3.14 b\n"), Case("c\n", "9 c\n")]
    verdict = judge(program, cases, lambda got, case: tokens_equal(got, case.output))
    assert not verdict.correct and verdict.reason == "case 3: wrong output '3.14 c\\n'"
