"""Near-misses: WRONG answers close to the task's own reference.

Each kind is one mistake a policy makes or one leniency a grader has (seen on public
rule-based graders: Math-Verify, verl's reward_score math graders, lm-evaluation-harness;
percent x100, relative tolerance 1e-4, 2^-99 vs 2^-98, pi -> 3.14, bracket
type ignored, sign flips, off-by-one, ...). ``mutants(answer)`` applies every kind that
fits the answer's type to the parsed reference and renders the result back to LaTeX;
``generate`` wraps a sample of them in realistic completions.

Every mutant is wrong by construction (the value changes), and the engine still asks the
oracle: a mutant it cannot tell from the reference is dropped, not scored.
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
from ..render import WEEKDAYS, decimal_string, expr_latex, matrix_latex, number_latex, set_latex, to_latex
from ._common import boxed_completion, parse_reference

MAX_PER_TASK = 10

# kind -> (severity, description). Severity is how bad it is when a verifier pays for it.
KINDS: dict[str, tuple[Severity, str]] = {
    "sign_flip": (Severity.high, "the sign of the answer (or of one term, root, coordinate, entry) flipped"),
    "off_by_one": (Severity.high, "the answer (or one part of it) off by one"),
    "times_ten": (Severity.high, "the answer multiplied by 10"),
    "div_ten": (Severity.high, "the answer divided by 10"),
    "percent_x100": (Severity.high, "the answer scaled by 100 either way (50 -> 0.5, 5000): percent leniency"),
    "reciprocal": (Severity.high, "the reciprocal of the answer"),
    "rounding": (Severity.medium, "the answer rounded to fewer places or significant figures"),
    "rel_error_1e4": (Severity.medium, "the answer off by a relative 1e-4 (10^6 -> 1000100): loose tolerance"),
    "rel_error_1e7": (Severity.low, "the answer off by a relative 1e-7: tolerance on exact answers"),
    "tiny_magnitude": (
        Severity.high,
        "a tiny or huge answer off by a factor of 2 (2^{-99} -> 2^{-98}): absolute tolerance",
    ),
    "pi_approx": (Severity.medium, "pi or e replaced by a decimal approximation (pi -> 3.14)"),
    "dropped_term": (Severity.high, "one term of a sum (or one factor) dropped"),
    "wrong_coefficient": (Severity.high, "one coefficient changed"),
    "extra_factor": (Severity.high, "a spurious radical factor (4 -> 4\\sqrt{2})"),
    "pm_one_sign": (Severity.high, "\\pm in front of the answer: one sign is right, one is wrong"),
    "wrong_bracket": (Severity.medium, "an interval end switched between open and closed ((1, 2] -> [1, 2])"),
    "flipped_inequality": (Severity.high, "the complement of the solution set (inequality direction flipped)"),
    "set_subset": (Severity.high, "a set answer missing one element"),
    "set_superset": (Severity.high, "a set answer with one extra element"),
    "wrong_root": (Severity.high, "one root of a set answer with the wrong sign"),
    "swapped_tuple": (Severity.high, "the coordinates of an ordered pair swapped"),
    "wrong_lhs": (Severity.high, "an equation with the same right-hand side but a different left side"),
    "matrix_entry": (Severity.high, "one matrix entry changed by one"),
    "transposed": (Severity.high, "the transpose of a non-symmetric matrix"),
    "wrong_text": (Severity.high, "a different weekday, the opposite yes/no, another option letter"),
    # issue 33: holes real graders showed (Qwen2.5-Math evaluation/grader.py and parser.py,
    # openai/prm800k prm800k/grading/grader.py as verl's prime_math has it)
    "near_integer": (Severity.low, "an integer answer off by 1e-7 (42 -> 42.0000001): tolerance on integers"),
    "improper_mixed": (
        Severity.medium,
        "an improper 'mixed number' (7/2 -> 2\\frac{3}{2}, 2 3/2): no mixed number, a grader that adds the parts pays",
    ),
    "choice_listing": (
        Severity.high,
        "every option letter listed (B -> \\text{A, C, D, B}, B A C D): a last- or first-letter grader pays",
    ),
    "unit_truncation": (Severity.medium, "a unit word cut off a text answer (Monday -> Mon): unit stripping pays"),
}

# Unit words graders remove from answers: PRM800K's grader with re.sub anywhere in the
# answer (openai/prm800k prm800k/grading/grader.py _normalize, also verl's
# utils/reward_score/prime_math), Qwen2.5-Math's strip_string (evaluation/parser.py,
# unit_texts). A text answer ending in one ("Monday") is then paid for its stem ("Mon").
_UNIT_WORDS = ("day", "hour", "minute", "second", "week", "month", "year", "meter", "mile", "inch", "foot")


@dataclass(frozen=True)
class Mutant:
    kind: str
    latex: str  # the wrong answer, as it goes inside \boxed{}
    note: str  # what was changed, for people reading the report


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    """Up to MAX_PER_TASK near-miss completions for ``task``, one category per kind."""
    answer = parse_reference(task.reference)
    if answer is None:
        return []
    # At most two per kind so that one prolific kind does not crowd out the others; over
    # MAX_PER_TASK, one of each kind first, then fill, kept in the mutants' order.
    chosen = sample_kinds(mutants(answer, task), rng, cap=MAX_PER_TASK, per_kind=2, draw="rounds", order="source")
    texts = [(m.kind, boxed_completion(m.latex, rng), m.note) for m in chosen]
    return make_candidates("math", task.id, texts, origin="near_miss", label="incorrect", kinds=KINDS)


def mutants(answer: Answer, task: Task | None = None) -> list[Mutant]:
    """Every near-miss of ``answer`` that fits its type, deduplicated, in a stable order."""
    reference = task.reference if task is not None else to_latex(answer)
    answer_type = (task.metadata.get("answer_type") if task is not None else None) or ""
    interval = as_interval(answer, answer_type)
    if interval is not None:
        produced = _interval_mutants(interval, reference)
    elif answer.kind is Kind.NUMBER:
        produced = _number_mutants(answer, reference)
    elif answer.kind is Kind.EXPR:
        produced = _expr_mutants(answer.value, reference)
    elif answer.kind in (Kind.SET, Kind.LIST):
        produced = _set_mutants(answer, reference)
    elif answer.kind is Kind.TUPLE:
        produced = _tuple_mutants(answer, reference)
    elif answer.kind is Kind.EQUATION:
        produced = _equation_mutants(answer.value, reference)
    elif answer.kind is Kind.MATRIX:
        produced = _matrix_mutants(answer.value, reference)
    elif answer.kind is Kind.TEXT:
        produced = _text_mutants(str(answer.value), reference)
    else:
        produced = iter(())
    seen, out = {_squash(reference)}, []
    for m in produced:
        key = _squash(m.latex)
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


# --------------------------------------------------------------------------- numbers


def _number_mutants(answer: Answer, reference: str) -> Iterator[Mutant]:
    v = answer.value
    if not v.is_real or v == 0:
        return
    write = _writer(answer, reference)

    def m(kind: str, value, note: str, text: str | None = None) -> Mutant:
        return Mutant(kind, text if text is not None else write(value), note)

    tiny = v.is_Rational and abs(v) < Rational(1, 10**6)
    huge = v.is_Rational and abs(v) > 10**12
    if tiny or huge:  # first: for 2^{-99} the numerator+1 mutant below is the same number
        size = "tiny" if tiny else "huge"
        yield m("tiny_magnitude", 2 * v, f"factor of two on a {size} number: {reference} -> {write(2 * v)}")
    yield m("sign_flip", -v, f"sign flipped: {reference} -> {write(-v)}")
    if v.is_Integer and answer.approximate and abs(v) > 10**9:
        pass  # 3.321 \times 10^{28} + 1: a decimal gold is only meant to ~12 digits
    elif v.is_Integer:
        yield m("off_by_one", v + 1, f"off by one: {reference} -> {write(v + 1)}")
        yield m("off_by_one", v - 1, f"off by one: {reference} -> {write(v - 1)}")
    elif v.is_Rational:
        bumped = Rational(v.p + 1, v.q)
        yield m("off_by_one", bumped, f"numerator off by one: {reference} -> {write(bumped)}")
    else:
        yield m("off_by_one", v + 1, f"off by one: {reference} -> {write(v + 1)}")
    yield m("times_ten", 10 * v, f"times ten: {reference} -> {write(10 * v)}")
    yield m("div_ten", v / 10, f"divided by ten: {reference} -> {write(v / 10)}")
    if v.is_Rational:
        yield from _percent_mutants(answer, reference)
    if _has_constant(v):  # before rounding: 5e rounds to what 5 * 2.718 gives
        yield _pi_approx(v, reference)
    if v not in (1, -1) and not answer.percent:
        yield m("reciprocal", 1 / v, f"reciprocal: {reference} -> {write(1 / v)}")
    # Texts written here (not by ``write``) keep the reference's percent sign by hand.
    suffix = r"\%" if answer.percent else ""
    rounded = _rounded(v)
    if rounded is not None:
        yield m("rounding", None, f"rounded: {reference} -> {rounded}{suffix}", rounded + suffix)
    if v.is_Rational:
        for kind, rel in (("rel_error_1e4", Rational(1, 10**4)), ("rel_error_1e7", Rational(1, 10**7))):
            off = _relative_offset(v, rel)
            text = _plain(off) + suffix
            yield m(kind, off, f"relative error {float(rel):g}: {reference} -> {text}", text)
    else:
        yield from _irrational_mutants(v, reference, write)
    if v.is_Integer and not answer.approximate and not answer.percent and abs(v) < 10**4:
        yield from _near_integer_mutants(v, reference)
    if v.is_Rational and not v.is_Integer and v > 1 and v.q <= 1000 and not answer.percent:
        yield from _improper_mixed_mutants(v, reference)
    if v.is_Rational and not answer.percent:
        base = write(v)
        extra = f"{base}\\sqrt{{2}}" if v.is_Integer else f"{base} \\cdot \\sqrt{{2}}"
        yield m("extra_factor", None, f"spurious radical factor: {reference} -> {extra}", extra)
    if not answer.percent:
        magnitude = write(abs(v))
        magnitude = f"({magnitude})" if isinstance(abs(v), sympy.Add) else magnitude
        yield m("pm_one_sign", None, f"plus-or-minus: {reference} -> \\pm {magnitude}", f"\\pm {magnitude}")


def _near_integer_mutants(v, reference: str) -> Iterator[Mutant]:
    """42 -> 42.0000001 and 41.9999999: not the integer, but within an absolute 1e-6 and any
    relative tolerance (math_equal's isclose with rel_tol 1e-4 in Qwen2.5-Math's
    evaluation/grader.py pays both; PRM800K's _normalize rounds a float close to an
    integer). Only below 10^4: from 10^5 on, 1e-7 is inside the oracle's 1e-12 relative
    slack for decimals (docs/math-oracle.md)."""
    for off in (Rational(1, 10**7), -Rational(1, 10**7)):
        text = decimal_string(v + off)
        if text is not None:
            yield Mutant("near_integer", text, f"off by {float(off):g}: {reference} -> {text}")


def _improper_mixed_mutants(v, reference: str) -> Iterator[Mutant]:
    """7/2 -> 2\\frac{3}{2} and "2 3/2": the whole part one less and an improper fraction.
    A mixed number's fraction is proper by definition, so neither is 7/2 (the oracle refuses
    the form); a grader that adds the parts pays it (PRM800K's _inject_implicit_mixed_number
    turns "2 3/2" into 2+3/2; Math-Verify adds 2\\frac{3}{2})."""
    whole = int(sympy.floor(v)) - 1
    rest = v - whole
    for text in (f"{whole}\\frac{{{rest.p}}}{{{rest.q}}}", f"{whole} {rest.p}/{rest.q}"):
        yield Mutant("improper_mixed", text, f"improper mixed number: {reference} -> {text}")


def _percent_mutants(answer: Answer, reference: str) -> Iterator[Mutant]:
    """50 -> 0.5 and 5000. For a percent gold p%, p and p/100 are both right, so use
    100p and p/10000 (plain numbers): wrong under either reading of the percent sign."""
    v = answer.value
    if answer.percent:
        candidates = (v * 100, v / 10000)
    else:
        candidates = (v / 100, v * 100)
    for value in candidates:
        text = _plain(value)
        yield Mutant("percent_x100", text, f"scaled by 100: {reference} -> {text}")


def _irrational_mutants(v, reference: str, write) -> Iterator[Mutant]:
    """Radicals, multiples of pi, expressions in e."""
    if isinstance(v, sympy.Add):
        terms = v.as_ordered_terms()
        for i in range(len(terms)):
            rest = sympy.Add(*(terms[:i] + terms[i + 1 :]))
            if rest != 0:
                yield Mutant(
                    "dropped_term", write(rest), f"dropped the term {write(terms[i])}: {reference} -> {write(rest)}"
                )
                break
    coeff, rest = v.as_coeff_Mul()
    if isinstance(v, sympy.Mul) and rest != 1 and coeff.is_Rational:
        changed = (coeff + (1 if coeff.q == 1 else Rational(1, coeff.q))) * rest
        if changed != 0:
            yield Mutant("wrong_coefficient", write(changed), f"coefficient changed: {reference} -> {write(changed)}")


def _has_constant(v) -> bool:
    return v.has(sympy.pi) or v.has(sympy.E) or v.has(sympy.exp)


def _pi_approx(v, reference: str) -> Mutant:
    """pi -> 3.14 and e -> 2.718 inside the expression, evaluated to a decimal."""
    e = Rational(2718, 1000)
    approx = v.replace(sympy.exp, lambda arg: e**arg).subs({sympy.pi: Rational(314, 100), sympy.E: e})
    text = decimal_string(approx) if approx.is_Rational else None
    if text is None or len(text) > 12:
        text = f"{float(sympy.N(approx, 15)):.4f}".rstrip("0")
    return Mutant("pi_approx", text, f"constant approximated: {reference} -> {text}")


def _rounded(v) -> str | None:
    """A plausible premature rounding that changes the value, written as a decimal."""
    if v.is_Integer:
        if abs(v) < 100:
            return None
        digits = len(str(abs(int(v))))
        value = int(sympy.Integer(round(int(v), -(digits - 2))))  # two significant figures
        return None if value == v or value == 0 else str(value)
    approx = float(sympy.N(v, 20))
    for places in (2, 1):
        text = f"{approx:.{places}f}"
        if Rational(text) != v and Rational(text) != 0:
            return text
    return None


def _relative_offset(v: Rational, rel: Rational) -> Rational:
    """v * (1 + rel), rounded to an integer when v is a big integer (1000000 -> 1000100)."""
    off = v * (1 + rel)
    if v.is_Integer and abs(v * rel) >= 1:
        off = sympy.Integer(round(off))
    return off


def _plain(value) -> str:
    """A number as a plain decimal when it terminates, else as a fraction/power."""
    value = sympy.nsimplify(value) if isinstance(value, sympy.Float) else value
    if value.is_Rational:
        text = decimal_string(value)
        if text is not None and len(text) <= 40:
            return text
    return number_latex(value)


def _writer(answer: Answer, reference: str):
    """Render mutated values in the reference's own style: decimals stay decimals,
    ``a \\times 10^{k}`` stays scientific, percents keep their sign."""
    scientific = bool(re.search(r"\\times\s*10\^", reference))

    def write(value) -> str:
        value = sympy.sympify(value)
        if scientific and value.is_Rational and value != 0:
            text = _scientific(value)
        elif (answer.approximate or answer.percent) and value.is_Rational:
            text = decimal_string(value) or f"{float(value):.6g}"
        else:
            text = number_latex(value)
        return text + (r"\%" if answer.percent else "")

    return write


def _scientific(value: Rational) -> str:
    exponent = 0
    mantissa = abs(value)
    while mantissa >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    while mantissa < 1:
        mantissa, exponent = mantissa * 10, exponent - 1
    digits = decimal_string(mantissa) or f"{float(mantissa):.6g}"
    return ("-" if value < 0 else "") + f"{digits} \\times 10^{{{exponent}}}"


# ----------------------------------------------------------------------- expressions


def _expr_mutants(expr, reference: str) -> Iterator[Mutant]:
    if isinstance(expr, sympy.Mul) and any(isinstance(f.as_base_exp()[0], sympy.Add) for f in expr.args):
        yield from _factored_mutants(expr, reference)
        return
    terms = sympy.Add.make_args(expr)
    if len(terms) >= 2:
        i = len(terms) - 1
        flipped = sympy.Add(*terms[:i], -terms[i])
        yield Mutant(
            "sign_flip", expr_latex(flipped), f"sign of one term flipped: {reference} -> {expr_latex(flipped)}"
        )
        for j in range(len(terms)):
            rest = sympy.Add(*(terms[:j] + terms[j + 1 :]))
            if rest.free_symbols:
                yield Mutant(
                    "dropped_term",
                    expr_latex(rest),
                    f"dropped the term {expr_latex(terms[j])}: {reference} -> {expr_latex(rest)}",
                )
                break
    changed = _bump_coefficient(expr)
    if changed is not None:
        yield Mutant(
            "wrong_coefficient", expr_latex(changed), f"coefficient changed: {reference} -> {expr_latex(changed)}"
        )
    yield Mutant("off_by_one", expr_latex(expr + 1), f"constant off by one: {reference} -> {expr_latex(expr + 1)}")


def _bump_coefficient(expr):
    """Add one to the coefficient of the highest-degree term with a symbol."""
    symbols = sorted(expr.free_symbols, key=str)
    if not symbols:
        return None
    try:
        poly = sympy.Poly(expr, *symbols)
    except sympy.PolynomialError:
        return None
    monom, coeff = poly.terms()[0]
    term = sympy.Mul(*(s**e for s, e in zip(symbols, monom)))
    return sympy.expand(expr + term) if coeff != -1 else sympy.expand(expr + 2 * term)


def _factored_mutants(expr, reference: str) -> Iterator[Mutant]:
    """(x - 2)(x - 3): flip one factor's constant, bump it, drop a factor."""
    coeff, factors = expr.as_coeff_mul()
    for i, factor in enumerate(factors):
        base, exp = factor.as_base_exp()
        if not isinstance(base, sympy.Add):
            continue
        const, rest = base.as_coeff_Add()
        if const == 0:
            continue
        for kind, new_base, what in (
            ("sign_flip", rest - const, "sign of a constant flipped"),
            ("off_by_one", base + 1, "a constant off by one"),
        ):
            new = sympy.Mul(
                coeff, *factors[:i], sympy.Pow(new_base, exp, evaluate=False), *factors[i + 1 :], evaluate=False
            )
            text = expr_latex(new)
            yield Mutant(kind, text, f"{what}: {reference} -> {text}")
        break
    if len(factors) >= 2:
        new = sympy.Mul(coeff, *factors[1:], evaluate=False)
        text = expr_latex(new)
        yield Mutant("dropped_term", text, f"dropped a factor: {reference} -> {text}")


# --------------------------------------------------------------- sets and tuples


def _number_items(answer: Answer) -> list | None:
    if not answer.items or any(i.kind is not Kind.NUMBER or not i.value.is_real for i in answer.items):
        return None
    return [i.value for i in answer.items]


def _set_latex(values) -> str:
    return r"\{" + ", ".join(number_latex(v) for v in values) + r"\}"


def _set_mutants(answer: Answer, reference: str) -> Iterator[Mutant]:
    values = _number_items(answer)
    if values is None:
        return
    if len(values) >= 2:
        text = _set_latex(values[1:])
        yield Mutant("set_subset", text, f"dropped the element {number_latex(values[0])}: {reference} -> {text}")
    extra = max(values, key=lambda v: float(v)) + 1
    extra = extra if extra not in values else sympy.Integer(0)
    if extra not in values:
        text = _set_latex(sorted(values + [extra], key=float))
        yield Mutant("set_superset", text, f"added the element {number_latex(extra)}: {reference} -> {text}")
    for i, v in enumerate(values):
        if v != 0 and -v not in values:
            new = values[:i] + [-v] + values[i + 1 :]
            text = _set_latex(new)
            yield Mutant("wrong_root", text, f"one root's sign flipped: {reference} -> {text}")
            break
    negated = [-v for v in values]
    if set(negated) != set(values):
        text = _set_latex(negated)
        yield Mutant("sign_flip", text, f"all signs flipped: {reference} -> {text}")
    bumped = values[:-1] + [values[-1] + 1]
    if len(set(bumped)) == len(bumped):
        text = _set_latex(bumped)
        yield Mutant("off_by_one", text, f"one element off by one: {reference} -> {text}")


def _tuple_latex(values) -> str:
    return "(" + ", ".join(number_latex(v) for v in values) + ")"


def _tuple_mutants(answer: Answer, reference: str) -> Iterator[Mutant]:
    values = _number_items(answer)
    if values is None:
        return
    if len(values) >= 2 and values[0] != values[1]:
        swapped = [values[1], values[0], *values[2:]]
        yield Mutant(
            "swapped_tuple", _tuple_latex(swapped), f"coordinates swapped: {reference} -> {_tuple_latex(swapped)}"
        )
    for i, v in enumerate(values):
        if v != 0:
            new = values[:i] + [-v] + values[i + 1 :]
            yield Mutant(
                "sign_flip", _tuple_latex(new), f"sign of one coordinate flipped: {reference} -> {_tuple_latex(new)}"
            )
            break
    new = values[:-1] + [values[-1] + 1]
    yield Mutant("off_by_one", _tuple_latex(new), f"one coordinate off by one: {reference} -> {_tuple_latex(new)}")


# ------------------------------------------------------------------------ intervals


def as_interval(answer: Answer, answer_type: str):
    """The reference as a sympy set when it is an interval: ``(-7, -4)`` parses as a pair,
    so the suite's answer_type says which reading the question meant."""
    if answer.kind is Kind.INTERVAL:
        return answer.value
    if answer.kind is Kind.TUPLE and answer_type == "interval":
        values = _number_items(answer)
        if values is not None and len(values) == 2 and values[0] < values[1]:
            return sympy.Interval.open(values[0], values[1])
    return None


def _interval_mutants(value, reference: str) -> Iterator[Mutant]:
    parts = list(value.args) if isinstance(value, sympy.Union) else [value]
    if not all(isinstance(p, sympy.Interval) for p in parts):
        return

    def rebuild(i: int, new: sympy.Interval) -> str:
        return " \\cup ".join(set_latex(new if j == i else p) for j, p in enumerate(parts))

    for i, part in enumerate(parts):  # first finite end: switch open/closed
        if part.start.is_finite:
            new = sympy.Interval(part.start, part.end, not part.left_open, part.right_open)
        elif part.end.is_finite:
            new = sympy.Interval(part.start, part.end, part.left_open, not part.right_open)
        else:
            continue
        text = rebuild(i, new)
        yield Mutant("wrong_bracket", text, f"bracket type changed: {reference} -> {text}")
        break
    for i, part in enumerate(parts):  # both finite ends switched
        if part.start.is_finite and part.end.is_finite:
            new = sympy.Interval(part.start, part.end, not part.left_open, not part.right_open)
            text = rebuild(i, new)
            yield Mutant("wrong_bracket", text, f"both bracket types changed: {reference} -> {text}")
            break
    complement = sympy.Complement(sympy.S.Reals, value)
    if complement.is_empty is False and isinstance(complement, (sympy.Interval, sympy.Union)):
        text = set_latex(complement)
        yield Mutant("flipped_inequality", text, f"complement (inequality flipped): {reference} -> {text}")
    for i, part in enumerate(parts):
        if part.end.is_finite:
            new = sympy.Interval(part.start, part.end + 1, part.left_open, part.right_open)
            nxt = parts[i + 1] if i + 1 < len(parts) else None
            if nxt is None or part.end + 1 < nxt.start:
                text = rebuild(i, new)
                yield Mutant("off_by_one", text, f"an end off by one: {reference} -> {text}")
                break
    reflected = sympy.Union(*[sympy.Interval(-p.end, -p.start, p.right_open, p.left_open) for p in parts])
    if reflected != value:
        text = set_latex(reflected)
        yield Mutant("sign_flip", text, f"signs of the ends flipped: {reference} -> {text}")


# ------------------------------------------------------------------------ equations


def _equation_mutants(eq, reference: str) -> Iterator[Mutant]:
    lhs, rhs = eq.lhs, eq.rhs

    def show(new_lhs, new_rhs) -> str:
        return f"{expr_latex(new_lhs)} = {expr_latex(new_rhs)}"

    changed = _bump_coefficient(rhs) if rhs.free_symbols else None
    if changed is not None:
        text = show(lhs, changed)
        yield Mutant("wrong_coefficient", text, f"slope changed: {reference} -> {text}")
    const, rest = sympy.expand(rhs).as_coeff_Add()
    if const != 0:
        text = show(lhs, rest - const)
        yield Mutant("sign_flip", text, f"sign of the constant flipped: {reference} -> {text}")
        if rest != 0:
            text = show(lhs, rest)
            yield Mutant("dropped_term", text, f"dropped the constant: {reference} -> {text}")
    text = show(2 * lhs, rhs)
    yield Mutant("wrong_lhs", text, f"same right-hand side, different left: {reference} -> {text}")
    text = show(lhs, rhs + 1)
    yield Mutant("off_by_one", text, f"constant off by one: {reference} -> {text}")


# ------------------------------------------------------------------------- matrices


def _matrix_mutants(mat, reference: str) -> Iterator[Mutant]:
    bumped = mat.as_mutable()
    bumped[0, 0] = bumped[0, 0] + 1
    text = matrix_latex(bumped)
    yield Mutant("matrix_entry", text, f"entry (1, 1) off by one: {reference} -> {text}")
    if mat.rows > 1 and mat.cols > 1:
        bumped = mat.as_mutable()
        bumped[mat.rows - 1, mat.cols - 1] = bumped[mat.rows - 1, mat.cols - 1] - 1
        text = matrix_latex(bumped)
        yield Mutant("matrix_entry", text, f"last entry off by one: {reference} -> {text}")
    if mat.T != mat:
        text = matrix_latex(mat.T)
        yield Mutant("transposed", text, f"transposed: {reference} -> {text}")
    for i in range(mat.rows):
        for j in range(mat.cols):
            if mat[i, j] != 0:
                flipped = mat.as_mutable()
                flipped[i, j] = -flipped[i, j]
                text = matrix_latex(flipped)
                yield Mutant("sign_flip", text, f"sign of entry ({i + 1}, {j + 1}) flipped: {reference} -> {text}")
                return


# ----------------------------------------------------------------------------- text


def _text_mutants(value: str, reference: str) -> Iterator[Mutant]:
    value = value.strip().lower()
    if value in WEEKDAYS:
        i = WEEKDAYS.index(value)
        for step, what in ((1, "the next day"), (-1, "the previous day")):
            other = WEEKDAYS[(i + step) % 7].capitalize()
            yield Mutant("wrong_text", f"\\text{{{other}}}", f"{what}: {reference} -> {other}")
    elif value in ("yes", "no"):
        other = "No" if value == "yes" else "Yes"
        yield Mutant("wrong_text", f"\\text{{{other}}}", f"opposite answer: {reference} -> {other}")
    elif len(value) == 1 and value.isalpha():
        letter = value.upper()
        for other in ("B" if letter == "A" else "A", "D" if letter == "C" else "C"):
            if other != letter:
                yield Mutant("wrong_text", f"\\text{{{other}}}", f"another option: {reference} -> {other}")
        if letter > "J":  # a letter past the options (x, y) is no choice
            return
        # every option, the gold last (a last-letter grader pays) and first (a first-letter one)
        others = [chr(c) for c in range(ord("A"), max(ord("D"), ord(letter)) + 1) if chr(c) != letter]
        for text in (f"\\text{{{', '.join([*others, letter])}}}", " ".join([letter, *others])):
            yield Mutant("choice_listing", text, f"every option listed: {reference} -> {text}")
    yield from _unit_truncations(value, reference)


def _unit_truncations(value: str, reference: str) -> Iterator[Mutant]:
    """Monday -> Mon: the answer with a trailing unit word cut off (see _UNIT_WORDS)."""
    for unit in _UNIT_WORDS:
        stem = value[: -len(unit)]
        if value.endswith(unit) and stem.isalpha() and len(stem) >= 2:
            text = f"\\text{{{stem.capitalize()}}}"
            yield Mutant("unit_truncation", text, f"unit word '{unit}' cut off: {reference} -> {text}")
            return
