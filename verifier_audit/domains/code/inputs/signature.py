"""A task's parameters and their type strings, from its metadata or its ``def`` line."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from .helper import _field


def signature(task_like: Any) -> list[tuple[str, str]]:
    """[(param, type string)] from ``metadata.signature`` when present, else from the def
    line of ``entry_point`` in the reference (or the prompt); "" for a missing annotation."""
    return _find_signature(task_like) or []


def _find_signature(task_like: Any) -> list[tuple[str, str]] | None:
    """Like ``signature`` but None when no signature was found at all (as opposed to a
    function that takes no parameters)."""
    meta = _field(task_like, "metadata", {}) or {}
    sig = meta.get("signature") if isinstance(meta, Mapping) else None
    if isinstance(sig, Mapping) and isinstance(sig.get("args"), list):
        out = []
        for item in sig["args"]:
            if isinstance(item, Mapping):
                out.append((str(item.get("name", "")), str(item.get("type", "") or "")))
            elif isinstance(item, (list, tuple)) and item:
                out.append((str(item[0]), str(item[1]) if len(item) > 1 and item[1] else ""))
        return out
    entry = _field(task_like, "entry_point", "")
    for source in (_field(task_like, "reference", ""), _field(task_like, "prompt", "")):
        found = _def_signature(source, entry)
        if found is not None:
            return found
    return None


def _def_signature(source: Any, entry: str) -> list[tuple[str, str]] | None:
    if not isinstance(source, str) or not source:
        return None
    try:
        tree = ast.parse(source)
    except Exception:  # noqa: BLE001 - never raise on task data
        return None
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    named = [n for n in defs if n.name == entry] if entry else defs
    if not named:
        return None
    fn = named[-1]  # a later definition wins, as it would at run time
    params = fn.args.posonlyargs + fn.args.args
    return [(a.arg, ast.unparse(a.annotation) if a.annotation is not None else "") for a in params]
