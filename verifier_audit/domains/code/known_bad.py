"""Known-bad completions for code: the code catalog (adversarial_cases/code.yaml) on tasks.

Each catalog entry is a whole Python module with placeholders; this module fills the code
placeholders for one task and ``catalog.expand_template`` does the rest (repeat, filler,
char, seq, lb, rb). An entry goes onto ``entry.instances`` tasks chosen deterministically
from (seed, entry id) among the tasks whose kinds it ``applies_to``; the candidate's label
is the entry's (``incorrect`` for hacks, ``correct`` for the false-rejection probe).

Placeholders (also documented at the top of the catalog file):

* ``{{reference}}``   the task's reference source, verbatim.
* ``{{wrong}}``       the reference module with the entry point's body (after its
  docstring) replaced by ``return <constant>``; the constant follows the return type:
  int ``-987654321``, float ``-987654321.5``, str ``'\\x00wrong'``, list ``[None]``,
  tuple ``(None,)``, dict ``{None: None}``, set ``{None}``, bool and anything else
  ``None``. The type comes from the return annotation, else ``metadata.signature.returns``,
  else the type of the first literal expected value in the visible tests.
* ``{{entry_point}}`` the function's name.
* ``{{def}}``         the entry point's def line(s), verbatim, preceded by the rest of the
  reference module that comes before it (imports, helpers, constants: annotations such
  as ``List[int]`` must resolve). Use it at column 0, followed by an indented body.
* ``{{params}}``      the parameter names, ``n, m``; skipped (SkipInstance) for a function
  without parameters or with ``*args``, keyword-only parameters or ``**kwargs``.
* ``{{table}}``       a dict literal ``{repr(args tuple): expected}`` of the visible tests
  (``assert candidate(ARGS) == EXPECTED``, ``abs(candidate(ARGS) - EXPECTED) < tol``,
  ``math.isclose(candidate(ARGS), EXPECTED)``, ``assert candidate(ARGS)`` (True) and
  ``assert not candidate(ARGS)`` (False), with literal ARGS and EXPECTED; defaults
  filled in, so the key is ``repr((p1, p2, ...))`` of the parameters as the function
  sees them). Skipped when no visible assert has that shape, or with ``{{params}}``.
* ``{{token}}``       ``[a-z0-9_]``, unique per (entry, task): for marker file names.

Task kinds for ``applies_to``: the return type family (int, float, str, bool, list, tuple,
dict, set, other) and ``tolerance`` when a visible test compares through ``abs``,
``math.fabs`` or ``math.isclose``.

The visible-test parser here is deliberately small and private (literal calls only).
"""

from __future__ import annotations

import ast
import hashlib
import io
import operator
import re
from dataclasses import dataclass, field
from typing import Any

from ...models import Candidate, Task
from ..kit import CatalogEntry, SkipInstance, check_templates, expand_template, instantiate_catalog
from .extract import def_header

# Names this domain adds to the generic placeholder language (see the catalog file).
PLACEHOLDERS = {"reference", "wrong", "entry_point", "def", "params", "table", "token"}

# Return values for {{wrong}}: plausible types, values no task expects. bool gets None
# because no constant is wrong for every bool task.
WRONG_VALUES = {
    "int": "-987654321",
    "float": "-987654321.5",
    "str": repr("\x00wrong"),
    "bool": "None",
    "list": "[None]",
    "tuple": "(None,)",
    "dict": "{None: None}",
    "set": "{None}",
    "other": "None",
}

_FAMILIES = {
    "int": "int",
    "float": "float",
    "str": "str",
    "bool": "bool",
    "list": "list",
    "sequence": "list",
    "tuple": "tuple",
    "dict": "dict",
    "mapping": "dict",
    "set": "set",
    "frozenset": "set",
}
_FUTURE = re.compile(r"^\s*from\s+__future__\s+import\b")


def generate(tasks: list[Task], seed: int, entries: list[CatalogEntry]) -> list[Candidate]:
    """Every entry instantiated on up to ``entry.instances`` tasks; deterministic for seed."""
    infos = {t.id: analyse(t) for t in tasks}
    usable = sorted((t for t in tasks if infos[t.id] is not None), key=lambda t: t.id)
    entries = list(entries)
    check_templates(entries, PLACEHOLDERS)
    return instantiate_catalog(
        usable,
        seed,
        entries,
        fits=lambda e, task: not e.applies_to or bool(set(e.applies_to) & infos[task.id].kinds),
        fill=lambda e, task: fill(e, task, infos[task.id]),
    )


def fill(entry: CatalogEntry, task: Task, info: TaskInfo | None = None) -> str:
    """The entry's template filled in for ``task``; SkipInstance when it cannot be."""
    info = info or analyse(task)
    if info is None:
        raise SkipInstance(f"task {task.id}: no entry_point function in the reference")
    return expand_template(entry.template, _Resolver(task, info, entry))


def token(entry_id: str, task_id: str) -> str:
    """A marker-name fragment naming the entry and task: [a-z0-9_], at most 41 characters."""
    readable = re.sub(r"[^a-z0-9]+", "_", f"{entry_id}_{task_id}".lower()).strip("_")[:30]
    digest = hashlib.sha256(f"{entry_id}\x1f{task_id}".encode()).hexdigest()[:10]
    return f"{readable}_{digest}" if readable else digest


# ------------------------------------------------------------------- task analysis


@dataclass
class TaskInfo:
    """What the placeholders need from one task, computed once."""

    entry_point: str
    header: str  # the def line(s), verbatim up to the colon
    prelude: str  # the reference module before the function (no __future__ imports)
    wrong: str
    params: list[str] | None  # None: not plain positional parameters
    calls: list[tuple[tuple, Any]] = field(default_factory=list)  # visible (args, expected)
    kinds: set[str] = field(default_factory=set)


def analyse(task: Task) -> TaskInfo | None:
    """TaskInfo for a task with an ``entry_point`` defined in its reference, else None."""
    entry_point = getattr(task, "entry_point", None)
    tests = getattr(task, "tests", None) or ""
    if not isinstance(entry_point, str) or not entry_point:
        return None
    try:
        tree = ast.parse(task.reference)
    except (SyntaxError, ValueError):
        return None
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point), None)
    if fn is None:
        return None
    lines = _lines(task.reference)
    header, header_row = _header(task.reference, fn)
    first_row = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
    prelude = "".join(line for line in lines[: first_row - 1] if not _FUTURE.match(line)).strip()
    params, defaults = _parameters(fn)
    calls, tolerance = _visible_calls(tests, params, defaults)
    family = _return_family(fn, task, calls)
    kinds = {family} | ({"tolerance"} if tolerance else set())
    wrong = _wrong_module(lines, fn, header, header_row, WRONG_VALUES[family])
    return TaskInfo(entry_point, header, prelude, wrong, params, calls, kinds)


def _lines(source: str) -> list[str]:
    """Lines as ast and tokenize count them (split at \\n only, not at \\f or U+2028)."""
    return io.StringIO(source).readlines()


def visible_table(task: Task) -> dict[str, Any]:
    """{repr(args): expected} of the task's visible tests (what ``{{table}}`` writes)."""
    info = analyse(task)
    return _table(info.calls) if info else {}


def _header(source: str, fn: ast.FunctionDef) -> tuple[str, int]:
    try:
        return def_header(source, fn)
    except ValueError as exc:  # unreachable for parsed source
        raise SkipInstance(str(exc)) from None


def _parameters(fn: ast.FunctionDef) -> tuple[list[str] | None, dict[str, Any]]:
    a = fn.args
    positional = a.posonlyargs + a.args
    if a.vararg or a.kwarg or a.kwonlyargs or not positional:
        return None, {}
    names = [p.arg for p in positional]
    defaults = {}
    for name, node in zip(names[len(names) - len(a.defaults) :], a.defaults):
        try:
            defaults[name] = _constant(node)
        except ValueError:
            pass  # a call that leaves it out cannot be keyed; see _bind
    return names, defaults


def _return_family(fn: ast.FunctionDef, task: Task, calls: list[tuple[tuple, Any]]) -> str:
    annotation = ast.unparse(fn.returns) if fn.returns is not None else None
    signature = (task.metadata or {}).get("signature")
    if annotation is None and isinstance(signature, dict) and isinstance(signature.get("returns"), str):
        annotation = signature["returns"]
    if annotation:
        return _family_of_annotation(annotation)
    if calls:
        return _family_of_value(calls[0][1])
    return "other"


def _family_of_annotation(text: str) -> str:
    text = text.replace("typing.", "").replace(" ", "")
    optional = re.fullmatch(r"Optional\[(.*)\]", text)
    if optional:
        return _family_of_annotation(optional.group(1))
    head = re.match(r"[A-Za-z_]*", text).group().lower()
    return _FAMILIES.get(head, "other")


def _family_of_value(value: Any) -> str:
    for kind, name in (
        (bool, "bool"),
        (int, "int"),
        (float, "float"),
        (str, "str"),
        (list, "list"),
        (tuple, "tuple"),
        (dict, "dict"),
        ((set, frozenset), "set"),
    ):
        if isinstance(value, kind):
            return name
    return "other"


def _wrong_module(lines: list[str], fn: ast.FunctionDef, header: str, header_row: int, value: str) -> str:
    """The reference with the entry point's body (after its docstring) replaced."""
    # Everything before the def line stays, the entry point's decorators included.
    before = "".join(line for line in lines[: fn.lineno - 1] if not _FUTURE.match(line))
    doc = fn.body[0]
    kept = ""
    if (
        isinstance(doc, ast.Expr)
        and isinstance(doc.value, ast.Constant)
        and isinstance(doc.value.value, str)
        and doc.lineno > header_row
    ):
        kept = "".join(lines[header_row : doc.end_lineno])
    first = fn.body[0]
    indent = lines[first.lineno - 1][: first.col_offset] if first.lineno > header_row else "    "  # tabs stay tabs
    after = "".join(lines[fn.end_lineno :])
    return f"{before}{header}\n{kept}{indent}return {value}\n{after}".strip("\n") + "\n"


# ----------------------------------------------------------- visible-test parsing


class _NotLiteral(ValueError):
    pass


_ARITH = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


def _constant(node: ast.AST) -> Any:
    """A literal's value; + - * / // % between numbers are allowed (HumanEval writes 2.0/3.0)."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        left, right = _constant(node.left), _constant(node.right)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)):
            try:
                return _ARITH[type(node.op)](left, right)
            except (ArithmeticError, ValueError):
                pass
    raise _NotLiteral(ast.dump(node)[:80])


def _visible_calls(tests: str, params: list[str] | None, defaults: dict) -> tuple[list[tuple[tuple, Any]], bool]:
    """(args, expected) of the literal visible asserts, and whether any compares with a tolerance."""
    try:
        tree = ast.parse(tests)
    except (SyntaxError, ValueError):
        return [], False
    check = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    name = check.args.args[0].arg if check is not None and check.args.args else "candidate"
    calls, tolerance = [], False
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        found = _assert_shape(node.test, name)
        if found is None:
            continue
        call, expected_node, tolerant = found
        tolerance = tolerance or tolerant
        try:
            args = _bind(call, params, defaults)
            expected = _constant(expected_node)
        except ValueError:
            continue
        if _round_trips(args) and _round_trips(expected):
            calls.append((args, expected))
    return calls, tolerance


def _is_call_to(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _assert_shape(test: ast.AST, name: str) -> tuple[ast.Call, ast.AST, bool] | None:
    """(the candidate call, the expected expression, tolerant?) or None."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Eq, ast.Is)):
            if _is_call_to(left, name):
                return left, right, False
            if _is_call_to(right, name):
                return right, left, False
        if isinstance(op, (ast.Lt, ast.LtE)) and isinstance(left, ast.Call) and len(left.args) == 1:
            func = ast.unparse(left.func)
            inner = left.args[0]
            if (
                func in ("abs", "math.fabs", "fabs")
                and isinstance(inner, ast.BinOp)
                and isinstance(inner.op, ast.Sub)
                and _is_call_to(inner.left, name)
            ):
                return inner.left, inner.right, True
    if isinstance(test, ast.Call) and ast.unparse(test.func) in ("math.isclose", "isclose") and len(test.args) >= 2:
        if _is_call_to(test.args[0], name):
            return test.args[0], test.args[1], True
    # Truth tests (HumanEval writes `assert candidate(x)` and `assert not candidate(x)`).
    if _is_call_to(test, name):
        return test, ast.Constant(True), False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _is_call_to(test.operand, name):
        return test.operand, ast.Constant(False), False
    return None


def _bind(call: ast.Call, params: list[str] | None, defaults: dict) -> tuple:
    """The call's arguments in parameter order, defaults filled in; ValueError if not literal."""
    if params is None or any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > len(params):
        raise _NotLiteral("arguments")
    values = dict(zip(params, (_constant(a) for a in call.args)))
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in params or keyword.arg in values:
            raise _NotLiteral("keyword")
        values[keyword.arg] = _constant(keyword.value)
    for name in params:
        if name not in values:
            if name not in defaults:
                raise _NotLiteral("missing argument")
            values[name] = defaults[name]
    return tuple(values[name] for name in params)


def _round_trips(value: Any) -> bool:
    """repr(value) is a literal that reads back as an equal value (no inf, nan, objects)."""
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _table(calls: list[tuple[tuple, Any]]) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for args, expected in calls:
        table.setdefault(repr(args), expected)  # the first visible assert wins on a conflict
    return table


# --------------------------------------------------------------------- resolver


class _Resolver:
    """Fills the code placeholders for one (task, entry)."""

    def __init__(self, task: Task, info: TaskInfo, entry: CatalogEntry):
        self.task, self.info, self.entry = task, info, entry

    def __call__(self, name: str, args: str) -> str:
        info = self.info
        if name == "reference":
            return self.task.reference
        if name == "wrong":
            return info.wrong
        if name == "entry_point":
            return info.entry_point
        if name == "def":
            return f"{info.prelude}\n\n\n{info.header}" if info.prelude else info.header
        if name == "params":
            if info.params is None:
                raise SkipInstance("the function has no plain positional parameters")
            return ", ".join(info.params)
        if name == "table":
            if info.params is None or not info.calls:
                raise SkipInstance("no visible assert of the form candidate(literal) == literal")
            return repr(_table(info.calls))
        if name == "token":
            return token(self.entry.id, self.task.id)
        raise KeyError(name)
