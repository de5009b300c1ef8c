#!/usr/bin/env python
"""Generate the built-in math suite: ``suites/math/tasks.jsonl``.

Every reference is computed with sympy (or plain integer arithmetic) from the numbers in the
question, so it is right by construction, and written as canonical LaTeX by
``verifier_audit.domains.math.render`` (the same writer the generators use). The output is
deterministic: a fixed seed, no clock, no hash(). Rerun after changing a family:

    python scripts/make_math_suite.py            # writes suites/math/tasks.jsonl
    python scripts/make_math_suite.py --check    # exit 1 if the file is out of date

Splits (``split`` of each task):

- ``train`` and ``heldout`` share answer types: integer, negative_integer, fraction,
  decimal, percent, radical, pi_e (multiples of pi, expressions in e), polynomial
  (expand), factored (factor), set (roots of a quadratic), tuple (intersection point).
  Each of those families puts 12 problems in train and 4 *different* problems in heldout.
- ``shifted`` holds answer types and formats that are ABSENT from train and heldout:
  interval (solve an inequality: open/closed ends, unions, infinities), matrix (product,
  inverse), equation (line through two points, ``y = mx + b``), scientific (``2^{-99}``,
  ``2^{100}``, ``1.2 \\times 10^{15}``) and text (weekday arithmetic, yes/no
  divisibility, multiple-choice letter). A verifier tuned on train sees these first here.

``metadata``: ``answer_type`` (the list above), ``family`` (the problem generator), and,
where the question names them, ``variable`` (the unknown, for ``x = 5`` style answers) and
``unit`` (for ``5 \\text{ cm}`` style answers).
"""

from __future__ import annotations

import random
import sys
from fractions import Fraction
from math import gcd
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _suite_file.py lives beside this script
import sympy
from _suite_file import jsonl, write_or_check  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier_audit.domains.math.answer import Answer, Kind  # noqa: E402
from verifier_audit.domains.math.render import WEEKDAYS, number_latex, to_latex  # noqa: E402

SEED = 20240601
OUT = ROOT / "suites" / "math" / "tasks.jsonl"
x, y = sympy.symbols("x y")

TRAIN_PER_FAMILY, HELDOUT_PER_FAMILY, SHIFTED_PER_FAMILY = 12, 4, 12


def num(value, **flags) -> str:
    return to_latex(
        Answer(Kind.NUMBER, sympy.nsimplify(value) if isinstance(value, float) else sympy.sympify(value), **flags)
    )


def dec(value: Fraction | str) -> str:
    """A terminating decimal, written exactly (7.05, not 7.050000001)."""
    return number_latex(sympy.Rational(str(value)), approximate=True)


# Each family: rng -> (prompt, reference LaTeX, extra metadata). Families must not return
# zero (a zero makes sign-flip near-misses equal to the reference) and should vary enough
# to produce distinct prompts.

# ------------------------------------------------------------------ integer answers


def arithmetic(rng):
    a, b, c = rng.randint(12, 99), rng.randint(12, 99), rng.randint(2, 400)
    return f"Compute ${a} \\times {b} + {c}$.", num(a * b + c), {}


def word_problem(rng):
    kind = rng.randrange(3)
    if kind == 0:
        rows, per, down = rng.randint(4, 25), rng.randint(6, 30), rng.randint(1, 40)
        prompt = (
            f"A farmer plants {rows} rows of apple trees with {per} trees in each row. "
            f"A storm knocks down {down} trees. How many trees are still standing?"
        )
        return prompt, num(rows * per - down), {"unit": "trees"}
    if kind == 1:
        trays, per, sold = rng.randint(3, 15), rng.randint(12, 36), rng.randint(5, 30)
        prompt = (
            f"A baker bakes {trays} trays of cookies with {per} cookies on each tray and "
            f"sells {sold} cookies in the morning. How many cookies are left?"
        )
        return prompt, num(trays * per - sold), {"unit": "cookies"}
    speed, hours, extra = rng.randint(35, 90), rng.randint(2, 9), rng.randint(5, 60)
    prompt = (
        f"A train travels at {speed} km per hour for {hours} hours, then another {extra} km. "
        f"How many kilometres does it travel in total?"
    )
    return prompt, num(speed * hours + extra), {"unit": "km"}


def remainder(rng):
    while True:
        base, exp, mod = rng.randint(2, 12), rng.randint(20, 200), rng.choice([7, 9, 11, 13, 17, 19, 23])
        r = pow(base, exp, mod)
        if r != 0:
            break
    return f"What is the remainder when ${base}^{{{exp}}}$ is divided by ${mod}$?", num(r), {}


def large_count(rng):
    # Answers in the thousands to millions: where thousands separators and relative
    # tolerances (1e-4 on 10^6 accepts 1000050) matter.
    n = rng.randint(1000, 9999)
    kind = rng.randrange(2)
    if kind == 0:
        return (f"What is the sum of the integers from $1$ to ${n}$?", num(n * (n + 1) // 2), {})
    a, b = rng.randint(101, 999), rng.randint(1001, 9999)
    return f"Compute ${a} \\times {b}$.", num(a * b), {}


# --------------------------------------------------------------- negative integers


def linear_equation(rng):
    while True:
        a, sol, b = rng.randint(2, 9), -rng.randint(1, 30), rng.randint(-40, 40)
        if b != 0:
            break
    c = a * sol + b
    sign = "+" if b > 0 else "-"
    return f"Solve for $x$: ${a}x {sign} {abs(b)} = {c}$.", num(sol), {"variable": "x"}


def temperature(rng):
    start, drop = rng.randint(-5, 12), rng.randint(15, 40)
    prompt = (
        f"At noon the temperature was ${start}^\\circ$C. By midnight it had dropped by "
        f"${drop}$ degrees. What was the temperature at midnight, in degrees Celsius?"
    )
    return prompt, num(start - drop), {}


# ------------------------------------------------------------------------ fractions


def fraction_sum(rng):
    while True:
        a, b, c, d = rng.randint(1, 9), rng.randint(2, 12), rng.randint(1, 9), rng.randint(2, 12)
        total = Fraction(a, b) + Fraction(c, d)
        if total.denominator > 1 and Fraction(a, b).denominator == b and Fraction(c, d).denominator == d:
            break
    op = rng.choice(["+", "-"])
    value = Fraction(a, b) + Fraction(c, d) if op == "+" else Fraction(a, b) - Fraction(c, d)
    if value.denominator == 1 or value == 0:
        return fraction_sum(rng)
    prompt = f"Compute $\\frac{{{a}}}{{{b}}} {op} \\frac{{{c}}}{{{d}}}$. Express your answer as a common fraction."
    return prompt, num(sympy.Rational(value.numerator, value.denominator)), {}


def probability(rng):
    red, blue, green = rng.randint(1, 9), rng.randint(1, 9), rng.randint(1, 9)
    total = red + blue + green
    colour, count = rng.choice([("red", red), ("blue", blue), ("green", green)])
    value = Fraction(count, total)
    if value.denominator == 1:
        return probability(rng)
    prompt = (
        f"A bag holds {red} red, {blue} blue and {green} green marbles. One marble is drawn "
        f"at random. What is the probability that it is {colour}? Express your answer as a common fraction."
    )
    return prompt, num(sympy.Rational(count, total)), {}


# -------------------------------------------------------------------------- decimals


def decimal_cost(rng):
    cents, qty = rng.randint(105, 995), rng.randint(2, 9)
    total = Fraction(cents * qty, 100)
    prompt = f"A notebook costs \\${cents / 100:.2f}. How many dollars do {qty} notebooks cost?"
    return prompt, dec(total), {"unit": "dollars"}


def fraction_to_decimal(rng):
    while True:
        den = rng.choice([4, 8, 16, 20, 25, 40, 50, 80])
        numer = rng.randint(1, 3 * den)
        if gcd(numer, den) == 1 and numer % den:
            break
    prompt = f"Write $\\frac{{{numer}}}{{{den}}}$ as a decimal."
    return prompt, dec(Fraction(numer, den)), {}


# --------------------------------------------------------------------------- percent


def percent_of(rng):
    while True:
        whole = rng.choice([20, 40, 50, 80, 120, 160, 200, 250, 400])
        part = rng.randint(whole // 10, whole * 2)
        pct = Fraction(part * 100, whole)
        if pct.denominator in (1, 2, 4) and pct != 100:
            break
    if rng.random() < 0.5:
        prompt = f"What percent of ${whole}$ is ${part}$?"
    else:
        prompt = (
            f"A shop sold {part} items this week and {whole} items last week. "
            f"This week's sales are what percent of last week's?"
        )
    return prompt, dec(pct) + r"\%", {}


# -------------------------------------------------------------------------- radicals


def radical(rng):
    kind = rng.randrange(3)
    if kind == 0:
        k, free = rng.randint(2, 9), rng.choice([2, 3, 5, 6, 7, 10, 11])
        n = k * k * free
        return f"Simplify $\\sqrt{{{n}}}$.", num(sympy.sqrt(n)), {}
    if kind == 1:
        a, b = rng.randint(1, 12), rng.randint(1, 12)
        c = sympy.sqrt(a * a + b * b)
        if c.is_Integer:
            return radical(rng)
        prompt = f"A right triangle has legs of length ${a}$ and ${b}$. What is the length of its hypotenuse? Give the exact value."
        return prompt, num(c), {}
    a, b = rng.randint(1, 9), rng.choice([2, 3, 5, 6, 7])
    value = sympy.Integer(a) / sympy.sqrt(b)
    return f"Rationalize the denominator: $\\frac{{{a}}}{{\\sqrt{{{b}}}}}$.", num(value), {}


# --------------------------------------------------------------- pi and e expressions


def circle(rng):
    r = rng.randint(2, 15)
    kind = rng.randrange(3)
    if kind == 0:
        return (
            f"What is the area of a circle of radius ${r}$ cm? Express your answer in terms of $\\pi$.",
            num(r * r * sympy.pi),
            {"unit": "cm^2"},
        )
    if kind == 1:
        return (
            f"What is the circumference of a circle of radius ${r}$? Express your answer in terms of $\\pi$.",
            num(2 * r * sympy.pi),
            {},
        )
    return (
        f"What is the volume of a sphere of radius ${r}$? Express your answer in terms of $\\pi$.",
        num(sympy.Rational(4, 3) * r**3 * sympy.pi),
        {},
    )


def exponential(rng):
    a = rng.randint(1, 6)
    kind = rng.randrange(2)
    if kind == 0:
        value = sympy.integrate(sympy.exp(x), (x, 0, a))
        return f"Evaluate $\\int_0^{{{a}}} e^x \\, dx$.", num(value), {}
    c = rng.randint(2, 9)
    value = sympy.integrate(c * sympy.exp(x), (x, 0, a)) + c
    return f"Evaluate ${c} + \\int_0^{{{a}}} {c}e^x \\, dx$.", num(value), {}


# ------------------------------------------------------------------------ expressions


def expand(rng):
    while True:
        a, b, c, d = rng.randint(1, 4), rng.randint(-9, 9), rng.randint(1, 3), rng.randint(-9, 9)
        if b and d:
            break
    left, right = a * x + b, c * x + d
    prompt = f"Expand $({to_latex(Answer(Kind.EXPR, left))})({to_latex(Answer(Kind.EXPR, right))})$."
    return prompt, to_latex(Answer(Kind.EXPR, sympy.expand(left * right))), {"variable": "x"}


def factor(rng):
    while True:
        r1, r2 = rng.randint(-9, 9), rng.randint(-9, 9)
        if r1 and r2 and r1 != r2:
            break
    poly = sympy.expand((x - r1) * (x - r2))
    prompt = f"Factor $${to_latex(Answer(Kind.EXPR, poly))}$$ completely."
    return prompt.replace("$$", "$"), to_latex(Answer(Kind.EXPR, sympy.factor(poly))), {"variable": "x"}


# ------------------------------------------------------------------ sets and tuples


def quadratic_roots(rng):
    if rng.random() < 0.7:
        while True:
            r1, r2 = rng.randint(-9, 9), rng.randint(-9, 9)
            if r1 != r2 and r1 and r2 and r1 != -r2:
                break
        poly = sympy.expand((x - r1) * (x - r2))
    else:
        h, k = rng.randint(-5, 5), rng.choice([2, 3, 5, 6, 7])
        poly = sympy.expand((x - h) ** 2 - k)
    roots = sorted(sympy.solve(poly, x), key=lambda r: float(r))
    items = tuple(Answer(Kind.NUMBER, r) for r in roots)
    prompt = f"Find all real solutions of ${to_latex(Answer(Kind.EXPR, poly))} = 0$. Give your answer as a set."
    return prompt, to_latex(Answer(Kind.SET, items=items)), {"variable": "x"}


def line_intersection(rng):
    while True:
        m1, m2 = rng.randint(-4, 4), rng.randint(-4, 4)
        px, py = rng.randint(-6, 6), rng.randint(-6, 6)
        if m1 != m2 and (px, py) != (0, 0) and px != py:
            break
    b1, b2 = py - m1 * px, py - m2 * px
    l1, l2 = to_latex(Answer(Kind.EXPR, m1 * x + b1)), to_latex(Answer(Kind.EXPR, m2 * x + b2))
    solution = sympy.solve([sympy.Eq(y, m1 * x + b1), sympy.Eq(y, m2 * x + b2)], [x, y])
    point = (solution[x], solution[y])
    prompt = f"At what point do the lines $y = {l1}$ and $y = {l2}$ intersect? Give your answer as an ordered pair."
    return prompt, to_latex(Answer(Kind.TUPLE, items=tuple(Answer(Kind.NUMBER, v) for v in point))), {}


# ------------------------------------------------------------ shifted: intervals


def inequality(rng):
    kind = rng.randrange(5)
    if kind == 0:  # a x + b > c  (or <, >=, <=)
        a, b, c = rng.choice([-3, -2, 2, 3, 4, 5]), rng.randint(-9, 9), rng.randint(-9, 9)
        op = rng.choice([">", "<", r"\ge", r"\le"])
        rel = {">": sympy.Gt, "<": sympy.Lt, r"\ge": sympy.Ge, r"\le": sympy.Le}[op]
        solution = sympy.solve_univariate_inequality(rel(a * x + b, c), x, relational=False)
        lhs = to_latex(Answer(Kind.EXPR, a * x + b))
        prompt = f"Solve the inequality ${lhs} {op} {c}$. Give your answer in interval notation."
    elif kind in (1, 2):  # lo < a x + b <= hi: half-open, where bracket types matter
        a, b = rng.randint(1, 4), rng.randint(-5, 5)
        lo, hi = sorted(rng.sample(range(-12, 13), 2))
        left, right = rng.choice([("<", r"\le"), (r"\le", "<")])
        rel = {"<": sympy.Lt, r"\le": sympy.Le}
        solution = sympy.Intersection(
            sympy.solve_univariate_inequality(rel[left](lo, a * x + b), x, relational=False),
            sympy.solve_univariate_inequality(rel[right](a * x + b, hi), x, relational=False),
        )
        mid = to_latex(Answer(Kind.EXPR, a * x + b))
        prompt = f"Solve ${lo} {left} {mid} {right} {hi}$. Give your answer in interval notation."
    else:  # (x - r1)(x - r2) <= 0 or > 0
        r1, r2 = sorted(rng.sample(range(-8, 9), 2))
        poly = sympy.expand((x - r1) * (x - r2))
        op = rng.choice([r"\le", "<"]) if kind == 3 else rng.choice([">", r"\ge"])
        rel = {">": sympy.Gt, "<": sympy.Lt, r"\ge": sympy.Ge, r"\le": sympy.Le}[op]
        solution = sympy.solve_univariate_inequality(rel(poly, 0), x, relational=False)
        prompt = (
            f"Solve the inequality ${to_latex(Answer(Kind.EXPR, poly))} {op} 0$. Give your answer in interval notation."
        )
    return prompt, to_latex(Answer(Kind.INTERVAL, solution)), {"variable": "x"}


# -------------------------------------------------------------- shifted: matrices


def matrix(rng):
    def rand2():
        return sympy.ImmutableMatrix(2, 2, [rng.randint(-5, 6) for _ in range(4)])

    if rng.random() < 0.6:
        a, b = rand2(), rand2()
        product = a * b
        if product.is_zero_matrix:
            return matrix(rng)
        prompt = f"Compute the product ${to_latex(Answer(Kind.MATRIX, a))}{to_latex(Answer(Kind.MATRIX, b))}$."
        return prompt, to_latex(Answer(Kind.MATRIX, product)), {}
    a = rand2()
    if a.det() == 0:
        return matrix(rng)
    prompt = f"Find the inverse of the matrix ${to_latex(Answer(Kind.MATRIX, a))}$."
    return prompt, to_latex(Answer(Kind.MATRIX, a.inv())), {}


# ------------------------------------------------------------- shifted: equations


def line_equation(rng):
    while True:
        x1, x2 = rng.sample(range(-6, 7), 2)
        m = sympy.Rational(rng.randint(-6, 6), rng.choice([1, 1, 1, 2, 3]))
        b = rng.randint(-9, 9)
        if m != 0 and b != 0:
            break
    p1, p2 = (x1, m * x1 + b), (x2, m * x2 + b)
    first, second = (f"({num(px)}, {num(py)})" for px, py in (p1, p2))
    prompt = (
        f"Find the equation of the line through the points ${first}$ and ${second}$. Write it in slope-intercept form."
    )
    return prompt, to_latex(Answer(Kind.EQUATION, sympy.Eq(y, m * x + b, evaluate=False))), {}


# ------------------------------------------------------- shifted: scientific notation


def scientific(rng):
    kind = rng.randrange(4)
    if kind == 0:  # tiny: probabilities of long runs
        n = rng.randint(60, 120)
        prompt = f"A fair coin is flipped ${n}$ times. What is the probability that every flip is heads? Write it as a power of 2."
        return prompt, f"2^{{{-n}}}", {}
    if kind == 1:  # huge: subsets
        n = rng.randint(60, 160)
        return f"How many subsets does a set with ${n}$ elements have? Write it as a power of 2.", f"2^{{{n}}}", {}
    # products / quotients in a \times 10^k form
    a, b = rng.choice([v for v in range(11, 100) if v % 10]), rng.choice([v for v in range(11, 100) if v % 10])
    p, q = rng.randint(3, 15), rng.randint(3, 15)
    if kind == 2:
        value = Fraction(a, 10) * 10**p * Fraction(b, 10) * 10**q
        prompt = (
            f"Compute $({a / 10} \\times 10^{{{p}}}) \\times ({b / 10} \\times 10^{{{q}}})$. "
            f"Give your answer in scientific notation."
        )
    else:
        value = Fraction(a, 10) * Fraction(10) ** (-p) / (Fraction(b, 10) * 10**q)
        if (value * 10**40).denominator != 1:  # not a terminating decimal: draw again
            return scientific(rng)
        prompt = (
            f"Compute $\\frac{{{a / 10} \\times 10^{{-{p}}}}}{{{b / 10} \\times 10^{{{q}}}}}$. "
            f"Give your answer in scientific notation."
        )
    return prompt, sci(value), {}


def sci(value: Fraction) -> str:
    """``1.2 \\times 10^{15}``: mantissa in [1, 10), exact."""
    exponent = 0
    mantissa = Fraction(value)
    while abs(mantissa) >= 10:
        mantissa /= 10
        exponent += 1
    while abs(mantissa) < 1:
        mantissa *= 10
        exponent -= 1
    return f"{dec(mantissa)} \\times 10^{{{exponent}}}"


# --------------------------------------------------------------- shifted: text answers


def weekday(rng):
    start, days = rng.randrange(7), rng.randint(10, 1000)
    prompt = f"Today is {WEEKDAYS[start].capitalize()}. What day of the week will it be {days} days from today?"
    return prompt, to_latex(Answer(Kind.TEXT, WEEKDAYS[(start + days) % 7])), {}


def divisibility(rng):
    d = rng.choice([3, 7, 9, 11, 13])
    n = rng.randint(100, 9999)
    if rng.random() < 0.5:
        n -= n % d
    answer = "yes" if n % d == 0 else "no"
    prompt = f"Is ${n}$ divisible by ${d}$? Answer Yes or No."
    return prompt, to_latex(Answer(Kind.TEXT, answer)), {}


def multiple_choice(rng):
    a, b = rng.randint(3, 15), rng.randint(3, 15)
    right = a * b
    wrong = rng.sample([v for v in range(right - 6, right + 7) if v not in (right, 0)], 3)
    options = wrong + [right]
    rng.shuffle(options)
    letters = "ABCD"
    listed = " ".join(f"({letters[i]}) ${v}$" for i, v in enumerate(options))
    prompt = f"Which of the following equals ${a} \\times {b}$? {listed}. Answer with the letter of the correct option."
    return prompt, to_latex(Answer(Kind.TEXT, letters[options.index(right)].lower())), {}


# (family, answer_type, generator, shifted?)
FAMILIES = [
    ("arithmetic", "integer", arithmetic, False),
    ("word_problem", "integer", word_problem, False),
    ("remainder", "integer", remainder, False),
    ("large_count", "integer", large_count, False),
    ("linear_equation", "negative_integer", linear_equation, False),
    ("temperature", "negative_integer", temperature, False),
    ("fraction_sum", "fraction", fraction_sum, False),
    ("probability", "fraction", probability, False),
    ("decimal_cost", "decimal", decimal_cost, False),
    ("fraction_to_decimal", "decimal", fraction_to_decimal, False),
    ("percent_of", "percent", percent_of, False),
    ("radical", "radical", radical, False),
    ("circle", "pi_e", circle, False),
    ("exponential", "pi_e", exponential, False),
    ("expand", "polynomial", expand, False),
    ("factor", "factored", factor, False),
    ("quadratic_roots", "set", quadratic_roots, False),
    ("line_intersection", "tuple", line_intersection, False),
    ("inequality", "interval", inequality, True),
    ("matrix", "matrix", matrix, True),
    ("line_equation", "equation", line_equation, True),
    ("scientific", "scientific", scientific, True),
    ("weekday", "text", weekday, True),
    ("divisibility", "text", divisibility, True),
    ("multiple_choice", "text", multiple_choice, True),
]


def build(seed: int = SEED) -> list[dict]:
    rng = random.Random(seed)
    rows, prompts = [], set()
    for family, answer_type, make, shifted in FAMILIES:
        splits = (
            ["shifted"] * SHIFTED_PER_FAMILY
            if shifted
            else ["train"] * TRAIN_PER_FAMILY + ["heldout"] * HELDOUT_PER_FAMILY
        )
        for split in splits:
            for _attempt in range(1000):  # draw until the problem is new
                prompt, reference, extra = make(rng)
                if prompt not in prompts:
                    break
            else:
                raise RuntimeError(f"family {family}: cannot draw a new problem")
            prompts.add(prompt)
            rows.append(
                {
                    "id": f"math-{len(rows) + 1:04d}",
                    "domain": "math",
                    "prompt": prompt,
                    "reference": reference,
                    "split": split,
                    "metadata": {"answer_type": answer_type, "family": family, **extra},
                }
            )
    return rows


def main(argv=None) -> int:
    return write_or_check(__doc__.splitlines()[0], OUT, "scripts/make_math_suite.py", lambda: jsonl(build()), argv)


if __name__ == "__main__":
    sys.exit(main())
