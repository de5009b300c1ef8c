"""The questions every kind asks of a tree before touching it: which def callers get,
which names are taken, what runs in a function's own scope and what it binds, and whether
the code can look at its own names (then renaming or moving anything is visible)."""

from __future__ import annotations

import ast
import builtins
import keyword
from collections.abc import Iterator

# Calls that can see a function's local names: renaming or moving locals changes them.
INTROSPECTION = {"locals", "vars", "eval", "exec", "dir", "globals", "super", "__class__"}
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
RESERVED = set(dir(builtins)) | set(keyword.kwlist) | set(keyword.softkwlist)


def entry(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    found = None
    for stmt in tree.body:
        if isinstance(stmt, FUNCS) and stmt.name == name:
            found = stmt  # the last definition is the one callers get
    return found


def identifiers(tree: ast.AST) -> set[str]:
    """Every name spelled anywhere in the module, so a new name never collides."""
    names = set()
    for node in ast.walk(tree):
        for attr in ("id", "arg", "name", "attr", "asname", "module"):
            value = getattr(node, attr, None)
            if isinstance(value, str):
                names.update(value.split("."))
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
    return names


def fresh(wanted: str, used: set[str]) -> str:
    name, n = wanted, 2
    while name in used or name in RESERVED:
        name, n = f"{wanted}{n}", n + 1
    used.add(name)
    return name


def own_scope(fn: ast.AST, comprehensions: bool = True) -> Iterator[ast.AST]:
    """The nodes of ``fn``'s body that run in its own scope: nested functions, lambdas and
    classes are yielded but not entered; comprehensions are entered unless told not to."""
    stack = list(reversed(fn.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, SCOPES) or (not comprehensions and isinstance(node, _COMPREHENSIONS)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def statement_lists(fn: ast.AST) -> list[list]:
    """The statement lists (``body``, ``orelse``, ``finalbody``) of ``fn`` and of the blocks
    in its own scope, comprehensions not entered. Collected up front: callers edit them."""
    holders = [fn, *own_scope(fn, comprehensions=False)]
    return [
        stmts
        for holder in holders
        if holder is fn or not isinstance(holder, SCOPES)
        for stmts in (getattr(holder, field, None) for field in ("body", "orelse", "finalbody"))
        if isinstance(stmts, list)
    ]


def names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def introspects(node: ast.AST) -> bool:
    return bool(names_in(node) & INTROSPECTION) or any(
        isinstance(n, ast.Attribute) and n.attr in ("__name__", "__qualname__", "__code__", "__doc__")
        for n in ast.walk(node)
    )


def params(fn) -> list[ast.arg]:
    a = fn.args
    return [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs, *([a.kwarg] if a.kwarg else [])]


def stores(nodes) -> set[str]:
    """Names bound by these nodes (assignment targets, loop and with targets, except-as,
    imports, walrus, del)."""
    names = set()
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def docstring(fn) -> ast.Expr | None:
    first = fn.body[0] if fn.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def top(tree: ast.Module) -> int:
    """Where new module-level statements go: after the docstring and `from __future__`."""
    at = 1 if docstring(tree) else 0
    while at < len(tree.body) and isinstance(tree.body[at], ast.ImportFrom) and tree.body[at].module == "__future__":
        at += 1
    return at


def unparse(tree: ast.Module) -> str:
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
