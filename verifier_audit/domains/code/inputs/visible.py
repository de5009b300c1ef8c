"""Visible cases: the literal calls of ``candidate`` in a task's ``check(candidate)`` source,
read with ``ast`` (never executed), with the expected value when the assert states one
(``==`` either way round, ``abs(... - y) < eps``, ``isclose``, ``is True/False``,
``not ...`` -> False, a bare call -> True)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from .helper import _callee_name


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Case:
    args: tuple
    expected: Any = MISSING


def visible_cases(tests: str, entry_point: str) -> list[Case]:
    """Literal calls of ``candidate`` (or of ``entry_point``) in the tests, in source order,
    deduplicated by ``repr(args)``. Never raises."""
    try:
        return _visible_cases(tests, entry_point)
    except Exception:  # noqa: BLE001 - includes RecursionError / MemoryError from hostile text
        return []


def _visible_cases(tests: str, entry_point: str) -> list[Case]:
    if not isinstance(tests, str):
        return []
    tree = ast.parse(tests)
    names = {"candidate", entry_point} if isinstance(entry_point, str) and entry_point else {"candidate"}
    expected: dict[int, Any] = {}  # id(call node) -> expected value stated by its assert
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            found = _stated_value(node.test, names)
            if found is not None:
                expected[id(found[0])] = found[1]
    calls = [n for n in ast.walk(tree) if _is_target_call(n, names)]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    out: list[Case] = []
    index: dict[str, int] = {}
    for call in calls:
        args = _literal_args(call)
        if args is None:
            continue
        key = repr(args)
        value = expected.get(id(call), MISSING)
        if key not in index:
            index[key] = len(out)
            out.append(Case(args, value))
        elif out[index[key]].expected is MISSING and value is not MISSING:
            out[index[key]] = Case(out[index[key]].args, value)  # a later assert states it
    return out


def _is_target_call(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _literal_args(call: ast.Call) -> tuple | None:
    if call.keywords:
        return None
    values = []
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            return None
        try:
            values.append(ast.literal_eval(arg))
        except Exception:  # noqa: BLE001 - never raise on task data
            return None
    return tuple(values)


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except Exception:  # noqa: BLE001 - never raise on task data
        return MISSING


def _stated_value(test: ast.AST, names: set[str]) -> tuple[ast.Call, Any] | None:
    """(call, expected) when an assert's test pins the call's value, else None."""
    target = lambda n: _is_target_call(n, names)
    if target(test):  # assert candidate(x)
        return test, True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and target(test.operand):
        return test.operand, False
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Eq, ast.Is)):
            for call, other in ((left, right), (right, left)):
                if target(call):
                    value = _literal(other)
                    if value is MISSING:
                        return None
                    if isinstance(op, ast.Is) and not any(value is v for v in (True, False, None)):
                        return None  # `is` pins a value only for the singletons (and 1 == True)
                    return call, value
        # abs(candidate(x) - y) < eps  (either order inside the subtraction)
        if isinstance(op, (ast.Lt, ast.LtE)) and _is_abs_diff(left):
            a, b = left.args[0].left, left.args[0].right
            for call, other in ((a, b), (b, a)):
                if target(call):
                    value = _literal(other)
                    return (call, value) if value is not MISSING else None
    if isinstance(test, ast.Call) and _callee_name(test.func) == "isclose" and len(test.args) >= 2:
        a, b = test.args[0], test.args[1]
        for call, other in ((a, b), (b, a)):
            if target(call):
                value = _literal(other)
                return (call, value) if value is not MISSING else None
    return None


def _is_abs_diff(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and _callee_name(node.func) == "abs"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.BinOp)
        and isinstance(node.args[0].op, ast.Sub)
    )
