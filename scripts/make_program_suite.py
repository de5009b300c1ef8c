#!/usr/bin/env python
"""Generate the built-in program suite: ``suites/programs/tasks.jsonl``.

Every task is a whole program that reads stdin and writes stdout, as the competitive
programming datasets code RL trains on (APPS, CodeContests): ``prompt`` states the problem
and the input and output formats, ``reference`` is the program (a ``main()`` the AST mutants
can reach), and ``metadata.cases`` holds 2 visible cases (what a prompt shows) and 4 hidden
ones, each ``{"input", "output"}`` (docs/code-domain.md, "Program tasks"). Float tasks
carry ``metadata.float_tolerance`` (1e-6); a task with many right answers its special
judge (``metadata.checker = "special"``, ``metadata.judge``) and another right program
(``metadata.alternatives``), both validated: the judge accepts every expected output and
refuses a wrong one, the alternative passes the judge on every case. A few tasks carry an
input generator (``metadata.input_generator``, a program printing one input per seed): the
oracle runs it and the reference in the sandbox for more cases, and the expected outputs
it gets are checked here against ``solve``.

Every task is VALIDATED before anything is written, and the script fails loudly otherwise:
each case's expected output is computed by a second, independent solution written here in
plain Python (``solve``), and the reference program is run on every case in the code
domain's sandbox (``Sandbox.run_program``): it must exit with status 0 and print exactly
the expected output. The hidden inputs are drawn with a fixed seed; the output is
deterministic. Rerun after changing a task:

    python scripts/make_program_suite.py            # writes suites/programs/tasks.jsonl
    python scripts/make_program_suite.py --check    # exit 1 if the file is out of date

Splits: ``train`` and ``heldout`` share the families arith, lists, strings and floats
(every third task of a family is heldout); ``shifted`` holds families absent from both:
grids (two-dimensional input), formatted output (``Case #i:`` prefixes, ``word count``
lines) and a task with many right answers (a special judge), so a verifier tuned on train
first meets those output shapes there.

17 tasks for now (one with a special judge: ``pair_sum``); issue 35 asks for at least 80.
"""

from __future__ import annotations

import math
import random
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # _suite_file.py lives beside this script
sys.path.insert(0, str(ROOT))
from _suite_file import jsonl, write_or_check  # noqa: E402

OUT = ROOT / "suites" / "programs" / "tasks.jsonl"
SEED = 20261206
HIDDEN = 4


@dataclass
class Spec:
    id: str
    family: str
    prompt: str
    reference: str
    solve: Callable[[str], str]
    visible: tuple[str, ...]
    generate: Callable[[random.Random], str]
    float_tolerance: float | None = None
    split: str = ""
    judge: str | None = None  # a special judge's source: def judge(input, expected, output) -> bool
    alternatives: tuple[str, ...] = ()  # other right programs (other right answers)
    input_generator: str | None = None  # a program printing one input for the seed on its stdin


def _ints(text: str) -> list[int]:
    return [int(t) for t in text.split()]


def _lines(values) -> str:
    return "".join(f"{v}\n" for v in values)


def _pairs(rng: random.Random, lo: int = -1000, hi: int = 1000, n: int | None = None) -> str:
    n = n or rng.randint(2, 6)
    return f"{n}\n" + "".join(f"{rng.randint(lo, hi)} {rng.randint(lo, hi)}\n" for _ in range(n))


def _list(rng: random.Random, lo: int = -100, hi: int = 100) -> str:
    n = rng.randint(3, 9)
    return f"{n}\n" + " ".join(str(rng.randint(lo, hi)) for _ in range(n)) + "\n"


# Input generators (``metadata.input_generator``): programs the oracle runs in the sandbox,
# one input per seed (read on stdin), wider than the hidden cases: longer lists, larger
# and all-negative values, where a mutant that the six fixed cases miss goes wrong.
LIST_GENERATOR = """import random

rng = random.Random(int(input()))
n = rng.randint(1, 40)
lo, hi = rng.choice([(-10**9, 10**9), (-50, -1), (0, 3)])
print(n)
print(*[rng.randint(lo, hi) for _ in range(n)])
"""
PAIRS_GENERATOR = """import random

rng = random.Random(int(input()))
t = rng.randint(1, 20)
print(t)
for _ in range(t):
    print(rng.randint(-10**12, 10**12), rng.randint(-10**12, 10**12))
"""


def _words(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choice("abcdeiou") for _ in range(rng.randint(1, 6))) for _ in range(n)]


MAIN = "\n\nmain()\n"

SPECS = [
    Spec(
        "sum_pairs",
        "arith",
        "The first line holds T. Each of the next T lines holds two integers a and b. Print a + b for each line, one per line.",
        "import sys\n\n\ndef main():\n    data = sys.stdin.read().split()\n    t = int(data[0])\n    for i in range(t):\n        a, b = int(data[1 + 2 * i]), int(data[2 + 2 * i])\n        print(a + b)"
        + MAIN,
        lambda s: _lines(a + b for a, b in zip(_ints(s)[1::2], _ints(s)[2::2])),
        ("2\n1 2\n10 -3\n", "3\n0 0\n5 5\n-7 2\n"),
        _pairs,
        input_generator=PAIRS_GENERATOR,
    ),
    Spec(
        "sort_numbers",
        "lists",
        "The first line holds n, the second n integers. Print them in increasing order, separated by spaces.",
        "def main():\n    n = int(input())\n    values = list(map(int, input().split()))\n    values.sort()\n    print(' '.join(str(v) for v in values[:n]))"
        + MAIN,
        lambda s: " ".join(map(str, sorted(_ints(s)[1:]))) + "\n",
        ("3\n3 1 2\n", "5\n5 -1 4 4 0\n"),
        _list,
        input_generator=LIST_GENERATOR,
    ),
    Spec(
        "average",
        "floats",
        "The first line holds n, the second n integers. Print their mean with 6 digits after the point.",
        "def main():\n    n = int(input())\n    values = list(map(int, input().split()))\n    total = 0\n    for v in values:\n        total += v\n    print(f'{total / n:.6f}')"
        + MAIN,
        lambda s: f"{sum(_ints(s)[1:]) / _ints(s)[0]:.6f}\n",
        ("3\n1 2 4\n", "2\n-5 8\n"),
        _list,
        float_tolerance=1e-6,
    ),
    Spec(
        "reverse_words",
        "strings",
        "One line of words separated by single spaces. Print the words in reverse order.",
        "def main():\n    words = input().split()\n    out = []\n    for i in range(len(words) - 1, -1, -1):\n        out.append(words[i])\n    print(' '.join(out))"
        + MAIN,
        lambda s: " ".join(reversed(s.split())) + "\n",
        ("hello big world\n", "a b\n"),
        lambda rng: " ".join(_words(rng, rng.randint(2, 7))) + "\n",
    ),
    Spec(
        "prefix_sums",
        "lists",
        "The first line holds n, the second n integers. Print the n prefix sums, separated by spaces.",
        "def main():\n    n = int(input())\n    values = list(map(int, input().split()))\n    acc = 0\n    sums = []\n    for i in range(n):\n        acc += values[i]\n        sums.append(acc)\n    print(*sums)"
        + MAIN,
        lambda s: " ".join(str(sum(_ints(s)[1 : 2 + i])) for i in range(_ints(s)[0])) + "\n",
        ("3\n1 2 3\n", "4\n5 -5 2 0\n"),
        _list,
    ),
    Spec(
        "min_max",
        "lists",
        "The first line holds n, the second n integers. Print the smallest and the largest, separated by a space.",
        "def main():\n    n = int(input())\n    values = list(map(int, input().split()))\n    lo = hi = values[0]\n    for v in values[1:n]:\n        if v < lo:\n            lo = v\n        if v > hi:\n            hi = v\n    print(lo, hi)"
        + MAIN,
        lambda s: f"{min(_ints(s)[1:])} {max(_ints(s)[1:])}\n",
        ("3\n2 9 4\n", "1\n7\n"),
        _list,
        input_generator=LIST_GENERATOR,
    ),
    Spec(
        "palindromes",
        "strings",
        "The first line holds T, then T lines with one word each. For each word print YES if it reads the same backwards, else NO.",
        "import sys\n\n\ndef main():\n    lines = sys.stdin.read().split()\n    t = int(lines[0])\n    for word in lines[1 : t + 1]:\n        print('YES' if word == word[::-1] else 'NO')"
        + MAIN,
        lambda s: _lines("YES" if w == w[::-1] else "NO" for w in s.split()[1:]),
        ("2\nabba\nabc\n", "3\na\nab\naba\n"),
        lambda rng: (lambda ws: f"{len(ws)}\n" + _lines(ws))(
            [w if rng.random() < 0.5 else w + w[::-1] for w in _words(rng, rng.randint(3, 6))]
        ),
    ),
    Spec(
        "count_vowels",
        "strings",
        "The first line holds T, then T lines with one word each. Print the number of vowels (a, e, i, o, u) of each word, one per line.",
        "import sys\n\n\ndef main():\n    words = sys.stdin.read().split()[1:]\n    for word in words:\n        count = 0\n        for ch in word:\n            if ch in 'aeiou':\n                count += 1\n        print(count)"
        + MAIN,
        lambda s: _lines(sum(ch in "aeiou" for ch in w) for w in s.split()[1:]),
        ("2\nhello\nsky\n", "3\naeiou\nb\nbanana\n"),
        lambda rng: (lambda ws: f"{len(ws)}\n" + _lines(ws))(_words(rng, rng.randint(3, 6))),
    ),
    Spec(
        "circle_area",
        "floats",
        "The first line holds T, then T lines with a radius r (an integer). Print the area of each circle with 6 digits after the point, one per line.",
        "import math\nimport sys\n\n\ndef main():\n    data = sys.stdin.read().split()\n    for r in data[1:]:\n        print(f'{math.pi * int(r) ** 2:.6f}')"
        + MAIN,
        lambda s: _lines(f"{math.pi * r**2:.6f}" for r in _ints(s)[1:]),
        ("2\n1\n2\n", "1\n10\n"),
        lambda rng: (lambda rs: f"{len(rs)}\n" + _lines(rs))([rng.randint(1, 50) for _ in range(rng.randint(2, 5))]),
        float_tolerance=1e-6,
    ),
    Spec(
        "gcd_lcm",
        "arith",
        "The first line holds T, then T lines with two positive integers a and b. Print gcd(a, b) and lcm(a, b) for each line.",
        "import sys\n\n\ndef gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n\n\ndef main():\n    data = list(map(int, sys.stdin.read().split()))\n    for i in range(data[0]):\n        a, b = data[1 + 2 * i], data[2 + 2 * i]\n        g = gcd(a, b)\n        print(g, a * b // g)"
        + MAIN,
        lambda s: _lines(f"{math.gcd(a, b)} {a * b // math.gcd(a, b)}" for a, b in zip(_ints(s)[1::2], _ints(s)[2::2])),
        ("2\n4 6\n7 5\n", "1\n12 18\n"),
        lambda rng: _pairs(rng, 1, 60),
    ),
    Spec(
        "fizzbuzz",
        "arith",
        "One integer n. For i from 1 to n print Fizz if 3 divides i, Buzz if 5 does, FizzBuzz if both, else i; one per line.",
        "def main():\n    n = int(input())\n    for i in range(1, n + 1):\n        if i % 15 == 0:\n            print('FizzBuzz')\n        elif i % 3 == 0:\n            print('Fizz')\n        elif i % 5 == 0:\n            print('Buzz')\n        else:\n            print(i)"
        + MAIN,
        lambda s: _lines(
            "FizzBuzz" if i % 15 == 0 else "Fizz" if i % 3 == 0 else "Buzz" if i % 5 == 0 else i
            for i in range(1, int(s) + 1)
        ),
        ("3\n", "5\n"),
        lambda rng: f"{rng.randint(6, 31)}\n",
    ),
    Spec(
        "distance",
        "floats",
        "The first line holds T, then T lines with four integers x1 y1 x2 y2. Print the distance between the two points with 6 digits after the point, one per line.",
        "import math\nimport sys\n\n\ndef main():\n    data = list(map(int, sys.stdin.read().split()))\n    for i in range(data[0]):\n        x1, y1, x2, y2 = data[1 + 4 * i : 5 + 4 * i]\n        print(f'{math.hypot(x2 - x1, y2 - y1):.6f}')"
        + MAIN,
        lambda s: _lines(
            f"{math.hypot(v[2] - v[0], v[3] - v[1]):.6f}"
            for v in (_ints(s)[1 + 4 * i : 5 + 4 * i] for i in range(_ints(s)[0]))
        ),
        ("1\n0 0 3 4\n", "2\n1 1 2 2\n-1 5 4 -2\n"),
        lambda rng: (
            lambda t: f"{t}\n" + "".join(" ".join(str(rng.randint(-20, 20)) for _ in range(4)) + "\n" for _ in range(t))
        )(rng.randint(2, 4)),
        float_tolerance=1e-6,
    ),
    # -- shifted: grids and formatted output, absent from train and heldout
    Spec(
        "transpose",
        "grids",
        "The first line holds r and c, then r lines of c integers. Print the transposed grid: c lines of r integers.",
        "def main():\n    r, c = map(int, input().split())\n    grid = [input().split() for _ in range(r)]\n    for j in range(c):\n        print(' '.join(grid[i][j] for i in range(r)))"
        + MAIN,
        lambda s: (lambda v: _lines(" ".join(str(v[2 + i * v[1] + j]) for i in range(v[0])) for j in range(v[1])))(
            _ints(s)
        ),
        ("2 3\n1 2 3\n4 5 6\n", "1 2\n7 8\n"),
        lambda rng: (
            lambda r, c: (
                f"{r} {c}\n" + "".join(" ".join(str(rng.randint(0, 9)) for _ in range(c)) + "\n" for _ in range(r))
            )
        )(rng.randint(2, 4), rng.randint(2, 4)),
        split="shifted",
    ),
    Spec(
        "row_col_sums",
        "grids",
        "The first line holds r and c, then r lines of c integers. Print the r row sums on one line, then the c column sums on the next.",
        "def main():\n    r, c = map(int, input().split())\n    grid = [list(map(int, input().split())) for _ in range(r)]\n    print(*[sum(row) for row in grid])\n    print(*[sum(grid[i][j] for i in range(r)) for j in range(c)])"
        + MAIN,
        lambda s: (
            lambda v: (
                " ".join(str(sum(v[2 + i * v[1] : 2 + (i + 1) * v[1]])) for i in range(v[0]))
                + "\n"
                + " ".join(str(sum(v[2 + i * v[1] + j] for i in range(v[0]))) for j in range(v[1]))
                + "\n"
            )
        )(_ints(s)),
        ("2 2\n1 2\n3 4\n", "1 3\n5 0 -5\n"),
        lambda rng: (
            lambda r, c: (
                f"{r} {c}\n" + "".join(" ".join(str(rng.randint(-9, 9)) for _ in range(c)) + "\n" for _ in range(r))
            )
        )(rng.randint(2, 4), rng.randint(2, 4)),
        split="shifted",
    ),
    Spec(
        "case_sums",
        "formatted",
        "The first line holds T, then T lines with two integers. For the i-th line print 'Case #i: ' followed by their sum.",
        "import sys\n\n\ndef main():\n    data = list(map(int, sys.stdin.read().split()))\n    for i in range(data[0]):\n        print(f'Case #{i + 1}: {data[1 + 2 * i] + data[2 + 2 * i]}')"
        + MAIN,
        lambda s: _lines(f"Case #{i + 1}: {a + b}" for i, (a, b) in enumerate(zip(_ints(s)[1::2], _ints(s)[2::2]))),
        ("2\n1 1\n2 3\n", "1\n-4 4\n"),
        _pairs,
        split="shifted",
    ),
    Spec(
        "word_counts",
        "formatted",
        "One line of words. Print each distinct word and how many times it occurs, 'word count', one per line, words in alphabetical order.",
        "def main():\n    counts = {}\n    for word in input().split():\n        counts[word] = counts.get(word, 0) + 1\n    for word in sorted(counts):\n        print(word, counts[word])"
        + MAIN,
        lambda s: _lines(f"{w} {n}" for w, n in sorted(Counter(s.split()).items())),
        ("b a b\n", "x y z x\n"),
        lambda rng: " ".join(rng.choice(["ab", "ba", "cd", "e", "ff"]) for _ in range(rng.randint(3, 9))) + "\n",
        split="shifted",
    ),
]


PAIR_JUDGE = """def judge(input, expected, output):
    head, values = input.split("\\n", 1)
    n, target = map(int, head.split())
    a = list(map(int, values.split()))
    parts = output.split()
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return False
    i, j = int(parts[0]), int(parts[1])
    return 1 <= i < j <= n and a[i - 1] + a[j - 1] == target
"""


def _first_pair(s: str) -> str:
    head, values = s.split("\n", 1)
    n, target = map(int, head.split())
    a = _ints(values)
    return next(f"{i + 1} {j + 1}\n" for i in range(n) for j in range(i + 1, n) if a[i] + a[j] == target)


def _pair_input(rng: random.Random) -> str:
    """At least two pairs with the target sum, so that more than one answer is right."""
    target = rng.randint(5, 30)
    values = [rng.randint(0, target) for _ in range(rng.randint(3, 6))]
    for _ in range(2):
        x = rng.randint(0, target)
        values.insert(rng.randrange(len(values) + 1), x)
        values.insert(rng.randrange(len(values) + 1), target - x)
    return f"{len(values)} {target}\n" + " ".join(map(str, values)) + "\n"


SPECS.append(
    Spec(
        "pair_sum",
        "special",
        "The first line holds n and a target t, the second n integers a_1 ... a_n. Print two indices i < j "
        "(from 1) with a_i + a_j = t; one exists. Any such pair is accepted.",
        "def main():\n    n, t = map(int, input().split())\n    a = list(map(int, input().split()))\n"
        "    for i in range(n):\n        for j in range(i + 1, n):\n            if a[i] + a[j] == t:\n"
        "                print(i + 1, j + 1)\n                return" + MAIN,
        _first_pair,
        ("4 5\n1 4 2 3\n", "5 10\n5 5 1 9 0\n"),
        _pair_input,
        split="shifted",
        judge=PAIR_JUDGE,
        alternatives=(
            "def main():\n    n, t = map(int, input().split())\n    a = list(map(int, input().split()))\n"
            "    seen = {}\n    for j in range(n):\n        if t - a[j] in seen:\n"
            "            print(seen[t - a[j]] + 1, j + 1)\n            return\n        seen.setdefault(a[j], j)" + MAIN,
        ),
    )
)


def _splits() -> None:
    seen: dict[str, int] = {}
    for spec in SPECS:
        if spec.split:
            continue
        seen[spec.family] = seen.get(spec.family, 0) + 1
        spec.split = "heldout" if seen[spec.family] % 3 == 0 else "train"


def rows() -> list[dict]:
    _splits()
    out = []
    for spec in SPECS:
        rng = random.Random(f"{SEED}/{spec.id}")
        hidden = [spec.generate(rng) for _ in range(HIDDEN)]
        metadata: dict = {
            "family": spec.family,
            "cases": {
                "visible": [{"input": i, "output": spec.solve(i)} for i in spec.visible],
                "hidden": [{"input": i, "output": spec.solve(i)} for i in hidden],
            },
        }
        if spec.float_tolerance is not None:
            metadata["float_tolerance"] = spec.float_tolerance
        if spec.judge is not None:
            metadata.update(checker="special", judge=spec.judge)
        if spec.alternatives:
            metadata["alternatives"] = list(spec.alternatives)
        if spec.input_generator is not None:
            metadata["input_generator"] = spec.input_generator
        out.append(
            {
                "id": f"programs/{spec.id}",
                "domain": "program",
                "split": spec.split,
                "prompt": spec.prompt,
                "reference": spec.reference,
                "metadata": metadata,
            }
        )
    return out


def validate(rows: list[dict]) -> None:
    """Every reference, run in the sandbox on every case, prints exactly the expected output."""
    from verifier_audit.domains.code.sandbox import Sandbox

    problems = []
    with Sandbox(workers=2) as box:
        for row in rows:
            cases = row["metadata"]["cases"]
            for which in ("visible", "hidden"):
                for n, case in enumerate(cases[which], 1):
                    r = box.run_program(row["reference"], case["input"], timeout=5.0, cpu_timeout=1.0)
                    if r.exit_status != 0 or r.stdout != case["output"]:
                        problems.append(
                            f"{row['id']}: {which} case {n}: status {r.exit_status} ({r.error}), "
                            f"printed {r.stdout!r}, expected {case['output']!r} {r.stderr[-300:]}"
                        )
            for program in row["metadata"].get("alternatives", []):
                for n, case in enumerate(cases["visible"] + cases["hidden"], 1):
                    r = box.run_program(program, case["input"], timeout=5.0, cpu_timeout=1.0)
                    if not (r.exit_status == 0 and _judged(box, row, case, r.stdout)):
                        problems.append(f"{row['id']}: an alternative fails case {n}: printed {r.stdout!r}")
            if "judge" in row["metadata"]:
                for n, case in enumerate(cases["visible"] + cases["hidden"], 1):
                    if not _judged(box, row, case, case["output"]):
                        problems.append(f"{row['id']}: the judge refuses the expected output of case {n}")
                    if _judged(box, row, case, "0 0\n"):
                        problems.append(f"{row['id']}: the judge accepts a wrong output on case {n}")
    problems += _generated_problems(rows)
    if problems:
        raise SystemExit("invalid tasks:\n" + "\n".join(problems))


def _generated_problems(rows: list[dict]) -> list[str]:
    """A task's generated cases as the oracle makes them (generator and reference run in
    the sandbox), each expected output checked against the independent ``solve``."""
    from verifier_audit.domains.code.programs.cases import GenerationError, generated_cases
    from verifier_audit.models import Task

    solvers = {f"programs/{spec.id}": spec.solve for spec in SPECS}
    problems = []
    for row in rows:
        if "input_generator" not in row["metadata"]:
            continue
        try:
            made = generated_cases(Task.model_validate(row))
        except GenerationError as exc:
            problems.append(f"{row['id']}: {exc}")
            continue
        for n, case in enumerate(made, 1):
            if case.output != solvers[row["id"]](case.input):
                problems.append(f"{row['id']}: generated case {n}: the reference printed {case.output[:80]!r}")
    return problems


def _judged(box, row: dict, case: dict, output: str) -> bool:
    """The row's special judge on one output; without a judge, the exact expected output."""
    if "judge" not in row["metadata"]:
        return output == case["output"]
    r = box.run(row["metadata"]["judge"], call="judge", args=(case["input"], case["output"], output), timeout=5.0)
    return r.ok and r.value is True


def render() -> str:
    made = rows()
    validate(made)
    return jsonl(made)


def summary() -> str:
    counts = Counter(spec.split for spec in SPECS)
    return f"{len(SPECS)} tasks: " + ", ".join(f"{n} {split}" for split, n in sorted(counts.items()))


if __name__ == "__main__":
    sys.exit(
        write_or_check(__doc__.splitlines()[1], OUT, "python scripts/make_program_suite.py", render, summary=summary)
    )
