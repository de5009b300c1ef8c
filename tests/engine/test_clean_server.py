"""The clean workers' server preloads the domains' reference verifiers through the contract
(``Domain.reference_verifiers``), so a plugin domain that is a plain ``Domain`` (no
``DomainPackage.package``) can be audited: ``warm_clean_server`` raised AttributeError on it
before (found by mypy over engine/, docs/architecture.md "Lint and types")."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from cli_support import ROOT

from verifier_audit.domains import available, get_domain


@pytest.mark.parametrize("name", ["math", "sql", "code", "tool"])
def test_a_builtin_domain_preloads_its_verifiers_module_as_before(name):
    assert name in available()
    domain = get_domain(name)
    assert domain.warm_modules() == [f"{domain.package}.verifiers"]


# In a fresh interpreter: the forkserver must not be running yet, or the domains are not read.
_WARM_A_PLAIN_DOMAIN = textwrap.dedent(
    """
    from verifier_audit import domains
    from verifier_audit.domains.base import Domain
    from verifier_audit.engine import clean_server, pool

    class Plain(Domain):
        name = "plain"
        reference_verifiers = {"exact": "json.decoder:JSONDecoder", "again": "json.decoder:scanstring"}

    PLAIN = Plain()
    domains._BUILTIN["plain"] = "__main__:PLAIN"
    domains.available.cache_clear()
    pool.warm_clean_server(["plain"])
    print(clean_server._preload)
    """
)


def test_a_plain_plugin_domain_warms_the_clean_server():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _WARM_A_PLAIN_DOMAIN], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['json.decoder']"


def test_a_domain_without_reference_verifiers_preloads_nothing():
    from verifier_audit.domains.base import Domain

    assert Domain().warm_modules() == []
