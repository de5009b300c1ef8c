"""The SQL known-bad catalog: its size and shape, every entry filled in on suite tasks, and
the hard-coded-result entries really reproducing the gold on the base database."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
import sqlglot

from verifier_audit.domains.kit import CatalogEntry, CatalogError, builtin_catalog, check_template
from verifier_audit.domains.sql.generators import categories, known_bad
from verifier_audit.models import Severity, Task
from verifier_audit.resources import data_path


@pytest.fixture(scope="module")
def entries():
    return builtin_catalog("sql")


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> list[Task]:
    from verifier_audit.domains.sql.fixtures import fixture_path

    cache = tmp_path_factory.mktemp("sql-fixtures")
    path = data_path("suites", "sql", "tasks.jsonl")
    tasks = [Task.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [t.model_copy(update={"database": str(fixture_path(t, cache))}) for t in tasks]


@pytest.fixture(scope="module")
def made(suite, entries):
    return known_bad.generate(suite, 0, entries)


def test_catalog_size_and_shape(entries):
    assert len(entries) >= 20
    assert len({e.category for e in entries}) >= 20
    for e in entries:
        assert e.category.startswith("sql.")
        check_template(e.template, known=known_bad.PLACEHOLDERS)
    families = {e.category.split(".")[1] for e in entries}
    assert {
        "hardcode",
        "ddl",
        "dml",
        "multi",
        "poison",
        "file",
        "extension",
        "config",
        "resource",
        "schema",
        "syntax",
        "format",
        "wrong_task",
        "comment",
        "injection",
    } <= families


def test_every_entry_expands_on_a_sample_of_tasks(made, entries):
    by_entry = Counter(c.note.removeprefix("catalog entry ") for c in made)
    for e in entries:
        assert by_entry[e.id] == e.instances, (e.id, by_entry[e.id])
    assert all(c.label == "incorrect" and c.origin == "known_bad" for c in made)
    assert len({c.id for c in made}) == len(made)


def test_instances_are_deterministic_and_seed_dependent(suite, entries):
    first = [(c.id, c.text) for c in known_bad.generate(suite, 3, entries)]
    assert first == [(c.id, c.text) for c in known_bad.generate(suite, 3, entries)]
    assert first != [(c.id, c.text) for c in known_bad.generate(suite, 4, entries)]


def test_categories_cover_the_catalog(entries):
    infos = {i.name: i for i in categories()}
    for e in entries:
        assert infos[e.category].origin == "known_bad" and infos[e.category].reference


def _fenced(text: str) -> str:
    return text.split("```sql\n", 1)[1].rsplit("```", 1)[0]


def test_hardcoded_results_reproduce_the_gold_on_the_base_database(made, suite):
    from verifier_audit.domains.sql.compare import gold_is_ordered, results_equal
    from verifier_audit.domains.sql.database import run_query

    by_id = {t.id: t for t in suite}
    checked = 0
    for c in made:
        if c.category not in ("sql.hardcode.values", "sql.hardcode.union_literals"):
            continue
        task = by_id[c.task_id]
        gold, got = run_query(task.database, task.reference), run_query(task.database, _fenced(c.text))
        assert got.ok, (c.id, got.error)
        ordered = gold_is_ordered(task.reference) and c.category == "sql.hardcode.values"
        assert results_equal(gold.rows, got.rows, ordered=ordered), c.id
        checked += 1
    assert checked >= 20


def test_placeholders_fill_in_what_they_say(made, suite):
    by_id = {t.id: t for t in suite}
    for c in made:
        task, entry = by_id[c.task_id], c.note.removeprefix("catalog entry ")
        if entry == "drop_table_then_gold":
            assert task.reference.strip().rstrip(";") in c.text and "DROP TABLE" in c.text
        if entry == "other_task_gold":
            assert task.reference.strip().rstrip(";") not in c.text
        if entry == "where_behind_comment":
            assert "-- WHERE" in c.text
            body = _fenced(c.text)
            assert sqlglot.parse_one(body, read="duckdb").args.get("where") is None
        if entry == "copy_to_file":
            assert "'va_canary_copy_to_file_" in c.text
        if entry in ("hallucinated_table", "hallucinated_column"):
            assert "_archive" in c.text or "_value" in c.text


def test_the_oracle_rejects_the_hostile_entries(made, suite):
    """Statements that write, read files or run forever are incorrect whatever they return."""
    oracle = pytest.importorskip("verifier_audit.domains.sql.oracle")
    by_id = {t.id: t for t in suite}
    hostile = (
        "sql.ddl.",
        "sql.dml.",
        "sql.file.",
        "sql.extension.",
        "sql.config.",
        "sql.poison.",
        "sql.resource.",
        "sql.multi.",
        "sql.syntax.",
        "sql.format.",
        "sql.schema.",
    )
    labels = defaultdict(Counter)
    for c in made:
        if c.category.startswith(hostile):
            labels[c.category][oracle.label_completion(c.text, by_id[c.task_id]).label] += 1
    print("\n" + "\n".join(f"{k}: {dict(v)}" for k, v in sorted(labels.items())))
    assert all(set(v) == {"incorrect"} for v in labels.values()), dict(labels)


def test_unknown_placeholder_is_an_error(suite):
    entry = CatalogEntry(
        id="bad",
        category="sql.test.bad",
        severity=Severity.low,
        template="{{nope}}",
        rationale="r",
        reference="r",
        domain="sql",
    )
    with pytest.raises(CatalogError, match="nope"):
        known_bad.generate(suite[:3], 0, [entry])


def test_an_entry_that_cannot_be_filled_is_skipped_not_failed(suite):
    # No gold in the suite is a bare VALUES list, so {{gold_where_commented}} is skipped on
    # tasks whose gold has no WHERE and instantiated on the others.
    entry = CatalogEntry(
        id="hide",
        category="sql.test.hide",
        severity=Severity.low,
        template="{{gold_where_commented}}",
        rationale="r",
        reference="r",
        instances=1000,
        domain="sql",
    )
    out = known_bad.generate(suite, 0, [entry])
    with_where = [t for t in suite if sqlglot.parse_one(t.reference, read="duckdb").args.get("where") is not None]
    assert 0 < len(out) <= len(with_where) < len(suite)


# ------------------------------------- several statements: who pays them, what the oracle says

STATEMENT_SEQUENCES = {  # entry id -> which statement of the script is the gold
    "drop_view_then_gold": -1,
    "create_table_then_gold": -1,
    "gold_then_wrong": 0,
    "wrong_then_gold": -1,
}


def _statements(text: str) -> list[str]:
    return [s.strip() for s in _fenced(text).split(";\n") if s.strip().rstrip(";")]


def test_multi_statement_entries_are_incorrect_yet_naive_graders_pay_them(made, suite, tmp_path):
    """The task asks for one read-only query: a script that puts DDL before the gold, or
    hedges gold and near-miss, is incorrect whatever it returns (the oracle's rule), and
    each shape is paid by the grader it is aimed at: the last result (DuckDB's execute on
    the whole string) or the first statement only."""
    import shutil

    import duckdb

    from verifier_audit.domains.sql import verifiers as V
    from verifier_audit.domains.sql.compare import results_equal
    from verifier_audit.domains.sql.database import run_query
    from verifier_audit.domains.sql.oracle import label_completion

    by_id = {t.id: t for t in suite}
    seen = Counter()
    for c in made:
        entry = c.note.removeprefix("catalog entry ")
        if entry not in STATEMENT_SEQUENCES:
            continue
        task = by_id[c.task_id]
        label = label_completion(c.text, task)
        assert label.label == "incorrect" and "statements" in label.reason, (c.id, label)
        assert V.syntax_only(c.text, task.reference) and not V.strong(c.text, task)
        statements = _statements(c.text)
        assert len(statements) == 2
        gold = run_query(task.database, task.reference)
        assert results_equal(gold, run_query(task.database, statements[STATEMENT_SEQUENCES[entry]]), ordered=False)
        if STATEMENT_SEQUENCES[entry] == -1:
            # A grader that runs the whole script on a writable copy and keeps the last result pays.
            copy = tmp_path / f"{seen[entry]}-{entry}.duckdb"
            shutil.copyfile(task.database, copy)
            with duckdb.connect(str(copy)) as con:
                rows = con.execute(_fenced(c.text)).fetchall()
            assert sorted(map(repr, rows)) == sorted(map(repr, gold.rows)), c.id
        seen[entry] += 1
    assert all(seen[e] == 12 for e in STATEMENT_SEQUENCES), seen


def test_leading_ddl_entries_share_one_category(entries):
    leading = {e.id: e for e in entries if e.category == "sql.ddl.leading_ddl"}
    assert set(leading) == {"drop_view_then_gold", "create_table_then_gold"}
    assert all(e.severity is Severity.high and e.template.rstrip().endswith("{{gold}};\n```") for e in leading.values())
