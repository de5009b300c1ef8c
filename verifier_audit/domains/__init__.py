"""Domain registry. Domains register under the ``verifier_audit.domains`` entry point, so a
new one (sql, code, a plugin's own) is added without touching the engine."""

from __future__ import annotations

import importlib
from functools import lru_cache
from importlib.metadata import entry_points

from ..errors import InputError
from .base import Domain

# Used when the package runs from a source tree that was never installed.
_BUILTIN = {"math": "verifier_audit.domains.math:DOMAIN", "sql": "verifier_audit.domains.sql:DOMAIN",
            "code": "verifier_audit.domains.code:DOMAIN", "tool": "verifier_audit.domains.tool:DOMAIN"}


@lru_cache(maxsize=None)
def available() -> dict[str, str]:
    found = dict(_BUILTIN)
    for ep in entry_points(group="verifier_audit.domains"):
        found[ep.name] = ep.value
    return found


def get_domain(name: str) -> Domain:
    specs = available()
    if name not in specs:
        raise InputError(f"unknown domain {name!r}; installed domains: {', '.join(sorted(specs))}")
    module, _, attr = specs[name].partition(":")
    return getattr(importlib.import_module(module), attr)
