"""Step 2: tokens.

The normalised string becomes a list of :class:`_Tok` (numbers, letters, words, commands,
operators, environment begin/end). The word lists here (functions, Greek letters, units,
English, hedges) are the vocabulary the later steps share.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import sympy
from sympy import S

from ..answer import ParseError


class _Tok(NamedTuple):
    kind: str  # num | letter | word | cmd | op | begin | end
    text: str
    textmode: bool = False  # came from \text{...}: a word there is prose, never a product


FUNCTIONS = {
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "cot": sympy.cot,
    "sec": sympy.sec,
    "csc": sympy.csc,
    "arcsin": sympy.asin,
    "arccos": sympy.acos,
    "arctan": sympy.atan,
    "asin": sympy.asin,
    "acos": sympy.acos,
    "atan": sympy.atan,
    "arccot": sympy.acot,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "tanh": sympy.tanh,
    "exp": sympy.exp,
    "ln": sympy.log,
    "log": sympy.log,
    "lg": None,
    "sqrt": None,
    "abs": sympy.Abs,
}
_INVERSE = {"sin": sympy.asin, "cos": sympy.acos, "tan": sympy.atan}
_CONSTANT_WORDS = {"pi": sympy.pi, "inf": S.Infinity, "infty": S.Infinity, "infinity": S.Infinity}
GREEK = {
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "varepsilon",
    "zeta",
    "eta",
    "theta",
    "vartheta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "varphi",
    "chi",
    "psi",
    "omega",
    "Gamma",
    "Delta",
    "Theta",
    "Lambda",
    "Xi",
    "Sigma",
    "Phi",
    "Psi",
    "Omega",
}
HEDGE_WORDS = {"or"}
HEDGE_CMDS = {"lor", "vee"}
FILLER = {"maybe", "perhaps", "possibly", "probably", "either"}
# Short units that would otherwise be split into a product of letters (cm -> c*m).
SHORT_UNITS = {
    "cm",
    "mm",
    "km",
    "kg",
    "mg",
    "lb",
    "lbs",
    "oz",
    "ft",
    "yd",
    "mi",
    "hr",
    "hrs",
    "min",
    "mins",
    "sec",
    "ms",
    "ml",
    "mL",
    "mph",
    "kph",
    "deg",
    "rad",
    "sq",
    "cu",
    "cc",
    "kWh",
    "pt",
    "pts",
    "usd",
}
# English words kept whole so "x is 5" is an error, not the product x*i*s*5.
_ENGLISH = {
    "or",
    "and",
    "not",
    "is",
    "are",
    "was",
    "the",
    "be",
    "it",
    "of",
    "to",
    "for",
    "so",
    "we",
    "has",
    "all",
    "any",
    "can",
    "one",
    "two",
    "its",
    "at",
    "on",
    "by",
    "as",
    "an",
    "if",
    "but",
    "nor",
    "yes",
    "no",
    "none",
    "odd",
    "even",
    "nan",
    "inf",
    "pi",
    "in",
    "per",
    "mod",
    "max",
    "min",
    "gcd",
    "lcm",
    "due",
    "get",
    "let",
    "our",
    "you",
    "true",
    "false",
    "neither",
    "both",
}
_SKIP_CMDS = {
    "left",
    "right",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "biggl",
    "biggr",
    "Biggl",
    "Biggr",
    "middle",
    "displaystyle",
    "textstyle",
    "scriptstyle",
    "quad",
    "qquad",
    "limits",
    "nolimits",
    "!",
    ",",
    ";",
    ":",
    " ",
    "enspace",
    "thinspace",
    "medspace",
    "thickspace",
    "negthinspace",
    "hfill",
    "mathstrut",
    "strut",
    "space",
    "$",
    "noindent",
    "nonumber",
    "notag",
}
_TEXT_WRAPPERS = {
    "text",
    "textrm",
    "textbf",
    "textit",
    "textsf",
    "texttt",
    "textnormal",
    "textup",
    "textmd",
    "mbox",
    "hbox",
    "emph",
}
_MATH_WRAPPERS = {
    "mathrm",
    "mathbf",
    "mathit",
    "mathsf",
    "mathtt",
    "mathnormal",
    "boldsymbol",
    "bm",
    "pmb",
    "mathbb",
    "mathcal",
    "operatorname",
}
_CMD_ALIAS = {  # command -> token it stands for
    "cdot": ("op", "*"),
    "times": ("op", "*"),
    "ast": ("op", "*"),
    "div": ("op", "/"),
    "le": ("op", "<="),
    "leq": ("op", "<="),
    "leqslant": ("op", "<="),
    "leqq": ("op", "<="),
    "ge": ("op", ">="),
    "geq": ("op", ">="),
    "geqslant": ("op", ">="),
    "geqq": ("op", ">="),
    "lt": ("op", "<"),
    "gt": ("op", ">"),
    "ne": ("op", "!="),
    "neq": ("op", "!="),
    "approx": ("op", "="),
    "{": ("op", "lbrace"),
    "}": ("op", "rbrace"),
    "lbrace": ("op", "lbrace"),
    "rbrace": ("op", "rbrace"),
    "langle": ("op", "("),
    "rangle": ("op", ")"),
    "lvert": ("op", "|"),
    "rvert": ("op", "|"),
    "vert": ("op", "|"),
    "mid": ("op", "|"),
    "%": ("op", "%"),
    "\\": ("op", "rowsep"),
    "cr": ("op", "rowsep"),
    "dfrac": ("cmd", "frac"),
    "tfrac": ("cmd", "frac"),
    "cfrac": ("cmd", "frac"),
    "dbinom": ("cmd", "binom"),
    "tbinom": ("cmd", "binom"),
    "degree": ("op", "deg"),
    "varnothing": ("cmd", "emptyset"),
    "infin": ("cmd", "infty"),
    "fbox": ("cmd", "boxed"),
    "lnot": ("word", "not"),
    "neg": ("word", "not"),
    "dots": ("cmd", "dots"),
    "ldots": ("cmd", "dots"),
    "cdots": ("cmd", "dots"),
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
                return text[i + 1 : j], j + 1
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
                groups.append(text[sep.end() : sep.end() + 3])
                k = sep.end() + 3
            bad_tail = text[k : k + 1] == "," and text[k + 1 : k + 2].isdigit()  # 1,234,56
            if groups and not bad_tail:
                digits += "".join(groups)
                j = k
    if j + 1 < len(text) and text[j] == "." and text[j + 1].isdigit():
        m = _NUM_RE.match(text, j + 1)
        digits += "." + m.group()
        j = m.end()
    if (e := _EXP_RE.match(text, j)) is not None and not text[e.end() : e.end() + 1].isalpha():
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
        elif ch == "^" and (deg := re.match(r"\^\s*(?:\\circ\b|\{\s*\\circ\s*\})", text[i : i + 16])):
            toks.append(_Tok("op", "deg"))
            i += deg.end()
        elif text.startswith(("<=", ">=", "!=", "=<", "=>"), i):
            two = text[i : i + 2]
            toks.append(_Tok("op", {"=<": "<=", "=>": ">="}.get(two, two)))
            i += 2
        else:
            toks.append(_Tok("op", ch, textmode))
            i += 1
    return toks


def _letter_run(run: str, textmode: bool) -> list[_Tok]:
    """Prose stays a word; in math a short unknown run is a product (xy -> x*y)."""
    keep_whole = run in FUNCTIONS or run in SHORT_UNITS or run.lower() in _ENGLISH or run.lower() in _CONSTANT_WORDS
    if textmode or len(run) > 3 or keep_whole:
        return [_Tok("word", run, textmode)]
    return [_Tok("letter", c) for c in run]


def _tokenize_command(text: str, i: int, toks: list[_Tok], textmode: bool) -> int:
    m = _LETTERS.match(text, i + 1)
    if m is None:  # \{ \% \, \\ and friends
        name, j = text[i + 1 : i + 2], i + 2
        if name == "":
            raise ParseError("lone backslash")
    else:
        name, j = m.group(), m.end()
    if name in _SKIP_CMDS:
        if name in ("left", "right") and text[j : j + 1] == ".":  # \left. is an invisible fence
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
