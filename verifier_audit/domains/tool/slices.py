"""A tool task's slices: its kind (``kind:simple``, ``multiple``, ``parallel``,
``parallel_multiple``, ``irrelevance``; the primary slice) and its tool family
(``family:files``, ``family:banking``...). Both come from the task's metadata; the kind is
inferred from the reference and the tools offered when the metadata does not say."""

from __future__ import annotations

import json

from ...models import Task
from .policy import tool_schemas

KINDS = ("simple", "multiple", "parallel", "parallel_multiple", "irrelevance")


def infer_kind(task: Task) -> str:
    try:
        ref = json.loads(task.reference)
    except (json.JSONDecodeError, TypeError):
        return "unknown"
    n_calls = len(ref) if isinstance(ref, list) else 1
    if n_calls == 0:
        return "irrelevance"
    several_tools = len(tool_schemas(task)) > 1
    if n_calls == 1:
        return "multiple" if several_tools else "simple"
    return "parallel_multiple" if several_tools else "parallel"


def task_slices(task: Task) -> list[str]:
    meta = task.metadata or {}
    kind = meta.get("kind") if meta.get("kind") in KINDS else infer_kind(task)
    out = [f"kind:{kind}"]
    if meta.get("family"):
        out.append(f"family:{meta['family']}")
    if "state" in meta:
        out.append("outcome:state")
    return out
