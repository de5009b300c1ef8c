"""Helpers shared by the tool generators: the task's reference read once, and candidates."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from ....models import Candidate, Severity, Task
from ..calls import Call, CallParseError, calls_from_json
from ..policy import tool_schemas
from ..schema import parameters_of


@dataclass
class Context:
    task: Task
    calls: list[Call]  # the reference, as written
    schemas: dict[str, dict]

    @classmethod
    def of(cls, task: Task) -> Optional["Context"]:
        try:
            calls = calls_from_json(json.loads(task.reference))
        except (json.JSONDecodeError, TypeError, CallParseError):
            return None
        return cls(task, calls, tool_schemas(task))

    def props(self, name: str) -> dict[str, dict]:
        return parameters_of(self.schemas.get(name, {})).get("properties") or {}

    def required(self, name: str) -> list[str]:
        return list(parameters_of(self.schemas.get(name, {})).get("required") or [])

    @property
    def order_matters(self) -> bool:
        return bool(self.task.metadata.get("order_matters", False))


def with_call(calls: list[Call], index: int, call: Call) -> list[Call]:
    return [call if i == index else c for i, c in enumerate(calls)]


def with_arg(call: Call, name: str, value: Any) -> Call:
    return Call(call.name, {**call.arguments, name: value})


def without_arg(call: Call, name: str) -> Call:
    return Call(call.name, {k: v for k, v in call.arguments.items() if k != name})


def make_candidates(task_id: str, chosen: Iterable[tuple[str, str, str, Optional[str]]], *, origin: str, label: str,
                    kinds: dict[str, tuple[Severity, str]]) -> list[Candidate]:
    """One Candidate per ``(kind, text, note, format)``; category ``tool.<origin>.<kind>``."""
    counters: dict[str, int] = {}
    out = []
    for kind, text, note, fmt in chosen:
        category = f"tool.{origin}.{kind}"
        index = counters.get(category, 0)
        counters[category] = index + 1
        out.append(Candidate(id=f"{task_id}/{category}/{index}", task_id=task_id, text=text, origin=origin,
                             category=category, severity=kinds[kind][0], label=label, note=note, format=fmt))
    return out
