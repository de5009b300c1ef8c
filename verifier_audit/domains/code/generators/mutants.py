"""Near-miss mutants of a Python solution: WRONG programs one small edit away from it.

Each kind is one slip a policy makes when writing a function (``<`` for ``<=``, ``and`` for
``or``, ``range(n)`` for ``range(n + 1)``, a dropped statement, ...). ``mutants`` applies
every kind at every place it fits, one edit per mutant.

Design:

* Sites come from the parsed module, but only from function bodies (the entry point and
  any helpers, nested ones included). Docstrings, ``def`` lines (decorators, defaults,
  annotations), imports, ``global`` / ``nonlocal`` and f-strings (whose inner positions are
  unreliable before Python 3.12) are never touched.
* An edit replaces one node by a new one. The mutant's text is the original text with just
  that node's span replaced by ``ast.unparse`` of the new node, so comments, docstrings and
  layout survive and the diff is minimal. The splice is checked: it must parse to exactly the
  edited tree (by ``normalise``); if it does not (odd precedence, stray line endings), the
  whole edited tree is unparsed instead.
* Every mutant compiles, and mutants equal to the original or to an earlier mutant under
  ``normalise`` are dropped. Order is by position in the source, then by kind (the order of
  ``KINDS``), so output is deterministic and capped at ``MAX_MUTANTS``.

Some mutants are still equivalent to the original (``<`` vs ``<=`` on a value that never
occurs, a deleted statement whose effect is overwritten); telling those apart takes running
them, which is the oracle's job, not this module's.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from ....models import Severity

MAX_MUTANTS = 200

# kind -> (severity, description). Severity is how bad it is when a verifier pays for it.
# The order is the tie-break between kinds at one position: structured kinds (range, slice,
# index) come before the plain constant shift that often gives the same program.
KINDS: dict[str, tuple[Severity, str]] = {
    "stmt_delete": (Severity.high, "a statement deleted (replaced by `pass`)"),
    "return_none": (Severity.critical, "a returned value replaced by None"),
    "loop_skip": (Severity.high, "a loop that never runs (`for x in []`, `while False`)"),
    "break_continue": (Severity.high, "`break` <-> `continue`"),
    "condition_negate": (Severity.high, "an `if` / `while` / conditional-expression test negated"),
    "aug_assign_swap": (Severity.high, "an augmented assignment with another operator (`+=` <-> `-=`)"),
    "aug_to_assign": (Severity.high, "an accumulation turned into a plain assignment (`x += e` -> `x = e`)"),
    "range_bound": (Severity.medium, "a `range` bound off by one"),
    "minmax_swap": (Severity.high, "`min` <-> `max`"),
    "arg_swap": (Severity.medium, "two adjacent positional arguments of a call swapped"),
    "index_shift": (Severity.medium, "a subscript index off by one (`x[i]` -> `x[i + 1]`)"),
    "slice_bound": (Severity.medium, "a slice bound off by one or dropped, or the step dropped"),
    "filter_drop": (Severity.high, "the `if` filter of a comprehension dropped"),
    "arith_swap": (Severity.high, "an arithmetic or bitwise operator swapped (`+` <-> `-`, `*` <-> `/`, `//` <-> `/`)"),
    "compare_flip": (Severity.high, "a comparison reversed or negated (`<` <-> `>`, `==` <-> `!=`)"),
    "compare_boundary": (Severity.medium, "a strict comparison made inclusive or the other way (`<` <-> `<=`)"),
    "identity_swap": (Severity.low, "identity and equality confused (`is` <-> `==`, `is not` <-> `!=`)"),
    "membership_swap": (Severity.high, "`in` <-> `not in`"),
    "bool_op_swap": (Severity.high, "`and` <-> `or`"),
    "not_drop": (Severity.high, "a `not` dropped"),
    "unary_minus": (Severity.medium, "a unary minus dropped"),
    "bool_const": (Severity.high, "`True` <-> `False`"),
    "const_shift": (Severity.medium, "an integer constant off by one"),
    "string_const": (Severity.medium, "a string constant changed (`''` -> `'x'`, last character dropped)"),
    "call_drop": (
        Severity.high,
        "a wrapping call dropped (`sorted(x)` -> `x`; also reversed, abs, set, int, `.strip()`, `.lower()`)",
    ),
}
_RANK = {kind: i for i, kind in enumerate(KINDS)}


@dataclass(frozen=True)
class Mutant:
    kind: str
    source: str  # the whole mutated module
    line: int  # line of the original that was mutated
    description: str  # e.g. "line 7: `<` -> `<=`"


# --------------------------------------------------------------------------- canonical form


def normalise(source: str) -> str:
    """Canonical form for deduplication: the AST without positions, docstrings, bare
    constant statements and redundant ``pass``, with ``return None`` spelled ``return``.
    Unparseable text is its own (never matching) form."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "unparseable:" + source
    return _canon(tree)


def _canon(node: ast.AST) -> str:
    out: list[str] = []
    _emit(node, out.append)
    return "".join(out)


_NOISE_FIELDS = {"type_comment", "kind", "type_ignores"}  # no effect on behaviour
_BODIES = {"body", "orelse", "finalbody"}
_FIELDS: dict[type, tuple[str, ...]] = {}


def _emit(value, append) -> None:
    # Hot path (called for every node of every mutant): keep it to plain loops.
    cls = type(value)
    if (
        cls is ast.UnaryOp
        and type(value.op) is ast.USub
        and type(value.operand) is ast.Constant
        and type(value.operand.value) in (int, float, complex)
    ):
        append(f"Constant({-value.operand.value!r},)")  # `-0` is `0`, `-1` the constant -1
    elif isinstance(value, ast.AST):
        fields = _FIELDS.get(cls)
        if fields is None:
            fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in _NOISE_FIELDS)
        append(cls.__name__)
        append("(")
        for name in fields:
            field = getattr(value, name, None)
            if type(field) is list:
                if name in _BODIES:
                    field = [s for s in field if not _is_noop(s)]
                append("[")
                for item in field:
                    _emit(item, append)
                    append(",")
                append("]")
            elif cls is ast.Return and _is_const(field, None):
                append("None")
            else:
                _emit(field, append)
            append(",")
        append(")")
    else:
        append(repr(value))  # repr keeps 1, 1.0 and True apart


def _is_noop(stmt: ast.AST) -> bool:
    """``pass``, a docstring or any other bare constant statement."""
    return isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))


def _is_const(node, value) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


# --------------------------------------------------------------------------- sites


_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Statements and expressions whose insides are not mutated.
_OPAQUE = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Global,
    ast.Nonlocal,
    ast.JoinedStr,
)
_WALKABLE = (ast.expr, ast.stmt, ast.comprehension, ast.keyword, ast.excepthandler, ast.withitem, ast.match_case)
_SKIP_FIELDS = ("annotation", "returns", "type_comment")


@dataclass
class _Site:
    node: ast.AST
    holder: ast.AST  # the node whose field holds ``node``
    field: str
    index: int | None  # position in the field when it is a list
    top: int = 0  # the module-level statement it belongs to


def _sites(tree: ast.Module) -> Iterator[_Site]:
    for top, stmt in enumerate(tree.body):
        for fn in ast.walk(stmt):
            if isinstance(fn, _FUNCS):
                for i in range(1 if _docstring(fn) else 0, len(fn.body)):
                    for site in _walk(fn.body[i], fn, "body", i):
                        site.top = top
                        yield site


def _walk(node: ast.AST, holder: ast.AST, field: str, index: int | None) -> Iterator[_Site]:
    yield _Site(node, holder, field, index)
    if isinstance(node, _OPAQUE) or _is_noop(node):
        return
    for name, value in ast.iter_fields(node):
        if name in _SKIP_FIELDS or (isinstance(node, ast.Lambda) and name == "args"):
            continue
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, _WALKABLE):
                    yield from _walk(item, node, name, i)
        elif isinstance(value, _WALKABLE):
            yield from _walk(value, node, name, None)


def _docstring(fn: ast.AST) -> bool:
    body = getattr(fn, "body", None)
    return (
        bool(body)
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )


# --------------------------------------------------------------------------- operators

_SYM = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.MatMult: "@",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.And: "and",
    ast.Or: "or",
}
_ARITH = {
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Mult: (ast.Div,),
    ast.Div: (ast.Mult, ast.FloorDiv),
    ast.FloorDiv: (ast.Div,),
    ast.Mod: (ast.FloorDiv,),
    ast.Pow: (ast.Mult,),
    ast.LShift: (ast.RShift,),
    ast.RShift: (ast.LShift,),
    ast.BitAnd: (ast.BitOr,),
    ast.BitOr: (ast.BitAnd,),
    ast.BitXor: (ast.BitOr,),
}
_COMPARE = {
    "compare_flip": {
        ast.Lt: ast.Gt,
        ast.Gt: ast.Lt,
        ast.LtE: ast.GtE,
        ast.GtE: ast.LtE,
        ast.Eq: ast.NotEq,
        ast.NotEq: ast.Eq,
    },
    "compare_boundary": {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt},
    "identity_swap": {ast.Is: ast.Eq, ast.IsNot: ast.NotEq, ast.Eq: ast.Is, ast.NotEq: ast.IsNot},
    "membership_swap": {ast.In: ast.NotIn, ast.NotIn: ast.In},
}
# Swapping the arguments of these changes nothing or only the order of printed output.
_SYMMETRIC_CALLS = {"min", "max", "print", "set", "frozenset"}
# call_drop: calls that wrap one value and normalise it (order, sign, type, case, padding).
# Dropping one is the slip a lenient output checker (tokens in any order, stripped, case
# folded) cannot see; whether the program is still right is the oracle's call (a list that
# is already sorted, abs of a value that is never negative).
_DROPPABLE_CALLS = {"sorted", "reversed", "abs", "set", "int"}
_DROPPABLE_METHODS = {"strip", "lstrip", "rstrip", "lower", "upper"}

_Change = tuple[str, ast.AST, str]  # (kind, replacement node, note)


def _changes(site: _Site, mappings: set[str]) -> Iterator[_Change]:
    node = site.node
    if isinstance(node, ast.stmt):
        yield from _stmt_changes(site)
    elif isinstance(node, ast.BinOp):
        for alt in _ARITH.get(type(node.op), ()):
            yield "arith_swap", ast.BinOp(node.left, alt(), node.right), _ops(node.op, alt)
    elif isinstance(node, ast.Compare):
        yield from _compare_changes(node)
    elif isinstance(node, ast.BoolOp):
        alt = ast.Or if isinstance(node.op, ast.And) else ast.And
        yield "bool_op_swap", ast.BoolOp(alt(), node.values), _ops(node.op, alt)
    elif isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            yield "not_drop", node.operand, _show_change(node, node.operand)
        elif isinstance(node.op, ast.USub):
            yield "unary_minus", node.operand, _show_change(node, node.operand)
    elif isinstance(node, ast.IfExp):
        yield from _negate(node)
    elif isinstance(node, ast.Constant):
        yield from _constant_changes(node)
    elif isinstance(node, ast.Subscript):
        yield from _index_changes(node, mappings)
    elif isinstance(node, ast.Slice):
        yield from _slice_changes(node)
    elif isinstance(node, ast.Call):
        yield from _call_changes(node)
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        yield from _filter_drops(node)


def _stmt_changes(site: _Site) -> Iterator[_Change]:
    node = site.node
    body = getattr(site.holder, site.field)
    if isinstance(body, list) and _deletable(node) and sum(not _is_noop(s) for s in body) > 1:
        yield "stmt_delete", ast.Pass(), f"deleted `{_show(node)}`"
    if isinstance(node, ast.Return) and node.value is not None and not _is_const(node.value, None):
        yield "return_none", _Replace(node, "value", ast.Constant(None)), _show_change(node.value, ast.Constant(None))
    elif isinstance(node, (ast.For, ast.AsyncFor)) and not (isinstance(node.iter, ast.List) and not node.iter.elts):
        empty = ast.List([], ast.Load())
        yield "loop_skip", _Replace(node, "iter", empty), _show_change(node.iter, empty)
    elif isinstance(node, ast.While):
        if not _is_const(node.test, False):
            yield "loop_skip", _Replace(node, "test", ast.Constant(False)), _show_change(node.test, ast.Constant(False))
        yield from _negate(node)
    elif isinstance(node, ast.If):
        yield from _negate(node)
    elif isinstance(node, ast.Break):
        yield "break_continue", ast.Continue(), "`break` -> `continue`"
    elif isinstance(node, ast.Continue):
        yield "break_continue", ast.Break(), "`continue` -> `break`"
    elif isinstance(node, ast.AugAssign):
        for alt in _ARITH.get(type(node.op), ()):
            yield (
                "aug_assign_swap",
                ast.AugAssign(node.target, alt(), node.value),
                f"`{_SYM[type(node.op)]}=` -> `{_SYM[alt]}=`",
            )
        new = ast.copy_location(ast.Assign([node.target], node.value), node)  # unparse wants its lineno
        yield "aug_to_assign", new, _show_change(node, new)


def _deletable(stmt: ast.stmt) -> bool:
    # Returns are return_none's; imports, declarations and definitions are off limits.
    return not isinstance(
        stmt,
        (
            ast.Return,
            ast.Pass,
            ast.Import,
            ast.ImportFrom,
            ast.Global,
            ast.Nonlocal,
            ast.FunctionDef,
            ast.AsyncFunctionDef,
            ast.ClassDef,
        ),
    ) and not _is_noop(stmt)


@dataclass
class _Replace:
    """A child of a statement replaced: the edit lands on the child, not the statement."""

    stmt: ast.AST
    field: str
    new: ast.AST


def _negate(node) -> Iterator[_Change]:
    test = node.test
    if isinstance(test, ast.Constant) or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
        return  # `while True` and `if not x` are loop_skip's and not_drop's
    new = ast.UnaryOp(ast.Not(), test)
    yield "condition_negate", _Replace(node, "test", new), _show_change(test, new)


def _compare_changes(node: ast.Compare) -> Iterator[_Change]:
    operands = [node.left, *node.comparators]
    for kind, table in _COMPARE.items():
        for i, op in enumerate(node.ops):
            alt = table.get(type(op))
            if alt is None:
                continue
            if alt in (ast.Is, ast.IsNot) and any(map(_is_literal, operands[i : i + 2])):
                continue  # `x is 3` is a SyntaxWarning and no real slip
            ops = list(node.ops)
            ops[i] = alt()
            yield kind, ast.Compare(node.left, ops, node.comparators), _ops(op, alt)


def _is_literal(node: ast.AST) -> bool:
    """Whether the compiler folds ``node`` into a constant that ``is`` warns about (``3``,
    ``-3``, ``(1, 2)``; not None, True, False or ``...``, which are singletons)."""
    if isinstance(node, ast.Constant):
        return not any(node.value is v for v in (None, True, False, ...))  # `is`: 0 == False
    return all(
        isinstance(n, (ast.Constant, ast.UnaryOp, ast.BinOp, ast.Tuple, ast.operator, ast.unaryop, ast.expr_context))
        for n in ast.walk(node)
    )


def _constant_changes(node: ast.Constant) -> Iterator[_Change]:
    value = node.value
    if isinstance(value, bool):
        yield "bool_const", ast.Constant(not value), f"`{value}` -> `{not value}`"
    elif isinstance(value, int):
        for delta in (1, -1):
            new = _int(value + delta)
            yield "const_shift", new, _show_change(node, new)
    elif isinstance(value, str):
        new = ast.Constant(value[:-1] if value else "x")
        yield "string_const", new, _show_change(node, new)


def _index_changes(node: ast.Subscript, mappings: set[str]) -> Iterator[_Change]:
    index = node.slice
    if isinstance(index, (ast.Slice, ast.Tuple)) or (isinstance(index, ast.Constant) and not _is_int(index)):
        return  # slices are slice_bound's; tuples and string keys have no "next" index
    if isinstance(node.value, ast.Name) and node.value.id in mappings:
        return  # `counts[word + 1]` is a crash, not a near miss
    for delta in (1, -1):
        new = ast.Subscript(node.value, _shift(index, delta), node.ctx)
        yield "index_shift", new, _show_change(node, new)


def _slice_changes(node: ast.Slice) -> Iterator[_Change]:
    for name in ("lower", "upper"):
        bound = getattr(node, name)
        if bound is None:
            continue
        for value in (_shift(bound, 1), _shift(bound, -1), None):
            new = ast.Slice(node.lower, node.upper, node.step)
            setattr(new, name, value)
            yield "slice_bound", new, _show_change(node, new)
    if node.step is not None:
        new = ast.Slice(node.lower, node.upper, None)
        yield "slice_bound", new, _show_change(node, new)


def _call_changes(node: ast.Call) -> Iterator[_Change]:
    name = node.func.id if isinstance(node.func, ast.Name) else None
    args = node.args
    starred = any(isinstance(a, ast.Starred) for a in args)
    if name in _DROPPABLE_CALLS and len(args) == 1 and not starred and (name == "sorted" or not node.keywords):
        yield "call_drop", args[0], _show_change(node, args[0])  # sorted(x, key=k): the key goes too
    elif (
        isinstance(node.func, ast.Attribute) and node.func.attr in _DROPPABLE_METHODS and not args and not node.keywords
    ):
        yield "call_drop", node.func.value, _show_change(node, node.func.value)
    if name == "range" and not node.keywords and not starred and 1 <= len(args) <= 3:
        # range(n): the stop; range(a, b[, s]): start and stop.
        for i in [0] if len(args) == 1 else [0, 1]:
            for delta in (1, -1):
                new_args = list(args)
                new_args[i] = _shift(args[i], delta)
                new = ast.Call(node.func, new_args, [])
                yield "range_bound", new, _show_change(node, new)
    if name in ("min", "max"):
        new = ast.Call(ast.Name("max" if name == "min" else "min", ast.Load()), args, node.keywords)
        yield "minmax_swap", new, f"`{name}` -> `{new.func.id}`"
    if name not in _SYMMETRIC_CALLS and not starred:
        for i in range(len(args) - 1):
            new_args = list(args)
            new_args[i], new_args[i + 1] = args[i + 1], args[i]
            new = ast.Call(node.func, new_args, node.keywords)
            yield "arg_swap", new, _show_change(node, new)


def _filter_drops(node) -> Iterator[_Change]:
    for g, gen in enumerate(node.generators):
        for i in range(len(gen.ifs)):
            generators = list(node.generators)
            generators[g] = ast.comprehension(gen.target, gen.iter, gen.ifs[:i] + gen.ifs[i + 1 :], gen.is_async)
            new = type(node)(**{**{f: getattr(node, f) for f in node._fields}, "generators": generators})
            yield "filter_drop", new, f"dropped `if {_show(gen.ifs[i])}`"


_MAPPING_CALLS = {"dict", "Counter", "defaultdict", "OrderedDict"}


def _mapping_names(tree: ast.Module) -> set[str]:
    """Names bound to a dict somewhere in the module (``d = {}``, ``d = Counter(s)``): a
    heuristic, scopes ignored, only to keep index_shift off dictionary keys."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            value = node.value
            func = value.func if isinstance(value, ast.Call) else None
            func = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if isinstance(value, (ast.Dict, ast.DictComp)) or func in _MAPPING_CALLS:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _is_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _int(value: int) -> ast.expr:
    # The parser reads `-1` as minus applied to 1; build it the same way so splices compare equal.
    return ast.Constant(value) if value >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-value))


def _shift(expr: ast.expr, delta: int) -> ast.expr:
    """``expr + delta``, folded into a constant term when there is one (``n + 1`` -> ``n + 2``)."""
    if _is_int(expr):
        return _int(expr.value + delta)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and _is_int(expr.operand):
        return _int(-expr.operand.value + delta)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)) and _is_int(expr.right):
        k = expr.right.value + (delta if isinstance(expr.op, ast.Add) else -delta)
        if k == 0:
            return expr.left
        add = (k > 0) == isinstance(expr.op, ast.Add)
        k = abs(k)
        return ast.BinOp(expr.left, ast.Add() if add else ast.Sub(), ast.Constant(k))
    return ast.BinOp(expr, ast.Add() if delta > 0 else ast.Sub(), ast.Constant(abs(delta)))


def _ops(old: ast.AST, new: type) -> str:
    return f"`{_SYM[type(old)]}` -> `{_SYM[new]}`"


def _show(node: ast.AST, limit: int = 50) -> str:
    text = ast.unparse(node).splitlines()[0] if not isinstance(node, ast.Pass) else "pass"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _show_change(old: ast.AST, new: ast.AST) -> str:
    return f"`{_show(old)}` -> `{_show(new)}`"


# --------------------------------------------------------------------------- rendering


class _Text:
    """The original source, addressable by AST positions (col offsets are UTF-8 bytes)."""

    def __init__(self, source: str):
        self.source = source
        self.lines = source.split("\n")  # the parser's lines: "\r\n" leaves a "\r", which no position reaches
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def offset(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        if not line.isascii():
            col = len(line.encode("utf-8")[:col].decode("utf-8", "replace"))
        return self.starts[lineno - 1] + col

    def splice(self, node: ast.AST, text: str) -> str:
        start = self.offset(node.lineno, node.col_offset)
        end = self.offset(node.end_lineno, node.end_col_offset)
        before, after = self.source[:start], self.source[end:]
        # `if(x)` -> `if not (x)`, not `ifnot (x)`
        if before[-1:].isidentifier() and (text[:1].isidentifier() or text[:1].isdigit()):
            text = " " + text
        if after[:1].isidentifier() and (text[-1:].isidentifier() or text[-1:].isdigit()):
            text += " "
        return before + text + after


# Binding strength, loosest first (the table of the language reference).
_BINOP_PREC = {
    ast.BitOr: 6,
    ast.BitXor: 7,
    ast.BitAnd: 8,
    ast.LShift: 9,
    ast.RShift: 9,
    ast.Add: 10,
    ast.Sub: 10,
    ast.Mult: 11,
    ast.Div: 11,
    ast.FloorDiv: 11,
    ast.Mod: 11,
    ast.MatMult: 11,
    ast.Pow: 13,
}
_ATOM = 15


def _prec(node: ast.AST) -> int:
    if isinstance(node, ast.BinOp):
        return _BINOP_PREC[type(node.op)]
    if isinstance(node, ast.UnaryOp):
        return 4 if isinstance(node.op, ast.Not) else 12
    if isinstance(node, ast.BoolOp):
        return 3 if isinstance(node.op, ast.And) else 2
    if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Tuple)):
        return 0
    return {ast.Compare: 5, ast.IfExp: 1, ast.Await: 14}.get(type(node), _ATOM)


# Holders where any expression we build can stand without parentheses.
_OPEN = (
    ast.stmt,
    ast.keyword,
    ast.Call,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.comprehension,
    ast.Slice,
    ast.Lambda,
)


def _replacement_text(new: ast.AST, old: ast.AST, holder: ast.AST, field: str) -> str:
    """``new`` as text for ``old``'s span: parenthesised only when it binds more loosely than
    ``old`` did and than its holder does (the span excludes any parentheses ``old`` had)."""
    text = ast.unparse(new)
    if (
        isinstance(new, ast.stmt)
        or (isinstance(holder, _OPEN) and field != "func")
        or (isinstance(holder, ast.Subscript) and field == "slice")
    ):
        return text
    if _prec(new) < _prec(old) and _prec(new) <= _prec(holder):
        return f"({text})"
    return text


def _put(holder: ast.AST, field: str, index: int | None, value: ast.AST) -> None:
    if index is None:
        setattr(holder, field, value)
    else:
        getattr(holder, field)[index] = value


def _render(tree: ast.Module, text: _Text, site: _Site, change: _Change, seen: set) -> Mutant | None:
    """The mutant for one change, or None when it duplicates one in ``seen`` or does not
    compile. A change touches one module-level statement and leaves the others as they
    are, so that statement's canonical form (with its index) identifies the whole module."""
    kind, new, note = change
    holder, field, index, old = site.holder, site.field, site.index, site.node
    if isinstance(new, _Replace):  # the edit is on a child of the statement
        holder, field, index, old, new = new.stmt, new.field, None, getattr(new.stmt, new.field), new.new
    _put(holder, field, index, new)
    try:
        intended = (site.top, _canon(tree.body[site.top]))
        if intended in seen:
            return None
        source = _checked(text.splice(old, _replacement_text(new, old, holder, field)), intended, len(tree.body))
        if source is None:  # the splice did not give the intended tree: unparse the whole module
            source = _checked(ast.unparse(tree), intended, len(tree.body))
    finally:
        _put(holder, field, index, old)
    if source is None:
        return None
    seen.add(intended)
    return Mutant(kind, source, site.node.lineno, f"line {site.node.lineno}: {note}")


def _checked(source: str, intended: tuple[int, str], count: int) -> str | None:
    # The text outside the edited statement is unchanged, so when the edited statement
    # parses to what was intended (and no statement was swallowed or split) so does the rest.
    top, canon = intended
    try:
        tree = ast.parse(source)
        if len(tree.body) != count or _canon(tree.body[top]) != canon:
            return None
        compile(tree, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return source


# --------------------------------------------------------------------------- entry point


def mutants(source: str, entry_point: str) -> list[Mutant]:
    """Every single-edit mutant of every function in ``source``, deduplicated, in source
    order, at most ``MAX_MUTANTS``. ``[]`` when ``source`` does not parse.

    ``entry_point`` is accepted for symmetry with ``rewrites``: helpers are mutated too,
    since a slip in a helper is as wrong as one in the entry point."""
    del entry_point
    try:
        tree = ast.parse(source)
        text = _Text(source)
        planned = []
        mappings = _mapping_names(tree)
        for site in _sites(tree):
            for seq, change in enumerate(_changes(site, mappings)):
                planned.append(((site.node.lineno, site.node.col_offset, _RANK[change[0]], seq), site, change))
        planned.sort(key=lambda p: p[0])
        seen = {(top, _canon(stmt)) for top, stmt in enumerate(tree.body)}
        out: list[Mutant] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the original's own warnings (escapes) recur in every mutant
            for _, site, change in planned:
                mutant = _render(tree, text, site, change, seen)
                if mutant is not None:
                    out.append(mutant)
                    if len(out) >= MAX_MUTANTS:
                        break
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return out
