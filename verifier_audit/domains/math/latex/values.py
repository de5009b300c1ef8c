"""Step 3: sympy values, built directly and size-checked.

The parser never calls ``sympify``: every number, power, product and relation is built here
with sympy constructors, and exact results larger than ``MAX_BITS`` (or roots sympy would
have to factor) are refused with ParseError instead of being computed.
"""

from __future__ import annotations

from dataclasses import replace

import sympy
from sympy import Integer, Rational, S

from ....report.text import article
from ..answer import Answer, Kind, ParseError
from .limits import MAX_BITS, ROOT_BITS

_PM = sympy.Symbol("\\pm")  # stands for +1/-1 until the answer is split into both signs
_SCALAR = (Kind.NUMBER, Kind.EXPR)


def _scalar(expr, approximate: bool = False, percent: bool = False) -> Answer:
    _check_size(expr)
    kind = Kind.EXPR if expr.free_symbols else Kind.NUMBER
    return Answer(kind, expr, percent=percent, approximate=approximate)


def _check_size(expr) -> None:
    """Refuse exact numbers past MAX_BITS. Sub-expressions were checked when built, so only
    the top level (where sympy folds numbers together) needs a look."""
    for x in (expr, *expr.args):
        if x.is_Rational and max(x.p.bit_length(), x.q.bit_length()) > MAX_BITS:
            raise ParseError("number too large to compute exactly")


def _val(a: Answer):
    """The sympy value of a scalar operand; a percent counts as a fraction inside arithmetic."""
    if a.kind not in _SCALAR:
        raise ParseError(f"cannot do arithmetic on {article(a.kind.value)}")
    return a.value * Rational(1, 100) if a.percent else a.value


def _number(text: str) -> Answer:
    """A numeric literal, exactly: '0.5' is 1/2 (marked approximate), '1.5e6' is 1500000."""
    mantissa, _, exponent = text.partition("e")
    if len(mantissa) > 4000:
        raise ParseError("numeric literal too long")
    whole, _, frac = mantissa.partition(".")
    value = Rational(int(whole + frac), 10 ** len(frac)) if frac else Integer(int(whole))
    if exponent:
        if abs(int(exponent)) > 4000:
            raise ParseError("exponent too large")
        value = value * Integer(10) ** int(exponent)
    return _scalar(value, approximate=bool(frac))


def _power(base, exp):
    """base**exp, refusing results too large to compute (5^{5^{5^5}}, 2^{10^{10}})."""
    if base.is_Rational and exp.is_Rational:
        if base.is_zero and exp.is_negative:
            raise ParseError("division by zero")
        if abs(base) != 1 and not base.is_zero:
            bits = max(base.p.bit_length(), base.q.bit_length()) * abs(exp)
            if bits > MAX_BITS:
                raise ParseError("power too large to compute exactly")
            if not exp.is_Integer and max(base.p.bit_length(), base.q.bit_length()) > ROOT_BITS:
                return _big_root(base, exp)
    elif exp.is_Rational and base.is_number and abs(exp) > 10_000:
        raise ParseError("power too large to compute exactly")
    return sympy.Pow(base, exp)


def _big_root(base, exp):
    """A root of a big rational. sympy would try to factor the number (seconds at 600
    digits), and again whenever the result is multiplied; we take exact integer roots
    ourselves and refuse the rest (no final answer is the root of a 155-digit non-power)."""
    n = exp.q
    if base > 0:
        p, p_exact = sympy.integer_nthroot(base.p, n)
        q, q_exact = sympy.integer_nthroot(base.q, n)
        if p_exact and q_exact:
            return _power(Rational(p, q), Integer(exp.p))
    raise ParseError("root of a number too large to simplify")


def _root_bits(expr) -> int:
    """Bits of the rational radicands in expr's top-level factors (sqrt(2)*x**2 -> 2)."""
    total = 0
    for f in sympy.Mul.make_args(expr):
        if f.is_Pow and f.base.is_Rational and not f.exp.is_Integer:
            total += f.base.p.bit_length() + f.base.q.bit_length()
    return total


def _mul(*factors):
    """sympy.Mul, refusing products whose radicands sympy would merge into one big number
    and factor (\\sqrt{A}\\sqrt{B} becomes \\sqrt{AB})."""
    if sum(map(_root_bits, factors)) > ROOT_BITS:
        raise ParseError("product of roots too large to simplify")
    return sympy.Mul(*factors)


def _factorial(a: Answer) -> Answer:
    v = _val(a)
    if v.is_Integer and (v < 0 or v > 3000):
        raise ParseError("factorial out of range")
    return _scalar(sympy.factorial(v), a.approximate)


def _finish(ans: Answer) -> Answer:
    """Split a +- into its two signs, recursively, and refuse undefined values."""
    if ans.kind in _SCALAR or ans.kind == Kind.EQUATION:
        if ans.value.has(S.ComplexInfinity, S.NaN):
            raise ParseError("undefined value (division by zero)")
        if _PM in ans.value.free_symbols:
            both = [ans.value.subs(_PM, s) for s in (1, -1)]
            if ans.kind == Kind.EQUATION:
                items = tuple(Answer(Kind.EQUATION, v, approximate=ans.approximate) for v in both)
            else:
                items = tuple(_scalar(v, ans.approximate, ans.percent) for v in both)
            return Answer(Kind.SET, items=items, claims=ans.claims)
        return ans
    if ans.items:
        return replace(ans, items=tuple(_finish(i) for i in ans.items))
    if ans.kind == Kind.INTERVAL and _PM in ans.value.free_symbols:
        raise ParseError("\\pm inside an interval")
    return ans


def _real_endpoint(a: Answer) -> bool:
    return a.kind == Kind.NUMBER and not a.percent and a.value.is_extended_real is True


def _as_set(a: Answer):
    """A set operand of \\cup / \\cap: an interval, a set of numbers, or (a, b) read as open."""
    if a.kind == Kind.INTERVAL:
        return a.value
    if a.kind == Kind.SET and all(_real_endpoint(i) for i in a.items):
        return sympy.FiniteSet(*(i.value for i in a.items))
    if a.kind == Kind.TUPLE and len(a.items) == 2 and all(_real_endpoint(i) for i in a.items):
        return sympy.Interval.open(a.items[0].value, a.items[1].value)
    raise ParseError(f"cannot take a union of {article(a.kind.value)}")


_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}


def _half_line(op: str, c):
    """The set of x with `x op c`."""
    if c.is_extended_real is not True:
        raise ParseError("inequality bound is not a real number")
    return {
        "<": sympy.Interval(-S.Infinity, c, True, True),
        "<=": sympy.Interval(-S.Infinity, c, True, False),
        ">": sympy.Interval(c, S.Infinity, True, True),
        ">=": sympy.Interval(c, S.Infinity, False, True),
        "!=": sympy.Union(sympy.Interval(-S.Infinity, c, True, True), sympy.Interval(c, S.Infinity, True, True)),
    }[op]


def _solve_inequality(lhs, op: str, rhs, var):
    """Solve a low-degree polynomial inequality (2x+1>3); anything else is refused."""
    if any(n.is_Pow and n.exp.is_Rational and abs(n.exp) > 4 for n in sympy.preorder_traversal(lhs - rhs)):
        raise ParseError("inequality of too high a degree")  # and expand would explode
    p = sympy.expand(lhs - rhs)
    if not p.is_polynomial(var) or sympy.degree(p, var) > 4 or p.free_symbols != {var}:
        raise ParseError("inequality is not a low-degree polynomial in one variable")
    a, b = p.coeff(var, 1), p.coeff(var, 0)
    if sympy.degree(p, var) == 1 and a.is_Rational:  # a*x + b op 0, solved by hand (fast)
        return _half_line(op if a > 0 else _FLIP[op], -b / a)
    rel = {"<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge, "!=": sympy.Ne}[op]
    return sympy.solve_univariate_inequality(rel(p, 0), var, relational=False)


def _closed(a: Answer) -> bool:
    """No free symbols anywhere: a side that states a value (6/3, (1, 2], {1, 2}), not a
    name for one (S, (x, y))."""
    if a.kind in (Kind.TEXT, Kind.HEDGE):
        return False
    if a.value is not None and a.value.free_symbols:
        return False
    return all(_closed(i) for i in a.items)


def _relation(sides: list[Answer], ops: list[str]) -> Answer:
    approximate = any(s.approximate for s in sides)
    if all(op == "=" for op in ops):
        first, last = sides[0], sides[-1]
        if first.kind not in _SCALAR or last.kind not in _SCALAR or not _val(first).free_symbols:
            # S = \{1, 2\}, (x, y) = (1, 2), \frac{6}{3} = 2: the value is what follows the
            # last '='. A closed side before it claims to equal it, and the oracle checks
            # the claim (6/3 = 2 holds, 43 = 42 does not); a name (S, (x, y)) claims nothing.
            return replace(last, claims=tuple((s, last) for s in sides[:-1] if _closed(s)))
        # y = 2x + 1 is an equation; x = 6/3 = 2 also claims its closed middle side equals
        # the last (a symbolic middle, y = f(x) = 2x + 1, is read as before: not checked).
        return Answer(
            Kind.EQUATION,
            sympy.Eq(_val(first), _val(last), evaluate=False),
            approximate=approximate,
            claims=tuple((s, last) for s in sides[1:-1] if _closed(s)),
        )
    if "=" in ops:
        raise ParseError("'=' mixed with inequalities")
    values = [_val(s) for s in sides]
    symbols = set().union(*(v.free_symbols for v in values))
    if len(symbols) != 1 or _PM in symbols:
        raise ParseError("inequality is not in exactly one variable")
    (var,) = symbols
    result = S.Reals
    for left, op, right in zip(values, ops, values[1:]):
        if left == var and var not in right.free_symbols:
            piece = _half_line(op, right)
        elif right == var and var not in left.free_symbols:
            piece = _half_line(_FLIP[op], left)
        else:
            piece = _solve_inequality(left, op, right, var)
        result = sympy.Intersection(result, piece)
    return Answer(Kind.INTERVAL, result, approximate=approximate)
