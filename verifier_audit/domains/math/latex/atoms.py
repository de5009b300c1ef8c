"""Step 4, continued: the atom level of the parser's grammar.

Numbers, symbols, brackets (groups, tuples, intervals), sets, |...|, LaTeX commands
(\\frac, \\sqrt, \\binom, ...), functions and matrix environments. :class:`_AtomsMixin`
is mixed in to :class:`.parser._Parser`, which supplies the token cursor (peek, take,
accept, ...) and the operator levels (parse_sum, parse_factor, ...) these methods call.
"""

from __future__ import annotations

import sympy
from sympy import Integer, Rational, S

from ..answer import Answer, Kind, ParseError
from .limits import MAX_ITEMS
from .tokens import _CONSTANT_WORDS, _INVERSE, FUNCTIONS, GREEK, _Tok
from .values import _mul, _number, _power, _real_endpoint, _scalar, _val

_MATRIX_ENVS = {"matrix", "pmatrix", "bmatrix", "Bmatrix", "smallmatrix", "array"}


class _AtomsMixin:
    """``atom`` in :class:`.parser._Parser`'s grammar, one method per kind of atom."""

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
                sub = "".join(t.text for t in self.toks[start + 1 : self.i - 1])
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
                return Answer(
                    Kind.INTERVAL,
                    sympy.Interval(lo, hi, opener == "(", closer == ")"),
                    approximate=items[0].approximate or items[1].approximate,
                )
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
                return _scalar(_mul(_val(num), _power(d, Integer(-1))), num.approximate or den.approximate)
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
            while (t := self.peek()) is not None and self.starts_factor(t) and t.text not in FUNCTIONS:
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
