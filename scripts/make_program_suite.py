#!/usr/bin/env python
"""Generate the built-in program suite: ``suites/programs/tasks.jsonl``.

Every task is a whole program that reads stdin and writes stdout, as the competitive
programming datasets code RL trains on (APPS, CodeContests): ``prompt`` states the problem
and the input and output formats, ``reference`` is the program (a ``main()`` the AST mutants
can reach), and ``metadata.cases`` holds 2 visible cases (what a prompt shows) and 4 hidden
ones, each ``{"input", "output"}`` (docs/code-domain.md, "Program tasks"). Every task
carries an input generator (``metadata.input_generator``, a program printing one input per
seed, wider than the hidden cases): the oracle runs it and the reference in the sandbox for
4 more cases. Float tasks carry ``metadata.float_tolerance`` (1e-6); a task with many right
answers its special judge (``metadata.checker = "special"``, ``metadata.judge``) and
another right program (``metadata.alternatives``).

Every task is VALIDATED before anything is written, and the script fails loudly otherwise
(a task whose reference fails is an error, never skipped): each case's expected output is
computed by a second, independent solution written here in plain Python (``solve``); the
reference program is run on every visible and hidden case in the code domain's sandbox
(``Sandbox.run_program``) and must exit with status 0 and print exactly the expected
output; the generated cases are made as the oracle makes them (generator and reference in
the sandbox) and the reference's output on each must be ``solve``'s. On a special-judge
task the judge must accept every expected output (generated ones too) and refuse a wrong
one (``WRONG``), and each alternative must pass it on every case. The hidden inputs are
drawn with a fixed seed; the output is deterministic. Rerun after changing a task:

    python scripts/make_program_suite.py            # writes suites/programs/tasks.jsonl
    python scripts/make_program_suite.py --check    # exit 1 if the file is out of date

Splits (``split`` of each task), as in the code suite (scripts/make_code_suite.py):

- ``train`` and ``heldout`` share the families arith, lists, strings, floats (geometry
  and statistics, a tolerance), number_theory, searching (queries on a list) and dp;
  within each family every third task (positions 3, 6, 9, ...) goes to heldout.
- ``shifted`` holds families ABSENT from both (``SHIFTED_FAMILIES``): grids
  (two-dimensional input and output), graphs (edge lists), formatted output (``Case #i:``
  prefixes, labelled lines) and special (a special judge: many right answers), so a
  verifier tuned on train first meets those input and output shapes there.
"""

from __future__ import annotations

import bisect
import collections
import functools
import itertools
import math
import random
import statistics
import string
import sys
import textwrap
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
SHIFTED_FAMILIES = ("grids", "graphs", "formatted", "special")


@dataclass
class Spec:
    id: str
    family: str
    prompt: str
    reference: str
    solve: Callable[[str], str]
    visible: tuple[str, ...]
    generator: str  # the source of make(rng, wide) -> one input (see "input generators" below)
    float_tolerance: float | None = None
    split: str = ""
    judge: str | None = None  # a special judge's source: def judge(input, expected, output) -> bool
    alternatives: tuple[str, ...] = ()  # other right programs (other right answers)


def _ints(text: str) -> list[int]:
    return [int(t) for t in text.split()]


def _lines(values) -> str:
    return "".join(f"{v}\n" for v in values)


MAIN = "\n\nmain()\n"

# ---------------------------------------------------------------- input generators
#
# Each task's inputs come from ONE generator source, a function ``make(rng, wide)`` that
# returns one input: the script runs it here with ``wide=False`` for the hidden cases
# (small inputs a reader can check by hand), and the task's ``metadata.input_generator``
# is the same source with a driver that reads a seed and calls it with ``wide=True``
# (longer lists, values up to 10^9 or 10^12, all-negative or all-equal lists, bigger
# graphs): the oracle's generated cases, where a mutant that the six fixed cases miss
# goes wrong. The constants a family of tasks varies come first in the source.

DRIVER = '\n\nimport random\n\nprint(make(random.Random(int(input())), True), end="")\n'

# A helper of the word generators, indented as their bodies are (``_source`` dedents both).
WORDS = r"""
        def words(rng, n, longest):
            return ["".join(rng.choice(LETTERS) for _ in range(rng.randint(1, longest))) for _ in range(n)]
"""


def _source(body: str, **consts) -> str:
    head = "".join(f"{name} = {value!r}\n" for name, value in consts.items())
    return head + "\n\n" + textwrap.dedent(body).strip("\n") + "\n"


def pairs(lo=-1000, hi=1000, wide=(-(10**12), 10**12), nonzero=False) -> str:
    """``T`` lines of two integers (b never 0 with ``nonzero``)."""
    return _source(
        r'''
        def make(rng, wide):
            n, (lo, hi) = (rng.randint(1, 20), WIDE) if wide else (rng.randint(2, 6), (LO, HI))
            rows = []
            for _ in range(n):
                a, b = rng.randint(lo, hi), rng.randint(lo, hi)
                if NONZERO and b == 0:
                    b = 1
                rows.append(f"{a} {b}\n")
            return f"{n}\n" + "".join(rows)
        ''',
        LO=lo, HI=hi, WIDE=wide, NONZERO=nonzero,
    )  # fmt: skip


def listgen(lo=-100, hi=100, wide=((-(10**9), 10**9), (-50, -1), (0, 3))) -> str:
    """``n``, then ``n`` integers on one line; wide: up to 40 values from one of ``wide``'s ranges."""
    return _source(
        r'''
        def make(rng, wide):
            if wide:
                n = rng.randint(1, 40)
                lo, hi = rng.choice(WIDE)
            else:
                n = rng.randint(3, 9)
                lo, hi = LO, HI
            return f"{n}\n" + " ".join(str(rng.randint(lo, hi)) for _ in range(n)) + "\n"
        ''',
        LO=lo, HI=hi, WIDE=wide,
    )  # fmt: skip


def ints(lo, hi, nmin=3, nmax=6, wide=None, scale=1) -> str:
    """``T``, then ``T`` lines of one integer (each drawn times ``scale``)."""
    return _source(
        r'''
        def make(rng, wide):
            n, (lo, hi) = (rng.randint(1, 20), WIDE) if wide else (rng.randint(NMIN, NMAX), (LO, HI))
            return f"{n}\n" + "".join(f"{rng.randint(lo, hi) * SCALE}\n" for _ in range(n))
        ''',
        LO=lo, HI=hi, NMIN=nmin, NMAX=nmax, WIDE=wide or (lo, hi), SCALE=scale,
    )  # fmt: skip


def one_int(lo, hi, wide) -> str:
    return _source(
        r'''
        def make(rng, wide):
            lo, hi = WIDE if wide else (LO, HI)
            return f"{rng.randint(lo, hi)}\n"
        ''',
        LO=lo, HI=hi, WIDE=wide,
    )  # fmt: skip


def words_line(letters="abcdeiou", nmin=2, nmax=7, shift=False) -> str:
    """One line of lowercase words (after a line with a shift 0..25, or up to 1000 wide)."""
    return _source(
        WORDS
        + r'''
        def make(rng, wide):
            head = f"{rng.randint(0, 1000 if wide else 25)}\n" if SHIFT else ""
            n = rng.randint(1, 30) if wide else rng.randint(NMIN, NMAX)
            return head + " ".join(words(rng, n, 12 if wide else 6)) + "\n"
        ''',
        LETTERS=letters, NMIN=nmin, NMAX=nmax, SHIFT=shift,
    )  # fmt: skip


def word_list(letters="abcdeiou", palindromes=False) -> str:
    """``T``, then ``T`` lines of one word (half of them palindromes with ``palindromes``)."""
    return _source(
        WORDS
        + r'''
        def make(rng, wide):
            n = rng.randint(1, 30) if wide else rng.randint(3, 6)
            ws = words(rng, n, 12 if wide else 6)
            if PALINDROMES:
                ws = [w if rng.random() < 0.5 else w + w[::-1] for w in ws]
            return f"{n}\n" + "".join(w + "\n" for w in ws)
        ''',
        LETTERS=letters, PALINDROMES=palindromes,
    )  # fmt: skip


def word_pairs(letters="abcde") -> str:
    """``T``, then ``T`` lines of two words (half of them a shuffle of each other)."""
    return _source(
        WORDS
        + r'''
        def make(rng, wide):
            n = rng.randint(1, 20) if wide else rng.randint(3, 6)
            rows = []
            for a in words(rng, n, 12 if wide else 6):
                b = "".join(rng.sample(a, len(a))) if rng.random() < 0.5 else words(rng, 1, 12 if wide else 6)[0]
                rows.append(f"{a} {b}\n")
            return f"{n}\n" + "".join(rows)
        ''',
        LETTERS=letters,
    )  # fmt: skip


def word_lines() -> str:
    """``T``, then ``T`` lines of 1 to 6 words."""
    return _source(
        WORDS
        + r'''
        def make(rng, wide):
            t = rng.randint(1, 15) if wide else rng.randint(2, 4)
            return f"{t}\n" + "".join(" ".join(words(rng, rng.randint(1, 6), 6)) + "\n" for _ in range(t))
        ''',
        LETTERS="abcdeiou",
    )  # fmt: skip


def coords(k, lo, hi, nmin=2, nmax=4, wide=(-1000, 1000)) -> str:
    """``n``, then ``n`` lines of ``k`` integers."""
    return _source(
        r'''
        def make(rng, wide):
            n, (lo, hi) = (rng.randint(1, 20), WIDE) if wide else (rng.randint(NMIN, NMAX), (LO, HI))
            return f"{n}\n" + "".join(" ".join(str(rng.randint(lo, hi)) for _ in range(K)) + "\n" for _ in range(n))
        ''',
        K=k, LO=lo, HI=hi, NMIN=nmin, NMAX=nmax, WIDE=wide,
    )  # fmt: skip


def queries(distinct=False) -> str:
    """``n``, ``n`` integers (sorted and distinct with ``distinct``), ``q``, ``q`` queries
    (half of them values of the list)."""
    return _source(
        r'''
        def make(rng, wide):
            n, q = (rng.randint(1, 40), rng.randint(1, 20)) if wide else (rng.randint(3, 8), rng.randint(2, 5))
            hi = rng.choice([3, 10**9]) if wide else 9
            if DISTINCT:
                values = sorted(rng.sample(range(-hi - n, hi + n + 1), n))
            else:
                values = [rng.randint(-hi, hi) for _ in range(n)]
            asked = [rng.choice(values) if rng.random() < 0.5 else rng.randint(-hi - 1, hi + 1) for _ in range(q)]
            return f"{n}\n{' '.join(map(str, values))}\n{q}\n{' '.join(map(str, asked))}\n"
        ''',
        DISTINCT=distinct,
    )  # fmt: skip


def grid(lo, hi, wide=(-(10**6), 10**6)) -> str:
    """``r c``, then ``r`` lines of ``c`` integers."""
    return _source(
        r'''
        def make(rng, wide):
            r, c = (rng.randint(1, 12), rng.randint(1, 12)) if wide else (rng.randint(2, 4), rng.randint(2, 4))
            lo, hi = WIDE if wide else (LO, HI)
            return f"{r} {c}\n" + "".join(" ".join(str(rng.randint(lo, hi)) for _ in range(c)) + "\n" for _ in range(r))
        ''',
        LO=lo, HI=hi, WIDE=wide,
    )  # fmt: skip


CHAR_GRID = _source(
    r"""
    def make(rng, wide):
        r, c = (rng.randint(1, 15), rng.randint(1, 15)) if wide else (rng.randint(2, 5), rng.randint(2, 5))
        p = rng.random()
        return f"{r} {c}\n" + "".join("".join("#" if rng.random() < p else "." for _ in range(c)) + "\n" for _ in range(r))
    """
)


def graph(weighted=False, bipartite=False, dag=False) -> str:
    """``n m``, then ``m`` edges ``u v`` (``u v w`` with ``weighted``): no loop, no repeated
    edge; with ``bipartite`` half of the graphs are; with ``dag`` every edge goes forward
    in a hidden order of the vertices."""
    return _source(
        r'''
        def make(rng, wide):
            n = rng.randint(1, 30) if wide else rng.randint(2, 6)
            every = [(u, v) for u in range(1, n + 1) for v in range(u + 1, n + 1)]
            if BIPARTITE and rng.random() < 0.5:
                every = [(u, v) for u, v in every if (u + v) % 2]
            edges = rng.sample(every, rng.randint(0, min(len(every), 2 * n)))
            rank = {v: i for i, v in enumerate(rng.sample(range(1, n + 1), n))}
            rows = []
            for u, v in edges:
                if (DAG and rank[u] > rank[v]) or (not DAG and rng.random() < 0.5):
                    u, v = v, u
                rows.append(f"{u} {v} {rng.randint(1, 9)}\n" if WEIGHTED else f"{u} {v}\n")
            return f"{n} {len(edges)}\n" + "".join(rows)
        ''',
        WEIGHTED=weighted, BIPARTITE=bipartite, DAG=dag,
    )  # fmt: skip


CASE_LISTS = _source(
    r"""
    def make(rng, wide):
        t, hi = (rng.randint(1, 10), 10**9) if wide else (rng.randint(2, 4), 50)
        rows = []
        for _ in range(t):
            n = rng.randint(1, 10)
            rows.append(f"{n} " + " ".join(str(rng.randint(-hi, hi)) for _ in range(n)) + "\n")
        return f"{t}\n" + "".join(rows)
    """
)

CHOICE_LINE = _source(
    r"""
    def make(rng, wide):
        return " ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 40) if wide else rng.randint(3, 9))) + "\n"
    """,
    VOCAB=["ab", "ba", "cd", "e", "ff"],
)

# At least two pairs with the target sum, so that more than one answer is right.
PAIR_TARGET = _source(
    r"""
    def make(rng, wide):
        target = rng.randint(0, 10**6) if wide else rng.randint(5, 30)
        values = [rng.randint(0, target) for _ in range(rng.randint(3, 30 if wide else 6))]
        for _ in range(2):
            x = rng.randint(0, target)
            values.insert(rng.randrange(len(values) + 1), x)
            values.insert(rng.randrange(len(values) + 1), target - x)
        return f"{len(values)} {target}\n" + " ".join(map(str, values)) + "\n"
    """
)

POW_MOD = _source(
    r"""
    def make(rng, wide):
        n = rng.randint(1, 20) if wide else rng.randint(2, 5)
        b_hi, m_hi = (10**9, 10**9) if wide else (20, 1000)
        return f"{n}\n" + "".join(f"{rng.randint(0, 100)} {rng.randint(0, b_hi)} {rng.randint(1, m_hi)}\n" for _ in range(n))
    """
)

ROTATE = _source(
    r"""
    def make(rng, wide):
        n = rng.randint(1, 40) if wide else rng.randint(3, 8)
        k = rng.randint(0, 10**9 if wide else 2 * n)
        return f"{n} {k}\n" + " ".join(str(rng.randint(-99, 99)) for _ in range(n)) + "\n"
    """
)

COINS = _source(
    r"""
    def make(rng, wide):
        coins = sorted({rng.randint(1, 25 if wide else 12) for _ in range(rng.randint(1, 6 if wide else 3))})
        amount = rng.randint(0, 400 if wide else 30)
        return f"{len(coins)} {amount}\n" + " ".join(map(str, coins)) + "\n"
    """
)

KNAPSACK = _source(
    r"""
    def make(rng, wide):
        n, cap = (rng.randint(1, 15), rng.randint(0, 100)) if wide else (rng.randint(2, 5), rng.randint(0, 15))
        top = 30 if wide else 8
        return f"{n} {cap}\n" + "".join(f"{rng.randint(1, top)} {rng.randint(0, 50)}\n" for _ in range(n))
    """
)


SPECS = [
    Spec(
        "sum_pairs",
        "arith",
        "The first line holds T. Each of the next T lines holds two integers a and b. Print a + b for each line, one per line.",
        "import sys\n\n\ndef main():\n    data = sys.stdin.read().split()\n    t = int(data[0])\n    for i in range(t):\n        a, b = int(data[1 + 2 * i]), int(data[2 + 2 * i])\n        print(a + b)"
        + MAIN,
        lambda s: _lines(a + b for a, b in zip(_ints(s)[1::2], _ints(s)[2::2])),
        ("2\n1 2\n10 -3\n", "3\n0 0\n5 5\n-7 2\n"),
        pairs(),
    ),
    Spec(
        "sort_numbers",
        "lists",
        "The first line holds n, the second n integers. Print them in increasing order, separated by spaces.",
        "def main():\n    n = int(input())\n    values = list(map(int, input().split()))\n    values.sort()\n    print(' '.join(str(v) for v in values[:n]))"
        + MAIN,
        lambda s: " ".join(map(str, sorted(_ints(s)[1:]))) + "\n",
        ("3\n3 1 2\n", "5\n5 -1 4 4 0\n"),
        listgen(),
    ),
    Spec(
        "average",
        "floats",
        "The first line holds n, the second n integers. Print their mean with 6 digits after the point.",
        "def main():\n    n = int(input())\n    values = list(map(int, input().split()))\n    total = 0\n    for v in values:\n        total += v\n    print(f'{total / n:.6f}')"
        + MAIN,
        lambda s: f"{sum(_ints(s)[1:]) / _ints(s)[0]:.6f}\n",
        ("3\n1 2 4\n", "2\n-5 8\n"),
        listgen(),
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
        words_line(),
    ),
    Spec(
        "prefix_sums",
        "lists",
        "The first line holds n, the second n integers. Print the n prefix sums, separated by spaces.",
        "def main():\n    n = int(input())\n    values = list(map(int, input().split()))\n    acc = 0\n    sums = []\n    for i in range(n):\n        acc += values[i]\n        sums.append(acc)\n    print(*sums)"
        + MAIN,
        lambda s: " ".join(str(sum(_ints(s)[1 : 2 + i])) for i in range(_ints(s)[0])) + "\n",
        ("3\n1 2 3\n", "4\n5 -5 2 0\n"),
        listgen(),
    ),
    Spec(
        "min_max",
        "lists",
        "The first line holds n, the second n integers. Print the smallest and the largest, separated by a space.",
        "def main():\n    n = int(input())\n    values = list(map(int, input().split()))\n    lo = hi = values[0]\n    for v in values[1:n]:\n        if v < lo:\n            lo = v\n        if v > hi:\n            hi = v\n    print(lo, hi)"
        + MAIN,
        lambda s: f"{min(_ints(s)[1:])} {max(_ints(s)[1:])}\n",
        ("3\n2 9 4\n", "1\n7\n"),
        listgen(),
    ),
    Spec(
        "palindromes",
        "strings",
        "The first line holds T, then T lines with one word each. For each word print YES if it reads the same backwards, else NO.",
        "import sys\n\n\ndef main():\n    lines = sys.stdin.read().split()\n    t = int(lines[0])\n    for word in lines[1 : t + 1]:\n        print('YES' if word == word[::-1] else 'NO')"
        + MAIN,
        lambda s: _lines("YES" if w == w[::-1] else "NO" for w in s.split()[1:]),
        ("2\nabba\nabc\n", "3\na\nab\naba\n"),
        word_list(palindromes=True),
    ),
    Spec(
        "count_vowels",
        "strings",
        "The first line holds T, then T lines with one word each. Print the number of vowels (a, e, i, o, u) of each word, one per line.",
        "import sys\n\n\ndef main():\n    words = sys.stdin.read().split()[1:]\n    for word in words:\n        count = 0\n        for ch in word:\n            if ch in 'aeiou':\n                count += 1\n        print(count)"
        + MAIN,
        lambda s: _lines(sum(ch in "aeiou" for ch in w) for w in s.split()[1:]),
        ("2\nhello\nsky\n", "3\naeiou\nb\nbanana\n"),
        word_list(),
    ),
    Spec(
        "circle_area",
        "floats",
        "The first line holds T, then T lines with a radius r (an integer). Print the area of each circle with 6 digits after the point, one per line.",
        "import math\nimport sys\n\n\ndef main():\n    data = sys.stdin.read().split()\n    for r in data[1:]:\n        print(f'{math.pi * int(r) ** 2:.6f}')"
        + MAIN,
        lambda s: _lines(f"{math.pi * r**2:.6f}" for r in _ints(s)[1:]),
        ("2\n1\n2\n", "1\n10\n"),
        ints(1, 50, 2, 5, wide=(0, 10**6)),
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
        pairs(1, 60, wide=(1, 10**6)),
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
        one_int(6, 31, wide=(1, 100)),
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
        coords(4, -20, 20),
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
        grid(0, 9),
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
        grid(-9, 9),
    ),
    Spec(
        "case_sums",
        "formatted",
        "The first line holds T, then T lines with two integers. For the i-th line print 'Case #i: ' followed by their sum.",
        "import sys\n\n\ndef main():\n    data = list(map(int, sys.stdin.read().split()))\n    for i in range(data[0]):\n        print(f'Case #{i + 1}: {data[1 + 2 * i] + data[2 + 2 * i]}')"
        + MAIN,
        lambda s: _lines(f"Case #{i + 1}: {a + b}" for i, (a, b) in enumerate(zip(_ints(s)[1::2], _ints(s)[2::2]))),
        ("2\n1 1\n2 3\n", "1\n-4 4\n"),
        pairs(),
    ),
    Spec(
        "word_counts",
        "formatted",
        "One line of words. Print each distinct word and how many times it occurs, 'word count', one per line, words in alphabetical order.",
        "def main():\n    counts = {}\n    for word in input().split():\n        counts[word] = counts.get(word, 0) + 1\n    for word in sorted(counts):\n        print(word, counts[word])"
        + MAIN,
        lambda s: _lines(f"{w} {n}" for w, n in sorted(Counter(s.split()).items())),
        ("b a b\n", "x y z x\n"),
        CHOICE_LINE,
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
        PAIR_TARGET,
        judge=PAIR_JUDGE,
        alternatives=(
            "def main():\n    n, t = map(int, input().split())\n    a = list(map(int, input().split()))\n"
            "    seen = {}\n    for j in range(n):\n        if t - a[j] in seen:\n"
            "            print(seen[t - a[j]] + 1, j + 1)\n            return\n        seen.setdefault(a[j], j)" + MAIN,
        ),
    )
)


# ------------------------------------------------------------------ more families
#
# The tasks below grow the suite to the families of the code suite (issue 35): more
# arithmetic and lists, number theory, searching (queries on a list), dp and geometry
# in train/heldout; grids, graphs, formatted output and special judges in shifted. Each
# reference is written the way a contestant would (loops in ``main()``, where the AST
# mutants reach them); each ``solve`` is a second solution, written otherwise.


def prog(text: str) -> str:
    """A reference program: ``text`` (its functions and ``main``), then the call of ``main()``."""
    return textwrap.dedent(text).strip("\n") + MAIN


def _rows(s: str) -> list[list[int]]:
    """The integer rows after the first line (``T`` lines of numbers)."""
    return [_ints(line) for line in s.split("\n")[1:] if line.strip()]


def _factors(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        if p * p > n:
            out.append(n)
            break
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def _is_prime(n: int) -> bool:
    return n > 1 and _factors(n) == [n]


def _divisors(n: int) -> list[int]:
    return (
        [d for d in range(1, n + 1) if n % d == 0]
        if n < 5000
        else sorted({x for d in range(1, math.isqrt(n) + 1) if n % d == 0 for x in (d, n // d)})
    )


def _collatz(n: int) -> int:
    return 0 if n == 1 else 1 + _collatz(n // 2 if n % 2 == 0 else 3 * n + 1)


def _fib(n: int) -> int:
    return n if n < 2 else _fib_pair(n)[0]


def _fib_pair(n: int) -> tuple[int, int]:
    """(F(n), F(n + 1)) by doubling."""
    if n == 0:
        return 0, 1
    a, b = _fib_pair(n // 2)
    c, d = a * (2 * b - a), a * a + b * b
    return (d, c + d) if n % 2 else (c, d)


def _rle(word: str) -> str:
    return "".join(f"{k}{len(list(g))}" for k, g in itertools.groupby(word))


def _queries(s: str) -> tuple[list[int], list[int]]:
    lines = s.split("\n")
    return _ints(lines[1]), _ints(lines[3])


def _lis(a: list[int]) -> int:
    tails: list[int] = []
    for x in a:
        k = bisect.bisect_left(tails, x)
        tails[k : k + 1] = [x]
    return len(tails)


def _edit(a: str, b: str) -> int:
    @functools.cache
    def go(i: int, j: int) -> int:
        if i == len(a) or j == len(b):
            return len(a) - i + len(b) - j
        return min(go(i + 1, j) + 1, go(i, j + 1) + 1, go(i + 1, j + 1) + (a[i] != b[j]))

    return go(0, 0)


def _lcs(a: str, b: str) -> int:
    @functools.cache
    def go(i: int, j: int) -> int:
        if i == len(a) or j == len(b):
            return 0
        return go(i + 1, j + 1) + 1 if a[i] == b[j] else max(go(i + 1, j), go(i, j + 1))

    return go(0, 0)


def _min_coins(s: str) -> str:
    amount = _ints(s.split("\n")[0])[1]
    coins = _ints(s.split("\n")[1])
    level, seen, count = {0}, {0}, 0
    while amount not in level:
        level = {x + c for x in level for c in coins if x + c <= amount} - seen
        if not level:
            return "-1\n"
        seen |= level
        count += 1
    return f"{count}\n"


def _knapsack(s: str) -> str:
    v = _ints(s)
    n, cap, items = v[0], v[1], list(zip(v[2::2], v[3::2]))
    best = 0
    for mask in range(1 << n):
        chosen = [items[i] for i in range(n) if mask >> i & 1]
        if sum(w for w, _ in chosen) <= cap:
            best = max(best, sum(x for _, x in chosen))
    return f"{best}\n"


def _robber(a: list[int]) -> int:
    take, skip = 0, 0
    for x in a:
        take, skip = skip + x, max(take, skip)
    return max(take, skip)


def _shoelace(points: list[list[int]]) -> float:
    n = len(points)
    return abs(sum(points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1] for i in range(n))) / 2


SPECS += [
    # -- arith
    Spec(
        "product_pairs",
        "arith",
        "The first line holds T, then T lines with two integers a and b. Print a * b for each line, one per line.",
        prog(
            """
            import sys


            def main():
                data = sys.stdin.read().split()
                for i in range(int(data[0])):
                    a = int(data[1 + 2 * i])
                    b = int(data[2 + 2 * i])
                    print(a * b)
            """
        ),
        lambda s: _lines(r[0] * r[1] for r in _rows(s)),
        ("2\n3 4\n-2 5\n", "1\n0 7\n"),
        pairs(),
    ),
    Spec(
        "digit_sum",
        "arith",
        "The first line holds T, then T lines with one integer x. Print the sum of the decimal digits of |x| for each, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    x = abs(int(input()))
                    total = 0
                    while x > 0:
                        total += x % 10
                        x //= 10
                    print(total)
            """
        ),
        lambda s: _lines(sum(map(int, str(abs(x)))) for x in _ints(s)[1:]),
        ("2\n123\n-45\n", "2\n0\n9\n"),
        ints(-(10**6), 10**6, wide=(-(10**18), 10**18)),
    ),
    Spec(
        "power_mod",
        "arith",
        "The first line holds T, then T lines with three integers a, b, m (m >= 1). Print a to the power b modulo m for each line, one per line.",
        prog(
            """
            def power(a, b, m):
                result = 1 % m
                a %= m
                while b > 0:
                    if b & 1:
                        result = result * a % m
                    a = a * a % m
                    b >>= 1
                return result


            def main():
                t = int(input())
                for _ in range(t):
                    a, b, m = map(int, input().split())
                    print(power(a, b, m))
            """
        ),
        lambda s: _lines(pow(a, b, m) for a, b, m in _rows(s)),
        ("2\n2 10 1000\n3 0 7\n", "1\n5 3 1\n"),
        POW_MOD,
    ),
    Spec(
        "sum_to_n",
        "arith",
        "The first line holds T, then T lines with one integer n >= 0. Print 1 + 2 + ... + n for each, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    n = int(input())
                    print(n * (n + 1) // 2)
            """
        ),
        lambda s: _lines(sum(range(n + 1)) if n < 10**5 else (n * n + n) >> 1 for n in _ints(s)[1:]),
        ("2\n3\n0\n", "1\n100\n"),
        ints(0, 1000, wide=(0, 10**12)),
    ),
    Spec(
        "div_mod",
        "arith",
        "The first line holds T, then T lines with two integers a and b (b != 0). Print the floor of a / b and the remainder "
        "a - b * floor(a / b), separated by a space, one line each.",
        prog(
            """
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                for i in range(data[0]):
                    a, b = data[1 + 2 * i], data[2 + 2 * i]
                    q = a // b
                    print(q, a - b * q)
            """
        ),
        lambda s: _lines(f"{divmod(a, b)[0]} {divmod(a, b)[1]}" for a, b in _rows(s)),
        ("2\n7 2\n-7 2\n", "2\n7 -2\n0 5\n"),
        pairs(-50, 50, nonzero=True),
    ),
    Spec(
        "max_of_three",
        "arith",
        "The first line holds T, then T lines with three integers. Print the largest of each line, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    a, b, c = map(int, input().split())
                    best = a
                    if b > best:
                        best = b
                    if c > best:
                        best = c
                    print(best)
            """
        ),
        lambda s: _lines(max(r) for r in _rows(s)),
        ("2\n1 2 3\n-1 -5 -2\n", "1\n4 4 1\n"),
        coords(3, -20, 20, wide=(-(10**12), 10**12)),
    ),
    # -- number theory
    Spec(
        "is_prime",
        "number_theory",
        "The first line holds T, then T lines with one integer n >= 1. Print YES if n is prime, else NO, one per line.",
        prog(
            """
            def prime(n):
                if n < 2:
                    return False
                d = 2
                while d * d <= n:
                    if n % d == 0:
                        return False
                    d += 1
                return True


            def main():
                t = int(input())
                for _ in range(t):
                    print('YES' if prime(int(input())) else 'NO')
            """
        ),
        lambda s: _lines("YES" if _is_prime(n) else "NO" for n in _ints(s)[1:]),
        ("3\n2\n9\n1\n", "2\n17\n25\n"),
        ints(1, 200, wide=(1, 10**6)),
    ),
    Spec(
        "count_divisors",
        "number_theory",
        "The first line holds T, then T lines with one integer n >= 1. Print the number of positive divisors of each n, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    n = int(input())
                    count = 0
                    d = 1
                    while d * d <= n:
                        if n % d == 0:
                            count += 1 if d * d == n else 2
                        d += 1
                    print(count)
            """
        ),
        lambda s: _lines(len(_divisors(n)) for n in _ints(s)[1:]),
        ("2\n12\n1\n", "2\n7\n36\n"),
        ints(1, 500, wide=(1, 10**6)),
    ),
    Spec(
        "factorize",
        "number_theory",
        "The first line holds T, then T lines with one integer n >= 2. Print the prime factors of each n in increasing order, "
        "with repeats, separated by spaces, one line each.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    n = int(input())
                    factors = []
                    p = 2
                    while p * p <= n:
                        while n % p == 0:
                            factors.append(p)
                            n //= p
                        p += 1
                    if n > 1:
                        factors.append(n)
                    print(*factors)
            """
        ),
        lambda s: _lines(" ".join(map(str, _factors(n))) for n in _ints(s)[1:]),
        ("2\n12\n13\n", "1\n360\n"),
        ints(2, 500, wide=(2, 10**6)),
    ),
    Spec(
        "primes_up_to",
        "number_theory",
        "One integer n >= 2. Print every prime p <= n in increasing order, separated by spaces.",
        prog(
            """
            def main():
                n = int(input())
                sieve = [True] * (n + 1)
                sieve[0] = sieve[1] = False
                for i in range(2, n + 1):
                    if sieve[i]:
                        for j in range(i * i, n + 1, i):
                            sieve[j] = False
                print(*[i for i in range(n + 1) if sieve[i]])
            """
        ),
        lambda s: " ".join(str(p) for p in range(int(s) + 1) if _is_prime(p)) + "\n",
        ("10\n", "2\n"),
        one_int(2, 60, wide=(2, 3000)),
    ),
    Spec(
        "fibonacci",
        "number_theory",
        "The first line holds T, then T lines with one integer n >= 0. Print the Fibonacci number F(n) (F(0) = 0, F(1) = 1) "
        "for each, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    n = int(input())
                    a, b = 0, 1
                    for _ in range(n):
                        a, b = b, a + b
                    print(a)
            """
        ),
        lambda s: _lines(_fib(n) for n in _ints(s)[1:]),
        ("3\n0\n1\n10\n", "1\n50\n"),
        ints(0, 90, wide=(0, 2000)),
    ),
    Spec(
        "to_binary",
        "number_theory",
        "The first line holds T, then T lines with one integer n >= 0. Print n in binary (no leading zeros; 0 is 0), one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    n = int(input())
                    digits = ''
                    while n > 0:
                        digits = str(n % 2) + digits
                        n //= 2
                    print(digits or '0')
            """
        ),
        lambda s: _lines(format(n, "b") for n in _ints(s)[1:]),
        ("2\n5\n0\n", "2\n8\n255\n"),
        ints(0, 1000, wide=(0, 10**18)),
    ),
    Spec(
        "collatz_steps",
        "number_theory",
        "The first line holds T, then T lines with one integer n >= 1. Print how many steps n -> n / 2 (n even) or "
        "n -> 3n + 1 (n odd) take to reach 1, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    n = int(input())
                    steps = 0
                    while n != 1:
                        if n % 2 == 0:
                            n //= 2
                        else:
                            n = 3 * n + 1
                        steps += 1
                    print(steps)
            """
        ),
        lambda s: _lines(_collatz(n) for n in _ints(s)[1:]),
        ("2\n1\n6\n", "1\n27\n"),
        ints(1, 100, wide=(1, 10**5)),
    ),
    Spec(
        "sum_of_divisors",
        "number_theory",
        "The first line holds T, then T lines with one integer n >= 1. Print the sum of the positive divisors of each n "
        "(n included), one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    n = int(input())
                    total = 0
                    d = 1
                    while d * d <= n:
                        if n % d == 0:
                            total += d
                            if d * d != n:
                                total += n // d
                        d += 1
                    print(total)
            """
        ),
        lambda s: _lines(sum(_divisors(n)) for n in _ints(s)[1:]),
        ("2\n6\n1\n", "1\n28\n"),
        ints(1, 500, wide=(1, 10**6)),
    ),
    # -- strings
    Spec(
        "capitalize_words",
        "strings",
        "One line of lowercase words separated by single spaces. Print them with the first letter of each word in upper case.",
        prog(
            """
            def main():
                words = input().split()
                out = []
                for word in words:
                    out.append(word[0].upper() + word[1:])
                print(' '.join(out))
            """
        ),
        lambda s: " ".join(w.capitalize() for w in s.split()) + "\n",
        ("hello big world\n", "a\n"),
        words_line(),
    ),
    Spec(
        "run_length",
        "strings",
        "The first line holds T, then T lines with one word. Print each word run-length encoded: each maximal run of one "
        "letter as the letter then the run's length (aaab -> a3b1), one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    word = input().strip()
                    out = []
                    i = 0
                    while i < len(word):
                        j = i
                        while j < len(word) and word[j] == word[i]:
                            j += 1
                        out.append(word[i] + str(j - i))
                        i = j
                    print(''.join(out))
            """
        ),
        lambda s: _lines(_rle(w) for w in s.split()[1:]),
        ("2\naaab\nabc\n", "1\nzzzzzzzzzzzz\n"),
        word_list(letters="ab"),
    ),
    Spec(
        "caesar",
        "strings",
        "The first line holds k >= 0, the second lowercase words separated by single spaces. Shift every letter k places "
        "forward in the alphabet (z wraps to a) and print the line.",
        prog(
            """
            def main():
                k = int(input())
                text = input()
                out = []
                for ch in text:
                    if 'a' <= ch <= 'z':
                        out.append(chr((ord(ch) - ord('a') + k) % 26 + ord('a')))
                    else:
                        out.append(ch)
                print(''.join(out))
            """
        ),
        lambda s: (
            lambda k, text: (
                " ".join(
                    w.translate(
                        str.maketrans(
                            string.ascii_lowercase, string.ascii_lowercase[k % 26 :] + string.ascii_lowercase[: k % 26]
                        )
                    )
                    for w in text.split()
                )
                + "\n"
            )
        )(int(s.split("\n")[0]), s.split("\n")[1]),
        ("3\nabc xyz\n", "26\nhello\n"),
        words_line(letters=string.ascii_lowercase, shift=True),
    ),
    Spec(
        "letter_counts",
        "strings",
        "One line of lowercase words. Print each letter that occurs and how many times, 'letter count', one per line, "
        "letters in alphabetical order.",
        prog(
            """
            def main():
                counts = [0] * 26
                for ch in input():
                    if ch != ' ':
                        counts[ord(ch) - ord('a')] += 1
                for i in range(26):
                    if counts[i] > 0:
                        print(chr(ord('a') + i), counts[i])
            """
        ),
        lambda s: _lines(f"{c} {n}" for c, n in sorted(Counter(s.replace(" ", "").strip()).items())),
        ("banana\n", "ab ba c\n"),
        words_line(),
    ),
    Spec(
        "longest_word",
        "strings",
        "One line of words separated by single spaces. Print the longest word (the first one of that length).",
        prog(
            """
            def main():
                best = ''
                for word in input().split():
                    if len(word) > len(best):
                        best = word
                print(best)
            """
        ),
        lambda s: max(s.split(), key=len) + "\n",
        ("a bbb cc ddd\n", "x\n"),
        words_line(),
    ),
    Spec(
        "anagrams",
        "strings",
        "The first line holds T, then T lines with two words. Print YES if the two words are anagrams of each other "
        "(the same letters, as many times each), else NO, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    a, b = input().split()
                    print('YES' if sorted(a) == sorted(b) else 'NO')
            """
        ),
        lambda s: _lines(
            "YES" if Counter(a) == Counter(b) else "NO" for a, b in (ln.split() for ln in s.split("\n")[1:] if ln)
        ),
        ("2\nlisten silent\nab abb\n", "1\nabc cab\n"),
        word_pairs(),
    ),
    Spec(
        "dedupe_letters",
        "strings",
        "The first line holds T, then T lines with one word. Print each word with every letter after its first occurrence "
        "removed, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    seen = set()
                    out = ''
                    for ch in input().strip():
                        if ch not in seen:
                            seen.add(ch)
                            out += ch
                    print(out)
            """
        ),
        lambda s: _lines("".join(dict.fromkeys(w)) for w in s.split()[1:]),
        ("2\nbanana\nabc\n", "1\naaaa\n"),
        word_list(letters="abcde"),
    ),
]

SPECS += [
    # -- lists
    Spec(
        "sort_desc",
        "lists",
        "The first line holds n, the second n integers. Print them in decreasing order, separated by spaces.",
        prog(
            """
            def main():
                n = int(input())
                values = list(map(int, input().split()))
                for i in range(n):
                    for j in range(n - 1 - i):
                        if values[j] < values[j + 1]:
                            values[j], values[j + 1] = values[j + 1], values[j]
                print(*values)
            """
        ),
        lambda s: " ".join(map(str, sorted(_ints(s)[1:], reverse=True))) + "\n",
        ("3\n3 1 2\n", "4\n-1 5 5 0\n"),
        listgen(),
    ),
    Spec(
        "unique_sorted",
        "lists",
        "The first line holds n, the second n integers. Print the distinct values in increasing order, separated by spaces.",
        prog(
            """
            def main():
                n = int(input())
                values = sorted(map(int, input().split()))
                out = []
                for i in range(n):
                    if i == 0 or values[i] != values[i - 1]:
                        out.append(values[i])
                print(*out)
            """
        ),
        lambda s: " ".join(map(str, sorted(set(_ints(s)[1:])))) + "\n",
        ("5\n3 1 3 2 1\n", "2\n7 7\n"),
        listgen(0, 5),
    ),
    Spec(
        "second_largest",
        "lists",
        "The first line holds n, the second n integers. Print the largest value that is smaller than the maximum, or NONE "
        "if all values are equal.",
        prog(
            """
            def main():
                n = int(input())
                values = list(map(int, input().split()))
                top = max(values)
                second = None
                for v in values:
                    if v < top and (second is None or v > second):
                        second = v
                print('NONE' if second is None else second)
            """
        ),
        lambda s: (lambda d: f"{d[-2]}\n" if len(d) > 1 else "NONE\n")(sorted(set(_ints(s)[1:]))),
        ("4\n3 9 9 4\n", "2\n5 5\n"),
        listgen(0, 6),
    ),
    Spec(
        "count_inversions",
        "lists",
        "The first line holds n, the second n integers a_1 ... a_n. Print the number of pairs i < j with a_i > a_j.",
        prog(
            """
            def main():
                n = int(input())
                a = list(map(int, input().split()))
                count = 0
                for i in range(n):
                    for j in range(i + 1, n):
                        if a[i] > a[j]:
                            count += 1
                print(count)
            """
        ),
        lambda s: f"{sum(x > y for x, y in itertools.combinations(_ints(s)[1:], 2))}\n",
        ("3\n3 1 2\n", "4\n1 2 3 4\n"),
        listgen(),
    ),
    Spec(
        "rotate_left",
        "lists",
        "The first line holds n and k, the second n integers. Rotate the list left by k places (the first k values move to "
        "the end, k may exceed n) and print it, separated by spaces.",
        prog(
            """
            def main():
                n, k = map(int, input().split())
                values = input().split()
                k %= n
                print(' '.join(values[k:] + values[:k]))
            """
        ),
        lambda s: (lambda v: " ".join(map(str, _rotated(v[2:], v[1]))) + "\n")(_ints(s)),
        ("5 2\n1 2 3 4 5\n", "3 4\n7 8 9\n"),
        ROTATE,
    ),
    Spec(
        "running_max",
        "lists",
        "The first line holds n, the second n integers. Print, for each position, the largest value up to it, separated by spaces.",
        prog(
            """
            def main():
                n = int(input())
                values = list(map(int, input().split()))
                best = values[0]
                out = []
                for v in values:
                    if v > best:
                        best = v
                    out.append(best)
                print(*out)
            """
        ),
        lambda s: " ".join(map(str, itertools.accumulate(_ints(s)[1:], max))) + "\n",
        ("4\n1 3 2 5\n", "3\n-1 -2 -3\n"),
        listgen(),
    ),
    Spec(
        "lower_median",
        "lists",
        "The first line holds n, the second n integers. Print the lower median: the value at position (n + 1) // 2 "
        "(from 1) of the sorted list.",
        prog(
            """
            def main():
                n = int(input())
                values = sorted(map(int, input().split()))
                print(values[(n - 1) // 2])
            """
        ),
        lambda s: f"{statistics.median_low(_ints(s)[1:])}\n",
        ("3\n5 1 3\n", "4\n4 1 3 2\n"),
        listgen(),
    ),
    # -- searching
    Spec(
        "index_of",
        "searching",
        "The first line holds n, the second n distinct integers in increasing order, the third q, the fourth q queries. For each "
        "query print its position (from 1) in the list, or -1, separated by spaces.",
        prog(
            """
            def find(a, x):
                lo, hi = 0, len(a) - 1
                while lo <= hi:
                    mid = (lo + hi) // 2
                    if a[mid] == x:
                        return mid + 1
                    if a[mid] < x:
                        lo = mid + 1
                    else:
                        hi = mid - 1
                return -1


            def main():
                input()
                a = list(map(int, input().split()))
                input()
                print(*[find(a, x) for x in map(int, input().split())])
            """
        ),
        lambda s: (lambda a, q: " ".join(str(a.index(x) + 1 if x in a else -1) for x in q) + "\n")(*_queries(s)),
        ("4\n1 3 5 7\n3\n5 4 1\n", "1\n9\n2\n9 10\n"),
        queries(distinct=True),
    ),
    Spec(
        "count_at_most",
        "searching",
        "The first line holds n, the second n integers, the third q, the fourth q queries. For each query x print how many "
        "values are <= x, separated by spaces.",
        prog(
            """
            def main():
                input()
                a = list(map(int, input().split()))
                input()
                out = []
                for x in map(int, input().split()):
                    count = 0
                    for v in a:
                        if v <= x:
                            count += 1
                    out.append(count)
                print(*out)
            """
        ),
        lambda s: (lambda a, q: " ".join(str(bisect.bisect_right(sorted(a), x)) for x in q) + "\n")(*_queries(s)),
        ("3\n5 1 3\n3\n3 0 9\n", "2\n2 2\n1\n2\n"),
        queries(),
    ),
    Spec(
        "first_above",
        "searching",
        "The first line holds n, the second n integers, the third q, the fourth q queries. For each query x print the position "
        "(from 1) of the first value > x, or -1, separated by spaces.",
        prog(
            """
            def main():
                input()
                a = list(map(int, input().split()))
                input()
                out = []
                for x in map(int, input().split()):
                    found = -1
                    for i in range(len(a)):
                        if a[i] > x:
                            found = i + 1
                            break
                    out.append(found)
                print(*out)
            """
        ),
        lambda s: (lambda a, q: " ".join(str(next((i for i, v in enumerate(a, 1) if v > x), -1)) for x in q) + "\n")(
            *_queries(s)
        ),
        ("4\n1 5 2 8\n3\n4 8 0\n", "1\n3\n1\n3\n"),
        queries(),
    ),
    Spec(
        "last_occurrence",
        "searching",
        "The first line holds n, the second n integers, the third q, the fourth q queries. For each query x print the position "
        "(from 1) of the last value equal to x, or -1, separated by spaces.",
        prog(
            """
            def main():
                input()
                a = list(map(int, input().split()))
                input()
                where = {}
                for i in range(len(a)):
                    where[a[i]] = i + 1
                print(*[where.get(x, -1) for x in map(int, input().split())])
            """
        ),
        lambda s: (
            lambda a, q: " ".join(str(max((i for i, v in enumerate(a, 1) if v == x), default=-1)) for x in q) + "\n"
        )(*_queries(s)),
        ("5\n2 7 2 7 1\n3\n7 2 5\n", "1\n4\n1\n4\n"),
        queries(),
    ),
    Spec(
        "longest_run",
        "searching",
        "The first line holds n, the second n integers. Print the length of the longest run of equal adjacent values.",
        prog(
            """
            def main():
                n = int(input())
                a = list(map(int, input().split()))
                best = run = 1
                for i in range(1, n):
                    if a[i] == a[i - 1]:
                        run += 1
                    else:
                        run = 1
                    best = max(best, run)
                print(best)
            """
        ),
        lambda s: f"{max(len(list(g)) for _, g in itertools.groupby(_ints(s)[1:]))}\n",
        ("6\n1 1 2 2 2 1\n", "1\n5\n"),
        listgen(0, 2),
    ),
    Spec(
        "majority",
        "searching",
        "The first line holds n, the second n integers. Print the value that occurs more than n / 2 times, or -1 if none does.",
        prog(
            """
            def main():
                n = int(input())
                a = list(map(int, input().split()))
                candidate, votes = None, 0
                for v in a:
                    if votes == 0:
                        candidate, votes = v, 1
                    elif v == candidate:
                        votes += 1
                    else:
                        votes -= 1
                print(candidate if a.count(candidate) * 2 > n else -1)
            """
        ),
        lambda s: (lambda a: f"{next((v for v, c in Counter(a).items() if 2 * c > len(a)), -1)}\n")(_ints(s)[1:]),
        ("5\n2 1 2 3 2\n", "4\n1 1 2 2\n"),
        listgen(0, 1, wide=((0, 1), (0, 2), (7, 7))),
    ),
    Spec(
        "pair_count",
        "searching",
        "The first line holds n and a target t, the second n integers. Print the number of pairs i < j with a_i + a_j = t.",
        prog(
            """
            def main():
                n, t = map(int, input().split())
                a = list(map(int, input().split()))
                seen = {}
                count = 0
                for v in a:
                    count += seen.get(t - v, 0)
                    seen[v] = seen.get(v, 0) + 1
                print(count)
            """
        ),
        lambda s: (lambda h, a: f"{sum(x + y == h[1] for x, y in itertools.combinations(a, 2))}\n")(
            _ints(s.split("\n")[0]), _ints(s.split("\n")[1])
        ),
        ("4 5\n1 4 2 3\n", "3 4\n2 2 2\n"),
        PAIR_TARGET,
    ),
]


def _rotated(values: list[int], k: int) -> list[int]:
    d = collections.deque(values)
    d.rotate(-k)
    return list(d)


SPECS += [
    # -- dp
    Spec(
        "max_subarray",
        "dp",
        "The first line holds n, the second n integers. Print the largest sum of a non-empty run of consecutive values.",
        prog(
            """
            def main():
                n = int(input())
                a = list(map(int, input().split()))
                best = current = a[0]
                for v in a[1:]:
                    current = max(v, current + v)
                    best = max(best, current)
                print(best)
            """
        ),
        lambda s: (lambda a: f"{max(sum(a[i:j]) for i in range(len(a)) for j in range(i + 1, len(a) + 1))}\n")(
            _ints(s)[1:]
        ),
        ("5\n-2 3 -1 4 -9\n", "3\n-5 -1 -3\n"),
        listgen(),
    ),
    Spec(
        "climb_stairs",
        "dp",
        "The first line holds T, then T lines with one integer n >= 1. Print the number of ways to climb n steps taking 1 or 2 "
        "at a time, modulo 1000000007, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    n = int(input())
                    ways = [1, 1]
                    for i in range(2, n + 1):
                        ways.append((ways[i - 1] + ways[i - 2]) % 1000000007)
                    print(ways[n])
            """
        ),
        lambda s: _lines(_fib(n + 1) % 1000000007 for n in _ints(s)[1:]),
        ("2\n1\n4\n", "1\n10\n"),
        ints(1, 40, wide=(1, 2000)),
    ),
    Spec(
        "lis_length",
        "dp",
        "The first line holds n, the second n integers. Print the length of the longest strictly increasing subsequence.",
        prog(
            """
            def main():
                n = int(input())
                a = list(map(int, input().split()))
                best = [1] * n
                for i in range(n):
                    for j in range(i):
                        if a[j] < a[i] and best[j] + 1 > best[i]:
                            best[i] = best[j] + 1
                print(max(best))
            """
        ),
        lambda s: f"{_lis(_ints(s)[1:])}\n",
        ("6\n3 1 4 1 5 9\n", "3\n3 2 1\n"),
        listgen(),
    ),
    Spec(
        "coin_change",
        "dp",
        "The first line holds k and an amount, the second k distinct coin values. Print the fewest coins (any coin used any "
        "number of times) that sum to the amount, or -1 if none do.",
        prog(
            """
            def main():
                k, amount = map(int, input().split())
                coins = list(map(int, input().split()))
                inf = amount + 1
                best = [0] + [inf] * amount
                for x in range(1, amount + 1):
                    for c in coins:
                        if c <= x and best[x - c] + 1 < best[x]:
                            best[x] = best[x - c] + 1
                print(best[amount] if best[amount] < inf else -1)
            """
        ),
        _min_coins,
        ("3 11\n1 2 5\n", "1 3\n2\n"),
        COINS,
    ),
    Spec(
        "knapsack",
        "dp",
        "The first line holds n and a capacity W, then n lines with a weight and a value. Print the largest total value of "
        "items (each at most once) whose total weight is at most W.",
        prog(
            """
            def main():
                n, cap = map(int, input().split())
                best = [0] * (cap + 1)
                for _ in range(n):
                    w, v = map(int, input().split())
                    for c in range(cap, w - 1, -1):
                        if best[c - w] + v > best[c]:
                            best[c] = best[c - w] + v
                print(best[cap])
            """
        ),
        _knapsack,
        ("3 5\n2 3\n3 4\n4 5\n", "2 1\n2 9\n3 9\n"),
        KNAPSACK,
    ),
    Spec(
        "edit_distance",
        "dp",
        "The first line holds T, then T lines with two words. Print the edit distance of each pair (insertions, deletions and "
        "substitutions of one letter), one per line.",
        prog(
            """
            def distance(a, b):
                prev = list(range(len(b) + 1))
                for i in range(1, len(a) + 1):
                    cur = [i] + [0] * len(b)
                    for j in range(1, len(b) + 1):
                        cost = 0 if a[i - 1] == b[j - 1] else 1
                        cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                    prev = cur
                return prev[len(b)]


            def main():
                t = int(input())
                for _ in range(t):
                    a, b = input().split()
                    print(distance(a, b))
            """
        ),
        lambda s: _lines(_edit(a, b) for a, b in (ln.split() for ln in s.split("\n")[1:] if ln)),
        ("2\nkitten sitting\nabc abc\n", "1\na bcd\n"),
        word_pairs(),
    ),
    Spec(
        "lcs_length",
        "dp",
        "The first line holds T, then T lines with two words. Print the length of the longest common subsequence of each pair, "
        "one per line.",
        prog(
            """
            def lcs(a, b):
                table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
                for i in range(len(a)):
                    for j in range(len(b)):
                        if a[i] == b[j]:
                            table[i + 1][j + 1] = table[i][j] + 1
                        else:
                            table[i + 1][j + 1] = max(table[i][j + 1], table[i + 1][j])
                return table[len(a)][len(b)]


            def main():
                t = int(input())
                for _ in range(t):
                    a, b = input().split()
                    print(lcs(a, b))
            """
        ),
        lambda s: _lines(_lcs(a, b) for a, b in (ln.split() for ln in s.split("\n")[1:] if ln)),
        ("2\nabcde ace\nabc def\n", "1\naaa aa\n"),
        word_pairs(),
    ),
    Spec(
        "house_robber",
        "dp",
        "The first line holds n, the second n integers. Print the largest sum of values no two of which are adjacent "
        "(taking none gives 0).",
        prog(
            """
            def main():
                n = int(input())
                a = list(map(int, input().split()))
                best = [0] * (n + 2)
                for i in range(n - 1, -1, -1):
                    best[i] = max(best[i + 1], a[i] + best[i + 2])
                print(best[0])
            """
        ),
        lambda s: f"{_robber(_ints(s)[1:])}\n",
        ("4\n1 2 3 1\n", "3\n-1 -2 -3\n"),
        listgen(),
    ),
    # -- floats (geometry and statistics; a tolerance of 1e-6)
    Spec(
        "triangle_area",
        "floats",
        "The first line holds T, then T lines with six integers x1 y1 x2 y2 x3 y3. Print the area of each triangle with 6 digits "
        "after the point, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    x1, y1, x2, y2, x3, y3 = map(int, input().split())
                    cross = (x2 - x1) * (y3 - y1) - (x3 - x1) * (y2 - y1)
                    print(f'{abs(cross) / 2:.6f}')
            """
        ),
        lambda s: _lines(f"{_shoelace([r[0:2], r[2:4], r[4:6]]):.6f}" for r in _rows(s)),
        ("2\n0 0 4 0 0 3\n1 1 2 2 3 3\n", "1\n0 0 1 0 0 1\n"),
        coords(6, -20, 20),
        float_tolerance=1e-6,
    ),
    Spec(
        "polygon_area",
        "floats",
        "The first line holds n, then n lines with the integer coordinates x y of a polygon's vertices in order. Print the area "
        "given by the shoelace formula (the absolute value of the sum, halved) with 6 digits after the point.",
        prog(
            """
            def main():
                n = int(input())
                pts = [tuple(map(int, input().split())) for _ in range(n)]
                total = 0
                for i in range(n):
                    x1, y1 = pts[i]
                    x2, y2 = pts[(i + 1) % n]
                    total += x1 * y2 - x2 * y1
                print(f'{abs(total) / 2:.6f}')
            """
        ),
        lambda s: f"{_shoelace(_rows(s)):.6f}\n",
        ("4\n0 0\n4 0\n4 3\n0 3\n", "3\n0 0\n1 0\n0 1\n"),
        coords(2, -20, 20, nmin=3, nmax=6),
        float_tolerance=1e-6,
    ),
    Spec(
        "fahrenheit",
        "floats",
        "The first line holds T, then T lines with a temperature in Celsius (an integer). Print each in Fahrenheit "
        "(C * 9 / 5 + 32) with 6 digits after the point, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    c = int(input())
                    print(f'{c * 9 / 5 + 32:.6f}')
            """
        ),
        lambda s: _lines(f"{32 + c * 1.8:.6f}" for c in _ints(s)[1:]),
        ("2\n100\n-40\n", "1\n37\n"),
        ints(-50, 50, wide=(-(10**6), 10**6)),
        float_tolerance=1e-6,
    ),
    Spec(
        "std_dev",
        "floats",
        "The first line holds n, the second n integers. Print their population standard deviation (the square root of the mean "
        "squared distance from the mean) with 6 digits after the point.",
        prog(
            """
            import math


            def main():
                n = int(input())
                values = list(map(int, input().split()))
                mean = sum(values) / n
                total = 0.0
                for v in values:
                    total += (v - mean) ** 2
                print(f'{math.sqrt(total / n):.6f}')
            """
        ),
        lambda s: f"{statistics.pstdev(_ints(s)[1:]):.6f}\n",
        ("4\n2 4 4 6\n", "1\n7\n"),
        listgen(),
        float_tolerance=1e-6,
    ),
    Spec(
        "square_roots",
        "floats",
        "The first line holds T, then T lines with an integer n >= 0. Print the square root of each with 6 digits after the "
        "point, one per line.",
        prog(
            """
            import math


            def main():
                t = int(input())
                for _ in range(t):
                    print(f'{math.sqrt(int(input())):.6f}')
            """
        ),
        lambda s: _lines(f"{n**0.5:.6f}" for n in _ints(s)[1:]),
        ("2\n2\n16\n", "1\n0\n"),
        ints(0, 1000, wide=(0, 10**12)),
        float_tolerance=1e-6,
    ),
    Spec(
        "compound_interest",
        "floats",
        "The first line holds T, then T lines with three integers p, r and y: a principal, a yearly rate in percent and a number "
        "of years. Print p * (1 + r / 100) ** y with 6 digits after the point, one per line.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    p, r, y = map(int, input().split())
                    amount = p
                    for _ in range(y):
                        amount *= 1 + r / 100
                    print(f'{amount:.6f}')
            """
        ),
        lambda s: _lines(f"{p * (1 + r / 100) ** y:.6f}" for p, r, y in _rows(s)),
        ("2\n100 10 2\n50 0 7\n", "1\n1000 5 10\n"),
        coords(3, 1, 20, wide=(1, 50)),
        float_tolerance=1e-6,
    ),
]

SPECS += [
    # -- shifted: grids
    Spec(
        "rotate_grid",
        "grids",
        "The first line holds r and c, then r lines of c integers. Print the grid rotated a quarter turn clockwise: c lines of "
        "r integers.",
        prog(
            """
            def main():
                r, c = map(int, input().split())
                grid = [input().split() for _ in range(r)]
                for j in range(c):
                    row = []
                    for i in range(r - 1, -1, -1):
                        row.append(grid[i][j])
                    print(' '.join(row))
            """
        ),
        lambda s: (lambda g: _lines(" ".join(map(str, col)) for col in zip(*g[::-1])))(_rows(s)),
        ("2 3\n1 2 3\n4 5 6\n", "1 2\n7 8\n"),
        grid(0, 9),
    ),
    Spec(
        "max_path_sum",
        "grids",
        "The first line holds r and c, then r lines of c integers. A path starts at the top-left cell and moves right or down "
        "to the bottom-right cell. Print the largest sum of the cells on such a path.",
        prog(
            """
            def main():
                r, c = map(int, input().split())
                grid = [list(map(int, input().split())) for _ in range(r)]
                best = [[0] * c for _ in range(r)]
                for i in range(r):
                    for j in range(c):
                        if i == 0 and j == 0:
                            best[i][j] = grid[i][j]
                        elif i == 0:
                            best[i][j] = best[i][j - 1] + grid[i][j]
                        elif j == 0:
                            best[i][j] = best[i - 1][j] + grid[i][j]
                        else:
                            best[i][j] = max(best[i - 1][j], best[i][j - 1]) + grid[i][j]
                print(best[r - 1][c - 1])
            """
        ),
        lambda s: f"{_path_sum(_rows(s))}\n",
        ("2 2\n1 2\n3 4\n", "2 3\n1 -5 1\n1 1 1\n"),
        grid(-9, 9),
    ),
    Spec(
        "count_islands",
        "grids",
        "The first line holds r and c, then r lines of c characters, '#' land and '.' water. Print the number of islands: "
        "groups of land cells joined through their sides.",
        prog(
            """
            def main():
                r, c = map(int, input().split())
                grid = [list(input().strip()) for _ in range(r)]
                count = 0
                for i in range(r):
                    for j in range(c):
                        if grid[i][j] == '#':
                            count += 1
                            stack = [(i, j)]
                            grid[i][j] = '.'
                            while stack:
                                x, y = stack.pop()
                                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                                    u, v = x + dx, y + dy
                                    if 0 <= u < r and 0 <= v < c and grid[u][v] == '#':
                                        grid[u][v] = '.'
                                        stack.append((u, v))
                print(count)
            """
        ),
        lambda s: f"{_islands(s)}\n",
        ("3 4\n##..\n#..#\n..##\n", "2 2\n..\n..\n"),
        CHAR_GRID,
    ),
    Spec(
        "neighbor_counts",
        "grids",
        "The first line holds r and c, then r lines of c characters, '#' or '.'. Print r lines of c digits: for each cell the "
        "number of '#' among its (up to 8) neighbours.",
        prog(
            """
            def main():
                r, c = map(int, input().split())
                grid = [input().strip() for _ in range(r)]
                for i in range(r):
                    row = ''
                    for j in range(c):
                        count = 0
                        for dx in (-1, 0, 1):
                            for dy in (-1, 0, 1):
                                u, v = i + dx, j + dy
                                if (dx or dy) and 0 <= u < r and 0 <= v < c and grid[u][v] == '#':
                                    count += 1
                        row += str(count)
                    print(row)
            """
        ),
        lambda s: _lines(_neighbors(s)),
        ("2 3\n#..\n.#.\n", "1 1\n#\n"),
        CHAR_GRID,
    ),
    # -- shifted: graphs (vertices 1..n, undirected unless said)
    Spec(
        "degrees",
        "graphs",
        "The first line holds n and m, then m lines with an edge u v (no loop, no repeated edge). Print the degree of each "
        "vertex 1..n, separated by spaces.",
        prog(
            """
            def main():
                n, m = map(int, input().split())
                degree = [0] * (n + 1)
                for _ in range(m):
                    u, v = map(int, input().split())
                    degree[u] += 1
                    degree[v] += 1
                print(*degree[1:])
            """
        ),
        lambda s: (lambda n, es: " ".join(str(sum(v in e for e in es)) for v in range(1, n + 1)) + "\n")(*_edges(s)),
        ("3 2\n1 2\n2 3\n", "4 0\n"),
        graph(),
    ),
    Spec(
        "components",
        "graphs",
        "The first line holds n and m, then m lines with an edge u v. Print the number of connected components.",
        prog(
            """
            def main():
                n, m = map(int, input().split())
                parent = list(range(n + 1))

                def find(x):
                    while parent[x] != x:
                        parent[x] = parent[parent[x]]
                        x = parent[x]
                    return x

                for _ in range(m):
                    u, v = map(int, input().split())
                    parent[find(u)] = find(v)
                print(len({find(v) for v in range(1, n + 1)}))
            """
        ),
        lambda s: f"{len(set(map(frozenset, _reach(s).values())))}\n",
        ("4 2\n1 2\n3 4\n", "3 0\n"),
        graph(),
    ),
    Spec(
        "bfs_distances",
        "graphs",
        "The first line holds n and m, then m lines with an edge u v. Print the fewest edges from vertex 1 to each vertex "
        "1..n, -1 where there is no path, separated by spaces.",
        prog(
            """
            from collections import deque


            def main():
                n, m = map(int, input().split())
                adj = [[] for _ in range(n + 1)]
                for _ in range(m):
                    u, v = map(int, input().split())
                    adj[u].append(v)
                    adj[v].append(u)
                dist = [-1] * (n + 1)
                dist[1] = 0
                queue = deque([1])
                while queue:
                    x = queue.popleft()
                    for y in adj[x]:
                        if dist[y] == -1:
                            dist[y] = dist[x] + 1
                            queue.append(y)
                print(*dist[1:])
            """
        ),
        lambda s: " ".join(map(str, _shortest(s, weighted=False))) + "\n",
        ("4 3\n1 2\n2 3\n1 3\n", "3 1\n2 3\n"),
        graph(),
    ),
    Spec(
        "dijkstra",
        "graphs",
        "The first line holds n and m, then m lines with an edge u v w (weight w >= 1). Print the length of the shortest path "
        "from vertex 1 to each vertex 1..n, -1 where there is no path, separated by spaces.",
        prog(
            """
            import heapq


            def main():
                n, m = map(int, input().split())
                adj = [[] for _ in range(n + 1)]
                for _ in range(m):
                    u, v, w = map(int, input().split())
                    adj[u].append((v, w))
                    adj[v].append((u, w))
                dist = [None] * (n + 1)
                heap = [(0, 1)]
                while heap:
                    d, x = heapq.heappop(heap)
                    if dist[x] is not None:
                        continue
                    dist[x] = d
                    for y, w in adj[x]:
                        if dist[y] is None:
                            heapq.heappush(heap, (d + w, y))
                print(*[-1 if d is None else d for d in dist[1:]])
            """
        ),
        lambda s: " ".join(map(str, _shortest(s, weighted=True))) + "\n",
        ("3 3\n1 2 5\n2 3 1\n1 3 9\n", "2 0\n"),
        graph(weighted=True),
    ),
    Spec(
        "bipartite",
        "graphs",
        "The first line holds n and m, then m lines with an edge u v. Print YES if the vertices can be coloured with two colours "
        "so that every edge joins two colours, else NO.",
        prog(
            """
            def main():
                n, m = map(int, input().split())
                adj = [[] for _ in range(n + 1)]
                for _ in range(m):
                    u, v = map(int, input().split())
                    adj[u].append(v)
                    adj[v].append(u)
                colour = [0] * (n + 1)
                for start in range(1, n + 1):
                    if colour[start]:
                        continue
                    colour[start] = 1
                    stack = [start]
                    while stack:
                        x = stack.pop()
                        for y in adj[x]:
                            if colour[y] == 0:
                                colour[y] = -colour[x]
                                stack.append(y)
                            elif colour[y] == colour[x]:
                                print('NO')
                                return
                print('YES')
            """
        ),
        lambda s: "NO\n" if _odd_cycle(s) else "YES\n",
        ("3 3\n1 2\n2 3\n1 3\n", "4 3\n1 2\n2 3\n3 4\n"),
        graph(bipartite=True),
    ),
    # -- shifted: formatted output (Case #i: prefixes, labelled lines)
    Spec(
        "case_max",
        "formatted",
        "The first line holds T, then T lines, each n followed by n integers. For the i-th line print 'Case #i: ' followed by "
        "the largest of its integers.",
        prog(
            """
            def main():
                t = int(input())
                for i in range(1, t + 1):
                    values = list(map(int, input().split()))[1:]
                    best = values[0]
                    for v in values:
                        if v > best:
                            best = v
                    print(f'Case #{i}: {best}')
            """
        ),
        lambda s: _lines(f"Case #{i}: {max(r[1:])}" for i, r in enumerate(_rows(s), 1)),
        ("2\n3 1 5 2\n1 -4\n", "1\n2 7 7\n"),
        CASE_LISTS,
    ),
    Spec(
        "case_reverse",
        "formatted",
        "The first line holds T, then T lines of words. For the i-th line print 'Case #i: ' followed by its words in reverse "
        "order.",
        prog(
            """
            def main():
                t = int(input())
                for i in range(1, t + 1):
                    words = input().split()
                    words.reverse()
                    print('Case #' + str(i) + ': ' + ' '.join(words))
            """
        ),
        lambda s: _lines(
            f"Case #{i}: {' '.join(reversed(ln.split()))}" for i, ln in enumerate(s.split("\n")[1:], 1) if ln
        ),
        ("2\nthis is a test\nfoobar\n", "1\nall your base\n"),
        word_lines(),
    ),
    Spec(
        "case_divides",
        "formatted",
        "The first line holds T, then T lines with two integers a and b (b != 0). For the i-th line print 'Case #i: YES' if b "
        "divides a, else 'Case #i: NO'.",
        prog(
            """
            import sys


            def main():
                data = list(map(int, sys.stdin.read().split()))
                for i in range(1, data[0] + 1):
                    a, b = data[2 * i - 1], data[2 * i]
                    answer = 'YES' if a % b == 0 else 'NO'
                    print(f'Case #{i}: {answer}')
            """
        ),
        lambda s: _lines(f"Case #{i}: {'NO' if math.fmod(a, b) else 'YES'}" for i, (a, b) in enumerate(_rows(s), 1)),
        ("2\n6 3\n7 2\n", "1\n0 5\n"),
        pairs(-12, 12, wide=(-(10**6), 10**6), nonzero=True),
    ),
    Spec(
        "times_table",
        "formatted",
        "One integer n. Print ten lines 'i x n = p' for i from 1 to 10, p the product.",
        prog(
            """
            def main():
                n = int(input())
                for i in range(1, 11):
                    print(i, 'x', n, '=', i * n)
            """
        ),
        lambda s: _lines(f"{i} x {int(s)} = {i * int(s)}" for i in range(1, 11)),
        ("3\n", "-2\n"),
        one_int(-20, 20, wide=(-(10**9), 10**9)),
    ),
    Spec(
        "histogram",
        "formatted",
        "The first line holds n, the second n integers from 0 to 9. Print n lines 'i: ' followed by as many '*' as the i-th "
        "integer.",
        prog(
            """
            def main():
                n = int(input())
                values = list(map(int, input().split()))
                for i in range(n):
                    print(str(i + 1) + ': ' + '*' * values[i])
            """
        ),
        lambda s: _lines(f"{i}: {'*' * v}" for i, v in enumerate(_ints(s)[1:], 1)),
        ("3\n2 0 3\n", "1\n5\n"),
        listgen(0, 9, wide=((0, 9), (0, 1), (9, 9))),
    ),
]


def _path_sum(g: list[list[int]]) -> int:
    @functools.cache
    def go(i: int, j: int) -> int:
        later = []
        if i + 1 < len(g):
            later.append(go(i + 1, j))
        if j + 1 < len(g[0]):
            later.append(go(i, j + 1))
        return g[i][j] + max(later, default=0)

    return go(0, 0)


def _char_grid(s: str) -> list[str]:
    return s.split("\n")[1 : 1 + int(s.split()[0])]


def _islands(s: str) -> int:
    land = {(i, j) for i, row in enumerate(_char_grid(s)) for j, ch in enumerate(row) if ch == "#"}
    count = 0
    while land:
        count += 1
        todo = [land.pop()]
        while todo:
            i, j = todo.pop()
            for cell in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
                if cell in land:
                    land.remove(cell)
                    todo.append(cell)
    return count


def _neighbors(s: str) -> list[str]:
    g = _char_grid(s)
    land = {(i, j) for i, row in enumerate(g) for j, ch in enumerate(row) if ch == "#"}
    return [
        "".join(
            str(sum((i + a, j + b) in land for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0)))
            for j in range(len(row))
        )
        for i, row in enumerate(g)
    ]


def _edges(s: str) -> tuple[int, list[tuple[int, ...]]]:
    lines = s.split("\n")
    return _ints(lines[0])[0], [tuple(_ints(ln)) for ln in lines[1:] if ln.strip()]


def _reach(s: str) -> dict[int, set[int]]:
    """Each vertex's component, by repeated merging."""
    n, edges = _edges(s)
    comp = {v: {v} for v in range(1, n + 1)}
    for e in edges:
        u, v = e[0], e[1]
        if comp[u] is not comp[v]:
            merged = comp[u] | comp[v]
            for x in merged:
                comp[x] = merged
    return comp


def _shortest(s: str, weighted: bool) -> list[int]:
    """Bellman-Ford from vertex 1."""
    n, edges = _edges(s)
    dist: dict[int, int] = {1: 0}
    for _ in range(n):
        for e in edges:
            w = e[2] if weighted else 1
            for a, b in ((e[0], e[1]), (e[1], e[0])):
                if a in dist and dist[a] + w < dist.get(b, 10**18):
                    dist[b] = dist[a] + w
    return [dist.get(v, -1) for v in range(1, n + 1)]


def _odd_cycle(s: str) -> bool:
    """Whether an edge joins two vertices at even distance from one another: breadth-first
    layers from each component's first vertex, an edge within one layer parity."""
    n, edges = _edges(s)
    adj: dict[int, list[int]] = {v: [] for v in range(1, n + 1)}
    for e in edges:
        adj[e[0]].append(e[1])
        adj[e[1]].append(e[0])
    depth: dict[int, int] = {}
    for root in range(1, n + 1):
        if root in depth:
            continue
        depth[root], frontier = 0, [root]
        while frontier:
            later = []
            for x in frontier:
                for y in adj[x]:
                    if y not in depth:
                        depth[y] = depth[x] + 1
                        later.append(y)
            frontier = later
    return any(depth[e[0]] % 2 == depth[e[1]] % 2 for e in edges)


# -- shifted: special judges (many right answers); each judge is validated on every case:
# it accepts the expected output and the alternative's, and refuses ``WRONG``.
WRONG = "0 0\n"

DIVISOR_JUDGE = """def judge(input, expected, output):
    numbers = [int(x) for x in input.split()[1:]]
    parts = output.split()
    if len(parts) != len(numbers) or not all(p.lstrip("-").isdigit() for p in parts):
        return False
    for n, p in zip(numbers, parts):
        d = int(p)
        prime = n > 1 and all(n % k for k in range(2, int(n**0.5) + 1))
        if (d == -1) != prime or (d != -1 and not (1 < d < n and n % d == 0)):
            return False
    return True
"""

TOPO_JUDGE = """def judge(input, expected, output):
    lines = input.split("\\n")
    n, m = map(int, lines[0].split())
    parts = output.split()
    if sorted(parts) != sorted(str(v) for v in range(1, n + 1)):
        return False
    place = {int(v): i for i, v in enumerate(parts)}
    for line in lines[1 : 1 + m]:
        u, v = map(int, line.split())
        if place[u] > place[v]:
            return False
    return True
"""

GOLDBACH_JUDGE = """def judge(input, expected, output):
    numbers = [int(x) for x in input.split()[1:]]
    rows = [line.split() for line in output.strip().split("\\n")] if output.strip() else []
    if len(rows) != len(numbers):
        return False

    def prime(k):
        return k > 1 and all(k % d for d in range(2, int(k**0.5) + 1))

    for n, row in zip(numbers, rows):
        if len(row) != 2 or not all(x.isdigit() for x in row):
            return False
        p, q = int(row[0]), int(row[1])
        if p + q != n or not prime(p) or not prime(q):
            return False
    return True
"""


def _smallest_divisors(s: str) -> str:
    return _lines(-1 if _is_prime(n) else _factors(n)[0] for n in _ints(s)[1:])


def _topo(s: str) -> str:
    """The smallest-first topological order (another right answer than the reference's)."""
    n, edges = _edges(s)
    before = {v: {e[0] for e in edges if e[1] == v} for v in range(1, n + 1)}
    order: list[int] = []
    while len(order) < n:
        order.append(min(v for v in before if v not in order and before[v] <= set(order)))
    return " ".join(map(str, order)) + "\n"


def _goldbach(s: str) -> str:
    return _lines(next(f"{p} {n - p}" for p in range(2, n) if _is_prime(p) and _is_prime(n - p)) for n in _ints(s)[1:])


SPECS += [
    Spec(
        "any_divisor",
        "special",
        "The first line holds T, then T lines with an integer n >= 2. For each print a divisor d of n with 1 < d < n, or -1 "
        "if n is prime, one per line. Any such divisor is accepted.",
        prog(
            """
            def main():
                t = int(input())
                for _ in range(t):
                    n = int(input())
                    d = 2
                    while d * d <= n and n % d != 0:
                        d += 1
                    print(d if d * d <= n else -1)
            """
        ),
        _smallest_divisors,
        ("3\n12\n7\n9\n", "2\n2\n100\n"),
        ints(2, 200, wide=(2, 10**6)),
        judge=DIVISOR_JUDGE,
        alternatives=(
            prog(
                """
                def main():
                    t = int(input())
                    for _ in range(t):
                        n = int(input())
                        best = -1
                        d = 2
                        while d * d <= n:
                            if n % d == 0:
                                best = n // d
                                break
                            d += 1
                        print(best)
                """
            ),
        ),
    ),
    Spec(
        "topo_order",
        "special",
        "The first line holds n and m, then m lines with a directed edge u v (u before v); the graph has no cycle. Print the "
        "vertices 1..n in an order where every edge goes forward, separated by spaces. Any such order is accepted.",
        prog(
            """
            import heapq


            def main():
                n, m = map(int, input().split())
                out = [[] for _ in range(n + 1)]
                indegree = [0] * (n + 1)
                for _ in range(m):
                    u, v = map(int, input().split())
                    out[u].append(v)
                    indegree[v] += 1
                ready = [v for v in range(1, n + 1) if indegree[v] == 0]
                heapq.heapify(ready)
                order = []
                while ready:
                    x = heapq.heappop(ready)
                    order.append(x)
                    for y in out[x]:
                        indegree[y] -= 1
                        if indegree[y] == 0:
                            heapq.heappush(ready, y)
                print(*order)
            """
        ),
        _topo,
        ("3 2\n3 1\n3 2\n", "4 2\n1 2\n3 4\n"),
        graph(dag=True),
        judge=TOPO_JUDGE,
        alternatives=(
            prog(
                """
                import sys


                def main():
                    sys.setrecursionlimit(10000)
                    n, m = map(int, input().split())
                    out = [[] for _ in range(n + 1)]
                    for _ in range(m):
                        u, v = map(int, input().split())
                        out[u].append(v)
                    done = [False] * (n + 1)
                    order = []

                    def visit(x):
                        done[x] = True
                        for y in out[x]:
                            if not done[y]:
                                visit(y)
                        order.append(x)

                    for v in range(n, 0, -1):
                        if not done[v]:
                            visit(v)
                    print(*order[::-1])
                """
            ),
        ),
    ),
    Spec(
        "goldbach",
        "special",
        "The first line holds T, then T lines with an even integer n >= 4. For each print two primes p and q with p + q = n, "
        "one line each. Any such pair is accepted.",
        prog(
            """
            def prime(k):
                if k < 2:
                    return False
                d = 2
                while d * d <= k:
                    if k % d == 0:
                        return False
                    d += 1
                return True


            def main():
                t = int(input())
                for _ in range(t):
                    n = int(input())
                    for p in range(2, n):
                        if prime(p) and prime(n - p):
                            print(p, n - p)
                            break
            """
        ),
        _goldbach,
        ("2\n10\n4\n", "1\n100\n"),
        ints(2, 100, wide=(2, 5000), scale=2),
        judge=GOLDBACH_JUDGE,
        alternatives=(
            prog(
                """
                def main():
                    t = int(input())
                    for _ in range(t):
                        n = int(input())
                        sieve = [True] * (n + 1)
                        sieve[0] = sieve[1] = False
                        for i in range(2, n + 1):
                            if sieve[i]:
                                for j in range(i * i, n + 1, i):
                                    sieve[j] = False
                        p = n // 2
                        while not (sieve[p] and sieve[n - p]):
                            p -= 1
                        print(n - p, p)
                """
            ),
        ),
    ),
]


def _splits() -> None:
    seen: dict[str, int] = {}
    for spec in SPECS:
        if spec.family in SHIFTED_FAMILIES:
            spec.split = "shifted"
            continue
        seen[spec.family] = seen.get(spec.family, 0) + 1
        spec.split = "heldout" if seen[spec.family] % 3 == 0 else "train"


def hidden_inputs(spec: Spec) -> list[str]:
    """The task's hidden inputs: its generator run here, small (``wide=False``), seeded by the task id."""
    scope: dict = {}
    exec(compile(spec.generator, f"<generator of {spec.id}>", "exec"), scope)
    rng = random.Random(f"{SEED}/{spec.id}")
    return [scope["make"](rng, False) for _ in range(HIDDEN)]


def rows() -> list[dict]:
    _splits()
    out = []
    for spec in SPECS:
        metadata: dict = {
            "family": spec.family,
            "cases": {
                "visible": [{"input": i, "output": spec.solve(i)} for i in spec.visible],
                "hidden": [{"input": i, "output": spec.solve(i)} for i in hidden_inputs(spec)],
            },
        }
        if spec.float_tolerance is not None:
            metadata["float_tolerance"] = spec.float_tolerance
        if spec.judge is not None:
            metadata.update(checker="special", judge=spec.judge)
        if spec.alternatives:
            metadata["alternatives"] = list(spec.alternatives)
        metadata["input_generator"] = spec.generator + DRIVER
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


def validate(rows: list[dict], workers: int = 2) -> None:
    """Every reference, run in the sandbox on every visible and hidden case, prints exactly
    the expected output; on every generated case (made as the oracle makes them) it printed
    ``solve``'s; a special judge accepts every expected output and refuses ``WRONG``, and
    each alternative passes it everywhere. Any failure is a SystemExit naming each task."""
    from verifier_audit.domains.code.programs.cases import GenerationError, generated_cases
    from verifier_audit.domains.code.sandbox import Sandbox
    from verifier_audit.models import Task

    solvers = {f"programs/{spec.id}": spec.solve for spec in SPECS}
    problems = []
    with Sandbox(workers=workers) as box:
        for row in rows:
            cases = row["metadata"]["cases"]
            checked = [(which, n, case) for which in ("visible", "hidden") for n, case in enumerate(cases[which], 1)]
            for which, n, case in checked:
                r = box.run_program(row["reference"], case["input"], timeout=5.0, cpu_timeout=1.0)
                if r.exit_status != 0 or r.stdout != case["output"]:
                    problems.append(
                        f"{row['id']}: {which} case {n}: status {r.exit_status} ({r.error}), "
                        f"printed {r.stdout!r}, expected {case['output']!r} {r.stderr[-300:]}"
                    )
            try:
                made = generated_cases(Task.model_validate(row))
            except GenerationError as exc:
                problems.append(f"{row['id']}: {exc}")
                made = []
            for n, g in enumerate(made, 1):
                if g.output != solvers[row["id"]](g.input):
                    problems.append(
                        f"{row['id']}: generated case {n} (input {g.input[:80]!r}): the reference printed {g.output[:80]!r}"
                    )
                checked.append(("generated", n, {"input": g.input, "output": g.output}))
            for program in row["metadata"].get("alternatives", []):
                for which, n, case in checked:
                    r = box.run_program(program, case["input"], timeout=5.0, cpu_timeout=1.0)
                    if not (r.exit_status == 0 and _judged(box, row, case, r.stdout)):
                        problems.append(f"{row['id']}: an alternative fails {which} case {n}: printed {r.stdout!r}")
            if "judge" in row["metadata"]:
                for which, n, case in checked:
                    if not _judged(box, row, case, case["output"]):
                        problems.append(f"{row['id']}: the judge refuses the expected output of {which} case {n}")
                    if _judged(box, row, case, WRONG):
                        problems.append(f"{row['id']}: the judge accepts {WRONG!r} on {which} case {n}")
    if problems:
        raise SystemExit("invalid tasks:\n" + "\n".join(problems))


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
    families = Counter(spec.family for spec in SPECS)
    return (
        f"{len(SPECS)} tasks: "
        + ", ".join(f"{n} {split}" for split, n in sorted(counts.items()))
        + "; families: "
        + ", ".join(f"{name} {n}" for name, n in families.items())
    )


if __name__ == "__main__":
    sys.exit(
        write_or_check(__doc__.splitlines()[1], OUT, "python scripts/make_program_suite.py", render, summary=summary)
    )
