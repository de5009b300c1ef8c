"""Domain registry. The built-in domains are declared once, in ``_BUILTIN``; a domain of
another distribution registers under the ``verifier_audit.domains`` entry point
(docs/architecture.md, "Adding things", has a worked example), so a new one is added
without touching the engine; the suite file formats and named datasets they declare
(``Domain.suite_formats``, ``suite_datasets``) are looked up here, so a new one is added
without touching the suite reader either."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from importlib.metadata import entry_points

from ..errors import InputError
from .base import Domain, FormatSign, SuiteScheme

# The built-in domains, in the order every listing shows them (``--format``, ``catalog``):
# the one line a built-in domain has outside its folder besides its data (its catalog and
# suite). They are no entry points, so an installed package and a source tree that was
# never installed see the same domains in the same order.
_BUILTIN = {
    "math": "verifier_audit.domains.math:DOMAIN",
    "sql": "verifier_audit.domains.sql:DOMAIN",
    "code": "verifier_audit.domains.code:DOMAIN",
    "tool": "verifier_audit.domains.tool:DOMAIN",
    # The code domain's program tasks (stdin/stdout): a domain of their own for their verifiers.
    "program": "verifier_audit.domains.code.programs:DOMAIN",
    # Repository patches (issue 36): a unified diff graded by the repository's own pytest.
    "repo": "verifier_audit.domains.repo:DOMAIN",
}


@cache
def available() -> dict[str, str]:
    """domain name -> spec (``"package.module:DOMAIN"``): the built-in domains, then every
    plugin's entry point."""
    found = dict(_BUILTIN)
    for ep in entry_points(group="verifier_audit.domains"):
        found[ep.name] = ep.value
    return found


def get_domain(name: str) -> Domain:
    specs = available()
    if name not in specs:
        raise InputError(f"unknown domain {name!r}; installed domains: {', '.join(sorted(specs))}")
    return resolve(specs[name])


@cache
def suite_formats() -> dict[str, str]:
    """format name -> loader spec of every installed domain's suite formats, in registry
    order. Cheap: a domain package's ``__init__`` imports none of its dependencies."""
    found: dict[str, str] = {}
    for name in available():
        found.update(get_domain(name).suite_formats)
    return found


@cache
def suite_datasets() -> dict[str, tuple[str, str]]:
    """dataset name -> (format, spec of the function locating its file), every domain's."""
    found: dict[str, tuple[str, str]] = {}
    for name in available():
        found.update(get_domain(name).suite_datasets)
    return found


def suite_signs() -> dict[str, tuple[str, FormatSign]]:
    """format name -> (its domain, how its rows look), every domain's (``Domain.suite_signs``)."""
    return {fmt: (name, sign) for name in available() for fmt, sign in get_domain(name).suite_signs.items()}


@cache
def suite_schemes() -> tuple[SuiteScheme, ...]:
    """The suites every domain names by a prefix (``Domain.suite_schemes``: ``bfcl:``)."""
    return tuple(scheme for name in available() for scheme in get_domain(name).suite_schemes)


def resolve(spec: str) -> Callable:
    """The object a ``"package.module:attribute"`` spec names (a loader, a locator)."""
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)
