"""Write an ``Answer`` back as canonical LaTeX.

The generators mutate a parsed reference and need to show the result the way a person or
a model would write it; the suite script writes its references with the same function, so
there is one notion of "canonical" in the project. Canonical here means: what a standard
parser (Math-Verify, the project's own ``latex.parse_answer``) reads without tricks —
``\\frac{3}{4}``, ``2\\sqrt{3}``, ``\\{-2, 3\\}``, ``(1, 2]``, ``y = 2x + 1``,
``\\begin{pmatrix}1 & 2\\\\ 3 & 4\\end{pmatrix}``, ``\\text{Monday}``.
"""

from __future__ import annotations

import re

import sympy

from .answer import Answer, Kind

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# Exact rationals whose numerator or denominator has this many digits are written as a
# power (2^{-99}) rather than as a 30-digit fraction: that is how such answers are posed.
_POWER_FORM_DIGITS = 16


def to_latex(answer: Answer) -> str:
    """Canonical LaTeX for any kind of answer (never raises for the kinds in ``Kind``)."""
    kind = answer.kind
    if kind is Kind.NUMBER:
        return number_latex(answer.value, approximate=answer.approximate, percent=answer.percent)
    if kind is Kind.EXPR:
        return expr_latex(answer.value)
    if kind is Kind.SET:
        return r"\{" + ", ".join(to_latex(item) for item in answer.items) + r"\}"
    if kind is Kind.TUPLE:
        return "(" + ", ".join(to_latex(item) for item in answer.items) + ")"
    if kind is Kind.LIST:
        return ", ".join(to_latex(item) for item in answer.items)
    if kind is Kind.INTERVAL:
        return set_latex(answer.value)
    if kind is Kind.EQUATION:
        return expr_latex(answer.value.lhs) + " = " + expr_latex(answer.value.rhs)
    if kind is Kind.MATRIX:
        return matrix_latex(answer.value)
    if kind is Kind.TEXT:
        return r"\text{" + text_display(str(answer.value)) + "}"
    if kind is Kind.HEDGE:
        return r" \text{ or } ".join(to_latex(item) for item in answer.items)
    raise ValueError(f"unknown answer kind {kind!r}")


# ---------------------------------------------------------------------------- numbers


def decimal_string(value: sympy.Rational) -> str | None:
    """The exact decimal digits of a rational with a terminating expansion, else None."""
    value = sympy.Rational(value)
    p, q = int(value.p), int(value.q)
    twos = fives = 0
    while q % 2 == 0:
        q //= 2
        twos += 1
    while q % 5 == 0:
        q //= 5
        fives += 1
    if q != 1:
        return None
    places = max(twos, fives)
    scaled = abs(int(value * 10**places))
    digits = str(scaled).rjust(places + 1, "0")
    text = digits if places == 0 else digits[:-places] + "." + digits[-places:]
    return ("-" if p < 0 else "") + text


def _power_form(value: sympy.Rational) -> str | None:
    """``2^{-99}``, ``-10^{30}``, ``3 \\cdot 2^{-99}`` for exact numbers that are too long."""
    p, q = abs(int(value.p)), int(value.q)
    if max(len(str(p)), len(str(q))) < _POWER_FORM_DIGITS:
        return None
    sign = "-" if value < 0 else ""
    for base in (2, 10, 3, 5):
        if q == 1:  # a huge integer: 2^{100}
            k = _exact_log(p, base)
            if k is not None:
                return f"{sign}{base}^{{{k}}}"
        elif p < 10**6:  # a tiny number: 2^{-99}, 3 \cdot 2^{-99}
            k = _exact_log(q, base)
            if k is not None:
                power = f"{base}^{{{-k}}}"
                return sign + power if p == 1 else f"{sign}{p} \\cdot {power}"
    return None


def _exact_log(n: int, base: int) -> int | None:
    """k when n == base**k with k > 1, else None."""
    k = 0
    while n % base == 0 and n > 1:
        n //= base
        k += 1
    return k if n == 1 and k > 1 else None


def number_latex(value, *, approximate: bool = False, percent: bool = False) -> str:
    """A closed-form number: integer, fraction, decimal, radical, multiple of pi, ..."""
    value = sympy.sympify(value)
    if isinstance(value, sympy.Float):
        # A float came from a decimal literal; write back its shortest exact decimal.
        value = sympy.Rational(repr(float(value)))
        approximate = True
    text = None
    if isinstance(value, sympy.Rational):
        if approximate:
            text = decimal_string(value)
        if text is None:
            text = _power_form(value)
        if text is None:
            if value.q == 1:
                text = str(int(value.p))
            else:
                sign = "-" if value < 0 else ""
                text = f"{sign}\\frac{{{abs(int(value.p))}}}{{{int(value.q)}}}"
    if text is None and isinstance(value, sympy.Add):
        # Rational part first, as people write it: 1 - \sqrt{2}, -4 - \sqrt{3}, e - 1.
        constant, rest = value.as_coeff_Add()
        if constant < 0 and not rest.could_extract_minus_sign():
            return number_latex(rest) + " - " + number_latex(-constant) + (r"\%" if percent else "")
        if constant != 0:
            if rest.could_extract_minus_sign():
                return number_latex(constant) + " - " + number_latex(-rest) + (r"\%" if percent else "")
            return number_latex(constant) + " + " + number_latex(rest) + (r"\%" if percent else "")
    if text is None:
        text = _tidy(sympy.latex(value, order="rev-lex"))
    return text + (r"\%" if percent else "")


def expr_latex(value) -> str:
    """An expression in x, y, ...: polynomials by falling degree, products kept factored."""
    value = sympy.sympify(value)
    if isinstance(value, sympy.Mul) and any(isinstance(f.base if f.is_Pow else f, sympy.Add) for f in value.args):
        return _factored_latex(value)
    if not value.free_symbols:
        return number_latex(value)
    return _tidy(sympy.latex(value, order="lex"))


def _factored_latex(value: sympy.Mul) -> str:
    """``(x - 2)(x - 3)``, ``2(x + 1)^{2}``: sympy writes ``\\left(x - 3\\right) \\left(x - 2\\right)``."""
    coefficient, factors = value.as_coeff_mul()
    parts = []
    for factor in sorted(factors, key=_factor_order):
        base, exp = factor.as_base_exp()
        body = _tidy(sympy.latex(base))
        if isinstance(base, sympy.Add):
            body = f"({body})"
        parts.append(body if exp == 1 else f"{body}^{{{sympy.latex(exp)}}}")
    prefix = "" if coefficient == 1 else "-" if coefficient == -1 else number_latex(coefficient)
    return prefix + "".join(parts)


def _factor_order(factor) -> tuple:
    """Linear factors by their root, so ``(x - 2)(x - 3)``; anything else after, stably."""
    base = factor.as_base_exp()[0]
    symbols = sorted(base.free_symbols, key=str)
    if len(symbols) == 1 and base.is_polynomial(symbols[0]):
        poly = sympy.Poly(base, symbols[0])
        if poly.degree() == 1:
            a, b = poly.all_coeffs()
            root = -b / a
            if root.is_real:
                return (0, float(root), "")
    return (1, 0.0, sympy.default_sort_key(base))


def _tidy(text: str) -> str:
    """sympy's spacing to the way people write: ``-\\frac``, ``2\\sqrt{3}``, ``2x``."""
    text = re.sub(r"^- ", "-", text)
    text = re.sub(r"(\d) (?=\\sqrt|\\pi|e\b|[a-z]\b|[a-z]\^)", r"\1", text)
    text = re.sub(r"(?<![\\a-zA-Z])([a-z]) (?=[a-z](?![a-zA-Z]))", r"\1", text)  # x y -> xy
    return text


# ------------------------------------------------------------------- sets, matrices, text


def set_latex(value) -> str:
    """Intervals with their end types, unions with ``\\cup``, infinities as ``\\infty``."""
    if isinstance(value, sympy.Interval):
        left = "(" if value.left_open or value.start == -sympy.oo else "["
        right = ")" if value.right_open or value.end == sympy.oo else "]"
        return f"{left}{_endpoint(value.start)}, {_endpoint(value.end)}{right}"
    if isinstance(value, sympy.Union):
        return r" \cup ".join(set_latex(part) for part in value.args)
    if isinstance(value, sympy.FiniteSet):
        return r"\{" + ", ".join(number_latex(v) for v in sorted(value, key=sympy.default_sort_key)) + r"\}"
    if value == sympy.S.Reals:
        return r"(-\infty, \infty)"
    return _tidy(sympy.latex(value))


def _endpoint(value) -> str:
    if value == sympy.oo:
        return r"\infty"
    if value == -sympy.oo:
        return r"-\infty"
    return number_latex(value)


def matrix_latex(value) -> str:
    rows = [" & ".join(number_latex(value[i, j]) for j in range(value.cols)) for i in range(value.rows)]
    return r"\begin{pmatrix}" + r"\\ ".join(rows) + r"\end{pmatrix}"


def text_display(value: str) -> str:
    """The display form of a normalised text answer: ``Monday``, ``Yes``, ``B``."""
    value = value.strip()
    if len(value) == 1:
        return value.upper()
    return value[:1].upper() + value[1:]
