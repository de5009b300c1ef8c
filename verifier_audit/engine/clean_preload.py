"""Imported once by the clean workers' server (engine/pool.py), before it forks any: the
installed domains' reference verifiers and what they import (sympy, DuckDB, sqlglot), so
that a fresh worker starts warm. Trusted code only: never the verifier under audit."""

from ..domains import available, get_domain
from .clean_server import reference_modules

for _name in available():
    try:
        for _module in reference_modules(get_domain(_name)):
            __import__(_module)
    except Exception:  # noqa: BLE001 - a broken plugin domain only makes its workers slower
        pass
