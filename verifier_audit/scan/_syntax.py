"""Plain AST helpers the rest of the scan shares: what a dotted call resolves to after
the module's imports, a function's own nodes, the statement list a statement is in, an
expression's source for messages."""

from __future__ import annotations

import ast

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def snippet(node: ast.AST, limit: int = 60) -> str:
    """The source of an expression, on one line, clipped: for messages."""
    try:
        text = " ".join(ast.unparse(node).split())
    except (ValueError, RecursionError):  # an unparseable synthetic node; never from ast.parse
        return "<expression>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Imports:
    """Local name -> dotted name, from every import in the module (also those inside
    functions: Math-Verify imports ``signal`` inside its ``timeout`` decorator)."""

    def __init__(self, tree: ast.Module):
        self.names: dict[str, str] = {}
        # ``from .grader import math_equal`` -> {"math_equal": (1, "grader.math_equal")}: kept
        # apart (a rule reads ``names``; the scan follows these to the package's own files).
        self.relative: dict[str, tuple[int, str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    # ``import os.path`` binds ``os``; ``import numpy as np`` binds ``np``.
                    local = alias.asname or alias.name.split(".")[0]
                    self.names[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        self.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.ImportFrom) and node.level:
                for alias in node.names:
                    if alias.name != "*":
                        dotted = f"{node.module}.{alias.name}" if node.module else alias.name
                        self.relative[alias.asname or alias.name] = (node.level, dotted)

    def qualname(self, expr: ast.AST) -> str | None:
        """``np.isclose`` -> ``numpy.isclose``; ``sympify`` (from sympy) -> ``sympy.sympify``;
        a name imported from nowhere stays itself (``eval``). None for anything else."""
        if isinstance(expr, ast.Name):
            return self.names.get(expr.id, expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.qualname(expr.value)
            return None if base is None else f"{base}.{expr.attr}"
        return None

    def call(self, node: ast.AST) -> str | None:
        """The dotted name a call calls, or None when it is not a call of a name."""
        return self.qualname(node.func) if isinstance(node, ast.Call) else None


def own_nodes(scope: ast.Module | FunctionNode) -> list[ast.AST]:
    """Every node of a function's body, not those of the functions and classes defined in
    it (each is analysed as a function of its own). For the module: its top-level code,
    class bodies included, function bodies not."""
    out: list[ast.AST] = []
    stack = list(reversed(scope.body))
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # Decorators and defaults run in the enclosing scope; the body does not.
            parts = [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]
            stack.extend(reversed([n for n in parts if n is not None]))  # kw_defaults hold None
            continue
        if isinstance(node, ast.ClassDef) and not isinstance(scope, ast.Module):
            continue
        stack.extend(reversed([n for n in ast.iter_child_nodes(node) if n is not None]))
    return out


def statement_blocks(nodes: list[ast.AST]) -> dict[int, tuple[list[ast.stmt], int]]:
    """id(statement) -> (the statement list it is in, its index): to read what follows a try."""
    blocks: dict[int, tuple[list[ast.stmt], int]] = {}
    for node in nodes:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                for i, stmt in enumerate(block):
                    blocks[id(stmt)] = (block, i)
    return blocks
