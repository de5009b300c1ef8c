"""The entry point's statements rearranged: a result variable, an inverted if/else, the
body in a nested helper or behind a thin wrapper. The last two add a frame per call, so
they skip recursive functions (the reachable depth would halve)."""

from __future__ import annotations

import ast
import copy
import random

from .helpers import (
    docstring,
    entry,
    fresh,
    identifiers,
    introspects,
    own_scope,
    params,
    statement_lists,
    stores,
    unparse,
)


def result_variable(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    fn = entry(tree, entry_point)
    if fn is None or introspects(fn):
        return None
    var = fresh(rng.choice(("result", "answer", "out", "ret")), identifiers(tree))
    changed = False
    for stmts in statement_lists(fn):
        for i in reversed(range(len(stmts))):
            ret = stmts[i]
            if isinstance(ret, ast.Return) and ret.value is not None:
                stmts[i : i + 1] = [
                    ast.Assign([ast.Name(var, ast.Store())], ret.value),
                    ast.Return(ast.Name(var, ast.Load())),
                ]
                changed = True
    return unparse(tree) if changed else None


def invert_if(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    fn = entry(tree, entry_point)
    if fn is None:
        return None
    found = [n for n in own_scope(fn) if (isinstance(n, ast.If) and n.orelse) or isinstance(n, ast.IfExp)]
    if not found:
        return None
    node = rng.choice(found)
    test = node.test
    # `not` calls __bool__ once, exactly like the `if` it replaces; `not not x` is just `x`.
    node.test = (
        test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else ast.UnaryOp(ast.Not(), test)
    )
    node.body, node.orelse = node.orelse, node.body
    return unparse(tree)


def nested_helper(source: str, entry_point: str, rng: random.Random) -> str | None:
    """The body runs in a nested function; parameters it assigns are declared nonlocal."""
    tree = ast.parse(source)
    fn = entry(tree, entry_point)
    if not isinstance(fn, ast.FunctionDef) or _has_yield(fn) or introspects(fn) or _recursive(_without(tree, fn), fn):
        return None
    if any(isinstance(n, ast.Match) for n in ast.walk(fn)):
        return None  # match captures are assignments we would have to find too
    used = identifiers(tree)
    inner = fresh(rng.choice(("_impl", "_inner", "_compute", "_solve")), used)
    result = fresh(rng.choice(("result", "answer", "value", "res")), used)
    doc = docstring(fn)
    body = [s for s in fn.body if s is not doc]
    assigned = stores(own_scope(fn)) & {p.arg for p in params(fn)}
    if assigned:
        body.insert(0, ast.Nonlocal(sorted(assigned)))
    helper = ast.FunctionDef(inner, ast.arguments([], [], None, [], [], None, []), body, [], None)
    call = ast.Assign([ast.Name(result, ast.Store())], ast.Call(ast.Name(inner, ast.Load()), [], []))
    fn.body = ([doc] if doc else []) + [helper, call, ast.Return(ast.Name(result, ast.Load()))]
    return unparse(tree)


def _without(tree: ast.Module, fn) -> ast.Module:
    """The module with ``fn``'s def line but not its body, for "is it mentioned" questions."""
    rest = [s for s in tree.body if s is not fn]
    return ast.Module(rest + list(fn.body), [])


def _has_yield(fn) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in own_scope(fn))


def _recursive(tree: ast.Module, fn) -> bool:
    """Whether anything but the def itself mentions the entry point (a wrapper would add a
    frame to each recursive call and halve the reachable depth)."""
    return any(isinstance(n, ast.Name) and n.id == fn.name for n in ast.walk(tree))


_SIMPLE_DEFAULTS = (ast.Constant, ast.Name, ast.Attribute)


def delegate(source: str, entry_point: str, rng: random.Random) -> str | None:
    """``def f(a, b=1): <body>`` -> ``def _f_impl(a, b=1): <body>`` and ``def f(a, b=1):
    return _f_impl(a, b)``. Defaults are evaluated twice, so they must be side-effect free."""
    tree = ast.parse(source)
    fn = entry(tree, entry_point)
    if (
        not isinstance(fn, ast.FunctionDef)
        or fn.decorator_list
        or introspects(tree)
        or _recursive(_without(tree, fn), fn)
    ):
        return None
    defaults = [*fn.args.defaults, *[d for d in fn.args.kw_defaults if d is not None]]
    if not all(isinstance(d, _SIMPLE_DEFAULTS) or _empty_display(d) or _negative_number(d) for d in defaults):
        return None
    used = identifiers(tree)
    impl = fresh(rng.choice((f"_{entry_point}_impl", "_solve", f"_{entry_point}", "_implementation")), used)
    a = fn.args
    positional = [ast.Name(p.arg, ast.Load()) for p in [*a.posonlyargs, *a.args]]
    if a.vararg:
        positional.append(ast.Starred(ast.Name(a.vararg.arg, ast.Load()), ast.Load()))
    keywords = [ast.keyword(p.arg, ast.Name(p.arg, ast.Load())) for p in a.kwonlyargs]
    if a.kwarg:
        keywords.append(ast.keyword(None, ast.Name(a.kwarg.arg, ast.Load())))
    doc = docstring(fn)
    call = ast.Return(ast.Call(ast.Name(impl, ast.Load()), positional, keywords))
    wrapper = ast.FunctionDef(fn.name, copy.deepcopy(a), ([doc] if doc else []) + [call], [], copy.deepcopy(fn.returns))
    fn.name = impl
    if doc:
        fn.body = fn.body[1:] or [ast.Pass()]
    at = tree.body.index(fn) + 1
    tree.body.insert(at, wrapper)
    return unparse(tree)


def _empty_display(node: ast.AST) -> bool:
    return isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)) and not any(
        getattr(node, f, None) for f in ("elts", "keys")
    )


def _negative_number(node: ast.AST) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
