"""The generator kit: what every domain's candidate generators share, in one public face.

A domain (built-in or a plugin's) imports these names from ``verifier_audit.domains.kit``
and nothing below it; the modules behind it are private, so they can be split or merged
without touching a domain.

* seeding (``rng_for``): a candidate depends only on its own task and generator;
* candidates (``make_candidates``): chosen texts of one task into ``Candidate`` s with the
  domain's category and id scheme, written once for every domain;
* sampling (``sample_kinds``): at most N of each kind and M in all, spread over the kinds,
  the one "at most N per kind" sampler of every domain's generators;
* wiring (``assemble``, ``list_categories``, ``DomainGenerators``): a domain's per-task
  generators plus its catalog, as the ``generate_all`` and ``categories`` the Domain
  protocol asks for;
* catalogs (``load_catalog``, ``builtin_catalog``, ``expand_template``,
  ``instantiate_catalog``...): the YAML known-bad catalogs and their template language.

It sits with the domains (layer 1 in ``tests/test_layers.py``) and imports no domain.
"""

from ._catalog import (
    GENERIC_PLACEHOLDERS,
    MAX_EXPANDED_CHARS,
    CatalogEntry,
    CatalogError,
    Resolver,
    TemplateError,
    builtin_catalog,
    check_template,
    expand_template,
    filler,
    load_catalog,
)
from ._generation import (
    Chosen,
    DomainGenerators,
    IdScheme,
    PerTask,
    SkipInstance,
    assemble,
    check_templates,
    instantiate_by_kinds,
    instantiate_catalog,
    list_categories,
    make_candidates,
    rng_for,
)
from ._sampling import Draw, Order, sample_kinds

__all__ = [
    "GENERIC_PLACEHOLDERS",
    "MAX_EXPANDED_CHARS",
    "CatalogEntry",
    "CatalogError",
    "Chosen",
    "DomainGenerators",
    "Draw",
    "IdScheme",
    "Order",
    "PerTask",
    "Resolver",
    "SkipInstance",
    "TemplateError",
    "assemble",
    "builtin_catalog",
    "check_template",
    "check_templates",
    "expand_template",
    "filler",
    "instantiate_by_kinds",
    "instantiate_catalog",
    "list_categories",
    "load_catalog",
    "make_candidates",
    "rng_for",
    "sample_kinds",
]
