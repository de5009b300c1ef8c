"""The literals a verifier compares completions against: what the exploit search inserts
(engine/search/_source.py) to find what a verifier pays for that the domain's own edits
never write (a ``\\therefore`` before the box, an ``<answer>`` tag, ``Final Answer:``).

Read from the verifier's source as the scan reads it (parsed, never imported: the same
``ModuleInfo``, taint labels and function selection), following the imports of the read
functions with the scan's follower (``_imports.walk``) into the user's own modules (not
the standard library, not site-packages), within this reader's own bounds (``READ``). Collected where a string is held against model output:

* ``"x" in completion``, ``completion == "x"``, ``!=``, ``not in``;
* ``completion.startswith("x")`` (and ``endswith``, ``find``, ``rfind``, ``index``, ``count``);
* a regular expression passed to ``re.search``/``match``/``fullmatch``/``findall``/
  ``finditer``/``compile`` (or a compiled one's methods): the literal text it needs, where
  it is simple: around its first group (``<answer>(.*?)</answer>``: a pair that wraps the
  answer), else its longest literal run (``\\\\therefore``).

A function in which no name holds model output by the taint's rules (a helper whose
parameter is named ``s``) has every such comparison taken: its caller decides what it is
passed.
"""

from __future__ import annotations

import ast
import sys

from ._facts import FunctionInfo, ModuleInfo
from ._imports import Reach, walk
from ._taint import MODEL, has
from ._targets import resolve_target

if sys.version_info >= (3, 11):
    from re import _parser as _sre
else:  # pragma: no cover - Python 3.10
    import sre_parse as _sre

MAX_LITERALS = 8  # each one is two or three operators of the search: more would dilute its draw
# The walk's bounds, smaller than the scan's (3 hops, 12 files beyond the target, installed
# graders too): the target's own literals come first and only MAX_LITERALS are kept, so
# deeper files add little but read time in the parent before each search; an installed
# library (a grader's LaTeX normaliser) compares against its own internals, not markers.
READ = Reach(
    depth=2,  # import hops from the target's functions
    files=7,  # files read beyond the target's own: eight in all for a one-file target
    installed=False,  # the user's own modules only, not site-packages
)
MAX_LENGTH = 40  # longer strings are prompts or messages, not markers

_METHODS = frozenset({"startswith", "endswith", "find", "rfind", "index", "rindex", "count"})
_REGEX_CALLS = frozenset({"search", "match", "fullmatch", "findall", "finditer", "split", "sub", "compile"})
_COMPARE = (ast.In, ast.NotIn, ast.Eq, ast.NotEq)

#: (text, closing): a needle is ("\\therefore", ""); a pair around the answer ("<answer>", "</answer>")
Literal = tuple[str, str]


def compared_literals(target: str) -> list[Literal]:
    """The literals of ``target`` (``FILE.py:function``, ``pkg.mod:function``, as the scan
    takes it), the target's own first, at most MAX_LITERALS. Raises ScanError when the
    target (or a file its imports lead to) cannot be read."""
    found: list[Literal] = []
    for code in walk(resolve_target(target), READ).code:
        for fn in code.functions:
            found += literals_in(code.module, fn)
    return _kept(found)


def literals_in(module: ModuleInfo, fn: FunctionInfo) -> list[Literal]:
    """What ``fn`` holds model output against, in source order."""
    guarded = any(has(labels, MODEL) for labels in fn.labels.values())
    against = (lambda expr: fn.is_model(expr)) if guarded else (lambda expr: True)
    out: list[tuple[int, int, Literal]] = []

    def add(node: ast.AST, literal: Literal | None) -> None:
        if literal is not None:
            out.append((getattr(node, "lineno", 0), getattr(node, "col_offset", 0), literal))

    for node in fn.nodes:
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, sides, sides[1:]):
                if not isinstance(op, _COMPARE):
                    continue
                for text_side, other in ((left, right), (right, left)):
                    # ``result.label == "correct"``: a field of what a call returned, not text
                    # the completion holds (the taint carries model output through any call)
                    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(other, ast.Attribute):
                        continue
                    if against(other):
                        for value in _strings(module, fn, text_side):
                            add(node, (value, ""))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            attr = node.func.attr
            called = module.imports.call(node) or ""
            if called.rpartition(".")[0] in ("re", "regex") and attr in _REGEX_CALLS:
                pattern = module.string_value(node.args[0], fn)
                text = node.args[1] if len(node.args) > 1 else None
                if pattern is not None and (attr == "compile" or against(text)):
                    add(node, regex_literal(pattern))
            elif attr in _REGEX_CALLS and attr != "compile" and module.string_value(node.func.value, fn) is not None:
                # a compiled pattern's own method: PATTERN.search(completion)
                if against(node.args[0]):
                    add(node, regex_literal(module.string_value(node.func.value, fn) or ""))
            elif attr in _METHODS and against(node.func.value):
                for value in _strings(module, fn, node.args[0]):
                    add(node, (value, ""))
    return [literal for _, _, literal in sorted(out, key=lambda item: (item[0], item[1]))]


def regex_literal(pattern: str) -> Literal | None:
    """The literal text a simple pattern needs: the runs around its first group as a pair
    (``<answer>(.*?)</answer>``), else its longest literal run as a needle; None when the
    pattern does not parse or needs no literal."""
    try:
        items = list(_sre.parse(pattern))
    except (_sre.error, RecursionError, OverflowError):
        return None
    runs: list[str] = []  # literal runs, "\0" where the first group is
    current, grouped = "", False
    for op, arg in items:
        if op is _sre.LITERAL:
            current += chr(arg)
            continue
        runs.append(current)
        current = ""
        if op is _sre.SUBPATTERN and not grouped:
            runs.append("\0")
            grouped = True
    runs.append(current)
    if grouped:
        at = runs.index("\0")
        before = next((r for r in reversed(runs[:at]) if r.strip()), "")
        after = next((r for r in runs[at + 1 :] if r.strip()), "")
        if before.strip() and after.strip():
            return (before, after)
    needle = max((r for r in runs if r != "\0"), key=lambda r: len(r.strip()), default="")
    return (needle, "") if needle.strip() else None


def _strings(module: ModuleInfo, fn: FunctionInfo, expr: ast.AST) -> list[str]:
    """The constant strings ``expr`` is: one, or those of a tuple, list or set of them."""
    if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
        values = [module.string_value(e, fn) for e in expr.elts]
    else:
        values = [module.string_value(expr, fn)]
    return [v for v in values if v is not None]


def _kept(found: list[Literal]) -> list[Literal]:
    """Markers, not noise: at least two characters besides spaces, at most MAX_LENGTH,
    each once, the first MAX_LITERALS."""
    out: list[Literal] = []
    for text, closing in found:
        literal = (text, closing)
        size = len(text.strip()) + len(closing.strip())
        if size >= 2 and len(text) + len(closing) <= MAX_LENGTH and literal not in out:
            out.append(literal)
    return out[:MAX_LITERALS]
