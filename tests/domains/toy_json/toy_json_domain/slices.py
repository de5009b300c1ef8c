"""A toy task's slices: its shape (``shape:flat``, ``shape:nested``, ``shape:list``; the
primary one) and its size (``keys:1-3``, ``keys:4+``), read from the reference."""

from __future__ import annotations

from verifier_audit.models import Task

from .oracle import Unreadable, reference_object


def task_slices(task: Task) -> list[str]:
    try:
        obj = reference_object(task)
    except Unreadable:
        return []
    values = list(obj.values())
    shape = (
        "nested"
        if any(isinstance(v, dict) for v in values)
        else "list"
        if any(isinstance(v, list) for v in values)
        else "flat"
    )
    return [f"shape:{shape}", "keys:1-3" if len(obj) <= 3 else "keys:4+"]
