"""Locals renamed, the change exact-match and similarity graders handle worst. Only
names whose every occurrence provably means the same local are renamed."""

from __future__ import annotations

import ast
import random

from .helpers import FUNCS, RESERVED, fresh, identifiers, introspects, names_in, own_scope, params, stores, unparse

_NEW_NAMES = ("value", "item", "current", "tmp", "acc", "state", "part", "elem", "res", "count")


def rename_locals(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    used = identifiers(tree)
    renamed = False
    for fn in [n for n in ast.walk(tree) if isinstance(n, FUNCS)]:
        mapping = {}
        for old in sorted(_renamable(fn)):
            style = rng.randrange(3)
            wanted = (
                f"{old}_{rng.choice(('v', 'val', 'x', 'tmp'))}"
                if style == 0
                else rng.choice(_NEW_NAMES)
                if style == 1
                else f"{old}{rng.randrange(1, 10)}"
            )
            mapping[old] = fresh(wanted, used)
        for node in ast.walk(ast.Module(fn.body, [])):
            if isinstance(node, ast.Name) and node.id in mapping:
                node.id = mapping[node.id]
            elif isinstance(node, ast.ExceptHandler) and node.name in mapping:
                node.name = mapping[node.name]
        renamed = renamed or bool(mapping)
    return unparse(tree) if renamed else None


def _renamable(fn) -> set[str]:
    """Locals of ``fn`` that can be renamed everywhere in its body without changing what any
    occurrence refers to. A name bound in ``fn``'s own scope is local there, and every
    nested scope that does not bind it itself sees that local; so renaming it consistently
    throughout the body is safe unless a nested scope declares it global / nonlocal, binds
    it in a way we do not rename (parameters, defs, imports, walrus, match captures) or a
    class body is involved. Parameters stay (callers may pass them by keyword)."""
    body = ast.Module(fn.body, [])
    everything = list(ast.walk(body))
    if any(isinstance(n, (ast.ClassDef, ast.Match)) for n in everything) or introspects(body):
        return set()
    own = {
        n.id
        for n in own_scope(fn, comprehensions=False)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
    }
    own |= {n.name for n in own_scope(fn, comprehensions=False) if isinstance(n, ast.ExceptHandler) and n.name}
    blocked = {p.arg for p in params(fn)}
    for node in everything:
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            blocked.update(node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef)):
            blocked |= stores([node])
        elif isinstance(node, ast.NamedExpr):
            blocked |= names_in(node.target)
        elif isinstance(node, ast.arg):
            blocked.add(node.arg)
    return {n for n in own - blocked if n not in RESERVED and not n.startswith("__")}
