"""The exploit search in the SQL and code domains (issue 14): the strong reference verifiers
get no finding (no false alarm); weak ones are found by compound edits of the query or the
program. (Math: tests/engine/test_search.py.)"""

from __future__ import annotations

import pytest

from verifier_audit.engine.audit import AuditOptions, prepare
from verifier_audit.loading import resolve
from verifier_audit.plan import audit
from verifier_audit.suites import load_suite

pytestmark = pytest.mark.slow


def _sql_search(spec: str, budget: int, limit: int = 10):
    from verifier_audit.engine.audit import default_cache_dir
    from verifier_audit.suites import select

    suite = load_suite("sql")
    # Near-misses only: the search starts from the reference and wrong candidates, and the
    # fixed exam's other origins (the catalog, equivalents) change nothing it does.
    # One worker: the search starts a pool per round (test_search.py says why that is cheaper).
    opts = AuditOptions(
        probe_sample=0, progress=False, search=budget, cache_dir=default_cache_dir(), origins=("near_miss",), workers=1
    )
    prepared = prepare(suite.name, suite.content_hash, select(suite, None, limit), opts)
    return audit(prepared, [resolve(spec)], opts)[0]


def test_sql_the_strong_verifier_gets_no_finding_and_a_one_database_one_does():
    strong = _sql_search("verifier_audit.domains.sql.verifiers:strong", 300)
    assert strong.search.calls > 0 and strong.search.families == [] and strong.search.errors == 0
    weak = _sql_search("verifier_audit.domains.sql.verifiers:single_db_set", 300)
    assert weak.search.families, "single_db_set compares on one database: an edit it cannot see is there"
    assert all(f.score >= 0.5 and f.reach_tasks >= 1 and f.reach_misjudged >= 1 for f in weak.search.families)
    assert {f.category for f in weak.search.families} <= {c.name for c in weak.categories}


def test_code_the_strong_verifier_gets_no_finding_and_an_exit_code_grader_pays_an_exit():
    from verifier_audit.engine.audit import default_cache_dir
    from verifier_audit.suites import select

    suite = load_suite("code")

    def run(spec: str, budget: int):
        opts = AuditOptions(
            probe_sample=0,
            progress=False,
            search=budget,
            cache_dir=default_cache_dir(),
            timeout=4.0,
            origins=("near_miss",),
            workers=1,  # a pool per round of the search: one worker's start, not two
        )  # the catalog's hangs would only wait out their timeouts
        prepared = prepare(suite.name, suite.content_hash, select(suite, None, 2), opts)
        return audit(prepared, [resolve(spec)], opts)[0].search

    strong = run("verifier_audit.domains.code.verifiers:strong", 100)
    assert strong.calls > 0 and strong.families == [] and strong.errors == 0
    exit_code = run("verifier_audit.domains.code.verifiers:exit_code", 60)
    assert any("exit_zero" in f.operators for f in exit_code.families), exit_code.families
