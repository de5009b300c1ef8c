"""A code task's slices: the family of what its function returns (number, bool, str, list,
tuple, dict, none) and its task family when the suite names one.

The return type comes from the suite's signature when it has one, else from the reference
solution's own annotation (HumanEval and MBPP files have no signature field): comparison
holes are type-shaped (a float compared exactly, a list compared as a set, ``True == 1``).
"""

from __future__ import annotations

import ast
import re

from ...models import Task

_FAMILIES = (
    ("bool", "bool"),
    ("int", "number"),
    ("float", "number"),
    ("complex", "number"),
    ("str", "str"),
    ("list", "list"),
    ("sequence", "list"),
    ("tuple", "tuple"),
    ("dict", "dict"),
    ("mapping", "dict"),
    ("set", "set"),
    ("none", "none"),
)


def task_slices(task: Task) -> list[str]:
    meta = task.metadata or {}
    returns = (meta.get("signature") or {}).get("returns") if isinstance(meta.get("signature"), dict) else None
    out = [f"returns:{return_family(returns or _annotation(task))}"]
    if isinstance(meta.get("family"), str) and meta["family"]:
        out.append(f"family:{meta['family']}")
    return out


def return_family(annotation: str | None) -> str:
    if not annotation:
        return "unknown"
    text = annotation.strip().lower().replace("typing.", "")
    if text.startswith("optional[") and text.endswith("]"):
        text = text[len("optional[") : -1]
    outer = re.split(r"[\[\(,| ]", text, maxsplit=1)[0]
    for prefix, family in _FAMILIES:
        if outer.startswith(prefix):
            return family
    return "other"


def _annotation(task: Task) -> str | None:
    """The entry point's return annotation, from the reference, else from the prompt (a
    HumanEval reference is the function's body; its ``def`` line is in the prompt)."""
    entry = getattr(task, "entry_point", None) or (task.metadata or {}).get("entry_point")
    for source in (task.reference, task.prompt):
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and (entry is None or node.name == entry) and node.returns is not None:
                return ast.unparse(node.returns)
    return None
