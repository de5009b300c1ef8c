"""Equivalents: CORRECT answers written differently from the reference.

A verifier that rejects these starves training (false rejection): ``1/2`` vs ``0.5``,
``\\frac{6}{8}``, ``10\\%`` vs ``0.1``, ``\\frac{1}{\\sqrt{2}}``, ``x^2+2x+1`` vs
``(x+1)^2``, ``\\{3, 2\\}``, ``1 < x \\le 2``, ``2^{100}`` as digits, ``12,345``,
``**73**`` without a box, ``monday`` (Huang et al. 2025, "Pitfalls of Rule- and
Model-based Verifiers", arXiv:2505.22203: rule-based graders reject such rewrites).

Each rewrite is derived from the parsed reference with exact arithmetic, so it denotes the
same value; the engine still confirms it with the oracle and drops any it disagrees with.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

import sympy
from sympy import Rational

from ....models import Candidate, Severity, Task
from ...kit import make_candidates, sample_kinds
from ..answer import Answer, Kind
from ..render import WEEKDAYS, decimal_string, expr_latex, number_latex, set_latex, text_display
from ._common import boxed_completion, parse_reference
from .near_miss import as_interval  # the same interval reading as the near-misses

MAX_PER_TASK = 8

# kind -> (severity, description). Severity of a false rejection of this form.
KINDS: dict[str, tuple[Severity, str]] = {
    "frac_to_decimal": (Severity.high, "a fraction written as its (terminating) decimal: 1/2 -> 0.5"),
    "decimal_to_frac": (Severity.high, "a decimal written as a fraction: 0.75 -> \\frac{3}{4}"),
    "percent_form": (Severity.high, "a percent written as a decimal or fraction: 10\\% -> 0.1"),
    "percent_sign_dropped": (Severity.medium, "a percent answer without its sign: 25\\% -> 25"),
    "unreduced_fraction": (Severity.medium, "an unreduced fraction: \\frac{1}{2} -> \\frac{2}{4}"),
    "dfrac": (Severity.medium, "\\dfrac / \\tfrac instead of \\frac"),
    "slash_fraction": (Severity.medium, "a plain-text fraction or expression: 3/4, sqrt(2)"),
    "left_right": (Severity.low, "\\left( ... \\right) delimiters or redundant parentheses"),
    "rationalised_radical": (
        Severity.high,
        "a radical with or without a rationalised denominator: \\frac{\\sqrt{2}}{2} <-> \\frac{1}{\\sqrt{2}}",
    ),
    "power_as_fraction": (Severity.medium, "a negative power written as a fraction: 2^{-99} -> \\frac{1}{2^{99}}"),
    "unsimplified_radical": (Severity.medium, "an unsimplified radical: 2\\sqrt{3} -> \\sqrt{12}"),
    "reordered_terms": (Severity.medium, "the terms or factors of a sum or product in another order"),
    "expanded_or_factored": (Severity.high, "a polynomial expanded or factored: (x+1)^2 <-> x^2+2x+1"),
    "reordered_set": (Severity.high, "the elements of a set (or union) in another order"),
    "bare_list": (Severity.medium, "a solution set written as a bare list: -2, 3"),
    "interval_as_inequality": (Severity.high, "an interval written as an inequality: (1, 2] -> 1 < x \\le 2"),
    "var_prefix": (Severity.high, "the answer prefixed with its variable: x = 5"),
    "units_text": (Severity.medium, "the answer with its unit: 5 \\text{ cm}, \\$7.50, -3^\\circ"),
    "unicode_minus": (Severity.medium, "a Unicode minus sign (U+2212) instead of '-'"),
    "thousands_separator": (Severity.high, "thousands separators: 12345 -> 12,345 / 12{,}345"),
    "trailing_zeros": (Severity.medium, "trailing zeros: 0.5 -> 0.500, 5 -> 5.0"),
    "bold_not_boxed": (Severity.medium, "the answer in bold (**73**) with no \\boxed{}"),
    "answer_in_prose": (Severity.medium, "the answer stated in a sentence with no \\boxed{}"),
    "sci_expanded": (Severity.high, "a power or scientific notation written out in digits: 2^{100} -> 1267..."),
    "sci_e_notation": (Severity.medium, "scientific notation in e-form: 1.2 \\times 10^{15} -> 1.2e15"),
    "equation_rearranged": (Severity.high, "an equation rearranged: y = 2x + 1 -> 2x - y + 1 = 0"),
    "matrix_env": (Severity.medium, "another matrix environment: bmatrix, \\left[ matrix \\right]"),
    "text_case": (Severity.high, "a text answer in another case or wrapper: Monday -> monday, (B)"),
    "text_wrapper": (Severity.medium, "a text answer in \\textbf, \\mathrm or parentheses: (B)"),
    "spaces": (Severity.low, "different spacing inside the answer"),
}


@dataclass(frozen=True)
class Rewrite:
    kind: str
    note: str
    latex: str = ""  # goes inside \boxed{} ...
    completion: str = ""  # ... or the whole completion is given (unboxed kinds)


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    """Up to MAX_PER_TASK correct rewrites of the reference, one category per kind."""
    answer = parse_reference(task.reference)
    if answer is None:
        return []
    # One form per kind (so every id ends in /0), at most MAX_PER_TASK kinds.
    chosen = sample_kinds(rewrites(answer, task), rng, cap=MAX_PER_TASK, draw="choice", order="grouped")
    texts = [(r.kind, r.completion or boxed_completion(r.latex, rng), r.note) for r in chosen]
    return make_candidates("math", task.id, texts, origin="equivalent", label="correct", kinds=KINDS)


def rewrites(answer: Answer, task: Task) -> list[Rewrite]:
    """Every correct rewrite of the task's reference that fits its type (stable order)."""
    reference = task.reference
    meta = task.metadata or {}
    interval = as_interval(answer, meta.get("answer_type", ""))
    if interval is not None:
        produced = _interval_rewrites(interval, reference, meta.get("variable", "x"))
    elif answer.kind is Kind.NUMBER:
        produced = _number_rewrites(answer, reference, meta)
    elif answer.kind is Kind.EXPR:
        produced = _expr_rewrites(answer.value, reference)
    elif answer.kind in (Kind.SET, Kind.LIST):
        produced = _set_rewrites(answer, reference, meta)
    elif answer.kind is Kind.TUPLE:
        produced = _tuple_rewrites(answer, reference)
    elif answer.kind is Kind.EQUATION:
        produced = _equation_rewrites(answer.value, reference)
    elif answer.kind is Kind.MATRIX:
        produced = _matrix_rewrites(reference)
    elif answer.kind is Kind.TEXT:
        produced = _text_rewrites(str(answer.value), reference)
    else:
        produced = iter(())
    out = list(produced)
    out.extend(_wrapper_rewrites(answer, reference))
    squashed = _squash(reference)
    return [r for r in out if r.completion or _squash(r.latex) != squashed or r.kind == "spaces"]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _wrapper_rewrites(answer: Answer, reference: str) -> Iterator[Rewrite]:
    """Forms that change how the answer is presented, not how it is written."""
    if answer.kind is Kind.TEXT:
        plain = text_display(str(answer.value))
        shown = plain
    elif answer.kind is Kind.NUMBER and re.fullmatch(r"-?[\d.]+(\\%)?", reference):
        shown = plain = reference.replace("\\%", "%")
    else:
        shown, plain = f"${reference}$", None
    yield Rewrite("bold_not_boxed", "bold, no box", completion=f"Adding everything up carefully.\n\n**{shown}**")
    yield Rewrite(
        "answer_in_prose",
        "stated in a sentence, no box",
        completion=f"Working through the steps, we find the result.\n\nThe final answer is {shown}.",
    )
    spaced = _respace(reference)
    if spaced is not None:
        yield Rewrite("spaces", f"spacing changed: {reference} -> {spaced}", latex=spaced)


def _respace(reference: str) -> str | None:
    """Remove optional spaces (never one that ends a command name, as in ``\\le x``)."""
    squeezed = re.sub(r"(?<![A-Za-z])\s+|\s+(?=[^A-Za-z])", "", reference)
    if squeezed != reference:
        return squeezed
    spaced = re.sub(r"([+=,])", r" \1 ", reference)
    spaced = re.sub(r"\s+", " ", spaced).strip()
    return spaced if spaced != reference else None


# --------------------------------------------------------------------------- numbers


def _number_rewrites(answer: Answer, reference: str, meta: dict) -> Iterator[Rewrite]:
    v = answer.value
    if not v.is_real:
        return
    if answer.percent:
        yield from _percent_rewrites(v, reference)
        return
    if v.is_Rational:
        yield from _rational_rewrites(v, answer, reference)
    else:
        yield from _irrational_rewrites(v, reference)
    if v < 0:
        yield Rewrite("unicode_minus", "Unicode minus sign", latex=reference.replace("-", "\u2212"))
    variable = meta.get("variable")
    if variable:
        yield Rewrite("var_prefix", f"{variable} = {reference}", latex=f"{variable} = {reference}")
    unit = meta.get("unit")
    if unit:
        yield _unit_rewrite(reference, unit)
    elif meta.get("family") == "temperature":
        yield Rewrite("units_text", "degrees sign", latex=f"{reference}^\\circ \\text{{C}}")
    yield Rewrite("left_right", "redundant parentheses", latex=f"\\left({reference}\\right)")


def _unit_rewrite(reference: str, unit: str) -> Rewrite:
    if unit == "dollars":
        return Rewrite("units_text", f"dollar sign: \\${reference}", latex=f"\\${reference}")
    if "^" in unit:  # cm^2
        base, _, power = unit.partition("^")
        return Rewrite("units_text", f"with unit {unit}", latex=f"{reference} \\text{{ {base}}}^{{{power}}}")
    return Rewrite("units_text", f"with unit {unit}", latex=f"{reference} \\text{{ {unit}}}")


def _rational_rewrites(v: Rational, answer: Answer, reference: str) -> Iterator[Rewrite]:
    p, q = int(v.p), int(v.q)
    sign = "-" if v < 0 else ""
    big = abs(p) > 10**12 or q > 10**12
    decimal = decimal_string(v)
    if q != 1 and not answer.approximate and decimal is not None and len(decimal) <= 20:
        yield Rewrite("frac_to_decimal", f"as a decimal: {reference} -> {decimal}", latex=decimal)
    if answer.approximate and q != 1:
        frac = f"{sign}\\frac{{{abs(p)}}}{{{q}}}"
        yield Rewrite("decimal_to_frac", f"as a fraction: {reference} -> {frac}", latex=frac)
    if not big and q != 1:
        k = 2
        unreduced = f"{sign}\\frac{{{abs(p) * k}}}{{{q * k}}}"
        yield Rewrite("unreduced_fraction", f"unreduced: {reference} -> {unreduced}", latex=unreduced)
    if q != 1 and not big:
        yield Rewrite("dfrac", "\\dfrac", latex=f"{sign}\\dfrac{{{abs(p)}}}{{{q}}}")
        yield Rewrite("slash_fraction", "plain-text fraction", latex=f"{p}/{q}")
    if q == 1 and abs(p) >= 1000 and not big:
        grouped = f"{abs(p):,}"
        yield Rewrite(
            "thousands_separator", f"thousands separators: {reference} -> {sign}{grouped}", latex=sign + grouped
        )
        yield Rewrite("thousands_separator", "LaTeX thousands separators", latex=sign + grouped.replace(",", "{,}"))
    if decimal is not None and len(decimal) <= 20 and (answer.approximate or q == 1) and not big:
        padded = decimal + ("0" if "." in decimal else ".0")
        yield Rewrite("trailing_zeros", f"trailing zero: {reference} -> {padded}", latex=padded)
    if big or re.search(r"\^\{?-?\d", reference):
        yield from _big_number_rewrites(v, reference)


def _big_number_rewrites(v: Rational, reference: str) -> Iterator[Rewrite]:
    """2^{100} -> its digits; 2^{-99} -> \\frac{1}{digits}; 1.2 x 10^{15} -> digits or 1.2e15."""
    p, q = int(v.p), int(v.q)
    digits = str(p) if q == 1 else f"\\frac{{{p}}}{{{q}}}" if p > 0 else f"-\\frac{{{-p}}}{{{q}}}"
    if len(digits) < 400:
        yield Rewrite("sci_expanded", f"written out: {reference} -> {digits[:40]}...", latex=digits)
    m = re.fullmatch(r"(-?[\d.]+)\s*\\times\s*10\^\{(-?\d+)\}", reference.strip())
    if m:
        yield Rewrite("sci_e_notation", f"e-notation: {m.group(1)}e{m.group(2)}", latex=f"{m.group(1)}e{m.group(2)}")
        yield Rewrite("spaces", "\\cdot for \\times", latex=f"{m.group(1)} \\cdot 10^{{{m.group(2)}}}")
    m = re.fullmatch(r"(-?)(\d+)\^\{(-?\d+)\}", reference.strip())
    if m and int(m.group(3)) < 0:
        recip = f"{m.group(1)}\\frac{{1}}{{{m.group(2)}^{{{-int(m.group(3))}}}}}"
        yield Rewrite("power_as_fraction", f"as a fraction: {reference} -> {recip}", latex=recip)


def _irrational_rewrites(v, reference: str) -> Iterator[Rewrite]:
    if "\\frac" in reference:
        yield Rewrite("dfrac", "\\dfrac", latex=reference.replace("\\frac", "\\dfrac"))
    # c * sqrt(n): rationalised <-> not (\frac{\sqrt{2}}{2} <-> \frac{1}{\sqrt{2}}).
    coeff, rest = v.as_coeff_Mul()
    if isinstance(rest, sympy.Pow) and rest.exp == Rational(1, 2) and rest.base.is_Integer and coeff.is_Rational:
        n = int(rest.base)
        c = coeff * n  # c * sqrt(n) == (coeff * n) / sqrt(n)
        num = f"{abs(int(c.p))}"
        den = f"\\sqrt{{{n}}}" if c.q == 1 else f"{int(c.q)}\\sqrt{{{n}}}"
        text = ("-" if c < 0 else "") + f"\\frac{{{num}}}{{{den}}}"
        yield Rewrite("rationalised_radical", f"denominator not rationalised: {reference} -> {text}", latex=text)
        if coeff.q == 1 and abs(coeff) > 1:
            inside = int(coeff) ** 2 * n
            text = ("-" if coeff < 0 else "") + f"\\sqrt{{{inside}}}"
            yield Rewrite("unsimplified_radical", f"unsimplified: {reference} -> {text}", latex=text)
        ascii_form = f"{coeff}*sqrt({n})" if coeff != 1 else f"sqrt({n})"
        yield Rewrite("slash_fraction", f"plain text: {ascii_form}", latex=ascii_form)
    if isinstance(rest, sympy.Symbol) or rest == sympy.pi or rest == sympy.E:
        name = sympy.latex(rest)
        if coeff.q == 1:
            text = f"{name} \\cdot {int(coeff)}"
        else:
            text = f"\\frac{{{int(coeff.p)}}}{{{int(coeff.q)}}}{name}"
        yield Rewrite("reordered_terms", f"coefficient written differently: {text}", latex=text)
    if isinstance(v, sympy.Add):
        terms = [number_latex(t) for t in reversed(v.as_ordered_terms())]
        text = terms[0] + "".join(f" - {t[1:]}" if t.startswith("-") else f" + {t}" for t in terms[1:])
        yield Rewrite("reordered_terms", f"terms reordered: {reference} -> {text}", latex=text)
        if v.has(sympy.exp):
            text = reference.replace("e^{", "\\exp{")
            text = re.sub(r"\\exp\{([^{}]*)\}", r"\\exp(\1)", text)
            yield Rewrite("slash_fraction", f"exp(): {text}", latex=text)


def _percent_rewrites(v, reference: str) -> Iterator[Rewrite]:
    """25\\% = 0.25 = \\frac{1}{4}; the sign dropped (25) is accepted by standard graders."""
    fraction = v / 100
    decimal = decimal_string(fraction)
    if decimal is not None:
        yield Rewrite("percent_form", f"as a decimal: {reference} -> {decimal}", latex=decimal)
    yield Rewrite(
        "percent_form", f"as a fraction: {reference} -> {number_latex(fraction)}", latex=number_latex(fraction)
    )
    bare = reference.replace("\\%", "").strip()
    yield Rewrite("percent_sign_dropped", f"percent sign dropped: {reference} -> {bare}", latex=bare)
    yield Rewrite("spaces", "space before the percent sign", latex=bare + " \\%")
    if "." in bare:
        yield Rewrite("trailing_zeros", f"trailing zero: {bare}0\\%", latex=bare + "0\\%")


# ----------------------------------------------------------------------- expressions


def _expr_rewrites(expr, reference: str) -> Iterator[Rewrite]:
    is_factored = isinstance(expr, sympy.Mul) and any(isinstance(f.as_base_exp()[0], sympy.Add) for f in expr.args)
    if is_factored:
        expanded = expr_latex(sympy.expand(expr))
        yield Rewrite("expanded_or_factored", f"expanded: {reference} -> {expanded}", latex=expanded)
        coeff, factors = expr.as_coeff_mul()
        prefix = "" if coeff == 1 else "-" if coeff == -1 else number_latex(coeff)
        for order in (factors, tuple(reversed(factors))):
            swapped = prefix + "".join(_paren(f) for f in order)
            if len(factors) >= 2 and _squash(swapped) != _squash(reference):
                yield Rewrite("reordered_terms", f"factors reordered: {swapped}", latex=swapped)
                break
    else:
        factored = sympy.factor(expr)
        if factored != expr and isinstance(factored, sympy.Mul):
            text = expr_latex(factored)
            yield Rewrite("expanded_or_factored", f"factored: {reference} -> {text}", latex=text)
        terms = sympy.Add.make_args(expr)
        if len(terms) >= 2:
            ordered = sorted(terms, key=lambda t: sympy.Poly(t, *sorted(expr.free_symbols, key=str)).total_degree())
            text = _join_terms([expr_latex(t) for t in ordered])
            yield Rewrite("reordered_terms", f"ascending powers: {text}", latex=text)
        ascii_form = str(expr).replace("**", "^")
        yield Rewrite("slash_fraction", f"plain text: {ascii_form}", latex=ascii_form)
        shorthand = re.sub(r"\^\{(\d)\}", r"^\1", reference)
        if shorthand != reference:
            yield Rewrite("spaces", f"brace shorthand: {shorthand}", latex=shorthand)


def _paren(factor) -> str:
    base, exp = factor.as_base_exp()
    body = expr_latex(base)
    body = f"({body})" if isinstance(base, sympy.Add) else body
    return body if exp == 1 else f"{body}^{{{exp}}}"


def _join_terms(terms: list[str]) -> str:
    return terms[0] + "".join(f" - {t[1:]}" if t.startswith("-") else f" + {t}" for t in terms[1:])


# --------------------------------------------------------------- sets and tuples


def _set_rewrites(answer: Answer, reference: str, meta: dict) -> Iterator[Rewrite]:
    items = [number_latex(i.value) if i.kind is Kind.NUMBER else None for i in answer.items]
    if None in items or len(items) < 1:
        return
    if len(items) >= 2:
        text = r"\{" + ", ".join(reversed(items)) + r"\}"
        yield Rewrite("reordered_set", f"elements reordered: {text}", latex=text)
        yield Rewrite("bare_list", f"bare list: {', '.join(items)}", latex=", ".join(items))
    yield Rewrite("left_right", "\\left\\{ \\right\\}", latex=r"\left\{" + ", ".join(items) + r"\right\}")
    variable = meta.get("variable")
    if variable:
        text = f"{variable} \\in \\{{" + ", ".join(items) + r"\}"
        yield Rewrite("var_prefix", f"membership form: {text}", latex=text)
    if any(i.startswith("-") for i in items):
        yield Rewrite("unicode_minus", "Unicode minus sign", latex=reference.replace("-", "\u2212"))


def _tuple_rewrites(answer: Answer, reference: str) -> Iterator[Rewrite]:
    items = [number_latex(i.value) if i.kind is Kind.NUMBER else None for i in answer.items]
    if None in items:
        return
    yield Rewrite("left_right", "\\left( \\right)", latex=r"\left(" + ", ".join(items) + r"\right)")
    if len(items) == 2:
        yield Rewrite("var_prefix", "(x, y) = ...", latex=f"(x, y) = ({', '.join(items)})")
    if any(i.startswith("-") for i in items):
        yield Rewrite("unicode_minus", "Unicode minus sign", latex=reference.replace("-", "\u2212"))
    if any("\\frac" in i for i in items):
        yield Rewrite("dfrac", "\\dfrac", latex=reference.replace("\\frac", "\\dfrac"))


# ------------------------------------------------------------------------ intervals


def _interval_rewrites(value, reference: str, variable: str) -> Iterator[Rewrite]:
    parts = list(value.args) if isinstance(value, sympy.Union) else [value]
    if not all(isinstance(p, sympy.Interval) for p in parts):
        return
    if len(parts) == 1:
        text = _inequality(parts[0], variable)
        yield Rewrite("interval_as_inequality", f"as an inequality: {text}", latex=text)
    else:
        text = " \\cup ".join(set_latex(p) for p in reversed(parts))
        yield Rewrite("reordered_set", f"union reordered: {text}", latex=text)
    text = " \\cup ".join(_left_right(p) for p in parts)
    yield Rewrite("left_right", "\\left( \\right]", latex=text)
    text = reference.replace("\\infty", "+\\infty").replace("-+\\infty", "-\\infty")
    if text != reference:
        yield Rewrite("spaces", "+\\infty", latex=text)
    if "-" in reference:
        yield Rewrite("unicode_minus", "Unicode minus sign", latex=reference.replace("-", "\u2212"))


def _inequality(part: sympy.Interval, variable: str) -> str:
    lo, hi = part.start, part.end
    left = "<" if part.left_open else "\\le"
    right = "<" if part.right_open else "\\le"
    if lo.is_finite and hi.is_finite:
        return f"{number_latex(lo)} {left} {variable} {right} {number_latex(hi)}"
    if lo.is_finite:
        op = ">" if part.left_open else "\\ge"
        return f"{variable} {op} {number_latex(lo)}"
    if hi.is_finite:
        return f"{variable} {right} {number_latex(hi)}"
    return f"-\\infty < {variable} < \\infty"


def _left_right(part: sympy.Interval) -> str:
    text = set_latex(part)
    return "\\left" + text[0] + text[1:-1] + "\\right" + text[-1]


# ------------------------------------------------------------------------ equations


def _equation_rewrites(eq, reference: str) -> Iterator[Rewrite]:
    lhs, rhs = eq.lhs, eq.rhs
    general = sympy.expand(rhs - lhs)
    # Clear denominators so the general form has integer coefficients, as people write it.
    denominators = [sympy.fraction(c)[1] for c in sympy.Poly(general, *sorted(general.free_symbols, key=str)).coeffs()]
    scale = sympy.ilcm(*denominators) if denominators else 1
    general = sympy.expand(general * scale)
    if sympy.Poly(general, *sorted(general.free_symbols, key=str)).coeffs()[0] < 0:
        general = -general  # 6x + y + 1 = 0 rather than -6x - y - 1 = 0
    yield Rewrite("equation_rearranged", "general form", latex=f"{expr_latex(general)} = 0")
    yield Rewrite("equation_rearranged", "sides swapped", latex=f"{expr_latex(rhs)} = {expr_latex(lhs)}")
    terms = sympy.Add.make_args(sympy.expand(rhs))
    if len(terms) >= 2:
        text = f"{expr_latex(lhs)} = " + _join_terms([expr_latex(t) for t in reversed(terms)])
        yield Rewrite("reordered_terms", f"terms reordered: {text}", latex=text)
    if "-" in reference:
        yield Rewrite("unicode_minus", "Unicode minus sign", latex=reference.replace("-", "\u2212"))


# ------------------------------------------------------------------------- matrices


def _matrix_rewrites(reference: str) -> Iterator[Rewrite]:
    yield Rewrite("matrix_env", "bmatrix", latex=reference.replace("pmatrix", "bmatrix"))
    inner = reference.replace("\\begin{pmatrix}", "\\begin{matrix}").replace("\\end{pmatrix}", "\\end{matrix}")
    yield Rewrite("left_right", "\\left[ matrix \\right]", latex=f"\\left[{inner}\\right]")
    if "\\frac" in reference:
        yield Rewrite("dfrac", "\\dfrac", latex=reference.replace("\\frac", "\\dfrac"))
    if "-" in reference:
        yield Rewrite("unicode_minus", "Unicode minus sign", latex=reference.replace("-", "\u2212"))


# ----------------------------------------------------------------------------- text


def _text_rewrites(value: str, reference: str) -> Iterator[Rewrite]:
    display = text_display(value)
    yield Rewrite("text_case", f"lower case: {value.lower()}", latex=f"\\text{{{value.lower()}}}")
    yield Rewrite("text_case", f"upper case: {value.upper()}", latex=f"\\text{{{value.upper()}}}")
    if len(value) == 1:
        yield Rewrite("text_wrapper", f"option in parentheses: ({display})", latex=f"\\text{{({display})}}")
        yield Rewrite("text_wrapper", f"bold option: \\textbf{{{display}}}", latex=f"\\textbf{{{display}}}")
    elif value.lower() in WEEKDAYS or value.lower() in ("yes", "no"):
        yield Rewrite("text_wrapper", "\\mathrm instead of \\text", latex=f"\\mathrm{{{display}}}")
