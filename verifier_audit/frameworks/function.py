"""The plain function styles: ``fn(completion, task)`` (native) and ``fn(completion, reference)`` (pair)."""

from __future__ import annotations

from typing import Any, Callable

from ..models import Task


def make_caller(fn: Callable, spec: Any) -> Callable[[str, Task], Any]:
    if spec.style == "native":
        return lambda text, task: fn(text, task)
    return lambda text, task: fn(text, task.reference)
