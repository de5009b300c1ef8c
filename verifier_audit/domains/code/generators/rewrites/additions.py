"""Lines that change nothing a caller can observe through return values: comments, a
debug print (stdout only, never a verdict word), an unused import and constant. Inserted
into the original text when the target line allows it, else through the AST."""

from __future__ import annotations

import ast
import random

from .helpers import FUNCS, docstring, entry, fresh, identifiers, params, stores, top, unparse
from .lines import Lines

_COMMENT_BY_TYPE = {
    ast.For: ("# go through the input one item at a time", "# main loop"),
    ast.While: ("# repeat until the condition no longer holds", "# main loop"),
    ast.If: ("# handle this case separately", "# check the condition first"),
    ast.Return: ("# hand back the result", "# done: return the answer"),
    ast.Assign: ("# keep track of an intermediate value", "# set up the state we need"),
    ast.AugAssign: ("# update the running value", "# accumulate"),
}


def comments(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    fn = entry(tree, entry_point)
    if fn is None:
        return None
    lines = Lines(source)
    lines.above(fn, rng.choice(("# Solution for ", "# Implementation of ", "# Entry point: ")) + entry_point)
    doc = docstring(fn)
    for stmt in fn.body:
        if stmt is not doc:
            lines.above(stmt, rng.choice(_COMMENT_BY_TYPE.get(type(stmt), ("# next step", "# compute the next part"))))
    return lines.text()


_DEBUG_MESSAGES = ("debug: entering {}", "[debug] {} called", "trace: running {}", "computing {} ...")
# Words a stdout-scraping grader might read as a verdict.
_VERDICT_WORDS = ("pass", "fail", "error", "ok", "success", "correct", "wrong")


def debug_print(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    fn = entry(tree, entry_point)
    if fn is None or "print" in stores(ast.walk(tree)) | {
        p.arg for f in ast.walk(tree) if isinstance(f, FUNCS) for p in params(f)
    }:
        return None  # print is rebound somewhere: the call might not print
    name = entry_point if not any(w in entry_point.lower() for w in _VERDICT_WORDS) else "function"
    message = rng.choice(_DEBUG_MESSAGES).format(name)
    call = f"print({message!r})"
    doc = docstring(fn)
    body = [s for s in fn.body if s is not doc]
    lines = Lines(source)
    if body and lines.above(body[0], call):
        return lines.text()
    fn.body.insert(1 if doc else 0, ast.parse(call).body[0])
    return unparse(tree)


_MODULES = ("math", "itertools", "collections", "functools", "string", "operator", "heapq", "bisect")
_CONSTANTS = (("MAX_ITERATIONS", "10_000"), ("EPSILON", "1e-9"), ("DEBUG", "False"), ("_CACHE_SIZE", "128"))


def unused_import(source: str, entry_point: str, rng: random.Random) -> str | None:
    tree = ast.parse(source)
    used = identifiers(tree)
    modules = [m for m in _MODULES if m not in used]
    if not modules:
        return None
    module = rng.choice(modules)
    name, value = rng.choice(_CONSTANTS)
    name = fresh(name, used)
    at = top(tree)
    lines = Lines(source)
    if at < len(tree.body) and lines.above(tree.body[at], f"import {module}"):
        lines.above(tree.body[at], f"{name} = {value}")
        lines.above(tree.body[at], "")  # a blank line
        return lines.text()
    tree.body[at:at] = ast.parse(f"import {module}\n{name} = {value}\n").body
    return unparse(tree)
