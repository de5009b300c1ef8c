"""List building written the other way: an append loop as a comprehension and back, a
generator argument as a list comprehension. A comprehension has its own scope (its loop
variable does not leak) and a generator turns StopIteration into RuntimeError, so each
swap first checks that neither difference can show."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator

from .helpers import (
    FUNCS,
    INTROSPECTION,
    SCOPES,
    fresh,
    identifiers,
    introspects,
    names_in,
    own_scope,
    params,
    stores,
    unparse,
)


def loop_to_comprehension(source: str, entry_point: str, rng: random.Random) -> str | None:
    """``acc = []`` then ``for x in it: [if c:] acc.append(e)`` -> ``acc = [e for x in it [if c]]``."""
    tree = ast.parse(source)
    for fn in [n for n in ast.walk(tree) if isinstance(n, FUNCS)]:
        if introspects(fn):
            continue
        for stmts in _statement_lists(fn):
            for i in range(len(stmts) - 1):
                new = _as_comprehension(fn, stmts[i], stmts[i + 1])
                if new is not None:
                    stmts[i : i + 2] = [new]
                    return unparse(tree)
    return None


def _statement_lists(fn) -> Iterator[list]:
    """The statement lists of ``fn``'s own scope that are not inside try / with (where a
    half-built list could be observed after an exception)."""
    stack = [fn.body]
    while stack:
        stmts = stack.pop()
        yield stmts
        for s in stmts:
            if isinstance(s, (ast.If, ast.For, ast.While)):
                stack.extend([s.body, s.orelse])


def _as_comprehension(fn, first, loop) -> ast.Assign | None:
    if not (
        isinstance(first, ast.Assign)
        and len(first.targets) == 1
        and isinstance(first.targets[0], ast.Name)
        and isinstance(first.value, ast.List)
        and not first.value.elts
    ):
        return None
    acc = first.targets[0].id
    if not (isinstance(loop, ast.For) and not loop.orelse and len(loop.body) == 1 and _simple_target(loop.target)):
        return None
    inner, ifs = loop.body[0], []
    if isinstance(inner, ast.If) and not inner.orelse and len(inner.body) == 1:
        inner, ifs = inner.body[0], [inner.test]
    call = inner.value if isinstance(inner, ast.Expr) else None
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == acc
        and len(call.args) == 1
        and not call.keywords
        and not isinstance(call.args[0], ast.Starred)
    ):
        return None
    parts = [loop.iter, loop.target, call.args[0], *ifs]
    if acc in set().union(*map(names_in, parts)) or not _plain(parts):
        return None
    # The loop variable outlives a loop but not a comprehension: it must be unused elsewhere.
    targets = names_in(loop.target)
    if (
        targets & (_mentions_outside(fn, loop) | {p.arg for p in params(fn)})
        or _captured(fn, acc)
        or _declared(fn, {acc} | targets)
    ):
        return None
    comp = ast.ListComp(call.args[0], [ast.comprehension(loop.target, loop.iter, ifs, 0)])
    return ast.copy_location(ast.Assign([ast.Name(acc, ast.Store())], comp), first)


def _simple_target(target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, (ast.Tuple, ast.List)) and all(map(_simple_target, target.elts))


def _plain(nodes) -> bool:
    """No walrus, yield, await, lambda-free super() or next(): things that behave differently
    inside a comprehension's own scope or a generator (StopIteration)."""
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
                return False
            if isinstance(n, ast.Name) and (n.id in INTROSPECTION or n.id == "next"):
                return False
    return True


def _mentions_outside(fn, node: ast.AST) -> set[str]:
    inside = {id(n) for n in ast.walk(node)}
    return {n.id for n in ast.walk(ast.Module(fn.body, [])) if isinstance(n, ast.Name) and id(n) not in inside}


def _captured(fn, name: str) -> bool:
    """Whether a nested function or lambda mentions ``name`` (it could see a half-built list)."""
    return any(isinstance(n, SCOPES) and name in names_in(n) for n in own_scope(fn))


def _declared(fn, names: set[str]) -> bool:
    return any(isinstance(n, (ast.Global, ast.Nonlocal)) and names & set(n.names) for n in ast.walk(fn))


def comprehension_to_loop(source: str, entry_point: str, rng: random.Random) -> str | None:
    """``acc = [e for x in it if c]`` (or ``return [...]``) -> ``acc = []`` + nested loops."""
    tree = ast.parse(source)
    used = identifiers(tree)
    for fn in [n for n in ast.walk(tree) if isinstance(n, FUNCS)]:
        if introspects(fn):
            continue
        for stmts in _statement_lists(fn):
            for i, stmt in enumerate(stmts):
                new = _as_loop(fn, stmt, used, rng)
                if new is not None:
                    stmts[i : i + 1] = new
                    return unparse(tree)
    return None


def _as_loop(fn, stmt, used: set[str], rng: random.Random) -> list | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        acc, comp, returning = stmt.targets[0].id, stmt.value, False
    elif isinstance(stmt, ast.Return):
        acc, comp, returning = None, stmt.value, True
    else:
        return None
    if not isinstance(comp, ast.ListComp) or any(g.is_async or not _simple_target(g.target) for g in comp.generators):
        return None
    if not _plain([comp]):
        return None
    targets = set().union(*(names_in(g.target) for g in comp.generators))
    if targets & (_mentions_outside(fn, comp) | {p.arg for p in params(fn)}) or _declared(fn, targets):
        return None
    if acc is not None and (acc in names_in(comp) or _captured(fn, acc) or _declared(fn, {acc})):
        return None
    if acc is None:
        acc = fresh(rng.choice(("result", "out", "items", "collected")), used)
    append = ast.Expr(ast.Call(ast.Attribute(ast.Name(acc, ast.Load()), "append", ast.Load()), [comp.elt], []))
    body: ast.stmt = append
    for gen in reversed(comp.generators):
        for test in reversed(gen.ifs):
            body = ast.If(test, [body], [])
        body = ast.For(gen.target, gen.iter, [body], [])
    out = [ast.Assign([ast.Name(acc, ast.Store())], ast.List([], ast.Load())), body]
    if returning:
        out.append(ast.Return(ast.Name(acc, ast.Load())))
    return out


# Builtins that turn any iterable into a list before looking at the items, so a list
# comprehension argument changes nothing; sum/min/max/set/any/all would (they interleave
# their own errors or short-circuit).
_MATERIALISING = {"list", "tuple", "sorted"}


def genexp_to_list(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    rebound = stores(ast.walk(tree)) | {p.arg for f in ast.walk(tree) if isinstance(f, FUNCS) for p in params(f)}
    calls = {}  # by id: nested functions are walked twice
    for fn in [n for n in ast.walk(tree) if isinstance(n, FUNCS)]:
        for call in ast.walk(fn):
            if not (isinstance(call, ast.Call) and len(call.args) == 1 and isinstance(call.args[0], ast.GeneratorExp)):
                continue
            func = call.func
            materialising = (isinstance(func, ast.Name) and func.id in _MATERIALISING and func.id not in rebound) or (
                isinstance(func, ast.Attribute)
                and func.attr == "join"
                and isinstance(func.value, ast.Constant)
                and isinstance(func.value.value, str)
            )
            # next() raising StopIteration inside a generator is a RuntimeError, not so in a list.
            if materialising and _plain([call.args[0]]):
                calls[id(call)] = call
    if not calls:
        return None
    for call in calls.values():
        gen = call.args[0]
        call.args[0] = ast.ListComp(gen.elt, gen.generators)
    return unparse(tree)
