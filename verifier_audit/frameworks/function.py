"""The plain function styles: ``fn(completion, task)`` (native) and ``fn(completion, reference)`` (pair)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..models import Task
from ._binding import Call

#: What each style passes, positionally (the names say what, for the call-boundary check).
ARGUMENTS = {"native": ("completion", "task"), "pair": ("completion", "reference")}


def make_caller(fn: Callable, spec: Any) -> Callable[[str, Task], Any]:
    if spec.style == "native":
        return lambda text, task: fn(text, task)
    return lambda text, task: fn(text, task.reference)


def call_of(spec: Any, signature: inspect.Signature, tasks: list[Task]) -> Call:
    """What ``make_caller`` passes (frameworks/_binding.py)."""
    return Call(positional=ARGUMENTS[spec.style])
