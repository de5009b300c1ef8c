"""Spider/BIRD loading on a small, dirty SQLite database the test builds with sqlite3."""

import json
import sqlite3
import stat

import duckdb
import pytest

from verifier_audit.domains.sql.database import run_query
from verifier_audit.domains.sql.fixtures import fixture_path, schema_for, schema_from_database
from verifier_audit.domains.sql.loaders import convert_sqlite, load_spider, spider_row, spider_rows
from verifier_audit.errors import InputError

CONCERT = """
CREATE TABLE stadium (Stadium_ID INTEGER PRIMARY KEY, Name TEXT, Capacity INTEGER, Opened date);
CREATE TABLE singer (Singer_ID int PRIMARY KEY, Name text, Country text, Age int, Net_Worth real, Since date);
CREATE TABLE concert (concert_ID int, concert_Name text, Year text, Stadium_ID int, "Odd Col" varchar(10),
  FOREIGN KEY (Stadium_ID) REFERENCES stadium(Stadium_ID));
CREATE TABLE singer_in_concert (concert_ID int, Singer_ID int, PRIMARY KEY (concert_ID, Singer_ID),
  FOREIGN KEY (Singer_ID) REFERENCES singer(Singer_ID), FOREIGN KEY (concert_ID) REFERENCES concert);
CREATE TABLE empty_table (id int, day date, price decimal(10,2));
INSERT INTO stadium VALUES (1, 'Big', 1000, '1990-05-01'), (2, 'Small', 50, NULL);
INSERT INTO singer VALUES (1, 'Joe', 'France', 52, 1.5, '2001-02-03'), (2, 'Ann', 'USA', NULL, 2, '2002-01-01'),
  (3, 'Bo', 'France', 'N/A', NULL, NULL);
INSERT INTO concert VALUES (1, 'Rock', '2014', 1, 'x'), (1, 'Pop', '2015', 2, 'y');
INSERT INTO singer_in_concert VALUES (1, 1), (1, 2), (1, 3);
"""


@pytest.fixture
def dataset(tmp_path):
    db_dir = tmp_path / "database"
    (db_dir / "concert").mkdir(parents=True)
    con = sqlite3.connect(db_dir / "concert" / "concert.sqlite")
    con.executescript(CONCERT)
    con.commit()
    con.close()
    entries = [
        {"db_id": "concert", "question": "How many singers are there?", "query": "SELECT count(*) FROM singer"},
        {
            "db_id": "concert",
            "question": "Names of singers from France.",
            "query": 'SELECT Name FROM singer WHERE Country = "France"',
        },
        {
            "db_id": "concert",
            "question": "Average net worth?",
            "SQL": "SELECT avg(Net_Worth) FROM singer;",
            "evidence": "net worth is in millions",
            "question_id": 7,
            "difficulty": "simple",
        },
    ]
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(entries))
    return path, db_dir, tmp_path / "cache"


def test_load_spider_converts_and_builds_tasks(dataset):
    path, db_dir, cache = dataset
    tasks = load_spider(path, db_dir, cache)
    assert [t.id for t in tasks] == ["dev-0000", "dev-0001", "concert-7"]
    assert all(t.domain == "sql" for t in tasks)
    database = tasks[0].metadata["database_file"]
    assert tasks[0].metadata["db_id"] == "concert"
    assert {t.metadata["database_file"] for t in tasks} == {database}  # converted once
    assert stat.S_IMODE((cache / "spider").joinpath(database.rsplit("/", 1)[-1]).stat().st_mode) == 0o444
    # Judged in SQLite by default: the gold as the dataset wrote it; SQLite's double-quoted
    # string literal repaired for DuckDB in the form fuzzing and the generators edit.
    assert tasks[1].reference == 'SELECT Name FROM singer WHERE Country = "France"'
    assert tasks[1].metadata["dialect"] == "sqlite"
    assert tasks[1].metadata["duckdb_reference"] == "SELECT Name FROM singer WHERE Country = 'France'"
    assert tasks[1].metadata["gold_dialect"] == "sqlite_double_quoted_strings"
    assert tasks[1].metadata["original_query"] == 'SELECT Name FROM singer WHERE Country = "France"'
    duck = load_spider(path, db_dir, cache, dialect="duckdb")  # --dialect duckdb: the repaired gold is the gold
    assert duck[1].reference == "SELECT Name FROM singer WHERE Country = 'France'" and "dialect" not in duck[1].metadata
    # BIRD fields: SQL, evidence as a hint, question_id.
    assert tasks[2].reference == "SELECT avg(Net_Worth) FROM singer"
    assert tasks[2].prompt.endswith("Hint: net worth is in millions")
    assert tasks[2].metadata["source"] == "bird" and tasks[2].metadata["difficulty"] == "simple"
    assert run_query(database, tasks[0].reference).rows == [(3,)]
    assert sorted(run_query(database, tasks[1].metadata["duckdb_reference"]).rows) == [("Bo",), ("Joe",)]
    assert sorted(run_query(tasks[1].metadata["sqlite_file"], tasks[1].reference).rows) == [("Bo",), ("Joe",)]
    assert fixture_path(tasks[0], cache) == fixture_path(tasks[2], cache)


def test_conversion_types_keys_and_references(dataset):
    path, db_dir, cache = dataset
    database = load_spider(path, db_dir, cache, check_gold=False)[0].metadata["database_file"]
    schema = schema_from_database(database)
    singer = schema.table("singer")
    assert singer.column("Singer_ID").type == "BIGINT" and singer.column("Singer_ID").primary_key
    assert singer.column("Age").type == "VARCHAR"  # 'N/A' in an int column: kept as text
    assert singer.column("Net_Worth").type == "DOUBLE"  # 2 (an int) stored in a real column
    assert singer.column("Since").type == "VARCHAR"  # dates stay text, as SQLite stores them
    assert schema.table("concert").column("Stadium_ID").references == ("stadium", "Stadium_ID")
    assert schema.table("concert").column("Odd Col").type == "VARCHAR"
    assert not any(c.primary_key for c in schema.table("concert").columns)
    link = schema.table("singer_in_concert")
    assert link.column("Singer_ID").references == ("singer", "Singer_ID")
    assert link.column("concert_ID").primary_key and link.column("Singer_ID").primary_key
    # REFERENCES concert without a column, and concert has no primary key: no reference recorded.
    assert link.column("concert_ID").references is None
    empty = schema.table("empty_table")
    assert [c.type for c in empty.columns] == ["BIGINT", "VARCHAR", "DOUBLE"]
    names = [t.name for t in schema.tables]
    assert names.index("stadium") < names.index("concert") < names.index("singer_in_concert")
    con = duckdb.connect(":memory:")
    con.execute(schema.ddl)  # the regenerated DDL runs
    task = load_spider(path, db_dir, cache, check_gold=False)[0]
    assert {t.name for t in schema_for(task).tables} == {t.name for t in schema.tables}


def test_primary_key_dropped_when_the_data_breaks_it(tmp_path):
    sqlite_path = tmp_path / "dup" / "dup.sqlite"
    sqlite_path.parent.mkdir()
    con = sqlite3.connect(sqlite_path)
    # SQLite lets NULL into a non-INTEGER primary key, and an untyped key holds 1 and '1' as
    # different values: both are duplicates once the column is text.
    con.executescript(
        "CREATE TABLE t (id PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'a'), ('1', 'b'), (NULL, 'c');"
    )
    con.commit()
    con.close()
    database = convert_sqlite(sqlite_path, tmp_path / "cache")
    assert run_query(database, "SELECT COUNT(*) FROM t").rows == [(3,)]
    assert not schema_from_database(database).table("t").column("id").primary_key


def test_conversion_is_cached(dataset):
    path, db_dir, cache = dataset
    first = convert_sqlite(db_dir / "concert" / "concert.sqlite", cache)
    mtime = first.stat().st_mtime_ns
    again = convert_sqlite(db_dir / "concert" / "concert.sqlite", cache)
    assert again == first and again.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in (cache / "spider").iterdir()) == [first.name, f"{first.name}.sha256"]


def test_jsonl_and_spider_rows(dataset, tmp_path):
    path, db_dir, cache = dataset
    entries = json.loads(path.read_text())
    jsonl = tmp_path / "dev.jsonl"
    jsonl.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    rows = spider_rows(jsonl)
    assert [i for i, _ in rows] == [0, 1, 2]
    assert len(load_spider(jsonl, db_dir, cache)) == 3
    fields = spider_row(entries[0], db_dir=db_dir, cache_dir=cache)
    assert fields["reference"] == "SELECT count(*) FROM singer" and fields["domain"] == "sql"
    assert load_spider(path, db_dir, cache, split="heldout")[0].split == "heldout"


def test_database_folder_is_guessed_next_to_the_json(dataset):
    path, _db_dir, cache = dataset
    assert len(load_spider(path, None, cache)) == 3


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"db_id": "nowhere", "question": "q", "query": "SELECT 1"}, "nowhere"),
        ({"db_id": "concert", "query": "SELECT 1"}, "question"),
        ({"db_id": "concert", "question": "q"}, "gold query"),
        ({"question": "q", "query": "SELECT 1"}, "db_id"),
    ],
)
def test_bad_entries_name_the_file_and_the_index(dataset, entry, message):
    path, db_dir, cache = dataset
    entries = json.loads(path.read_text())
    entries.insert(1, entry)
    path.write_text(json.dumps(entries))
    with pytest.raises(InputError) as err:
        load_spider(path, db_dir, cache)
    assert str(path) in str(err.value) and "entry 1" in str(err.value) and message in str(err.value)


def test_bad_files(tmp_path, dataset):
    _path, db_dir, cache = dataset
    broken = tmp_path / "broken.json"
    broken.write_text('[{"db_id": ')
    with pytest.raises(InputError, match="broken.json"):
        load_spider(broken, db_dir, cache)
    not_list = tmp_path / "scalar.json"
    not_list.write_text("42")
    with pytest.raises(InputError, match="expected a JSON list"):
        load_spider(not_list, db_dir, cache)
    (db_dir / "junk").mkdir()
    (db_dir / "junk" / "junk.sqlite").write_bytes(b"this is not a sqlite file" * 50)
    junk = tmp_path / "junk.json"
    junk.write_text(json.dumps([{"db_id": "junk", "question": "q", "query": "SELECT 1"}]))
    with pytest.raises(InputError, match=r"junk\.json: entry 0: .*junk\.sqlite"):
        load_spider(junk, db_dir, cache)


def test_gold_that_runs_nowhere_is_kept_with_a_note(dataset):
    path, db_dir, cache = dataset
    path.write_text(json.dumps([{"db_id": "concert", "question": "q", "query": "SELECT nope FROM singer"}]))
    task = load_spider(path, db_dir, cache)[0]
    assert task.reference == "SELECT nope FROM singer"
    assert "gold_error" in task.metadata


def test_a_spider_file_audits_end_to_end_through_the_cli(dataset, tmp_path, capsys):
    from verifier_audit.cli import main
    from verifier_audit.models import Report

    path, db_dir, _ = dataset
    out = tmp_path / "r.json"
    code = main(
        [
            "run",
            "--suite",
            str(path),
            "--format",
            "spider",
            "--db-dir",
            str(db_dir),
            "--verifier",
            "verifier_audit.domains.sql.verifiers:syntax_only",
            "--json",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 1, capsys.readouterr().err  # a syntax-only check is open wide, on any dataset
    report = Report.model_validate_json(out.read_text())
    assert report.n_candidates > 10 and report.coverage_debt > 0.5
