"""What the repo generators share: the gold's fixed repository, a patch written as a model
writes it, the functions a patch changes, and the literal calls a visible test asserts.

Every candidate is made the same way: a repository mapping (``{path: text}``) built from
the task's ``metadata.files`` and turned into a unified diff by ``patches.make_patch``, so
it applies to the task's snapshot by construction (tests/domains/repo/test_repo_generators.py
applies every one). Nothing here runs the task's code: a candidate's effect is the oracle's
to measure.
"""

from __future__ import annotations

import ast
import difflib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ....models import Task
from ..patches import apply_patch

Files = dict[str, str]

# Sentences a model writes around its diff (none starts with "--- ", which a patch reader
# would take for a file header).
_INTROS = (
    "Here is the fix for the issue:",
    "The bug is in the function the issue names; this patch fixes it.",
    "I traced the failure to the code below. The patch:",
    "Applying the following change resolves the reported behaviour.",
)
_OUTROS = (
    "With this change the failing test passes.",
    "This keeps the other behaviour unchanged.",
    "",
)


def repository(task: Task) -> Files:
    """The task's repository with the bug (``metadata.files``), as a new mapping."""
    return dict(task.metadata["files"])


def gold_files(task: Task) -> Files:
    """The repository after the gold patch (``task.reference``)."""
    return apply_patch(task.metadata["files"], task.reference)


def changed_between(before: Files, after: Files) -> list[str]:
    """The paths whose text differs and that exist on both sides, in path order."""
    return sorted(p for p in before if p in after and before[p] != after[p])


def completion(diff: str, rng: random.Random | None) -> str:
    """``diff`` as a completion: bare (``rng`` None), or after a sentence drawn from ``rng``
    (and maybe before another), as models write it."""
    if rng is None:
        return diff
    return fenced(diff, rng.choice(_INTROS), rng.choice(_OUTROS))


def fenced(diff: str, intro: str, outro: str = "") -> str:
    """``intro``, ``diff`` in a ```` ```diff ```` fence, then ``outro`` when there is one."""
    text = f"{intro}\n\n```diff\n{diff}```\n"
    return text + (f"\n{outro}\n" if outro else "")


def styled(diff: str, rng: random.Random) -> str:
    """Half of the candidates bare, half in prose (drawn from ``rng``)."""
    return completion(diff, rng if rng.random() < 0.5 else None)


# ----------------------------------------------------------------------- functions


@dataclass(frozen=True)
class Function:
    name: str
    start: int  # 1-based line of its ``def`` (decorators excluded)
    end: int  # its last line
    top_level: bool


def functions(source: str) -> list[Function]:
    """Every function and method of a module, outer before inner; [] when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    top = {id(node) for node in tree.body}
    return [
        Function(node.name, node.lineno, node.end_lineno or node.lineno, id(node) in top)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def changed_lines(old: str, new: str) -> set[int]:
    """1-based lines of ``new`` that differ from ``old`` (a deletion marks the lines
    around it)."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    lines: set[int] = set()
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        lines.update(range(j1 + 1, j2 + 1) if j2 > j1 else (j1, j1 + 1))
    return lines


def changed_functions(old: str, new: str) -> list[Function]:
    """The innermost functions of ``new`` holding a line the change touched."""
    lines = changed_lines(old, new)
    found = functions(new)
    out = []
    for line in sorted(lines):
        holders = [f for f in found if f.start <= line <= f.end]
        if holders:
            inner = min(holders, key=lambda f: f.end - f.start)
            if inner not in out:
                out.append(inner)
    return out


def body_start(source: str, name: str) -> tuple[int, str, ast.FunctionDef] | None:
    """(0-based line index of the first statement after the docstring, its indentation,
    the def) of the top-level function ``name``; None when there is no such function or
    its body shares the ``def`` line."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            body = node.body
            first = body[1] if len(body) > 1 and _is_docstring(body[0]) else body[0]
            if first.lineno == node.lineno or (len(body) == 1 and _is_docstring(body[0])):
                return None
            line = source.splitlines()[first.lineno - 1]
            return first.lineno - 1, line[: len(line) - len(line.lstrip())], node
    return None


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def insert_lines(source: str, index: int, lines: list[str]) -> str:
    """``source`` with ``lines`` (each without its newline) inserted before line ``index``."""
    old = source.splitlines(keepends=True)
    return "".join(old[:index] + [line + "\n" for line in lines] + old[index:])


# ----------------------------------------------------------------------- visible tests


@dataclass(frozen=True)
class AssertedCall:
    """``assert name(*args, **kwargs) == expected`` in a test, every value a literal;
    ``module`` is the repository file that defines ``name`` (by the test's imports)."""

    name: str
    module: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]
    expected: Any


def split_node_id(node_id: str) -> tuple[str, str]:
    """``tests/x.py::Class::test_a[p]`` -> (``tests/x.py``, ``test_a``)."""
    path, _, rest = node_id.partition("::")
    return path, rest.split("::")[-1].split("[")[0]


def find_test(source: str, name: str) -> ast.FunctionDef | None:
    """The test function (top-level or a method) called ``name``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def asserted_calls(files: Files, node_id: str) -> list[AssertedCall]:
    """The literal calls the test ``node_id`` asserts, read with ``ast`` from its file in
    ``files``: ``assert f(...) == literal`` (either side), and ``assert f(...)`` /
    ``assert not f(...)`` (expecting True / False, also joined with ``and``). Calls of
    names the test file does not import from a repository module are left out."""
    path, name = split_node_id(node_id)
    source = files.get(path)
    if source is None:
        return []
    fn = find_test(source, name)
    if fn is None:
        return []
    origins = _imported_from(ast.parse(source), files)
    out: list[AssertedCall] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            out += _asserted(node.test, origins)
    return out


def _asserted(test: ast.expr, origins: dict[str, tuple[str, str]]) -> list[AssertedCall]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [call for value in test.values for call in _asserted(value, origins)]
    if isinstance(test, ast.Compare):
        if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
            return []
        for call, other in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
            found = _literal_call(call, other, origins)
            if found is not None:
                return [found]
        return []
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        found = _literal_call(test.operand, ast.Constant(False), origins)
    else:
        found = _literal_call(test, ast.Constant(True), origins)
    return [found] if found is not None else []


def _literal_call(call: ast.expr, other: ast.expr, origins: dict[str, tuple[str, str]]) -> AssertedCall | None:
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in origins):
        return None
    try:
        args = tuple(ast.literal_eval(a) for a in call.args)
        kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in call.keywords if k.arg is not None)
        expected = ast.literal_eval(other)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    if len(kwargs) != len(call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    module, name = origins[call.func.id]
    return AssertedCall(name, module, args, kwargs, expected)


def called_functions(files: Files, node_id: str) -> list[tuple[str, str]]:
    """(repository file, function name) of what the test ``node_id`` calls: names it
    imports from a repository module, and methods (``obj.name(...)``) a non-test module of
    the repository defines, in the order the test calls them."""
    path, name = split_node_id(node_id)
    source = files.get(path)
    fn = find_test(source, name) if source is not None else None
    if source is None or fn is None:
        return []
    origins = _imported_from(ast.parse(source), files)
    defined: dict[str, list[str]] = {}
    for module, text in sorted(files.items()):
        if module.endswith(".py") and not module.startswith("tests/"):
            for f in functions(text):
                defined.setdefault(f.name, []).append(module)
    out: dict[tuple[str, str], None] = {}
    # By where each call ends: ``make().value()`` calls make first.
    calls = sorted(
        (n for n in ast.walk(fn) if isinstance(n, ast.Call)), key=lambda n: (n.end_lineno or 0, n.end_col_offset or 0)
    )
    for call in calls:
        if isinstance(call.func, ast.Name) and call.func.id in origins:
            out.setdefault(origins[call.func.id], None)
        elif isinstance(call.func, ast.Attribute):
            for module in defined.get(call.func.attr, []):
                out.setdefault((module, call.func.attr), None)
    return list(out)


def _imported_from(tree: ast.Module, files: Files) -> dict[str, tuple[str, str]]:
    """local name -> (repository file, name there) for ``from a.b import name [as local]``."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            base = node.module.replace(".", "/")
            module = next((p for p in (f"{base}.py", f"{base}/__init__.py") if p in files), None)
            if module is None:
                continue
            for alias in node.names:
                out[alias.asname or alias.name] = (module, alias.name)
    return out


def special_case(source: str, name: str, calls: list[AssertedCall]) -> str | None:
    """``source`` with the top-level function ``name`` returning each call's expected value
    when called with the call's arguments (a guard per call at the top of its body); None
    when the function is not there or a call does not fit its parameters."""
    found = body_start(source, name)
    if found is None:
        return None
    index, indent, fn = found
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    keyword_names = set(params) | {a.arg for a in fn.args.kwonlyargs}
    guards: list[str] = []
    for call in calls:
        if len(call.args) > len(params) or any(k not in keyword_names for k, _ in call.kwargs):
            return None
        names = params[: len(call.args)] + [k for k, _ in call.kwargs]
        values = list(call.args) + [v for _, v in call.kwargs]
        if not names:
            return None
        guard = f"{indent}if ({', '.join(names)},) == ({', '.join(repr(v) for v in values)},):"
        returned = f"{indent}    return {call.expected!r}"
        if guard not in guards:
            guards += [guard, returned]
    return insert_lines(source, index, guards)


def iter_units(old: str, new: str) -> Iterator[list[tuple[str, int, int, int, int]]]:
    """The change of ``old`` into ``new`` in parts: its hunks (3 lines of context, as
    ``make_patch`` groups them), or its changed blocks when it is a single hunk."""
    matcher = difflib.SequenceMatcher(
        None, old.splitlines(keepends=True), new.splitlines(keepends=True), autojunk=False
    )
    hunks = [[op for op in group if op[0] != "equal"] for group in matcher.get_grouped_opcodes(3)]
    if len(hunks) > 1:
        yield from hunks
    else:
        for op in matcher.get_opcodes():
            if op[0] != "equal":
                yield [op]


def apply_unit(old: str, new: str, unit: list[tuple[str, int, int, int, int]]) -> str:
    """``old`` with only the changes of ``unit`` (opcodes of ``old`` -> ``new``) made."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out, at = [], 0
    for _tag, i1, i2, j1, j2 in unit:
        out += a[at:i1] + b[j1:j2]
        at = i2
    return "".join(out + a[at:])
