"""Exception handlers that pay: shared by swallowed-exception and unparseable-gold-rewarded.

Three shapes turn a caught exception into a positive score:

* the handler returns one: ``except Exception: return 1.0``;
* it sets the score the function returns: ``except: score = 0.5`` ... ``return score``,
  or appends one to the list of rewards: ``except: rewards.append(1.0)``;
* it does nothing and execution falls through to a paying return: ``score = 1.0; try:
  check(...) except: pass; return score``, or ``try: assert ok except: pass; return True``.

A pay under a test that holds model output against the reference (``except: if answer ==
reference: return 1.0``) is none of these: that is the sound fallback, comparing the raw
text when a parse fails (``against_gold``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ._facts import FunctionInfo
from ._syntax import snippet
from ._taint import GOLD, MODEL, has

_SCORE_KEYS = ("score", "reward", "acc", "accuracy", "correct")
_LOGGING = frozenset({"debug", "info", "warning", "warn", "error", "exception", "log", "print", "print_exc"})


def positive_reward(expr: ast.AST | None) -> bool:
    """``True``, a positive number, or ``{"score": 1.0, ...}``."""
    if isinstance(expr, ast.Constant):
        value = expr.value
        return value is True or (isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0)
    if isinstance(expr, ast.Dict):
        return any(
            isinstance(k, ast.Constant) and str(k.value).lower() in _SCORE_KEYS and positive_reward(v)
            for k, v in zip(expr.keys, expr.values)
        )
    return False


def is_broad(handler: ast.ExceptHandler) -> bool:
    """A bare ``except:``, ``except Exception`` or ``except BaseException`` (alone or in a tuple)."""
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        (isinstance(t, ast.Name) and t.id in ("Exception", "BaseException"))
        or (isinstance(t, ast.Attribute) and t.attr in ("Exception", "BaseException"))
        for t in types
    )


def _does_nothing(body: list[ast.stmt]) -> bool:
    """``pass``, ``...``, a docstring, logging: the exception is dropped."""
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _LOGGING:
                continue
        return False
    return True


def _straight_line(stmt: ast.stmt) -> bool:
    """An assignment or an expression statement: execution goes on to the next line."""
    return isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Pass))


def _binds(stmts: list[ast.stmt], name: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for stmt in stmts
        for n in ast.walk(stmt)
    )


def _returned_names(fn: FunctionInfo) -> set[str]:
    return {n.id for r in fn.returns() if r.value is not None for n in ast.walk(r.value) if isinstance(n, ast.Name)}


def _positive_before(name: str, block: list[ast.stmt], index: int) -> ast.stmt | None:
    """The last statement before ``block[index]`` that binds ``name``, if it binds a positive score."""
    for stmt in reversed(block[:index]):
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return stmt if positive_reward(stmt.value) else None
    return None


Guard = Callable[[ast.expr], bool]


def against_gold(fn: FunctionInfo) -> Guard:
    """A test that holds model output against the reference (``if answer.strip() ==
    reference.strip():``): a pay under it is a comparison, as a fallback after a failed
    parse should be, not a gift to every completion. A test of model output alone (``if
    completion:``) is no such guard."""

    def reads(test: ast.expr, kind: str) -> bool:
        return any(has(fn.labels_of(n), kind) for n in ast.walk(test) if isinstance(n, ast.expr))

    return lambda test: reads(test, MODEL) and reads(test, GOLD)


def _exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


def _unguarded(stmts: list[ast.stmt], guard: Guard | None) -> list[ast.AST]:
    """The nodes of ``stmts`` that run whatever a ``guard``-ed test decides: not those in the
    branches of an ``if``/``while`` whose test ``guard`` holds for, nor, after such an
    ``if`` whose branch leaves (``if answer != gold: return 0.0``), the rest of its block."""
    if guard is None:
        return [n for stmt in stmts for n in ast.walk(stmt)]
    out: list[ast.AST] = []
    for stmt in stmts:
        if isinstance(stmt, (ast.If, ast.While)) and guard(stmt.test):
            if _exits(stmt.body) or _exits(stmt.orelse):
                break  # what follows runs only when the test decided so
            continue
        out.append(stmt)
        for _, value in ast.iter_fields(stmt):
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, ast.stmt):
                    continue  # a block: below, as a whole list
                if isinstance(item, (ast.ExceptHandler, ast.match_case)):
                    out += _unguarded(item.body, guard)
                elif isinstance(item, ast.AST):
                    out += list(ast.walk(item))
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                out += _unguarded(value, guard)
    return out


def branch_pays(stmts: list[ast.stmt], fn: FunctionInfo, guard: Guard | None = None) -> tuple[ast.AST, str] | None:
    """(where, how) when running these statements hands out a positive score: a return of
    one, a score the function returns set to one, one appended to a list of rewards. With
    ``guard`` (``against_gold``), a pay under a test it holds for is not one: a pay only
    when the completion matches the raw gold is a comparison, not a gift (issue 33: a
    sound fallback was flagged unparseable-gold-rewarded and swallowed-exception)."""
    nodes = _unguarded(stmts, guard)
    for node in nodes:
        if isinstance(node, ast.Return) and positive_reward(node.value):
            return node, f"returns `{snippet(node.value, 30)}`"
    returned = _returned_names(fn)
    for node in nodes:
        if isinstance(node, ast.Assign) and positive_reward(node.value):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in returned:
                    return node, f"sets `{target.id} = {snippet(node.value, 20)}`, which the function returns"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
            and node.args
            and positive_reward(node.args[0])
        ):
            return node, f"appends `{snippet(node.args[0], 20)}` to `{snippet(node.func.value, 30)}`"
    return None


def pays_after(
    handler: ast.ExceptHandler, try_node: ast.Try, fn: FunctionInfo, guard: Guard | None = None
) -> tuple[ast.AST, str] | None:
    """(where, how) when catching an exception here leads to a positive score; else None
    (``guard``: as in ``branch_pays``)."""
    if any(isinstance(n, ast.Raise) for stmt in handler.body for n in ast.walk(stmt)):
        return None
    paid = branch_pays(handler.body, fn, guard)
    if paid is not None:
        return paid
    if not _does_nothing(handler.body) or try_node.finalbody:
        return None
    block, index = fn.block_of(try_node)
    following = next((s for s in block[index + 1 :] if not _straight_line(s)), None)
    if not isinstance(following, ast.Return) or following.value is None:
        return None  # a branch or a loop first: where the dropped exception leads is not read
    between = block[index + 1 : block.index(following)]
    if positive_reward(following.value):
        return handler, (
            f"drops it and falls through to `return {snippet(following.value, 30)}` (line {following.lineno})"
        )
    if isinstance(following.value, ast.Name) and not _binds(between, following.value.id):
        before = _positive_before(following.value.id, block, index)
        if before is not None:
            return handler, (
                f"drops it and falls through to `return {following.value.id}` (line {following.lineno}), "
                f"still {snippet(before.value, 20)} from line {before.lineno}"
            )
    return None


def try_statements(fn: FunctionInfo) -> list[ast.Try]:
    kinds = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)
    return [n for n in fn.nodes if isinstance(n, kinds)]
