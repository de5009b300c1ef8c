"""Are two math answers the same mathematical value? The equivalence the oracle
(``oracle.py``) and the answer extractor (``extract.py``, for conflicting answers) share.

Rules (the table in docs/math-oracle.md):

* Numbers are exact. Decimal literals are exact rationals, so pi != 3.14 and
  1/2^99 != 1/2^98; the only slack is a relative 1e-12 when one side is written as a
  decimal, for float artefacts (0.30000000000000004 == 0.3).
* Expressions with symbols: a numeric check at fixed pseudo-random points (50 digits, both
  signs) rejects most differences in microseconds; agreement is then confirmed by sympy
  (expand / simplify of the difference) when the expression is small enough to be safe.
* A percent `a%` equals `a` and `a/100`; without a % on either side 50 != 0.5.
* Equations are equal when proportional (y=2x+1 ~ 2x-y+1=0) or, in one variable, when
  they have the same roots; `x = 5` equals `5`.
* Sets and bare lists compare unordered, tuples ordered, intervals exactly (open/closed
  ends), inequalities as the intervals they describe, matrices elementwise, text exactly
  after lowercasing. A hedge ("2 or 3") equals nothing.

Pure and deterministic: no global state is changed, the sample points are fixed.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Iterable

import mpmath
import sympy
from sympy import S

from .answer import Answer, Kind, ParseError
from .latex import parse_answer

APPROX_REL = 1e-12  # slack when a side is written as a decimal (float artefacts only)
EXACT_REL = 1e-30  # numeric agreement needed, at 50 digits, before asking sympy
N_POINTS = 6
MAX_SYMPY_NODES = 200  # larger differences are not handed to expand/simplify
MAX_SYMPY_EXP = 24  # ... nor powers above this (expand of (x+1)^1000 takes seconds)
MAX_NUMERIC_ARG = 10**5  # larger exponents / function arguments have no numeric value here

_MP = mpmath.MPContext()  # our own context: never touch mpmath's global precision
_MP.dps = 50
_SCALAR = (Kind.NUMBER, Kind.EXPR)
_COLLECTIONS = (Kind.SET, Kind.LIST, Kind.TUPLE)

# ---------------------------------------------------------------------------------------
# numeric evaluation of the expressions our parser builds
# ---------------------------------------------------------------------------------------


class _NoValue(Exception):
    """The expression has no finite numeric value at this point (or uses an unknown function)."""


_MP_FUNCS = {
    sympy.sin: _MP.sin,
    sympy.cos: _MP.cos,
    sympy.tan: _MP.tan,
    sympy.cot: _MP.cot,
    sympy.sec: _MP.sec,
    sympy.csc: _MP.csc,
    sympy.asin: _MP.asin,
    sympy.acos: _MP.acos,
    sympy.atan: _MP.atan,
    sympy.acot: _MP.acot,
    sympy.sinh: _MP.sinh,
    sympy.cosh: _MP.cosh,
    sympy.tanh: _MP.tanh,
    sympy.exp: _MP.exp,
    sympy.log: _MP.log,
    sympy.Abs: abs,
    sympy.floor: _MP.floor,
    sympy.ceiling: _MP.ceil,
    sympy.factorial: _MP.factorial,
    sympy.binomial: _MP.binomial,
    sympy.re: _MP.re,
    sympy.im: _MP.im,
}


def _mp(expr, env: dict):
    """Evaluate with mpmath by walking the tree: no lambdify (it execs generated code)."""
    if expr.is_Rational:
        return _MP.mpf(expr.p) / expr.q
    if expr.is_Symbol:
        return env[expr]
    if expr is S.Pi:
        return _MP.pi
    if expr is S.Exp1:
        return _MP.e
    if expr is S.ImaginaryUnit:
        return _MP.j
    if expr.is_Add:
        return _MP.fsum(_mp(a, env) for a in expr.args)
    if expr.is_Mul:
        return _MP.fprod(_mp(a, env) for a in expr.args)
    if expr.is_Pow:
        base, exp = _mp(expr.base, env), _mp(expr.exp, env)
        if abs(exp) > MAX_NUMERIC_ARG:  # x^{10^{4000}}: mpmath would take seconds
            raise _NoValue("exponent too large")
        return _MP.power(base, exp)
    fn = _MP_FUNCS.get(expr.func)
    if fn is None:
        raise _NoValue(str(expr.func))
    args = [_mp(a, env) for a in expr.args]
    if any(abs(a) > MAX_NUMERIC_ARG for a in args):  # exp(10^4000), sin(10^4000), 10^6!
        raise _NoValue("argument too large")
    return fn(*args)


def _value_at(expr, env: dict):
    try:
        v = _MP.mpc(_mp(expr, env))
    except (_NoValue, ArithmeticError, ValueError, TypeError, KeyError):
        return None
    return v if _MP.isfinite(v.real) and _MP.isfinite(v.imag) else None


def _points(symbols: Iterable) -> list[dict]:
    """Fixed sample points, seeded by the symbol names: magnitudes in 0.3..2.9, signs
    alternating so that every symbol is negative at half the points (x vs |x|)."""
    names = sorted(symbols, key=str)
    rng = random.Random("|".join(map(str, names)))
    return [{s: _MP.mpf((-1) ** (k + j) * rng.uniform(0.3, 2.9)) for j, s in enumerate(names)} for k in range(N_POINTS)]


def _close(x, y, rel: float) -> bool:
    return abs(x - y) <= rel * max(abs(x), abs(y)) or abs(x - y) < _MP.mpf("1e-45")


# ---------------------------------------------------------------------------------------
# scalars
# ---------------------------------------------------------------------------------------


def _tame(expr) -> bool:
    """Small enough for expand/simplify/Poly to finish quickly: no huge trees, no (a+b)^100,
    no x^(10^10) (a dense polynomial of that degree would not fit in memory)."""
    for n, node in enumerate(sympy.preorder_traversal(expr)):
        if n > MAX_SYMPY_NODES:
            return False
        if node.is_Pow and node.exp.is_Rational and abs(node.exp) > MAX_SYMPY_EXP:
            return False
    return True


def _sympy_zero(diff) -> bool | None:
    """Does sympy prove diff == 0 (True), prove it nonzero (False), or not know (None)?"""
    if not _tame(diff):
        return None
    try:
        for step in (sympy.expand, sympy.simplify):
            diff = step(diff)
            if diff == 0:
                return True
            if diff.is_number and diff.is_zero is False:
                return False
    except Exception:  # sympy's simplifiers raise assorted errors on odd input
        return None
    return None


def _expr_equal(a, b, approximate: bool) -> bool:
    if a == b:
        return True
    if a.is_Rational and b.is_Rational:
        return approximate and abs(a - b) <= APPROX_REL * max(abs(a), abs(b))
    if a.has(S.Infinity, S.NegativeInfinity) or b.has(S.Infinity, S.NegativeInfinity):
        return False  # structural equality above was the only way
    rel = APPROX_REL if approximate else EXACT_REL
    agreed = 0
    for env in _points(a.free_symbols | b.free_symbols):
        va, vb = _value_at(a, env), _value_at(b, env)
        if va is None or vb is None:
            continue
        if not _close(va, vb, rel):
            return False
        agreed += 1
        if not (a.free_symbols or b.free_symbols):
            break  # a constant has one value
    if agreed == 0:
        return False  # no numeric value anywhere (overflow, domain): not provably equal
    proof = _sympy_zero(a - b) if not approximate else None
    if proof is not None:
        return proof
    return True  # 50-digit agreement at every point, where sympy could not decide


def _scalars_equal(a: Answer, b: Answer) -> bool:
    approximate = a.approximate or b.approximate
    if a.percent == b.percent:
        return _expr_equal(a.value, b.value, approximate)
    p, q = (a, b) if a.percent else (b, a)  # 10% equals 10 and 0.1
    return _expr_equal(p.value, q.value, approximate) or _expr_equal(
        p.value * sympy.Rational(1, 100), q.value, approximate
    )


# ---------------------------------------------------------------------------------------
# equations
# ---------------------------------------------------------------------------------------


def _solved_value(eq):
    """`x = 5` -> 5, `y = 2x+1` -> 2x+1, `2x = 4` -> 2; None when not of that shape."""
    lhs, rhs = eq.lhs, eq.rhs
    if lhs.is_Symbol and lhs not in rhs.free_symbols:
        return rhs
    if rhs.is_Symbol and rhs not in lhs.free_symbols:
        return lhs
    f = lhs - rhs
    if len(f.free_symbols) == 1 and _tame(f):
        (v,) = f.free_symbols
        try:
            poly = sympy.Poly(f, v)
        except sympy.PolynomialError:
            return None
        if poly.degree() == 1:
            a, b = poly.all_coeffs()
            return -b / a
    return None


def _proportional(fa, fb, approximate: bool) -> bool:
    """fa == k * fb for one nonzero constant k (2x-y+1 = -(y-2x-1))."""
    rel = APPROX_REL if approximate else EXACT_REL
    ratio, agreed = None, 0
    for env in _points(fa.free_symbols | fb.free_symbols):
        va, vb = _value_at(fa, env), _value_at(fb, env)
        if va is None or vb is None:
            continue
        if abs(vb) < 1e-40 or abs(va) < 1e-40:
            if abs(vb) < 1e-40 and abs(va) < 1e-40:
                continue
            return False
        r = va / vb
        if ratio is None:
            ratio = r
        elif not _close(r, ratio, rel):
            return False
        agreed += 1
    if agreed < 2:
        return False
    if not approximate and _tame(fa) and _tame(fb):
        try:
            k = sympy.cancel(fa / fb)
            if not k.free_symbols:
                return k != 0
        except Exception:
            pass
    return True


def _roots(f):
    if len(f.free_symbols) != 1 or not _tame(f):
        return None
    (v,) = f.free_symbols
    try:
        poly = sympy.Poly(f, v)
        if not 1 <= poly.degree() <= 4:
            return None
        found = sympy.roots(poly)
    except Exception:
        return None
    return list(found) if sum(found.values()) == poly.degree() else None


def _equations_equal(ea, eb, approximate: bool) -> bool:
    va, vb = _solved_value(ea), _solved_value(eb)
    same_var = ea.lhs.is_Symbol and eb.lhs.is_Symbol and ea.lhs == eb.lhs
    if va is not None and vb is not None and same_var and _expr_equal(va, vb, approximate):
        return True
    fa, fb = ea.lhs - ea.rhs, eb.lhs - eb.rhs
    if fa.free_symbols != fb.free_symbols:
        return False
    if _proportional(fa, fb, approximate):
        return True
    ra, rb = _roots(fa), _roots(fb)  # same solution set: x^2 = 4 and (x-2)(x+2) = 0
    if ra is None or rb is None:
        return False
    return _match_unordered([_num(r) for r in ra], [_num(r) for r in rb])


def _num(v, approximate: bool = False) -> Answer:
    return Answer(Kind.EXPR if v.free_symbols else Kind.NUMBER, v, approximate=approximate)


# ---------------------------------------------------------------------------------------
# sets, intervals, collections
# ---------------------------------------------------------------------------------------


def _pieces(s):
    """An interval/union/finite set as sorted (lo, hi, left_open, right_open) tuples."""
    if s is S.EmptySet:
        return []
    if s.is_Interval:
        return [(s.start, s.end, bool(s.left_open), bool(s.right_open))]
    if s.is_FiniteSet:
        return sorted(((v, v, False, False) for v in s.args), key=lambda p: _sort_key(p[0]))
    if s.is_Union:
        out = [p for arg in s.args for p in (_pieces(arg) or [])]
        return sorted(out, key=lambda p: (_sort_key(p[0]), _sort_key(p[1])))
    return None


def _sort_key(v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError, OverflowError):
        return 0.0


def _sets_equal(sa, sb, approximate: bool) -> bool:
    if sa == sb:
        return True
    pa, pb = _pieces(sa), _pieces(sb)
    if pa is None or pb is None or len(pa) != len(pb):
        return False
    return all(
        x[2:] == y[2:] and _expr_equal(x[0], y[0], approximate) and _expr_equal(x[1], y[1], approximate)
        for x, y in zip(pa, pb)
    )


def _as_sympy_set(a: Answer):
    """A set/list of real numbers, or a 2-tuple read as an open interval; else None."""
    reals = all(i.kind == Kind.NUMBER and not i.percent and i.value.is_extended_real for i in a.items)
    if a.kind in (Kind.SET, Kind.LIST) and reals:
        return sympy.FiniteSet(*(i.value for i in a.items))
    if a.kind == Kind.TUPLE and len(a.items) == 2 and reals:
        lo, hi = a.items[0].value, a.items[1].value
        if (lo < hi) is S.true:
            return sympy.Interval.open(lo, hi)
    return None


def _match_unordered(xs, ys) -> bool:
    """Every item of each side has an equivalent on the other side."""
    exact = lambda i: i.kind == Kind.NUMBER and i.value.is_Rational and not i.percent and not i.approximate  # noqa: E731
    if all(map(exact, xs)) and all(map(exact, ys)):  # fast path: 1001 integers
        return {i.value for i in xs} == {i.value for i in ys}
    return all(any(equivalent(x, y) for y in ys) for x in xs) and all(any(equivalent(x, y) for x in xs) for y in ys)


def _match_ordered(xs, ys) -> bool:
    return len(xs) == len(ys) and all(equivalent(x, y) for x, y in zip(xs, ys))


def _collections_equal(a: Answer, b: Answer) -> bool:
    if Kind.TUPLE in (a.kind, b.kind):
        if {a.kind, b.kind} <= {Kind.TUPLE, Kind.LIST}:
            return _match_ordered(a.items, b.items)
        return False
    if a.kind == b.kind == Kind.LIST and len(a.items) != len(b.items):
        return False
    return _match_unordered(a.items, b.items)


def _matrix_items(a: Answer) -> list | None:
    if a.kind == Kind.MATRIX:
        return [_num(v) for v in a.value]
    return list(a.items) if a.kind in (Kind.TUPLE, Kind.LIST) else None


# ---------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------


def equivalent(a: Answer, b: Answer) -> bool:
    """Are a and b the same mathematical answer? Symmetric; a hedge equals nothing."""
    ka, kb = a.kind, b.kind
    if Kind.HEDGE in (ka, kb):
        return False
    if a.claims or b.claims:  # a chain: true (6/3 = 2) or a false statement (43 = 42)
        return _chain_holds(a) and _chain_holds(b) and equivalent(_value_only(a), _value_only(b))
    if a == b:  # structurally identical (cheap, and the only way for x^{10^{10}} = 5)
        return True
    if ka in _SCALAR and kb in _SCALAR:
        return _scalars_equal(a, b)
    if ka == Kind.TEXT or kb == Kind.TEXT:
        return _text_equal(a, b) if ka == Kind.TEXT else _text_equal(b, a)
    if ka == Kind.EQUATION or kb == Kind.EQUATION:
        return _equation_vs(a, b) if ka == Kind.EQUATION else _equation_vs(b, a)
    if ka == Kind.INTERVAL or kb == Kind.INTERVAL:
        return _interval_vs(a, b) if ka == Kind.INTERVAL else _interval_vs(b, a)
    if ka == Kind.MATRIX or kb == Kind.MATRIX:
        return _matrix_vs(a, b)
    if ka in _COLLECTIONS and kb in _COLLECTIONS:
        return _collections_equal(a, b)
    # a one-element set against a bare value: {5} ~ 5
    single, other = (a, b) if ka == Kind.SET else (b, a)
    if single.kind == Kind.SET and len(single.items) == 1:
        return equivalent(single.items[0], other)
    return False


def _value_only(a: Answer) -> Answer:
    return dataclasses.replace(a, claims=())


def _chain_holds(a: Answer) -> bool:
    """Every pair of sides the chain claims equal is equal."""
    return all(equivalent(left, right) for left, right in a.claims)


def _text_equal(t: Answer, other: Answer) -> bool:
    if other.kind == Kind.TEXT:
        return t.value == other.value
    # "A" (a choice) against the symbol a
    return other.kind == Kind.EXPR and other.value.is_Symbol and str(other.value).lower() == t.value


def _equation_vs(eq: Answer, other: Answer) -> bool:
    approximate = eq.approximate or other.approximate
    if other.kind == Kind.EQUATION:
        return _equations_equal(eq.value, other.value, approximate)
    value = _solved_value(eq.value)
    if value is None:
        return False
    return equivalent(_num(value, eq.approximate), other)


def _interval_vs(iv: Answer, other: Answer) -> bool:
    approximate = iv.approximate or other.approximate
    if other.kind == Kind.INTERVAL:
        return _sets_equal(iv.value, other.value, approximate)
    if other.kind in _COLLECTIONS:
        s = _as_sympy_set(other)
        return s is not None and _sets_equal(iv.value, s, approximate)
    return False


def _matrix_vs(a: Answer, b: Answer) -> bool:
    if a.kind == b.kind == Kind.MATRIX:
        if a.value.shape != b.value.shape:
            return False
    elif 1 not in (a.value.shape if a.kind == Kind.MATRIX else b.value.shape):
        return False  # only a vector may equal a tuple
    xs, ys = _matrix_items(a), _matrix_items(b)
    return xs is not None and ys is not None and _match_ordered(xs, ys)


@functools.lru_cache(maxsize=4096)
def answers_equivalent(candidate: str, gold: str) -> bool:
    """String form of :func:`equivalent`; an unparseable side is never equivalent."""
    try:
        return equivalent(parse_answer(candidate), parse_answer(gold))
    except ParseError:
        return False
