"""The SQL oracle on real DuckDB files built here (no dependency on the built-in suite)."""

import hashlib

import duckdb
import pytest

from verifier_audit.domains.sql import database as db
from verifier_audit.domains.sql.oracle import check_gold, gold_answer, label_completion
from verifier_audit.models import Task

SCHEMA = """
CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR, city VARCHAR, age INTEGER, score DECIMAL(5,2));
CREATE TABLE pets (id INTEGER PRIMARY KEY, owner_id INTEGER, kind VARCHAR);
"""
BASE_PEOPLE = [
    (1, "Ann", "Lyon", 30, "1.50"),
    (2, "Bob", "Oslo", 25, "2.00"),
    (3, "Cid", None, 41, "2.00"),
    (4, "Ann", "Lyon", 30, "0.30"),
]
BASE_PETS = [(1, 1, "cat"), (2, 1, "dog"), (3, 2, "cat"), (4, None, "fish")]
# A second database on which some wrong queries that tie on the base differ.
FUZZ_PEOPLE = [(1, "Ann", "Lyon", 31, "1.00"), (2, "Eve", "Lyon", 30, "3.00"), (5, "Eve", "Rome", 30, "3.00")]
FUZZ_PETS = [(1, 5, "cat"), (2, 5, "cat"), (3, 9, "dog")]


def _build(path, people, pets):
    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    con.executemany("INSERT INTO people VALUES (?, ?, ?, ?, ?)", people)
    con.executemany("INSERT INTO pets VALUES (?, ?, ?)", pets)
    con.close()
    return str(path)


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    root = tmp_path_factory.mktemp("oracle")
    base = _build(root / "base.duckdb", BASE_PEOPLE, BASE_PETS)
    fuzz = _build(root / "fuzz.duckdb", FUZZ_PEOPLE, FUZZ_PETS)
    yield base, fuzz
    db.close_all()


def task(dbs, gold, fuzzed=True):
    base, fuzz = dbs
    return Task(
        id=f"t-{hashlib.md5(gold.encode()).hexdigest()[:6]}",
        domain="sql",
        prompt="?",
        reference=gold,
        database=base,
        metadata={"databases": [fuzz] if fuzzed else []},
    )


def label(dbs, gold, text, fuzzed=True):
    return label_completion(text, task(dbs, gold, fuzzed)).label


def test_the_gold_itself_is_correct(dbs):
    gold = "SELECT name FROM people WHERE age > 26"
    assert label(dbs, gold, f"```sql\n{gold}\n```") == "correct"


@pytest.mark.parametrize(
    "gold,candidate",
    [
        ("SELECT name FROM people WHERE age > 26", "select p.name as who from people p where 26 < p.age"),
        ("SELECT name FROM people WHERE age > 26", "SELECT name FROM people WHERE age >= 27"),
        ("SELECT city, count(*) FROM people GROUP BY city", "SELECT city, count(id) FROM people GROUP BY ALL"),
        (
            "SELECT name, age FROM people ORDER BY age DESC, id",
            "SELECT name, age FROM people ORDER BY age DESC, id ASC",
        ),
        ("SELECT sum(score) FROM people", "SELECT sum(CAST(score AS DOUBLE)) FROM people"),
        (
            "SELECT name FROM people WHERE id IN (SELECT owner_id FROM pets)",
            "SELECT name FROM people p WHERE EXISTS (SELECT 1 FROM pets WHERE owner_id = p.id)",
        ),
    ],
)
def test_equivalent_rewrites_are_correct(dbs, gold, candidate):
    assert label(dbs, gold, candidate) == "correct"


def test_ties_under_order_by_may_come_in_any_order(dbs):
    gold = "SELECT name, age FROM people ORDER BY age"  # Ann/Ann (30) tie on the base, Eve/Eve on the fuzz db
    assert label(dbs, gold, "SELECT name, age FROM people ORDER BY age, id DESC") == "correct"
    assert label(dbs, gold, "SELECT name, age FROM people ORDER BY age DESC") == "incorrect"


def test_ties_on_a_key_outside_the_projection(dbs):
    gold = "SELECT name FROM people ORDER BY age"  # key not projected: the oracle appends it
    assert label(dbs, gold, "SELECT name FROM people ORDER BY age, name DESC") == "correct"
    assert label(dbs, gold, "SELECT name FROM people ORDER BY name") == "incorrect"


@pytest.mark.parametrize(
    "gold,candidate",
    [
        ("SELECT name FROM people WHERE age > 26", "SELECT DISTINCT name FROM people WHERE age > 26"),  # bag
        ("SELECT name FROM people WHERE age > 26", "SELECT name FROM people WHERE age > 26 ORDER BY name LIMIT 1"),
        ("SELECT name, age FROM people", "SELECT age, name FROM people"),  # column order
        ("SELECT name FROM people ORDER BY age, id", "SELECT name FROM people ORDER BY age DESC, id"),
        ("SELECT count(*) FROM people WHERE city IS NULL", "SELECT count(city) FROM people WHERE city IS NULL"),
        ("SELECT name FROM people WHERE age >= 30", "SELECT name FROM people WHERE age > 30"),
    ],
)
def test_wrong_queries_are_incorrect(dbs, gold, candidate):
    assert label(dbs, gold, candidate) == "incorrect"


def test_the_fuzzed_database_catches_what_the_base_misses(dbs):
    gold = "SELECT name FROM people WHERE age = 30 AND city = 'Lyon'"
    near_miss = "SELECT name FROM people WHERE age = 30"  # same rows on the base database
    assert label(dbs, gold, near_miss, fuzzed=False) == "correct"
    assert label(dbs, gold, near_miss, fuzzed=True) == "incorrect"


def test_a_hard_coded_answer_fails_on_the_fuzzed_database(dbs):
    gold = "SELECT name FROM people WHERE age > 26"
    hard_coded = "SELECT * FROM (VALUES ('Ann'), ('Cid'), ('Ann')) t(name)"
    assert label(dbs, gold, hard_coded, fuzzed=False) == "correct"
    assert label(dbs, gold, hard_coded) == "incorrect"


def test_not_in_with_a_null_in_the_subquery(dbs):
    gold = "SELECT name FROM people WHERE id NOT IN (SELECT owner_id FROM pets)"  # NULL owner: empty result
    assert gold_answer(gold, dbs[0]).result.rows == []
    wrong = "SELECT name FROM people p WHERE NOT EXISTS (SELECT 1 FROM pets WHERE owner_id = p.id)"
    assert label(dbs, gold, wrong) == "incorrect"


@pytest.mark.parametrize(
    "text,why",
    [
        ("The answer is Ann.", "no SQL"),
        ("", "no SQL"),
        ("```sql\nSELECT 1; SELECT 2\n```", "statements"),
        ("```sql\nSELECT name FROM people; DROP TABLE people\n```", "statements"),
        ("```sql\nDROP TABLE people\n```", "refused"),
        ("```sql\nCREATE TEMP MACRO count_star() AS 7\n```", "refused"),
        ("```sql\nCOPY people TO '/tmp/va-leak.csv'\n```", "refused"),
        ("```sql\nATTACH '/tmp/va-x.duckdb' AS x\n```", "refused"),
        ("```sql\nSELECT * FROM read_csv('/etc/passwd')\n```", "error"),
        ("```sql\nSELECT nme FROM people\n```", "error"),
        ("```sql\nSELECT name FROM peoples\n```", "error"),
        ("```sql\nSELEC name FROM people\n```", "refused"),
        (
            "```sql\nWITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r\n```",
            "timeout",
        ),
        (
            "```sql\nWITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r\n```",
            "too many rows|timeout",
        ),
    ],
)
def test_hostile_and_broken_candidates_are_incorrect(dbs, text, why):
    before = [hashlib.sha256(open(p, "rb").read()).hexdigest() for p in dbs]
    result = label_completion(text, task(dbs, "SELECT name FROM people WHERE age > 26"))
    # "a|b": either reason is right (an unbounded query hits the row cap, or, on a loaded
    # machine, the time limit first)
    assert result.label == "incorrect" and any(w in result.reason for w in why.split("|")), result.reason
    assert [hashlib.sha256(open(p, "rb").read()).hexdigest() for p in dbs] == before


def test_a_failing_gold_gives_no_label(dbs):
    t = task(dbs, "SELECT nope FROM people")
    assert check_gold(t) and "fails" in check_gold(t)
    result = label_completion("SELECT nope FROM people", t)
    assert result.label is None


def test_a_gold_that_is_not_a_query_is_reported(dbs):
    assert "read-only" in check_gold(task(dbs, "DROP TABLE people"))


def test_a_task_without_a_database(dbs):
    t = Task(id="x", domain="sql", prompt="?", reference="SELECT 1")
    assert check_gold(t)
    assert label_completion("SELECT 1", t).label is None


def test_a_limit_that_cuts_a_tie_is_not_determined(dbs):
    gold = "SELECT name FROM people ORDER BY age DESC LIMIT 2"  # 41, then 30 (two people): a cut tie
    assert gold_answer(gold, dbs[0]).ambiguous
    assert "LIMIT" in check_gold(task(dbs, gold))
    assert label_completion(gold, task(dbs, gold)).label is None
    fine = "SELECT name FROM people ORDER BY age DESC, id LIMIT 2"
    assert not gold_answer(fine, dbs[0]).ambiguous and check_gold(task(dbs, fine)) is None


def test_limit_without_order_is_ambiguous_only_when_rows_are_cut(dbs):
    assert gold_answer("SELECT name FROM people LIMIT 2", dbs[0]).ambiguous
    assert not gold_answer("SELECT name FROM people LIMIT 10", dbs[0]).ambiguous


def test_gold_answers_are_cached(dbs):
    gold = "SELECT count(*) FROM people"
    assert gold_answer(gold, dbs[0]) is gold_answer(gold, dbs[0])
