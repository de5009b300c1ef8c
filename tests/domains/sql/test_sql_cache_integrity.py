"""What the audit caches and reuses is verified by content hash before use: the base
fixture, the fuzzed and distilled databases, and the candidates (with their labels). A
same-size edit with the mtime put back -- what a verifier under audit can do to files it
is handed by path -- is found on the next run, which warns on stderr, rebuilds, and gets
what a clean run gets. Real DuckDB files, a real oracle, a real audit."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from verifier_audit.domains.sql import DOMAIN, integrity
from verifier_audit.domains.sql.database import close_all
from verifier_audit.domains.sql.oracle import gold_answer
from verifier_audit.engine.audit import AuditOptions, prepare
from verifier_audit.loading import resolve
from verifier_audit.plan import audit
from verifier_audit.suites import load_suite

TASKS = 3  # of the shop schema: one pool to build


def _tamper(path: Path, offset_from_end: int = 4096) -> None:
    """Flip bytes inside the file, same size, mtime and atime put back."""
    st = os.stat(path)
    with open(path, "r+b") as fh:
        fh.seek(max(0, st.st_size - offset_from_end))
        chunk = fh.read(64)
        fh.seek(max(0, st.st_size - offset_from_end))
        fh.write(bytes(b ^ 0x5A for b in chunk))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_mtime_ns == st.st_mtime_ns


def _tables(task) -> list:
    return [integrity.tables(Path(p), "duckdb") for p in [task.database, *task.metadata["databases"]]]


def _golds(task) -> list:
    return [gold_answer(task.reference, p).result.rows for p in [task.database, *task.metadata["databases"]]]


@pytest.fixture(scope="module")
def shop_tasks():
    return [t for t in load_suite("sql").tasks if t.metadata.get("schema") == "shop"][:TASKS]


@pytest.fixture
def cache(tmp_path, shop_tasks):
    close_all()
    clean = DOMAIN.prepare_tasks(shop_tasks, 0, tmp_path)
    yield tmp_path, clean
    close_all()


def test_a_tampered_distilled_database_is_found_rebuilt_and_gives_the_clean_answers(cache, shop_tasks, capsys):
    root, clean = cache
    victim = Path(clean[0].metadata["databases"][0])
    before = _tables(clean[0])
    _tamper(victim)
    capsys.readouterr()
    close_all()
    again = DOMAIN.prepare_tasks(shop_tasks, 0, root)
    err = capsys.readouterr().err
    assert f"warning: the distilled database {victim} does not match its recorded content hash" in err, err
    assert err.count("warning:") == 1  # once, although several tasks share the pool database
    assert [t.metadata["databases"] for t in again] == [t.metadata["databases"] for t in clean]
    assert integrity.cached_intact(victim)  # rebuilt, with its own record
    assert _tables(again[0]) == before
    close_all()
    gold_answer.__globals__["_GOLD_CACHE"].clear()  # answers are cached per path in the process
    assert [_golds(t) for t in again] == [_golds(t) for t in clean]


def test_a_tampered_pool_database_no_task_kept_is_rebuilt_before_distillation(cache, shop_tasks, capsys):
    root, clean = cache
    kept = {p for t in clean for p in t.metadata["databases"]}
    pool_dir = next((root / "sql" / "fuzz" / "pool").iterdir())
    spare = next(p for p in sorted(pool_dir.glob("pool-*.duckdb")) if str(p) not in kept)
    for distilled in (root / "sql" / "fuzz" / "distilled").glob("*.json"):
        distilled.unlink()  # the tasks are distilled again: every pool database is read
    _tamper(spare)
    capsys.readouterr()
    close_all()
    again = DOMAIN.prepare_tasks(shop_tasks, 0, root)
    assert f"the fuzzed database {spare} does not match" in capsys.readouterr().err
    assert [t.metadata["databases"] for t in again] == [t.metadata["databases"] for t in clean]


def test_a_tampered_base_fixture_is_found_and_rebuilt(cache, shop_tasks, capsys):
    root, clean = cache
    base = Path(clean[0].database)
    before = integrity.tables(base, "duckdb")
    _tamper(base, offset_from_end=base.stat().st_size // 2)
    capsys.readouterr()
    close_all()
    again = DOMAIN.prepare_tasks(shop_tasks, 0, root)
    assert f"warning: the cached base fixture {base} does not match" in capsys.readouterr().err
    assert again[0].database == str(base) and integrity.cached_intact(base)
    assert integrity.tables(base, "duckdb") == before


def test_a_missing_or_replaced_record_is_never_trusted(tmp_path, capsys):
    path = tmp_path / "x.duckdb"
    path.write_bytes(b"data")
    assert not integrity.cached_intact(path)  # no record: rebuilt
    assert "has no recorded content hash" in capsys.readouterr().err and not path.exists()
    path.write_bytes(b"data")
    integrity.record_hash(path, integrity.content_hash(path))
    assert integrity.cached_intact(path)
    os.chmod(f"{path}.sha256", 0o644)
    Path(f"{path}.sha256").write_text("0" * 64 + "\n")
    assert not integrity.cached_intact(path) and not path.exists()
    target = tmp_path / "elsewhere"
    target.write_bytes(b"data")
    path.symlink_to(target)  # a link where the file was: not followed, removed
    integrity.record_hash(path, integrity.content_hash(target))
    assert not integrity.cached_intact(path) and not path.is_symlink() and target.read_bytes() == b"data"


# ------------------------------------------------------------------ the candidate cache


def _flip_a_label(path: Path) -> None:
    """'incorrect' -> 'correct' on one kept candidate, padded to the same size."""
    st = os.stat(path)
    text = path.read_text(encoding="utf-8")
    assert '"label": "incorrect"' in text
    path.write_text(text.replace('"label": "incorrect"', '"label": "correct"  ', 1), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size


def _figures(report) -> dict:
    data = report.model_dump(mode="json")
    keep = ("coverage_debt", "false_acceptance_rate", "false_rejection_rate", "error_rate", "categories", "gate")
    return {k: data[k] for k in keep}


def test_a_tampered_candidate_cache_is_regenerated_and_the_report_is_the_clean_one(cache, shop_tasks, capsys):
    root, _ = cache
    loaded = load_suite("sql")
    options = AuditOptions(workers=2, cache_dir=root, probe_sample=0, progress=False, answer_formats=False)
    clean = prepare(loaded.name, loaded.content_hash, shop_tasks, options)
    cached = next(root.glob("candidates-*.jsonl"))
    assert prepare(loaded.name, loaded.content_hash, shop_tasks, options).candidates == clean.candidates
    _flip_a_label(cached)
    capsys.readouterr()
    again = prepare(loaded.name, loaded.content_hash, shop_tasks, options)
    assert "warning: the candidate cache" in capsys.readouterr().err
    assert again.candidates == clean.candidates and again.dropped == clean.dropped
    json.loads(cached.read_text().splitlines()[-1])["_hmac"]  # written again, with its MAC
    spec = resolve("verifier_audit.domains.sql.verifiers:single_db_set")
    small = dataclasses.replace(clean, candidates=clean.candidates[:60])
    rerun = dataclasses.replace(again, candidates=again.candidates[:60])
    assert _figures(audit(rerun, [spec], options)[0]) == _figures(audit(small, [spec], options)[0])
