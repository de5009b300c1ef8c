"""relative-tolerance: numbers compared within a fraction of their size."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...models import Severity
from .._facts import FunctionInfo, ModuleInfo
from .._rule import Hit, Rule
from .._syntax import snippet

# dotted name -> (the relative tolerance's keyword, its position, its default)
_CLOSE_CALLS = {
    "math.isclose": ("rel_tol", None, 1e-9),
    "cmath.isclose": ("rel_tol", None, 1e-9),
    "numpy.isclose": ("rtol", 2, 1e-5),
    "numpy.allclose": ("rtol", 2, 1e-5),
    "numpy.testing.assert_allclose": ("rtol", 2, 1e-7),
    "torch.isclose": ("rtol", 2, 1e-5),
    "torch.allclose": ("rtol", 2, 1e-5),
}
# At or below this a relative tolerance only absorbs float rounding: still a hole on
# huge exact answers (10^12 + 1 is within 1e-9 of 10^12), but a small one.
_TIGHT = 1e-9


def _number(expr: ast.expr | None) -> float | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
        return float(expr.value)
    return None


def _close_call(node: ast.Call, module: ModuleInfo) -> tuple[str, bool] | None:
    """(what it is, whether the tolerance is tight) for a call of an isclose-like function."""
    qualname = module.imports.call(node)
    if qualname not in _CLOSE_CALLS:
        return None
    keyword, position, default = _CLOSE_CALLS[qualname]
    given = next((k.value for k in node.keywords if k.arg == keyword), None)
    if given is None and position is not None and len(node.args) > position:
        given = node.args[position]
    value = default if given is None else _number(given)
    if value == 0.0:
        return None  # rel_tol=0: an absolute comparison
    tolerance = f"{keyword}={snippet(given, 20)}" if given is not None else f"{keyword} defaulting to {default:g}"
    return f"{qualname}() with {tolerance}", value is not None and value <= _TIGHT


def _is_call_to(expr: ast.AST, names: tuple[str, ...]) -> bool:
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, (ast.Name, ast.Attribute))
        and (getattr(expr.func, "id", None) in names or getattr(expr.func, "attr", None) in names)
    )


def _difference(expr: ast.AST) -> ast.BinOp | None:
    """The ``a - b`` of ``abs(a - b)`` / ``math.fabs(a - b)`` / a bare ``a - b``."""
    if _is_call_to(expr, ("abs", "fabs")) and expr.args:
        expr = expr.args[0]
    return expr if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) else None


def _scaled_by_operand(bound: ast.AST, diff: ast.BinOp) -> bool:
    """``tol * abs(b)``, ``1e-4 * max(1, abs(b))``, ``tol * b`` with ``b`` in ``a - b``."""
    if not (isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Mult)):
        return False
    in_diff = {n.id for n in ast.walk(diff) if isinstance(n, ast.Name)}
    for factor in (bound.left, bound.right):
        if _is_call_to(factor, ("abs", "fabs", "max")) or (isinstance(factor, ast.Name) and factor.id in in_diff):
            return True
    return False


def _relative_comparison(node: ast.Compare) -> tuple[bool, float | None]:
    """(is it ``abs(a - b) <= tol * abs(b)`` or ``abs(a - b) / abs(b) < tol``, the
    tolerance when it is a literal)."""
    if not all(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops):
        return False, None
    sides = [node.left, *node.comparators]
    for i, side in enumerate(sides):
        others = [other for j, other in enumerate(sides) if j != i]
        if isinstance(side, ast.BinOp) and isinstance(side.op, ast.Div) and _difference(side.left) is not None:
            if _number(side.right) is None:
                return True, next((v for v in map(_number, others) if v is not None), None)
        diff = _difference(side) if _is_call_to(side, ("abs", "fabs")) else None
        scaled = [o for o in others if diff is not None and _scaled_by_operand(o, diff)]
        if scaled:
            return True, next((v for v in (_number(scaled[0].left), _number(scaled[0].right)) if v is not None), None)
    return False, None


def _consequence(tight: bool) -> str:
    what = (
        "a tight tolerance, but huge exact answers still pass off by a few units"
        if tight
        else "a wrong answer within that fraction of a large gold passes (10^6 + 100 for 10^6 at 1e-4)"
    )
    return what + "; near 0 a relative tolerance accepts nothing"


def check(fn: FunctionInfo, module: ModuleInfo) -> Iterator[Hit]:
    for node in fn.nodes:
        if isinstance(node, ast.Call):
            found = _close_call(node, module)
            if found is None:
                continue
            what, tight = found
            yield Hit(node, f"{what} in {fn.display}: {_consequence(tight)}", severity=Severity.low if tight else None)
        elif isinstance(node, ast.Compare):
            relative, tolerance = _relative_comparison(node)
            if not relative:
                continue
            tight = tolerance is not None and tolerance <= _TIGHT
            yield Hit(
                node,
                f"relative error comparison `{snippet(node, 50)}` in {fn.display}: {_consequence(tight)}",
                severity=Severity.low if tight else None,
            )


RULE = Rule(
    id="relative-tolerance",
    title="numbers compared with a relative tolerance",
    severity=Severity.medium,
    why=(
        "Exact-answer tasks need exact (or absolute) comparison: a relative tolerance scales with the gold, so on "
        "large answers it pays for near misses, and near zero it is meaningless. Python's documentation of "
        "math.isclose: rel_tol defaults to 1e-09 and abs_tol to 0.0, so nothing is close to 0 unless abs_tol is "
        "given; numpy.isclose's defaults are rtol=1e-05, atol=1e-08."
    ),
    check=check,
    categories=("math.near_miss.rel_error_1e4", "math.near_miss.rel_error_1e7"),
)
