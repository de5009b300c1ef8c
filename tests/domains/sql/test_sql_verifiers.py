"""The four reference SQL verifiers on hand-written candidates, against real DuckDB files."""

import hashlib
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from verifier_audit.domains.sql.fixtures import create_tables, insert_rows, load_schema, materialise, write_database
from verifier_audit.domains.sql.verifiers import exact_match, normalise, single_db_set, strong, syntax_only
from verifier_audit.models import Task

GOLD = "SELECT id, name FROM customers WHERE is_vip"


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def task_for(tmp_path):
    """A task whose ``database`` is a private, writable copy of the shop fixture (what the
    verifier under audit receives)."""
    fixture = materialise("shop", tmp_path / "cache")

    def make(reference, **metadata):
        copy = tmp_path / f"copy-{len(list(tmp_path.glob('copy-*')))}.duckdb"
        shutil.copyfile(fixture, copy)
        copy.chmod(0o644)
        return Task(
            id="shop-t",
            domain="sql",
            prompt="q",
            reference=reference,
            database=str(copy),
            metadata={"schema": "shop", **metadata},
        )

    return make


# ------------------------------------------------------------------------------ syntax_only


def test_syntax_only_pays_for_anything_that_parses():
    assert syntax_only(f"```sql\n{GOLD};\n```", GOLD)
    assert syntax_only("SELECT id FROM customers", GOLD)  # wrong answer
    assert syntax_only("SELECT * FROM no_such_table", GOLD)  # hallucinated table
    assert syntax_only("DROP TABLE customers", GOLD)  # destructive
    assert syntax_only("SELECT 1; DELETE FROM orders", GOLD)  # several statements


def test_syntax_only_rejects_what_does_not_parse():
    assert not syntax_only("I am not sure how to write this query.", GOLD)
    assert not syntax_only("", GOLD)
    assert not syntax_only("```sql\nSELECT id FROM (customers WHERE\n```", GOLD)


# ------------------------------------------------------------------------------ exact_match


def test_exact_match_ignores_case_whitespace_and_comments():
    assert exact_match(GOLD, GOLD)
    assert exact_match("```sql\nselect ID,\n   NAME\nfrom Customers -- the VIPs\nwhere IS_VIP;\n```", GOLD)
    assert normalise("select a from t") == normalise("SELECT  A\nFROM T;")


def test_exact_match_rejects_equivalent_rewrites_and_near_misses():
    assert not exact_match("SELECT id, name FROM customers WHERE is_vip = TRUE", GOLD)  # same result
    assert not exact_match("SELECT c.id, c.name FROM customers AS c WHERE c.is_vip", GOLD)  # same result
    assert not exact_match("SELECT id, name FROM customers WHERE NOT is_vip", GOLD)
    assert not exact_match(f"{GOLD}; {GOLD}", GOLD)  # several statements
    assert not exact_match("no sql here", GOLD)
    assert not exact_match(GOLD, "SELECT FROM WHERE (")  # an unparseable gold never matches


# ------------------------------------------------------------------------------ single_db_set


def test_single_db_set_executes_and_compares_sets(task_for):
    task = task_for(GOLD)
    assert single_db_set(f"```sql\n{GOLD}\n```", task)
    assert single_db_set("SELECT id, name FROM customers WHERE is_vip = TRUE", task)  # equivalent rewrite
    assert not single_db_set("SELECT id, name FROM customers WHERE NOT is_vip", task)
    assert not single_db_set("SELECT id FROM customers WHERE is_vip", task)  # a column missing
    assert not single_db_set("SELECT * FROM no_such_table", task)
    assert not single_db_set("prose only", task)
    assert not single_db_set(f"{GOLD}; {GOLD}", task)


def test_single_db_set_holes_duplicates_and_order(task_for):
    distinct = task_for("SELECT DISTINCT city FROM customers")
    assert single_db_set("SELECT city FROM customers", distinct)  # missing DISTINCT: set semantics hide it
    ordered = task_for("SELECT id, price FROM products ORDER BY price DESC, id")
    assert single_db_set("SELECT id, price FROM products ORDER BY price ASC", ordered)  # order ignored


def test_single_db_set_hole_one_database(task_for):
    # No product costs exactly 20 in the fixture: >= and > agree there.
    task = task_for("SELECT id FROM products WHERE price > 20")
    assert single_db_set("SELECT id FROM products WHERE price >= 20", task)


def test_single_db_set_never_changes_the_database(task_for):
    task = task_for(GOLD)
    before = _sha(Path(task.database))
    for hostile in (
        "DROP TABLE customers",
        "DELETE FROM customers",
        "CREATE TABLE x AS SELECT 1",
        "SELECT 1; DROP TABLE customers",
        "COPY customers TO '/tmp/va-leak.csv'",
    ):
        assert not single_db_set(hostile, task)
    assert _sha(Path(task.database)) == before


def test_single_db_set_needs_a_database():
    with pytest.raises(ValueError, match="no database"):
        single_db_set(GOLD, Task(id="t", domain="sql", prompt="q", reference=GOLD))


# ------------------------------------------------------------------------------ strong


def test_strong_uses_bags_and_order(task_for):
    assert strong(GOLD, task_for(GOLD))
    assert strong("SELECT c.id, c.name FROM customers AS c WHERE c.is_vip = TRUE", task_for(GOLD))
    assert not strong("SELECT id, name FROM customers WHERE NOT is_vip", task_for(GOLD))
    distinct = task_for("SELECT DISTINCT city FROM customers")
    assert not strong("SELECT city FROM customers", distinct)  # duplicates count
    ordered = task_for("SELECT id, price FROM products ORDER BY price DESC, id")
    assert not strong("SELECT id, price FROM products ORDER BY price ASC", ordered)
    assert strong("SELECT id, price FROM products ORDER BY price DESC, id", ordered)
    assert not strong("SELECT 1; DROP TABLE customers", task_for(GOLD))


def test_strong_checks_every_database(task_for, tmp_path):
    # A second database where one product costs exactly 20 separates > from >=.
    schema = load_schema("shop")

    def build(con):
        create_tables(con, schema)
        insert_rows(
            con,
            "products",
            [
                (1, "Edge", "toys", Decimal("20.00"), 1.0, True, None),
                (2, "Dear", "toys", Decimal("30.00"), None, False, None),
            ],
        )

    extra = write_database(tmp_path / "extra.duckdb", build)
    task = task_for("SELECT id FROM products WHERE price > 20", databases=[str(extra)])
    near_miss = "SELECT id FROM products WHERE price >= 20"
    assert single_db_set(near_miss, task)  # agrees on the one database it looks at
    assert not strong(near_miss, task)
    assert strong("SELECT id FROM products WHERE 20 < price", task)
