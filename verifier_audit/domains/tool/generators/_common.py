"""Helpers shared by the tool generators: the task's reference read once, and the kinds'
order (candidates and sampling are the kit's, ``verifier_audit.domains.kit``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ....models import Task
from ..calls import Call, CallParseError, calls_from_json
from ..policy import tool_schemas
from ..schema import parameters_of


@dataclass
class Context:
    task: Task
    calls: list[Call]  # the reference, as written
    schemas: dict[str, dict]

    @classmethod
    def of(cls, task: Task) -> Context | None:
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


def in_kind_order(kinds: dict) -> Callable[[tuple], int]:
    """The sampler's ``order`` for ``(kind, ...)`` tuples: as the kinds table lists them."""
    rank = {kind: n for n, kind in enumerate(kinds)}
    return lambda item: rank[item[0]]
