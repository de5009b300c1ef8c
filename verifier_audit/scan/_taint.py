"""Which names of a function hold model output, and which the reference: the taint
analysis every rule that needs a flow shares.

It is deliberately small (docs/scan.md, "Limits"):

* it is per function and flow-insensitive: a name is model output when any assignment in
  the function (or in an enclosing one) binds it to an expression that mentions model
  output. ``x = completion`` then ``x = "safe"`` leaves ``x`` model output.
* it starts from parameter names (``_names.py``) and, one level deep, from the arguments
  a module's functions pass each other: ``helper(completion)`` makes ``helper``'s first
  parameter model output.
* it follows no import and no attribute of ``self``; a value that goes through a call of
  another module comes back tainted when an argument was (``extract(completion)`` is
  model output), which is what extraction helpers do.

Labels are strings ``"model:<where from>"`` and ``"gold:<where from>"``, so a message can
say which parameter a value came from.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Protocol

from ._names import GOLD_ATTRS, GOLD_KEYS, GOLD_PARAMS, MODEL_KEYS, MODEL_PARAMS, OPAQUE_CALLS
from ._syntax import FunctionNode, snippet

MODEL, GOLD = "model", "gold"
Labels = frozenset  # of "model:<source>" / "gold:<source>"
EMPTY: Labels = frozenset()


class FunctionInfo(Protocol):
    """What the analysis reads and fills in of a function (``_facts.FunctionInfo``, which
    calls into this module: typed here by shape, so this module does not import it)."""

    nodes: list[ast.AST]
    labels: dict[str, Labels]
    assigned: dict[str, list[ast.expr]]

    def labels_of(self, expr: ast.AST | None) -> Labels: ...


def has(labels: Labels, kind: str) -> bool:
    return any(label.startswith(kind + ":") for label in labels)


def is_gold_only(labels: Labels) -> bool:
    """The reference, and nothing the policy wrote (``ref.strip()``, ``f"\\boxed{{{ref}}}"``)."""
    return has(labels, GOLD) and not has(labels, MODEL)


def sources(labels: Labels, kind: str) -> list[str]:
    return sorted(label.split(":", 1)[1] for label in labels if label.startswith(kind + ":"))


def param_names(node: FunctionNode) -> list[str]:
    a = node.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    return names + [p.arg for p in (a.vararg, a.kwarg) if p is not None]


def seed_labels(node: FunctionNode) -> dict[str, Labels]:
    """Parameters that hold model output or the reference, by name."""
    seeds: dict[str, Labels] = {}
    for name in param_names(node):
        if name in MODEL_PARAMS:
            seeds[name] = frozenset({f"{MODEL}:{name}"})
        elif name in GOLD_PARAMS:
            seeds[name] = frozenset({f"{GOLD}:{name}"})
    return seeds


def labels_of(expr: ast.AST | None, env: dict[str, Labels]) -> Labels:
    """Everything an expression's value may carry: the labels of the names it reads, and
    the reference when it reads ``task.reference`` or ``row["ground_truth"]``. A comparison
    or a ``len()`` carries nothing: a bool or a count is not text."""
    if expr is None:
        return EMPTY
    out: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            out |= env.get(node.id, EMPTY)
        elif isinstance(node, ast.Compare):
            continue
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in OPAQUE_CALLS:
            continue
        elif isinstance(node, ast.Attribute) and node.attr in GOLD_ATTRS:
            base = labels_of(node.value, env)
            out |= base
            if not has(base, MODEL):
                out.add(f"{GOLD}:{snippet(node, 40)}")
            continue
        elif isinstance(node, ast.Subscript) and isinstance(getattr(node.slice, "value", None), str):
            key = node.slice.value
            if key in GOLD_KEYS and not has(labels_of(node.value, env), MODEL):
                out.add(f"{GOLD}:{snippet(node, 40)}")
            elif key in MODEL_KEYS:
                out.add(f"{MODEL}:{snippet(node, 40)}")
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(out)


class _Binder:
    """Binds assignment targets to the labels of what is assigned, element-wise where the
    shapes match (``a, b = x, y``; ``for c, s in zip(completions, solutions)``)."""

    def __init__(self, fn: FunctionInfo):
        self.fn = fn
        self.changed = False

    def labels(self, name: str, labels: Labels) -> None:
        old = self.fn.labels.get(name, EMPTY)
        if not labels <= old:
            self.fn.labels[name] = old | labels
            self.changed = True

    def target(self, target: ast.AST, labels: Labels) -> None:
        if isinstance(target, ast.Name):
            self.labels(target.id, labels)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.target(element, labels)
        elif isinstance(target, ast.Starred):
            self.target(target.value, labels)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self.labels(target.value.id, labels)  # d[k] = v: the container holds v

    def assign(self, target: ast.AST, value: ast.AST) -> None:
        if (
            isinstance(target, (ast.Tuple, ast.List))
            and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in target.elts)
        ):
            for t, v in zip(target.elts, value.elts):
                self.assign(t, v)
            return
        self.target(target, self.fn.labels_of(value))

    def iterate(self, target: ast.AST, iterable: ast.AST) -> None:
        """``target`` takes each element of ``iterable`` in turn."""
        call = iterable if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) else None
        if call is not None and isinstance(target, (ast.Tuple, ast.List)) and not call.keywords:
            if call.func.id == "zip" and len(call.args) == len(target.elts):
                for t, arg in zip(target.elts, call.args):
                    self.iterate(t, arg)
                return
            if call.func.id == "enumerate" and len(target.elts) == 2 and call.args:
                self.iterate(target.elts[1], call.args[0])
                return
        self.target(target, self.fn.labels_of(iterable))


_MUTATORS = frozenset({"append", "extend", "add", "insert", "update", "appendleft", "setdefault"})


def analyse(fn: FunctionInfo, seeds: dict[str, Labels]) -> None:
    """Fill ``fn.labels`` (to a fixpoint over its assignments) and ``fn.assigned``."""
    fn.labels = dict(seeds)
    for node in fn.nodes:
        for target, value in _bindings(node):
            if isinstance(target, ast.Name) and value is not None:
                fn.assigned.setdefault(target.id, []).append(value)
    binder = _Binder(fn)
    for _ in range(20):  # chains of assignments converge in as many passes as they are long
        binder.changed = False
        for node in fn.nodes:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    binder.assign(target, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
                binder.assign(node.target, node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                binder.iterate(node.target, node.iter)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                binder.assign(node.optional_vars, node.context_expr)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _MUTATORS
                and isinstance(node.func.value, ast.Name)
            ):
                binder.labels(node.func.value.id, labels_of(ast.Tuple(elts=list(node.args), ctx=ast.Load()), fn.labels))
        if not binder.changed:
            break


def _bindings(node: ast.AST) -> Iterator[tuple[ast.AST, ast.expr | None]]:
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield target, node.value
    elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
        yield node.target, node.value
