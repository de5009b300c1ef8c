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


# Prefixes of rename_fresh's names: short, and unlike the words references use.
_FRESH_PREFIXES = ("v", "acc_", "w", "q", "z", "slot_", "k")


def rename_fresh(source: str, entry_point: str, rng: random.Random) -> str | None:
    """Locals and comprehension variables renamed to names that contain none of the old
    ones (``total`` -> ``v0``, not ``total_tmp``), so that no renamed identifier of the
    reference is left anywhere in the program as a name or part of one: a grader that
    requires the reference's identifiers in the source is caught (``rename_locals`` keeps
    ``total`` inside ``total_tmp``). Parameters and function names stay, as there."""
    tree = ast.parse(source)
    used = identifiers(tree)
    targets: list[tuple[ast.AST, set[str]]] = []
    for fn in [n for n in ast.walk(tree) if isinstance(n, FUNCS)]:
        targets.append((ast.Module(fn.body, []), _renamable(fn)))
    for comp in ast.walk(tree):
        if isinstance(comp, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            targets.append((comp, _comprehension_names(comp)))
    old_names = set().union(*(names for _, names in targets)) if targets else set()
    if not old_names:
        return None
    prefix = [p for p in rng.sample(_FRESH_PREFIXES, len(_FRESH_PREFIXES)) if not any(o in p for o in old_names)]
    if not prefix:
        return None
    counter = iter(range(10**6))
    for scope, names in targets:
        mapping = {}
        for old in sorted(names):
            new = fresh(f"{prefix[0]}{next(counter)}", used)
            while any(o in new for o in old_names):
                new = fresh(f"{prefix[0]}{next(counter)}", used)
            mapping[old] = new
        skip = scope.generators[0].iter if isinstance(scope, ast.expr) else None
        for node in _walk_skipping(scope, skip):
            if isinstance(node, ast.Name) and node.id in mapping:
                node.id = mapping[node.id]
            elif isinstance(node, ast.ExceptHandler) and node.name in mapping:
                node.name = mapping[node.name]
    return unparse(tree)


def _comprehension_names(comp) -> set[str]:
    """The comprehension's own variables, when every occurrence in it provably means them:
    plain names, not read by the first iterable (evaluated outside), no declarations,
    bindings of other kinds or introspection inside."""
    bound = set().union(*(names_in(g.target) for g in comp.generators))
    inside = list(ast.walk(comp))
    if introspects(comp) or any(isinstance(n, (ast.Global, ast.Nonlocal, ast.NamedExpr, ast.arg)) for n in inside):
        return set()
    if bound & names_in(comp.generators[0].iter):
        return set()
    return {n for n in bound if n not in RESERVED and not n.startswith("__")}


def _walk_skipping(node: ast.AST, skip: ast.AST | None):
    """``ast.walk`` that does not enter ``skip`` (a comprehension's first iterable)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current is skip:
            continue
        yield current
        stack.extend(ast.iter_child_nodes(current))
