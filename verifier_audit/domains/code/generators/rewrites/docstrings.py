"""Docstrings removed or replaced. Code that reads ``__doc__`` is left alone (see
``helpers.introspects``); cosmetic otherwise."""

from __future__ import annotations

import ast
import random

from .helpers import FUNCS, docstring, entry, introspects, unparse
from .lines import Lines


def docstring_strip(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    if introspects(tree):
        return None
    lines = Lines(source)
    found = False
    for fn in ast.walk(tree):
        doc = docstring(fn) if isinstance(fn, FUNCS) else None
        if doc is None:
            continue
        found = True
        if not lines.owns_lines(doc):
            return _ast_docstring_strip(tree)
        first = doc.lineno - 1
        keep = "pass" if len(fn.body) == 1 else None  # a body must not end up empty
        lines.replaced[first] = None if keep is None else lines.indent(doc) + keep + lines.eol
        for i in range(first + 1, doc.end_lineno):
            lines.replaced[i] = None
    return lines.text() if found else None


def _ast_docstring_strip(tree: ast.Module) -> str:
    for fn in ast.walk(tree):
        if isinstance(fn, FUNCS) and docstring(fn) is not None:
            fn.body = fn.body[1:] or [ast.Pass()]
    return unparse(tree)


_DOCSTRINGS = (
    "Return the answer for the given arguments.",
    "Solve the task described in the problem statement.",
    "Compute the result; see the examples in the task for the expected format.",
    "Straightforward implementation of the specification.",
)


def docstring_replace(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    fn = entry(tree, entry_point)
    if fn is None or introspects(tree):
        return None
    text = '"""' + rng.choice(_DOCSTRINGS) + '"""'
    doc = docstring(fn)
    lines = Lines(source)
    if doc is not None and lines.owns_lines(doc):
        lines.replaced[doc.lineno - 1] = lines.indent(doc) + text + lines.eol
        for i in range(doc.lineno, doc.end_lineno):
            lines.replaced[i] = None
        return lines.text()
    if doc is None and lines.above(fn.body[0], text):
        return lines.text()
    new = ast.Expr(ast.Constant(text[3:-3]))
    fn.body = [new] + (fn.body[1:] if doc is not None else fn.body)
    return unparse(tree)
