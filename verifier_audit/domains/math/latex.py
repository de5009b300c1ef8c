"""Read a final answer written in LaTeX or plain text into an :class:`Answer`.

Our own recursive-descent parser, in steps::

    _normalise(text)  Unicode and wrappers ($...$, \\boxed{...}) -> plain LaTeX-ish string
    _tokenize(text)   -> list of _Tok (numbers, letters, words, commands, operators)
    _Parser           tokens -> Answer holding sympy objects built directly
    _parse_cached     hedges and prose first, then the parser; memoised per string

Why not ``sympify`` / ``parse_expr`` / ``parse_latex``: the first two ``eval`` their input
(model output is hostile), and the LaTeX parsers we measured are slower and fail on common
answer forms (percent, intervals, sets, thousands separators); see docs/math-oracle.md.

Hostile input is bounded before any work: a length cap, a bracket-depth cap checked in one
linear pass, no control characters or lone surrogates, and exact numbers larger than
``MAX_BITS`` are refused (ParseError) instead of being computed, so ``5^{5^{5^{5^5}}}``
costs microseconds.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import NamedTuple, Optional

import sympy
from sympy import Integer, Rational, S

from .answer import Answer, Kind, ParseError

MAX_LEN = 10_000  # characters; a final answer is never longer
MAX_DEPTH = 40  # bracket nesting; keeps Python recursion far below its limit
MAX_BITS = 40_000  # ~12,000 digits: the largest exact number we agree to compute
MAX_ITEMS = 2_000  # elements of a list/set/tuple/matrix
ROOT_BITS = 512  # roots of larger integers are not handed to sympy (it factors them)

# ---------------------------------------------------------------------------------------
# Step 1: normalisation
# ---------------------------------------------------------------------------------------

_UNICODE = {
    # dashes and minus signs that models emit instead of '-'
    "\u2212": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\ufe63": "-", "\uff0d": "-",
    "\u00d7": r"\times ", "\u00f7": r"\div ", "\u00b7": r"\cdot ", "\u22c5": r"\cdot ",
    "\u2219": r"\cdot ", "\u221a": r"\sqrt ", "\u03c0": r"\pi ", "\u221e": r"\infty ",
    "\u2264": r"\le ", "\u2265": r"\ge ", "\u2a7d": r"\le ", "\u2a7e": r"\ge ", "\u2260": r"\ne ",
    "\u2248": r"\approx ", "\u00b0": r"^\circ ", "\u00b1": r"\pm ", "\u2213": r"\mp ",
    "\u222a": r"\cup ", "\u2229": r"\cap ", "\u2208": r"\in ", "\u2205": r"\emptyset ",
    "\u2228": r"\lor ", "\u2227": r"\land ", "\u27e8": r"\langle ", "\u27e9": r"\rangle ",
    "\u03b8": r"\theta ", "\u03b1": r"\alpha ", "\u03b2": r"\beta ", "\u03b3": r"\gamma ",
    "\u03bb": r"\lambda ", "\u03bc": r"\mu ", "\u03c6": r"\phi ", "\u03c9": r"\omega ",
    "\u00bd": r"\frac{1}{2}", "\u2153": r"\frac{1}{3}", "\u2154": r"\frac{2}{3}",
    "\u00bc": r"\frac{1}{4}", "\u00be": r"\frac{3}{4}", "\u2155": r"\frac{1}{5}",
    "\u2159": r"\frac{1}{6}", "\u215b": r"\frac{1}{8}", "\u2044": "/", "\u2215": "/",
    "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2007": " ", "\u3000": " ",
    "\u200b": "", "\u200c": "", "\u200d": "", "\ufeff": "", "\u2060": "",
    "\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'",
}
_SUPERSCRIPT = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6",
                "⁷": "7", "⁸": "8", "⁹": "9", "⁻": "-", "⁺": "+"}
_SUPER_RUN = re.compile("[" + "".join(_SUPERSCRIPT) + "]+")
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_UNICODE_RE = re.compile("|".join(map(re.escape, _UNICODE)))


def _normalise(text: str) -> str:
    if len(text) > MAX_LEN:
        raise ParseError(f"answer longer than {MAX_LEN} characters")
    if _BAD_CHARS.search(text):
        raise ParseError("control character or lone surrogate in answer")
    # Superscripts before NFKC, which would flatten 2¹⁰⁰ into 2100.
    text = _SUPER_RUN.sub(lambda m: "^{" + "".join(_SUPERSCRIPT[c] for c in m.group()) + "}", text)
    text = _UNICODE_RE.sub(lambda m: _UNICODE[m.group()], text)
    text = unicodedata.normalize("NFKC", text)
    text = text.replace(r"\$", " ").replace("$", " ")  # math delimiters and currency
    text = text.strip()
    for opener, closer in ((r"\(", r"\)"), (r"\[", r"\]")):
        if text.startswith(opener) and text.endswith(closer):
            text = text[2:-2].strip()
    text = text.rstrip(". \t\n\r\f\v")  # a sentence's full stop: "5." -> "5"
    for _ in range(3):  # the whole answer inside \boxed{...}; deeper boxes go to the parser
        text = _unwrap_box(text)
    if not text:
        raise ParseError("empty answer")
    _check_depth(text)
    return text


def _unwrap_box(text: str) -> str:
    m = re.match(r"\\(?:boxed|fbox)\s*\{", text)
    if not m or not text.endswith("}"):
        return text
    depth = 0
    for i in range(m.end() - 1, len(text)):
        ch = text[i]
        if ch == "{" and text[i - 1] != "\\":
            depth += 1
        elif ch == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[m.end():i].strip() if i == len(text) - 1 else text
    return text


def _check_depth(text: str) -> None:
    """Reject deep nesting in one linear pass, before any recursion can start."""
    depth = 0
    for ch in text:
        if ch in "{([":
            depth += 1
            if depth > MAX_DEPTH:
                raise ParseError(f"brackets nested deeper than {MAX_DEPTH}")
        elif ch in "})]":
            depth = max(0, depth - 1)


# ---------------------------------------------------------------------------------------
# Step 2: tokens
# ---------------------------------------------------------------------------------------


class _Tok(NamedTuple):
    kind: str  # num | letter | word | cmd | op | begin | end
    text: str
    textmode: bool = False  # came from \text{...}: a word there is prose, never a product


FUNCTIONS = {
    "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "cot": sympy.cot, "sec": sympy.sec,
    "csc": sympy.csc, "arcsin": sympy.asin, "arccos": sympy.acos, "arctan": sympy.atan,
    "asin": sympy.asin, "acos": sympy.acos, "atan": sympy.atan, "arccot": sympy.acot,
    "sinh": sympy.sinh, "cosh": sympy.cosh, "tanh": sympy.tanh, "exp": sympy.exp,
    "ln": sympy.log, "log": sympy.log, "lg": None, "sqrt": None, "abs": sympy.Abs,
}
_INVERSE = {"sin": sympy.asin, "cos": sympy.acos, "tan": sympy.atan}
_CONSTANT_WORDS = {"pi": sympy.pi, "inf": S.Infinity, "infty": S.Infinity,
                   "infinity": S.Infinity}
GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta",
    "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "rho", "sigma", "tau", "upsilon",
    "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi",
    "Sigma", "Phi", "Psi", "Omega",
}
HEDGE_WORDS = {"or"}
HEDGE_CMDS = {"lor", "vee"}
FILLER = {"maybe", "perhaps", "possibly", "probably", "either"}
# Short units that would otherwise be split into a product of letters (cm -> c*m).
SHORT_UNITS = {
    "cm", "mm", "km", "kg", "mg", "lb", "lbs", "oz", "ft", "yd", "mi", "hr", "hrs", "min",
    "mins", "sec", "ms", "ml", "mL", "mph", "kph", "deg", "rad", "sq", "cu", "cc", "kWh", "pt",
    "pts", "usd",
}
# English words kept whole so "x is 5" is an error, not the product x*i*s*5.
_ENGLISH = {
    "or", "and", "not", "is", "are", "was", "the", "be", "it", "of", "to", "for", "so", "we",
    "has", "all", "any", "can", "one", "two", "its", "at", "on", "by", "as", "an", "if", "but",
    "nor", "yes", "no", "none", "odd", "even", "nan", "inf", "pi", "in", "per", "mod", "max",
    "min", "gcd", "lcm", "due", "get", "let", "our", "you", "true", "false", "neither", "both",
}
_SKIP_CMDS = {
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl",
    "biggr", "Biggl", "Biggr", "middle", "displaystyle", "textstyle", "scriptstyle",
    "quad", "qquad", "limits", "nolimits", "!", ",", ";", ":", " ", "enspace", "thinspace",
    "medspace", "thickspace", "negthinspace", "hfill", "mathstrut", "strut", "space", "$",
    "noindent", "nonumber", "notag",
}
_TEXT_WRAPPERS = {"text", "textrm", "textbf", "textit", "textsf", "texttt", "textnormal",
                  "textup", "textmd", "mbox", "hbox", "emph"}
_MATH_WRAPPERS = {"mathrm", "mathbf", "mathit", "mathsf", "mathtt", "mathnormal",
                  "boldsymbol", "bm", "pmb", "mathbb", "mathcal", "operatorname"}
_CMD_ALIAS = {  # command -> token it stands for
    "cdot": ("op", "*"), "times": ("op", "*"), "ast": ("op", "*"), "div": ("op", "/"),
    "le": ("op", "<="), "leq": ("op", "<="), "leqslant": ("op", "<="), "leqq": ("op", "<="),
    "ge": ("op", ">="), "geq": ("op", ">="), "geqslant": ("op", ">="), "geqq": ("op", ">="),
    "lt": ("op", "<"), "gt": ("op", ">"), "ne": ("op", "!="), "neq": ("op", "!="),
    "approx": ("op", "="), "{": ("op", "lbrace"), "}": ("op", "rbrace"),
    "lbrace": ("op", "lbrace"), "rbrace": ("op", "rbrace"), "langle": ("op", "("),
    "rangle": ("op", ")"), "lvert": ("op", "|"), "rvert": ("op", "|"), "vert": ("op", "|"),
    "mid": ("op", "|"), "%": ("op", "%"), "\\": ("op", "rowsep"), "cr": ("op", "rowsep"),
    "dfrac": ("cmd", "frac"), "tfrac": ("cmd", "frac"), "cfrac": ("cmd", "frac"),
    "dbinom": ("cmd", "binom"), "tbinom": ("cmd", "binom"), "degree": ("op", "deg"),
    "varnothing": ("cmd", "emptyset"), "infin": ("cmd", "infty"), "fbox": ("cmd", "boxed"),
    "lnot": ("word", "not"), "neg": ("word", "not"), "dots": ("cmd", "dots"),
    "ldots": ("cmd", "dots"), "cdots": ("cmd", "dots"),
}
_NUM_RE = re.compile(r"\d+")
_THOUSANDS_SEP = re.compile(r",(?=\d{3}(?!\d))|\{,\}(?=\d{3}(?!\d))|\\,(?=\d{3}(?!\d))")
_EXP_RE = re.compile(r"[eE][+-]?\d+")
_LETTERS = re.compile(r"[A-Za-z]+")


def _read_group(text: str, i: int) -> tuple[str, int]:
    """The content of the brace group at text[i] ('{') and the index after it."""
    depth = 0
    for j in range(i, len(text)):
        ch = text[j]
        if ch == "\\":
            continue
        if ch == "{" and text[j - 1] != "\\":
            depth += 1
        elif ch == "}" and text[j - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[i + 1:j], j + 1
    raise ParseError("unbalanced braces")


def _read_arg(text: str, i: int) -> tuple[str, int]:
    """A command argument: a brace group, or one character (\\text x)."""
    while i < len(text) and text[i] == " ":
        i += 1
    if i >= len(text):
        raise ParseError("missing argument")
    if text[i] == "{":
        return _read_group(text, i)
    return text[i], i + 1


def _read_number(text: str, i: int) -> tuple[str, int]:
    """Digits with thousands separators, a decimal part and an exponent: '12,345.5e3'.

    A leading '.5' reads as '0.5'. Thousands separators (12,345 / 12{,}345 / 12\\,345) are
    removed only when EVERY later group has exactly three digits, so '(1,2)' and '2, 3'
    stay a tuple and a list.
    """
    if text[i] == ".":
        digits, j = "0", i
    else:
        m = _NUM_RE.match(text, i)
        digits, j = m.group(), m.end()
        if len(digits) <= 3 and not digits.startswith("0"):
            groups, k = [], j
            while (sep := _THOUSANDS_SEP.match(text, k)) is not None:
                groups.append(text[sep.end():sep.end() + 3])
                k = sep.end() + 3
            bad_tail = text[k:k + 1] == "," and text[k + 1:k + 2].isdigit()  # 1,234,56
            if groups and not bad_tail:
                digits += "".join(groups)
                j = k
    if j + 1 < len(text) and text[j] == "." and text[j + 1].isdigit():
        m = _NUM_RE.match(text, j + 1)
        digits += "." + m.group()
        j = m.end()
    if (e := _EXP_RE.match(text, j)) is not None and not text[e.end():e.end() + 1].isalpha():
        digits += e.group().lower()
        j = e.end()
    return digits, j


def _tokenize(text: str, textmode: bool = False) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace() or ch == "~":
            i += 1
        elif ch.isdigit() or (ch == "." and i + 1 < n and text[i + 1].isdigit()):
            num, j = _read_number(text, i)
            toks.append(_Tok("num", num, textmode))
            i = j
        elif ch.isalpha():
            m = _LETTERS.match(text, i)
            if m is None:  # a non-ASCII letter left after NFKC
                toks.append(_Tok("word", ch, textmode))
                i += 1
                continue
            toks.extend(_letter_run(m.group(), textmode))
            i = m.end()
        elif ch == "\\":
            i = _tokenize_command(text, i, toks, textmode)
        elif ch == "^" and (deg := re.match(r"\^\s*(?:\\circ\b|\{\s*\\circ\s*\})", text[i:i + 16])):
            toks.append(_Tok("op", "deg"))
            i += deg.end()
        elif text.startswith(("<=", ">=", "!=", "=<", "=>"), i):
            two = text[i:i + 2]
            toks.append(_Tok("op", {"=<": "<=", "=>": ">="}.get(two, two)))
            i += 2
        else:
            toks.append(_Tok("op", ch, textmode))
            i += 1
    return toks


def _letter_run(run: str, textmode: bool) -> list[_Tok]:
    """Prose stays a word; in math a short unknown run is a product (xy -> x*y)."""
    keep_whole = run in FUNCTIONS or run in SHORT_UNITS or run.lower() in _ENGLISH \
        or run.lower() in _CONSTANT_WORDS
    if textmode or len(run) > 3 or keep_whole:
        return [_Tok("word", run, textmode)]
    return [_Tok("letter", c) for c in run]


def _tokenize_command(text: str, i: int, toks: list[_Tok], textmode: bool) -> int:
    m = _LETTERS.match(text, i + 1)
    if m is None:  # \{ \% \, \\ and friends
        name, j = text[i + 1:i + 2], i + 2
        if name == "":
            raise ParseError("lone backslash")
    else:
        name, j = m.group(), m.end()
    if name in _SKIP_CMDS:
        if name in ("left", "right") and text[j:j + 1] == ".":  # \left. is an invisible fence
            j += 1
        return j
    if name in _TEXT_WRAPPERS or name in _MATH_WRAPPERS:
        content, j = _read_arg(text, j)
        if name == "mathbb" and content.strip() == "R":
            toks.append(_Tok("cmd", "reals"))
        elif name == "operatorname":
            toks.append(_Tok("word", content.strip(), False))
        elif name in _TEXT_WRAPPERS:
            toks.extend(_tokenize(content, textmode=True))
        else:
            inner = content.strip()
            if _LETTERS.fullmatch(inner) and len(inner) > 1:  # \mathrm{cm}: a unit word
                toks.append(_Tok("word", inner, True))
            else:
                toks.extend(_tokenize(content, textmode))
        return j
    if name in ("begin", "end"):
        env, j = _read_arg(text, j)
        env = env.strip().rstrip("*")
        if name == "begin" and env == "array":  # skip the column spec {cc}
            _, j = _read_arg(text, j)
        toks.append(_Tok(name, env))
        return j
    if name == "circ":
        toks.append(_Tok("op", "deg"))
        return j
    kind, value = _CMD_ALIAS.get(name, ("cmd", name))
    toks.append(_Tok(kind, value, textmode))
    return j


# ---------------------------------------------------------------------------------------
# Step 3: sympy values, built directly and size-checked
# ---------------------------------------------------------------------------------------

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
        raise ParseError(f"cannot do arithmetic on a {a.kind.value}")
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
            return Answer(Kind.SET, items=items)
        return ans
    if ans.items:
        return Answer(ans.kind, ans.value, tuple(_finish(i) for i in ans.items),
                      ans.percent, ans.approximate)
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
    raise ParseError(f"cannot take a union of a {a.kind.value}")


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
        "!=": sympy.Union(sympy.Interval(-S.Infinity, c, True, True),
                          sympy.Interval(c, S.Infinity, True, True)),
    }[op]


def _solve_inequality(lhs, op: str, rhs, var):
    """Solve a low-degree polynomial inequality (2x+1>3); anything else is refused."""
    if any(n.is_Pow and n.exp.is_Rational and abs(n.exp) > 4
           for n in sympy.preorder_traversal(lhs - rhs)):
        raise ParseError("inequality of too high a degree")  # and expand would explode
    p = sympy.expand(lhs - rhs)
    if not p.is_polynomial(var) or sympy.degree(p, var) > 4 or p.free_symbols != {var}:
        raise ParseError("inequality is not a low-degree polynomial in one variable")
    a, b = p.coeff(var, 1), p.coeff(var, 0)
    if sympy.degree(p, var) == 1 and a.is_Rational:  # a*x + b op 0, solved by hand (fast)
        return _half_line(op if a > 0 else _FLIP[op], -b / a)
    rel = {"<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge, "!=": sympy.Ne}[op]
    return sympy.solve_univariate_inequality(rel(p, 0), var, relational=False)


def _relation(sides: list[Answer], ops: list[str]) -> Answer:
    approximate = any(s.approximate for s in sides)
    if all(op == "=" for op in ops):
        first, last = sides[0], sides[-1]
        if first.kind not in _SCALAR or last.kind not in _SCALAR:
            return last  # S = \{1, 2\}, (x, y) = (1, 2): the value is what follows '='
        if not _val(first).free_symbols:
            return last  # a numeric chain: \frac{6}{3} = 2
        return Answer(Kind.EQUATION, sympy.Eq(_val(first), _val(last), evaluate=False),
                      approximate=approximate)
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


# ---------------------------------------------------------------------------------------
# Step 4: the recursive-descent parser
# ---------------------------------------------------------------------------------------

_RELOPS = {"=", "<", ">", "<=", ">=", "!="}
_ATOM_CMDS = {"frac", "binom", "sqrt", "pi", "infty", "boxed", "lfloor", "lceil", "exp"}
_MATRIX_ENVS = {"matrix", "pmatrix", "bmatrix", "Bmatrix", "smallmatrix", "array"}


class _Parser:
    """Grammar, loosest first (each level is one method)::

        list     := union (',' union)*               2, 3  -> LIST
        union    := relation ('\\cup' relation)*      (-oo,1) \\cup (2,oo)
        relation := sum (relop sum)*                 y = 2x+1, 1 < x \\le 2, x \\in S
        sum      := term (('+'|'-'|'\\pm') term)*
        term     := sign* factor (('*'|'/'|implicit) factor)*
        factor   := atom postfix* ('^' exponent)? postfix*
        atom     := number | letter | \\frac.. | \\sqrt.. | function | ( ) [ ] { } \\{ \\} | | | matrix
    """

    def __init__(self, toks: list[_Tok]):
        self.toks = toks
        self.i = 0
        self.depth = 0
        self.in_abs = 0  # inside |...|, a '|' closes instead of opening

    # -- token helpers ------------------------------------------------------------------
    def peek(self, k: int = 0) -> Optional[_Tok]:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def at(self, kind: str, *texts: str) -> bool:
        t = self.peek()
        return t is not None and t.kind == kind and (not texts or t.text in texts)

    def take(self) -> _Tok:
        t = self.peek()
        if t is None:
            raise ParseError("unexpected end of answer")
        self.i += 1
        return t

    def accept(self, kind: str, *texts: str) -> bool:
        if self.at(kind, *texts):
            self.i += 1
            return True
        return False

    def expect(self, kind: str, text: str) -> None:
        if not self.accept(kind, text):
            t = self.peek()
            raise ParseError(f"expected {text!r}, found {t.text if t else 'end'!r}")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError(f"nested deeper than {MAX_DEPTH}")

    # -- grammar ------------------------------------------------------------------------
    def parse(self) -> Answer:
        self.accept("op", "=")  # "= 5", "\approx 3.14"
        ans = self.parse_list()
        while self.at("op", ".", ";", ",", "!", "?") or (self.peek() and self.peek().textmode
                                                         and self.peek().kind == "op"):
            self.take()  # trailing punctuation
        if self.peek() is not None:
            raise ParseError(f"unexpected {self.peek().text!r}")
        return _finish(ans)

    def parse_list(self) -> Answer:
        items = [self.parse_union()]
        while self.at("op", ",", ";") or self.at("word", "and"):
            self.take()
            if self.peek() is None or self.at("op", ")", "]", "}", "rbrace"):
                break  # trailing comma
            items.append(self.parse_union())
            if len(items) > MAX_ITEMS:
                raise ParseError("too many items")
        return items[0] if len(items) == 1 else Answer(Kind.LIST, items=tuple(items))

    def parse_union(self) -> Answer:
        left = self.parse_relation()
        while self.at("cmd", "cup", "cap"):
            op = self.take().text
            right = self.parse_relation()
            combine = sympy.Union if op == "cup" else sympy.Intersection
            left = Answer(Kind.INTERVAL, combine(_as_set(left), _as_set(right)),
                          approximate=left.approximate or right.approximate)
        return left

    def parse_relation(self) -> Answer:
        sides = [self.parse_function_name() or self.parse_sum()]
        ops: list[str] = []
        while True:
            t = self.peek()
            if t is not None and t.kind == "op" and t.text in _RELOPS:
                ops.append(self.take().text)
                sides.append(self.parse_sum())
            elif t is not None and (t.kind, t.text) in (("cmd", "in"), ("word", "in")):
                self.take()  # x \in S: the answer is S
                return self.parse_union()
            else:
                break
        return sides[0] if not ops else _relation(sides, ops)

    def parse_function_name(self) -> Optional[Answer]:
        """`f(x) = ...`: the left side names a function, it is not the product f*x."""
        if not (self.at("letter") and self.peek(1) and self.peek(1).text == "("):
            return None
        j, depth = self.i + 1, 0
        while j < len(self.toks):
            t = self.toks[j]
            depth += t.text == "("
            depth -= t.text == ")"
            if depth == 0:
                break
            j += 1
        after = self.toks[j + 1] if j + 1 < len(self.toks) else None
        if after is None or after.kind != "op" or after.text != "=":
            return None
        name = "".join(t.text for t in self.toks[self.i:j + 1])
        self.i = j + 1
        return _scalar(sympy.Symbol(name))

    def parse_sum(self) -> Answer:
        first = self.parse_term()
        if not (self.at("op", "+", "-") or self.at("cmd", "pm", "mp")):
            return first
        terms, approximate = [_val(first)], first.approximate
        while self.at("op", "+", "-") or self.at("cmd", "pm", "mp"):
            op = self.take().text
            t = self.parse_term()
            sign = {"+": 1, "-": -1, "pm": _PM, "mp": -_PM}[op]
            terms.append(sign * _val(t))
            approximate |= t.approximate
        return _scalar(sympy.Add(*terms), approximate)

    def parse_signs(self):
        """Leading +, -, \\pm: read in a loop (no recursion for '------5')."""
        sign = Integer(1)
        while self.at("op", "+", "-") or self.at("cmd", "pm", "mp"):
            sign *= {"+": 1, "-": -1, "pm": _PM, "mp": -_PM}[self.take().text]
        return sign

    def parse_term(self) -> Answer:
        sign = self.parse_signs()
        start = self.i
        first = self.parse_factor()
        factors, approximate = [], first.approximate
        left_is_int = self.i == start + 1 and self.toks[start].kind == "num" \
            and self.toks[start].text.isdigit()
        current = first
        while True:
            t = self.peek()
            if t is None:
                break
            if t.kind == "op" and t.text in ("*", "/"):
                self.take()
                s = self.parse_signs()
                right = self.parse_factor()
                v = s * _val(right)
                if t.text == "/":
                    if v.is_zero:
                        raise ParseError("division by zero")
                    v = _power(v, Integer(-1))
            elif self.starts_factor(t):
                frac_start = self.i
                right = self.parse_factor()
                v = _val(right)
                if left_is_int and not factors and t.kind == "cmd" and t.text == "frac" and all(
                        x.kind == "num" and x.text.isdigit() or x.text in ("frac", "{", "}")
                        for x in self.toks[frac_start:self.i]):
                    # a mixed number: 2\frac{1}{2} is 5/2, as written in school answers
                    current = _scalar(_val(current) + v)
                    approximate |= right.approximate
                    continue
            else:
                break
            factors.append(v)
            approximate |= right.approximate
            left_is_int = False
        if factors:
            return _scalar(_mul(sign, _val(current), *factors), approximate)
        if sign == 1:
            return current  # may be a tuple, set, interval...
        if current.kind not in _SCALAR:
            raise ParseError(f"sign before a {current.kind.value}")
        # -5\% stays a percent: the sign applies to the number as written
        return _scalar(sign * current.value, current.approximate, current.percent)

    def starts_factor(self, t: _Tok) -> bool:
        """Can t begin an implicitly multiplied factor (2x, 2\\pi, x(x+1))?"""
        if t.kind == "num":
            prev = self.toks[self.i - 1] if self.i else None
            return prev is None or prev.kind != "num"  # "2 3" is not 6
        if t.kind == "letter":
            return True
        if t.kind == "cmd":
            return t.text in _ATOM_CMDS or t.text in FUNCTIONS or t.text in GREEK
        if t.kind == "word":
            return t.text in FUNCTIONS or t.text.lower() in _CONSTANT_WORDS
        if t.kind == "op":
            return t.text in ("(", "{") or (t.text == "|" and self.in_abs == 0)
        return False

    def parse_factor(self) -> Answer:
        base = self.parse_postfix(self.parse_atom())
        if self.accept("op", "^"):
            exp = self.parse_exponent()
            base = _scalar(_power(_val(base), _val(exp)), base.approximate or exp.approximate)
            base = self.parse_postfix(base)
        return base

    def parse_exponent(self) -> Answer:
        """After '^': a group, or one signed factor (plain-text 2^100 means 2^{100})."""
        self.enter()
        try:
            if self.at("op", "{"):
                return self.parse_atom()
            sign = self.parse_signs()
            e = self.parse_factor()
            return e if sign == 1 else _scalar(sign * _val(e), e.approximate)
        finally:
            self.depth -= 1

    def parse_postfix(self, a: Answer) -> Answer:
        while True:
            if self.accept("op", "!"):
                a = _factorial(a)
            elif self.accept("op", "%") or self.accept("word", "percent", "pct"):
                if a.kind not in _SCALAR or a.percent:
                    raise ParseError("misplaced %")
                a = Answer(a.kind, a.value, percent=True, approximate=a.approximate)
            elif self.accept("op", "deg") or self.accept("word", "degrees", "degree", "deg"):
                pass  # 30^\circ is 30
            elif self.at_unit():
                self.take()
                if self.at("op", "^") and self.peek(1) and (self.peek(1).kind == "num" or
                                                             self.peek(1).text == "{"):
                    self.take()
                    self.parse_atom()  # cm^2: the exponent belongs to the unit
            else:
                return a

    def at_unit(self) -> bool:
        """A unit or other prose after a number: '5 cm', '5 \\text{ cm}', '12 eggs'."""
        t = self.peek()
        if t is None or t.kind != "word":
            return False
        w = t.text
        if w.lower() in _ENGLISH or w.lower() in FILLER or w in FUNCTIONS or w in GREEK:
            return False
        return w in SHORT_UNITS or t.textmode or len(w) >= 4

    def parse_atom(self) -> Answer:
        t = self.take()
        if t.kind == "num":
            return _number(t.text)
        if t.kind == "letter":
            return self.parse_symbol(t.text)
        if t.kind == "word":
            low = t.text.lower()
            if low in _CONSTANT_WORDS:
                return _scalar(_CONSTANT_WORDS[low])
            if t.text in FUNCTIONS:
                return self.parse_function(t.text)
            raise ParseError(f"unexpected word {t.text!r}")
        if t.kind == "cmd":
            return self.parse_command(t.text)
        if t.kind == "begin":
            return self.parse_matrix(t.text)
        if t.kind == "op":
            self.enter()
            try:
                if t.text in ("(", "["):
                    return self.parse_bracket(t.text)
                if t.text == "{":
                    inner = self.parse_list()
                    self.expect("op", "}")
                    return inner
                if t.text == "lbrace":
                    return self.parse_set()
                if t.text == "|":
                    self.in_abs += 1
                    inner = self.parse_sum()
                    self.in_abs -= 1
                    self.expect("op", "|")
                    return _scalar(sympy.Abs(_val(inner)), inner.approximate)
            finally:
                self.depth -= 1
        raise ParseError(f"unexpected {t.text!r}")

    def parse_symbol(self, name: str) -> Answer:
        if self.accept("op", "_"):  # x_1, a_{n}
            if self.at("op", "{"):
                start = self.i
                _read = self.parse_atom()
                sub = "".join(t.text for t in self.toks[start + 1:self.i - 1])
            else:
                sub = self.take().text
            return _scalar(sympy.Symbol(f"{name}_{sub}"))
        if name == "e":
            return _scalar(sympy.E)
        if name == "i":
            return _scalar(sympy.I)
        return _scalar(sympy.Symbol(name))

    def parse_bracket(self, opener: str) -> Answer:
        if self.at("op", ")", "]"):
            raise ParseError("empty brackets")
        items = [self.parse_union()]
        while self.accept("op", ",", ";"):
            items.append(self.parse_union())
            if len(items) > MAX_ITEMS:
                raise ParseError("too many items")
        closer = self.take().text
        if closer not in (")", "]"):
            raise ParseError(f"expected a closing bracket, found {closer!r}")
        same = (opener, closer) in (("(", ")"), ("[", "]"))
        if len(items) == 1:
            if not same:
                raise ParseError("mismatched brackets")
            return items[0]  # grouping
        if len(items) == 2 and all(_real_endpoint(x) for x in items):
            lo, hi = items[0].value, items[1].value
            infinite = lo.is_infinite or hi.is_infinite
            if not same or (opener == "[" and (lo <= hi) is S.true) or infinite:
                if (lo <= hi) is not S.true:
                    raise ParseError("interval with its ends reversed")
                return Answer(Kind.INTERVAL,
                              sympy.Interval(lo, hi, opener == "(", closer == ")"),
                              approximate=items[0].approximate or items[1].approximate)
        if not same:
            raise ParseError("mismatched brackets")
        return Answer(Kind.TUPLE, items=tuple(items))

    def parse_set(self) -> Answer:
        if self.accept("op", "rbrace"):
            return Answer(Kind.SET)
        items = [self.parse_union()]
        while self.accept("op", ",", ";"):
            items.append(self.parse_union())
            if len(items) > MAX_ITEMS:
                raise ParseError("too many items")
        self.expect("op", "rbrace")
        return Answer(Kind.SET, items=tuple(items))

    def parse_arg(self, first_digit: bool = False) -> Answer:
        """A command argument: {group}, (group), one letter, a command, or a number
        (\\frac12 takes one digit, as LaTeX does; \\sqrt12 takes the whole number)."""
        t = self.peek()
        if t is None:
            raise ParseError("missing argument")
        if t.kind == "num" and first_digit and t.text.isdigit() and len(t.text) > 1:
            self.toks[self.i] = _Tok("num", t.text[1:])  # the rest stays for the next arg
            return _number(t.text[0])
        if t.kind == "letter":
            self.take()
            return _scalar(sympy.E if t.text == "e" else sympy.Symbol(t.text))
        if t.kind in ("num", "cmd", "word") or (t.kind == "op" and t.text in ("{", "(", "[")):
            return self.parse_atom()
        raise ParseError(f"bad argument {t.text!r}")

    def parse_command(self, name: str) -> Answer:
        self.enter()
        try:
            if name == "frac":
                num, den = self.parse_arg(True), self.parse_arg(True)
                d = _val(den)
                if d.is_zero:
                    raise ParseError("division by zero")
                return _scalar(_mul(_val(num), _power(d, Integer(-1))),
                               num.approximate or den.approximate)
            if name == "binom":
                n, k = _val(self.parse_arg(True)), _val(self.parse_arg(True))
                if n.is_Integer and abs(n) > 10_000:
                    raise ParseError("binomial too large")
                return _scalar(sympy.binomial(n, k))
            if name == "sqrt":
                return self.parse_sqrt()
            if name == "boxed":
                return self.parse_arg()
            if name in ("lfloor", "lceil"):
                inner = self.parse_sum()
                self.expect("cmd", "rfloor" if name == "lfloor" else "rceil")
                fn = sympy.floor if name == "lfloor" else sympy.ceiling
                return _scalar(fn(_val(inner)), inner.approximate)
            if name == "pi":
                return _scalar(sympy.pi)
            if name == "infty":
                return _scalar(S.Infinity)
            if name == "emptyset":
                return Answer(Kind.SET)
            if name == "reals":
                return Answer(Kind.INTERVAL, S.Reals)
            if name in GREEK:
                return self.parse_symbol(name)
            if name in FUNCTIONS:
                return self.parse_function(name)
            raise ParseError(f"unsupported command \\{name}")
        finally:
            self.depth -= 1

    def parse_sqrt(self) -> Answer:
        index = None
        if self.accept("op", "["):
            index = self.parse_sum()
            self.expect("op", "]")
        arg = self.parse_arg()
        v = _val(arg)
        if index is None:
            return _scalar(_power(v, Rational(1, 2)), arg.approximate)
        n = _val(index)
        if n.is_zero:
            raise ParseError("zeroth root")
        approximate = arg.approximate or index.approximate
        if n.is_Integer and n % 2 == 1 and v.is_extended_negative:  # \sqrt[3]{-8} is -2
            return _scalar(-_power(-v, _power(n, Integer(-1))), approximate)
        return _scalar(_power(v, _power(n, Integer(-1))), approximate)

    def parse_function(self, name: str) -> Answer:
        """\\sin x, \\sin(x), \\sin^2 x, \\sin^{-1} x, \\log_2 8, \\ln|x|, sqrt(2)."""
        if name == "sqrt":
            return self.parse_sqrt()
        base = power = None
        fn = FUNCTIONS[name]
        if name == "lg":
            fn, base = sympy.log, Integer(10)
        if name == "log" and self.accept("op", "_"):
            base = _val(self.parse_arg())
        if self.accept("op", "^"):
            e = _val(self.parse_exponent())
            if e == -1 and name in _INVERSE:
                fn = _INVERSE[name]
            else:
                power = e
        if self.at("op", "(", "{", "["):
            arg = self.parse_atom()
            value, approximate = _val(arg), arg.approximate
        else:  # \sin 2x: the argument runs to the next operator or function
            arg = self.parse_factor()
            value, approximate = _val(arg), arg.approximate
            while (t := self.peek()) is not None and self.starts_factor(t) and not (
                    t.text in FUNCTIONS):
                nxt = self.parse_factor()
                value, approximate = _mul(value, _val(nxt)), approximate or nxt.approximate
        out = sympy.log(value, base) if base is not None else fn(value)
        if power is not None:
            out = _power(out, power)
        return _scalar(out, approximate)

    def parse_matrix(self, env: str) -> Answer:
        if env not in _MATRIX_ENVS:
            raise ParseError(f"unsupported environment {env}")
        self.enter()
        rows: list[list] = [[]]
        while True:
            if self.accept("end", env):
                break
            if self.accept("op", "&"):
                continue
            if self.accept("op", "rowsep"):
                rows.append([])
                continue
            cell = self.parse_sum()
            rows[-1].append(_val(cell))
            if sum(map(len, rows)) > MAX_ITEMS:
                raise ParseError("matrix too large")
        self.depth -= 1
        rows = [r for r in rows if r]
        if not rows or len({len(r) for r in rows}) != 1:
            raise ParseError("matrix rows of different lengths")
        return Answer(Kind.MATRIX, sympy.ImmutableMatrix(rows))


# ---------------------------------------------------------------------------------------
# Step 5: the whole answer: hedges, prose, letter choices, then math
# ---------------------------------------------------------------------------------------

_CHOICE = re.compile(r"\(?\s*([A-Ja-j])\s*\)?")
_LATEX_CMD = re.compile(r"\\[A-Za-z]+")
_MATH_NAMES = set(FUNCTIONS) | set(_CONSTANT_WORDS) | GREEK


def _is_hedge_word(t: _Tok) -> bool:
    return (t.kind == "word" and t.text.lower() in HEDGE_WORDS) or \
        (t.kind == "cmd" and t.text in HEDGE_CMDS)


def _hedge(toks: list[_Tok]) -> Answer:
    """'2 or 3', '2 \\text{ (or maybe 3)}', '0 \\lor -7': alternatives, never an answer.

    The one exception: alternatives that are all intervals ('x < 1 or x > 2') are a union.
    """
    chunks, current = [], []
    for t in toks:
        if _is_hedge_word(t):
            chunks.append(current)
            current = []
        elif not (t.kind == "word" and t.text.lower() in FILLER):
            current.append(t)
    chunks.append(current)
    items, failed = [], False
    for chunk in chunks:
        while chunk and chunk[0].kind == "op" and chunk[0].text in "(),":
            chunk = chunk[1:]
        while chunk and chunk[-1].kind == "op" and chunk[-1].text in "(),.":
            chunk = chunk[:-1]
        try:
            items.append(_Parser(chunk).parse())
        except (ParseError, ArithmeticError, ValueError, TypeError):
            failed = True  # the alternatives are only shown in reports
    if not failed and len(items) > 1 and all(i.kind == Kind.INTERVAL for i in items):
        # "x < 1 or x > 2" is how a union is written, not a hedge
        return Answer(Kind.INTERVAL, sympy.Union(*(i.value for i in items)),
                      approximate=any(i.approximate for i in items))
    return Answer(Kind.HEDGE, items=tuple(items))


def _text_answer(norm: str, toks: list[_Tok]) -> Optional[Answer]:
    """A letter choice ('(B)', '\\text{(b)}') or prose ('Monday', 'yes'), lowercased."""
    core = [t for t in toks if not (t.kind == "op" and t.text in ".:!")]
    plain = " ".join(re.sub(r"[^a-z0-9]+", " ", _LATEX_CMD.sub(" ", norm).lower()).split())
    if len(core) >= 3 and core[0].text == "(" and core[2].text == ")" \
            and core[1].kind in ("letter", "word") and _CHOICE.fullmatch(core[1].text) \
            and (len(core) == 3 or core[1].text.isupper()):  # "(B)", "(C) 5"
        return Answer(Kind.TEXT, core[1].text.lower())
    if len(core) == 1 and len(core[0].text) == 1 and (
            (core[0].kind == "word" and core[0].textmode and core[0].text.isalpha())
            or (core[0].kind == "letter" and core[0].text in "ABCDE")):
        return Answer(Kind.TEXT, core[0].text.lower())
    prose = all(t.kind in ("word", "letter") or (t.kind == "op" and t.text in ",'-?")
                for t in core)
    if core and prose and any(t.kind == "word" and t.text not in _MATH_NAMES for t in core):
        return Answer(Kind.TEXT, plain)
    return None


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str) -> Answer:
    norm = _normalise(text)
    toks = _tokenize(norm)
    if not toks:
        raise ParseError("empty answer")
    if any(_is_hedge_word(t) for t in toks):
        ans = _hedge(toks)
    else:
        ans = _text_answer(norm, toks) or _Parser(toks).parse()
    return Answer(ans.kind, ans.value, ans.items, ans.percent, ans.approximate, source=text)


def parse_answer(text: str) -> Answer:
    """Parse one final answer (LaTeX or plain text). Raises ParseError and nothing else."""
    if not isinstance(text, str):
        raise ParseError(f"answer must be a string, not {type(text).__name__}")
    try:
        return _parse_cached(text)
    except ParseError:
        raise
    except RecursionError:
        raise ParseError("answer nested too deeply") from None
    except Exception as exc:  # sympy raises many types on odd input; callers see one
        raise ParseError(f"internal: {type(exc).__name__}: {exc}") from None
