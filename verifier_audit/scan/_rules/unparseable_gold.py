"""unparseable-gold-rewarded: when the reference cannot be parsed, the completion is paid.

Two shapes: a try around the gold's parse whose except pays, and a test of the parse's
result (``if len(gold_parsed) == 0: rewards.append(1.0)``, open-r1's) whose failure branch
pays.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...models import Severity
from .._facts import FunctionInfo, ModuleInfo
from .._handlers import against_gold, branch_pays, pays_after, try_statements
from .._rule import Hit, Rule
from .._syntax import snippet
from .._taint import is_gold_only

# Calls that turn text into a value and raise (or return nothing) when they cannot, by
# the last part of their name.
_PARSERS = frozenset(
    {
        "float",
        "int",
        "complex",
        "Fraction",
        "Decimal",
        "Rational",
        "sympify",
        "S",
        "parse_expr",
        "parse_latex",
        "latex2sympy",
        "parse",
        "literal_eval",
        "loads",
        "simplify",
    }
)


def _gold_parse(fn: FunctionInfo, module: ModuleInfo, node: ast.AST) -> bool:
    qualname = module.imports.call(node)
    return (
        bool(qualname)
        and qualname.rsplit(".", 1)[-1] in _PARSERS
        # The gold alone: a parse of ``f"({gold})-({answer})"`` fails on what the completion
        # wrote too (verl prime_math's and DeepScaleR's are_equal_under_sympy).
        and any(is_gold_only(fn.labels_of(arg)) for arg in node.args)
    )


def _first_gold_parse(fn: FunctionInfo, module: ModuleInfo, body: list[ast.stmt]) -> ast.Call | None:
    return next((n for stmt in body for n in ast.walk(stmt) if _gold_parse(fn, module, n)), None)


def _parsed_when_true(test: ast.expr, parsed: set[str]) -> bool | None:
    """True when ``test`` holds iff the gold parsed (``gold_parsed``, ``len(g) > 0``, ``g is not
    None``), False when it holds iff it failed (``not g``, ``len(g) == 0``), None otherwise."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _parsed_when_true(test.operand, parsed)
        return None if inner is None else not inner
    if _is_parsed(test, parsed):
        return True
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and _is_parsed(test.left, parsed)):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(right, ast.Constant) and right.value is None:
        if isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
            return isinstance(op, (ast.IsNot, ast.NotEq))
        return None
    if isinstance(right, ast.Constant) and right.value == 0 and _is_len(test.left):
        # ``len(g) == 0`` asks whether the parse found anything; a bare ``g == 0`` compares
        # its value (``simplify(gold - answer) == 0``: equal answers, not a failed parse).
        if isinstance(op, (ast.NotEq, ast.Gt)):
            return True
        if isinstance(op, (ast.Eq, ast.LtE)):
            return False
    return None


def _is_len(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len"


def _is_parsed(expr: ast.expr, parsed: set[str]) -> bool:
    """``g`` or ``len(g)`` for a name bound to a parse of the gold."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" and expr.args:
        expr = expr.args[0]
    return isinstance(expr, ast.Name) and expr.id in parsed


def _from_tries(fn: FunctionInfo, module: ModuleInfo) -> Iterator[Hit]:
    for try_node in try_statements(fn):
        parse = _first_gold_parse(fn, module, try_node.body)
        if parse is None:
            continue
        for handler in try_node.handlers:
            paid = pays_after(handler, try_node, fn, against_gold(fn))
            if paid is not None:
                where, how = paid
                yield Hit(
                    where,
                    f"`{snippet(parse, 40)}` parses the reference (line {parse.lineno}); when it raises, "
                    f"the except (line {handler.lineno}) in {fn.display} {how}: on a task whose gold does "
                    "not parse, every completion is paid",
                )


def _from_tests(fn: FunctionInfo, module: ModuleInfo) -> Iterator[Hit]:
    parsed = {name for name, values in fn.assigned.items() if any(_gold_parse(fn, module, v) for v in values)}
    if not parsed:
        return
    for node in fn.nodes:
        if not isinstance(node, ast.If):
            continue
        when = _parsed_when_true(node.test, parsed)
        if when is None:
            continue
        paid = branch_pays(node.orelse if when else node.body, fn, against_gold(fn))
        if paid is not None:
            where, how = paid
            yield Hit(
                where,
                f"when the reference does not parse (`{snippet(node.test, 40)}`, line {node.lineno}), "
                f"{fn.display} {how}: on a task whose gold does not parse, every completion is paid",
            )


def check(fn: FunctionInfo, module: ModuleInfo) -> Iterator[Hit]:
    yield from _from_tries(fn, module)
    yield from _from_tests(fn, module)


RULE = Rule(
    id="unparseable-gold-rewarded",
    title="a reference that fails to parse leads to a positive reward",
    severity=Severity.high,
    why=(
        "Data sets hold golds a parser cannot read (text answers, typos, LaTeX it lacks). A grader that pays when "
        "the gold fails to parse pays for anything on those tasks. huggingface/open-r1 src/open_r1/rewards.py did: "
        "accuracy_reward appended 1.0 when parse(gold) found nothing ('Skip unparseable examples'), and len_reward "
        "counted such a sample as correct; it now skips them. Comparing raw strings after a failure is fine; "
        "paying is not."
    ),
    check=check,
    unmeasured=(
        "cannot be confirmed by behaviour: the audit's references all parse (its oracle confirms every "
        "label against them), so no audited task has a gold that fails to parse"
    ),
)
