"""The SQL domain's acceptance criteria, through the real command line."""

import hashlib
from pathlib import Path

import pytest

from verifier_audit.models import Report, ReportSet

pytestmark = pytest.mark.slow


def _by_name(path):
    return {r.verifier.rpartition(":")[2]: r for r in ReportSet.model_validate_json(Path(path).read_text()).reports}


def _near_miss_fa(report):
    """Mean false acceptance over near-miss categories (each kind weighs the same)."""
    rows = [c for c in report.categories if c.origin == "near_miss" and c.n]
    return sum(c.rate for c in rows) / len(rows)


def test_default_sql_run_shows_the_contrast(cli, tmp_path):
    out = tmp_path / "sql.json"
    # The probes (determinism, threads) change no verdict and have tests of their own, and
    # the first 20 of the suite's 174 tasks show the same contrast (measured: syntax_only
    # debt 0.954, single_db_set near-miss FA 0.195, exact_match FR 0.804, strong 0 and 0;
    # the first 40: 0.955, 0.182, 0.822, 0 and 0) in an eighth of the CPU of the whole
    # suite. One worker per verifier: the pool is not what this test is about. The
    # subprocess limit is a hang guard, not a speed limit.
    r = cli(
        "run",
        "--suite",
        "sql",
        "--limit",
        "20",
        "--no-progress",
        "--probe-sample",
        "0",
        "--workers",
        "1",
        "--json",
        str(out),
        timeout=1800,
    )
    assert r.returncode == 0, r.stderr
    reports = _by_name(out)
    assert list(reports) == ["syntax_only", "exact_match", "single_db_set", "strong"]
    assert reports["syntax_only"].coverage_debt >= 0.9
    # Category-balanced, as the debt is: 28 mutation kinds weigh the same whatever their counts.
    assert _near_miss_fa(reports["single_db_set"]) >= 0.15
    assert reports["strong"].coverage_debt <= 0.03
    assert reports["strong"].false_rejection_rate <= 0.05
    assert reports["exact_match"].false_rejection_rate >= 0.5
    assert all(not rep.security_findings for rep in reports.values())


def _fixture_hashes(cache: Path):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(cache.rglob("*.duckdb"))}


def test_read_write_verifier_is_a_finding_and_fixtures_stay_intact(cli, tmp_path):
    import os

    cache = Path(os.environ["VERIFIER_AUDIT_CACHE"])
    # 3 tasks: each gets every hostile entry of the catalog (the writes and the bombs alike).
    cli("generate", "--suite", "sql", "--limit", "3", "--out", str(tmp_path / "c.jsonl"))  # materialise first
    before = _fixture_hashes(cache)
    assert before
    out = tmp_path / "rw.json"
    # --timeout 2: this verifier has no query limit of its own, so resource bombs run until
    # the engine kills the call (they become timeout errors, as they should). 4 workers on 2
    # cores: those calls wait on the wall clock, not on a core.
    r = cli(
        "run",
        "--suite",
        "sql",
        "--limit",
        "3",
        "--verifier",
        "examples/sql_unsafe_verifier.py:read_write_executor",
        "--json",
        str(out),
        "--no-progress",
        "--timeout",
        "2",
        "--workers",
        "4",
        "--probe-sample",
        "0",
    )
    assert r.returncode == 1, r.stderr
    report = Report.model_validate_json(out.read_text())
    kinds = {f.kind for f in report.security_findings}
    assert "modified_fixture" in kinds
    assert report.error_kinds.get("timeout", 0) > 0  # the bombs: stopped by the engine
    assert any("security" in reason for reason in report.gate.reasons)
    after = _fixture_hashes(cache)
    assert {k: after[k] for k in before} == before


def test_every_hostile_entry_through_the_oracle_touches_nothing(tmp_path, monkeypatch):
    """No file read or written outside the fixture, nothing persists, bombs stop at their
    limit: each candidate runs at most once per database, under the candidate timeout, and
    the first timeout ends its label (run_query's own interrupt is test_sql_database's)."""
    import os

    from verifier_audit.domains.sql import guard, oracle
    from verifier_audit.engine.audit import AuditOptions, default_cache_dir, prepare
    from verifier_audit.suites import load_suite

    suite = load_suite("sql")
    # Every task gets each hostile entry of the catalog (~50): 6 tasks spread over the suite
    # run every entry against 6 schemas (tasks[::9] ran ~1,000 labels for the same entries).
    tasks = suite.tasks[::29]
    prepared = prepare("sql", suite.content_hash, tasks, AuditOptions(progress=False, cache_dir=default_cache_dir()))
    hostile = [c for c in prepared.candidates if c.origin == "known_bad"]
    entries = {c.id.split("/")[-1].rsplit("-", 1)[0] for c in hostile}
    assert len(hostile) >= 20 and len(entries) >= 20
    cache = Path(os.environ["VERIFIER_AUDIT_CACHE"])
    fixtures_before = _fixture_hashes(cache)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    secret_fd = guard._watch_secret(str(work))
    listing = sorted(os.listdir(work))
    by_id = {t.id: t for t in prepared.tasks}
    runs = []  # (timeout, result) of every query the oracle runs
    run_query = oracle.run_query
    monkeypatch.setattr(
        oracle,
        "run_query",
        lambda *a, timeout, **kw: runs.append((timeout, result := run_query(*a, timeout=timeout, **kw))) or result,
    )
    for c in hostile:
        task = by_id[c.task_id]
        runs.clear()
        label = oracle.label_completion(c.text, task)
        assert label.label == "incorrect", (c.category, c.text[:120])
        mine = [r for t, r in runs if t == oracle.CANDIDATE_TIMEOUT]
        assert len(mine) <= 1 + len(task.metadata.get("databases", [])), c.category
        assert [r.timed_out for r in mine].count(True) <= 1 and all(not r.timed_out for r in mine[:-1]), c.category
        assert sorted(os.listdir(work)) == listing, c.category  # nothing written here
        assert not guard._drain(secret_fd), c.category  # the secret beside it was not read
    assert _fixture_hashes(cache) == fixtures_before
