"""One task's distillation plan: its base fixture, schema and cache key, and the cached
databases when there are some. Built by ``suite.distil_all`` and carried to the worker
processes by ``workers.DistilJob``; a module of its own so that neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ....models import Task
from ..schema import Schema


@dataclass
class Plan:
    task: Task
    schema: Schema
    base: Path
    key: str
    cached: list[Path] | None = None
