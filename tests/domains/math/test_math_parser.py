"""The LaTeX / plain-text answer parser: what each form reads as, what it refuses, and that
hostile input only ever raises ParseError, quickly."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scaling import LINEAR, growth, relative_cost
from sympy import Eq, I, Interval, Rational, Symbol, oo, pi, sqrt

from verifier_audit.domains.math.answer import Kind, ParseError
from verifier_audit.domains.math.latex import MAX_LEN, _parse_cached, parse_answer

x, y = Symbol("x"), Symbol("y")

# (text, kind, value) for scalars, intervals, equations, matrices, text
VALUES = [
    ("42", Kind.NUMBER, 42),
    ("-7", Kind.NUMBER, -7),
    ("−7", Kind.NUMBER, -7),  # Unicode minus
    ("0.5", Kind.NUMBER, Rational(1, 2)),
    (".25", Kind.NUMBER, Rational(1, 4)),
    ("12,345", Kind.NUMBER, 12345),
    ("12{,}345", Kind.NUMBER, 12345),
    (r"12\,345", Kind.NUMBER, 12345),
    ("1,000,000", Kind.NUMBER, 10**6),
    (r"1.5\times10^{6}", Kind.NUMBER, 1_500_000),
    ("1.5e6", Kind.NUMBER, 1_500_000),
    ("1e-3", Kind.NUMBER, Rational(1, 1000)),
    ("10^6", Kind.NUMBER, 10**6),
    ("2^100", Kind.NUMBER, 2**100),  # plain-text exponent takes the whole number
    ("2^{100}", Kind.NUMBER, 2**100),
    ("2¹⁰⁰", Kind.NUMBER, 2**100),
    (r"\frac{3}{4}", Kind.NUMBER, Rational(3, 4)),
    (r"\dfrac{3}{4}", Kind.NUMBER, Rational(3, 4)),
    (r"\tfrac{3}{4}", Kind.NUMBER, Rational(3, 4)),
    (r"\frac12", Kind.NUMBER, Rational(1, 2)),
    (r"\frac1{2}", Kind.NUMBER, Rational(1, 2)),
    ("½", Kind.NUMBER, Rational(1, 2)),
    ("3/4", Kind.NUMBER, Rational(3, 4)),
    (r"2\frac{1}{2}", Kind.NUMBER, Rational(5, 2)),  # mixed number
    (r"\sqrt{2}", Kind.NUMBER, sqrt(2)),
    (r"\sqrt2", Kind.NUMBER, sqrt(2)),
    ("√2", Kind.NUMBER, sqrt(2)),
    (r"\sqrt[3]{27}", Kind.NUMBER, 3),
    (r"\sqrt[3]{-8}", Kind.NUMBER, -2),
    (r"4\sqrt(2)", Kind.NUMBER, 4 * sqrt(2)),
    (r"2\pi", Kind.NUMBER, 2 * pi),
    ("π", Kind.NUMBER, pi),
    (r"\mathrm{e}", Kind.NUMBER, sympy.E),
    ("e^{2}", Kind.NUMBER, sympy.E**2),
    (r"\exp(2)", Kind.NUMBER, sympy.exp(2)),
    (r"\ln 5", Kind.NUMBER, sympy.log(5)),
    (r"\log_2 8", Kind.NUMBER, 3),
    (r"\sin(\pi/6)", Kind.NUMBER, Rational(1, 2)),
    (r"\cos \pi", Kind.NUMBER, -1),
    (r"\tan\frac{\pi}{4}", Kind.NUMBER, 1),
    ("3+4i", Kind.NUMBER, 3 + 4 * I),
    (r"2 \cdot 3", Kind.NUMBER, 6),
    (r"2 \times 3", Kind.NUMBER, 6),
    ("2*3", Kind.NUMBER, 6),
    (r"6 \div 4", Kind.NUMBER, Rational(3, 2)),
    (r"\left( \frac{1}{2} \right)^{2}", Kind.NUMBER, Rational(1, 4)),
    (r"\Big( 2 \Big)", Kind.NUMBER, 2),
    ("-2^2", Kind.NUMBER, -4),
    ("2^3^2", Kind.NUMBER, 2**9),
    ("5!", Kind.NUMBER, 120),
    (r"\binom{5}{2}", Kind.NUMBER, 10),
    (r"|-3|", Kind.NUMBER, 3),
    (r"\lfloor 3.7 \rfloor", Kind.NUMBER, 3),
    (r"\infty", Kind.NUMBER, oo),
    (r"-\infty", Kind.NUMBER, -oo),
    (r"30^\circ", Kind.NUMBER, 30),
    (r"30^{\circ}", Kind.NUMBER, 30),
    ("30°", Kind.NUMBER, 30),
    (r"5 \text{ cm}", Kind.NUMBER, 5),
    (r"5\,\mathrm{cm}^2", Kind.NUMBER, 5),
    ("5 cm", Kind.NUMBER, 5),
    ("12 eggs", Kind.NUMBER, 12),
    (r"\$1,000", Kind.NUMBER, 1000),
    (r"$\frac{1}{2}$", Kind.NUMBER, Rational(1, 2)),
    (r"\boxed{\frac{1}{2}}", Kind.NUMBER, Rational(1, 2)),
    (r"\boxed{\boxed{7}}", Kind.NUMBER, 7),
    ("7.", Kind.NUMBER, 7),
    ("2x", Kind.EXPR, 2 * x),
    ("xy", Kind.EXPR, x * y),
    ("x(x+1)", Kind.EXPR, x * (x + 1)),
    ("(x+1)(x-1)", Kind.EXPR, (x + 1) * (x - 1)),
    ("x^2+2x+1", Kind.EXPR, x**2 + 2 * x + 1),
    (r"\frac{x}{2}", Kind.EXPR, x / 2),
    (r"\sin^2 x", Kind.EXPR, sympy.sin(x) ** 2),
    (r"\sin^{-1} x", Kind.EXPR, sympy.asin(x)),
    (r"\sin 2x", Kind.EXPR, sympy.sin(2 * x)),
    (r"\sin x \cos x", Kind.EXPR, sympy.sin(x) * sympy.cos(x)),
    (r"\ln|x|", Kind.EXPR, sympy.log(sympy.Abs(x))),
    ("x_1 + x_{2}", Kind.EXPR, Symbol("x_1") + Symbol("x_2")),
    (r"\theta", Kind.EXPR, Symbol("theta")),
    (r"\pi r^2", Kind.EXPR, pi * Symbol("r") ** 2),
    ("(1,2]", Kind.INTERVAL, Interval.Lopen(1, 2)),
    ("[1,2)", Kind.INTERVAL, Interval.Ropen(1, 2)),
    ("[1,2]", Kind.INTERVAL, Interval(1, 2)),
    (r"\left[ 1, 2 \right)", Kind.INTERVAL, Interval.Ropen(1, 2)),
    (r"(-\infty,3)", Kind.INTERVAL, Interval.open(-oo, 3)),
    (r"(-\infty, 1) \cup (2, \infty)", Kind.INTERVAL, sympy.Union(Interval.open(-oo, 1), Interval.open(2, oo))),
    (r"1<x\le2", Kind.INTERVAL, Interval.Lopen(1, 2)),
    (r"x\geq3", Kind.INTERVAL, Interval(3, oo)),
    (r"x \ge 3", Kind.INTERVAL, Interval(3, oo)),
    (r"3 \lt x", Kind.INTERVAL, Interval.open(3, oo)),
    (r"x \leq -1", Kind.INTERVAL, Interval(-oo, -1)),
    ("x ≤ 2", Kind.INTERVAL, Interval(-oo, 2)),
    (r"x \ne 0", Kind.INTERVAL, sympy.Union(Interval.open(-oo, 0), Interval.open(0, oo))),
    ("2x+1>3", Kind.INTERVAL, Interval.open(1, oo)),
    (r"x \in [0, 1]", Kind.INTERVAL, Interval(0, 1)),
    (r"x < 1 \text{ or } x > 2", Kind.INTERVAL, sympy.Union(Interval.open(-oo, 1), Interval.open(2, oo))),
    ("y=2x+1", Kind.EQUATION, Eq(y, 2 * x + 1, evaluate=False)),
    ("x = 5", Kind.EQUATION, Eq(x, 5, evaluate=False)),
    (r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", Kind.MATRIX, sympy.ImmutableMatrix([[1, 2], [3, 4]])),
    (r"\begin{bmatrix}1\\2\end{bmatrix}", Kind.MATRIX, sympy.ImmutableMatrix([[1], [2]])),
    (r"\left(\begin{array}{cc}1&0\\0&1\end{array}\right)", Kind.MATRIX, sympy.eye(2)),
    ("Monday", Kind.TEXT, "monday"),
    (r"\text{Monday}", Kind.TEXT, "monday"),
    ("YES", Kind.TEXT, "yes"),
    (r"\text{No}", Kind.TEXT, "no"),
    ("(A)", Kind.TEXT, "a"),
    ("A", Kind.TEXT, "a"),
    (r"\text{(B)}", Kind.TEXT, "b"),
    (r"\textbf{(C)}", Kind.TEXT, "c"),
    ("(D) 12", Kind.TEXT, "d"),
]


@pytest.mark.parametrize("text,kind,value", VALUES)
def test_value(text, kind, value):
    a = parse_answer(text)
    assert a.kind == kind, a
    if kind in (Kind.NUMBER, Kind.EXPR):
        assert a.value == value or sympy.simplify(a.value - value) == 0, a.value
    else:
        assert a.value == value, a.value
    assert a.source == text


# (text, kind, item values)
COLLECTIONS = [
    ("(1,2)", Kind.TUPLE, [1, 2]),  # not 12 thousand: the group has 1 digit
    ("(1, 2, 3)", Kind.TUPLE, [1, 2, 3]),
    (r"\langle 1, 2 \rangle", Kind.TUPLE, [1, 2]),
    ("2, 3", Kind.LIST, [2, 3]),
    ("2 and 3", Kind.LIST, [2, 3]),
    ("1,234,56", Kind.LIST, [1, 234, 56]),  # one group is not 3 digits: no separators
    (r"\{1,2\}", Kind.SET, [1, 2]),
    (r"\lbrace 3, 2 \rbrace", Kind.SET, [3, 2]),
    (r"\left\{ 1, 2 \right\}", Kind.SET, [1, 2]),
    (r"\emptyset", Kind.SET, []),
    (r"\pm 2021", Kind.SET, [2021, -2021]),
    (r"1 \pm \sqrt{2}", Kind.SET, [1 + sqrt(2), 1 - sqrt(2)]),
    (r"2 \text{ or } 3", Kind.HEDGE, [2, 3]),
    (r"2\text{ (or maybe 3)}", Kind.HEDGE, [2, 3]),
    (r"0 \lor -7", Kind.HEDGE, [0, -7]),
    (r"0 \vee -7", Kind.HEDGE, [0, -7]),
    ("2 or 3", Kind.HEDGE, [2, 3]),
    (r"x = 2 \text{ or } x = 3", Kind.HEDGE, [Eq(x, 2, evaluate=False), Eq(x, 3, evaluate=False)]),
]


@pytest.mark.parametrize("text,kind,items", COLLECTIONS)
def test_collection(text, kind, items):
    a = parse_answer(text)
    assert a.kind == kind, a
    assert [i.value for i in a.items] == items


def test_decimal_is_exact_and_marked_approximate():
    a = parse_answer("3.14")
    assert a.value == Rational(314, 100) and a.approximate
    assert not parse_answer(r"\frac{157}{50}").approximate


def test_percent_keeps_the_number_as_written():
    for text in (r"10\%", "10%", "10 percent"):
        a = parse_answer(text)
        assert a.percent and a.value == 10


def test_function_notation_is_not_a_product():
    a = parse_answer("f(x) = 2x + 1")
    assert a.kind == Kind.EQUATION and a.value.rhs == 2 * x + 1


# Malformed or unsupported: ParseError, never a guess
REFUSED = [
    "",
    "   ",
    "$$",
    r"\boxed{}",
    r"\text{}",
    "()",
    "[]",
    "{}",
    ",",
    "x=",
    "=",
    "x==5",
    r"\frac{1}{0}",
    "1/0",
    r"0^{-1}",
    r"\ln 0",
    r"\tan(\pi/2)",
    r"\frac{1}{",
    r"\sqrt{}",
    r"\frac{}{}",
    "(1,2",
    "1,2]",
    r"\left(",
    "x is 5",
    "print('X')",
    "__import__('os')",
    "(lambda: 1)()",
    "2 3",
    r"\angle 45",
    r"\begin{cases}1\end{cases}",
    r"\begin{vmatrix}1\end{vmatrix}",
    r"0.\overline{3}",
    "3:4",
    r"\\",
    "\\",
    "'5'",
    r"x + y < 1",
    "5\x00",
    "5\ud800",
    "\x07",
    r"\frac{1}{2} \cup 3",
    r"(2, 1]",
    r"\begin{pmatrix}1&2\\3\end{pmatrix}",
]


@pytest.mark.parametrize("text", REFUSED)
def test_refused(text):
    with pytest.raises(ParseError):
        parse_answer(text)


def test_non_string_is_a_parse_error():
    with pytest.raises(ParseError):
        parse_answer(None)  # type: ignore[arg-type]


def _parse(text: str) -> None:
    """parse_answer without its memo (a repeated run must do the work again)."""
    try:
        _parse_cached.__wrapped__(text)
    except ParseError:
        pass


# A typical answer, parsed in the same test as the hostile one: hostile input may cost at
# most this many typical parses (an exponential blow-up costs far more; seen: under 250).
TYPICAL = r"\frac{\sqrt{2}}{2} + 3x^{2} - \sin(\pi/4)"
AT_MOST_TYPICAL = 2000


HUGE = [
    r"5^{5^{5^{5^5}}}",
    r"2^{10^{10}}",
    r"9^{9^{9^9}}",
    r"10^{10^{100}}",
    "9" * 4001,
    "9" * 3000 + "^{9}",
    "(3000!)!",
    "(3000!)^{2}",
    r"e^{10^{4000}}",
    r"\pi^{10^{6}}",
    r"\frac{1}{2^{39000}}",
    r"2^{39000}\cdot 2^{39000}",
    r"\sqrt{" + "7" * 3000 + "}",
    r"\sqrt{" + "7" * 150 + r"}\sqrt{" + "7" * 140 + "}",
    "1e100000",
    r"(x+1)^{10^{10}} > 0",
]


@pytest.mark.parametrize("text", HUGE)
def test_huge_numbers_are_refused_quickly(text):
    with pytest.raises(ParseError):
        parse_answer(text)
    assert relative_cost(_parse, text, TYPICAL) < AT_MOST_TYPICAL


def test_big_but_reasonable_numbers_are_exact():
    assert parse_answer("2^{10000}").value == 2**10000
    assert parse_answer(r"\sqrt{10^{1000}}").value == 10**500
    assert parse_answer("3000!").value == sympy.factorial(3000)


# (build, n): deep or long inputs; the parser's limits keep its work no worse than linear
# in the input (most are cut short by a depth or length limit).
DEEP_OR_LONG = [
    (lambda n: r"\boxed{" * n + "1" + "}" * n, 3000),
    (lambda n: "(" * n + "1" + ")" * n, 5000),
    (lambda n: "(" * n + "1" + ")" * n, 41),
    (lambda n: "2^" * n + "2", 3000),
    (lambda n: r"\sqrt{" * n + "2" + "}" * n, 45),
    (lambda n: "-" * n + "5", 9000),
    (lambda n: "1" * n, MAX_LEN + 1),
    (lambda n: "+".join(["1"] * n), 4000),
    (lambda n: ",".join(["1"] * n), 4000),
    (lambda n: "x" * n, 9000),
    (lambda n: "1" + " " * n + "x", 9990),
    (lambda n: "1" + "." * n + "x", 9990),
    (lambda n: "1" + "," * n, 9990),
    (lambda n: "1" + "{,}" * n, 3000),
]


@pytest.mark.parametrize("build,n", DEEP_OR_LONG, ids=range(len(DEEP_OR_LONG)))
def test_deep_or_long_input_is_bounded(build, n):
    assert growth(_parse, build, n) < LINEAR


def test_moderate_nesting_still_parses():
    assert parse_answer("(" * 30 + "1" + ")" * 30).value == 1


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.text(max_size=200))
def test_arbitrary_text_raises_only_parse_error(text):
    try:
        parse_answer(text)
    except ParseError as exc:
        assert not str(exc).startswith("internal"), exc


_SNIPPETS = [
    "1",
    "2",
    "0",
    "12",
    "3.5",
    "x",
    "y",
    "e",
    "i",
    r"\pi",
    r"\infty",
    "+",
    "-",
    "*",
    "/",
    "^",
    "_",
    "=",
    "<",
    r"\le",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    r"\{",
    r"\}",
    "|",
    "!",
    r"\%",
    r"\frac",
    r"\sqrt",
    r"\sin",
    r"\ln",
    r"\log",
    r"\cdot",
    r"\pm",
    r"\cup",
    r"\text{ or }",
    r"\text{cm}",
    r"^\circ",
    r"\left(",
    r"\right)",
    r"\begin{pmatrix}",
    r"\end{pmatrix}",
    "&",
    r"\\",
    r"\boxed{",
    " ",
    "0.",
    "10^",
    r"\lor",
    "and",
    r"\in",
]


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_SNIPPETS), max_size=25))
def test_latexish_soup_raises_only_parse_error(parts):
    text = "".join(parts)
    try:
        parse_answer(text)
    except ParseError as exc:
        assert not str(exc).startswith("internal"), (text, exc)
    assert relative_cost(_parse, text, TYPICAL) < AT_MOST_TYPICAL, text
