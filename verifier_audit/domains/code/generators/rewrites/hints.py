"""Type annotations removed or added, only where nothing reads them at run time."""

from __future__ import annotations

import ast
import random

from .helpers import FUNCS, names_in, own_scope, params, statement_lists, stores, top, unparse


def _reads_annotations(tree: ast.Module) -> bool:
    """Decorators (dataclass, singledispatch.register, ...), class bodies and
    ``__annotations__`` can give annotations a meaning at run time; hints stay put then."""
    return any(getattr(n, "decorator_list", None) or isinstance(n, ast.ClassDef) for n in ast.walk(tree)) or bool(
        {"__annotations__", "get_type_hints", "signature"} & (names_in(tree) | _attributes(tree))
    )


def _attributes(tree: ast.AST) -> set[str]:
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}


def type_hints_strip(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    if _reads_annotations(tree):
        return None
    changed = False
    for node in ast.walk(tree):
        if isinstance(node, FUNCS):
            for p in params(node):
                changed = changed or p.annotation is not None
                p.annotation = None
            changed = changed or node.returns is not None
            node.returns = None
    for holder in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(holder, field, None)
            if not isinstance(stmts, list):
                continue
            for i, stmt in enumerate(stmts):
                if isinstance(stmt, ast.AnnAssign):
                    if stmt.value is None:
                        return None  # `x: int` alone declares a local; no plain spelling of that
                    stmts[i] = ast.copy_location(ast.Assign([stmt.target], stmt.value), stmt)
                    changed = True
    return unparse(tree) if changed else None


_INFERRED = {
    ast.List: "list",
    ast.ListComp: "list",
    ast.Dict: "dict",
    ast.DictComp: "dict",
    ast.Set: "set",
    ast.SetComp: "set",
    ast.Tuple: "tuple",
    ast.JoinedStr: "str",
    ast.Compare: "bool",
}
_CALL_TYPES = {
    "len": "int",
    "int": "int",
    "str": "str",
    "float": "float",
    "sorted": "list",
    "list": "list",
    "dict": "dict",
    "set": "set",
    "tuple": "tuple",
    "bool": "bool",
}


def _infer(value: ast.expr) -> str | None:
    if isinstance(value, ast.Constant) and type(value.value) in (int, float, str, bool, bytes):
        return type(value.value).__name__
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return _CALL_TYPES.get(value.func.id)
    return _INFERRED.get(type(value))


def type_hints_add(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    if _reads_annotations(tree):
        return None
    bound = stores(ast.walk(tree))
    imported = any(
        isinstance(s, ast.ImportFrom)
        and s.module == "typing"
        and any(a.name == "Any" and a.asname is None for a in s.names)
        for s in tree.body
    )
    can_use_any = imported or "Any" not in bound  # `Any` must not mean something else here
    need_any = changed = False
    for fn in [n for n in ast.walk(tree) if isinstance(n, FUNCS)]:
        if can_use_any:
            for p in params(fn):
                if p.annotation is None and p.arg not in ("self", "cls"):
                    p.annotation, need_any = ast.Name("Any", ast.Load()), True
            if fn.returns is None:
                fn.returns, need_any = ast.Name("Any", ast.Load()), True
        # Local variable annotations are never evaluated, so any hint is safe (PEP 526).
        declared = {name for n in own_scope(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
        seen = set(declared) | {p.arg for p in params(fn)}
        changed |= _annotate_locals(fn, seen)
    if need_any and not imported:
        tree.body.insert(top(tree), ast.ImportFrom("typing", [ast.alias("Any")], 0))
    return unparse(tree) if need_any or changed else None


def _annotate_locals(fn, seen: set[str]) -> bool:
    changed = False
    for stmts in statement_lists(fn):
        changed |= _annotate_list(stmts, seen)
    return changed


def _annotate_list(stmts: list, seen: set[str]) -> bool:
    changed = False
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name, hint = stmt.targets[0].id, _infer(stmt.value)
            if hint and name not in seen:
                seen.add(name)
                stmts[i] = ast.copy_location(
                    ast.AnnAssign(stmt.targets[0], ast.Name(hint, ast.Load()), stmt.value, 1), stmt
                )
                changed = True
    return changed
