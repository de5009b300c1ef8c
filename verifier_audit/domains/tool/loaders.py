"""Tool tasks from JSONL in our own task format (docs/tool-domain.md): one object a line
with ``prompt``, ``reference`` (a JSON list of calls, as text or as a list) and
``metadata.tools``. The built-in JSONL reader does the rest; this module only turns a
``reference`` given as a JSON value into its text, and names the file and line when a row
has no tools."""

from __future__ import annotations

import json
from pathlib import Path

from ...models import Task
from ..suite_files import read_jsonl, tasks_from_rows


def tool_row(row: dict) -> dict:
    fields = dict(row)
    if not isinstance(fields.get("reference"), str):
        fields["reference"] = json.dumps(fields.get("reference", []), ensure_ascii=False)
    meta = fields.get("metadata") or {}
    if "tools" in fields and "tools" not in meta:
        meta = {**meta, "tools": fields.pop("tools")}
    if not meta.get("tools"):
        raise ValueError("no tools: a tool task needs metadata.tools (OpenAI function schemas)")
    fields["metadata"] = meta
    return fields


def load_tool_jsonl(path: str | Path) -> list[Task]:
    path = Path(path)
    return tasks_from_rows(path, read_jsonl(path), domain="tool", transform=tool_row)
