"""Finding the SQL in a model's output."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scaling import LINEAR, growth

from verifier_audit.domains.sql.extract import extract_sql, split_statements, strip_strings_and_comments

CASES = [
    ("a fence", "```sql\nSELECT 1;\n```", ["SELECT 1"]),
    ("the last sql fence wins", "Draft:\n```sql\nSELECT 1\n```\nFixed:\n```sql\nSELECT 2\n```", ["SELECT 2"]),
    ("sql fences beat untagged ones", "```sql\nSELECT 1\n```\n```\nSELECT 2\n```", ["SELECT 1"]),
    ("untagged fence with SQL", "```\nselect a from t\n```", ["select a from t"]),
    ("a python fence is not SQL", "```python\nprint(1)\n```\nSELECT 3", ["SELECT 3"]),
    ("an unclosed fence runs to the end", "```sql\nSELECT a\nFROM t", ["SELECT a\nFROM t"]),
    ("other dialect tags", "```postgresql\nSELECT 1\n```", ["SELECT 1"]),
    ("comments around a statement are dropped", "```sql\n-- the answer\nSELECT 1; -- done\n```", ["SELECT 1"]),
    ("a comment-only fence is no SQL", "```sql\n-- nothing\n```", []),
    ("several statements in a fence", "```sql\nSELECT 1;\nDROP TABLE t;\n```", ["SELECT 1", "DROP TABLE t"]),
    ("a ; inside a string is not a boundary", "```sql\nSELECT 'a;b' AS x\n```", ["SELECT 'a;b' AS x"]),
    ("a ; inside a quoted name", '```sql\nSELECT "we;ird" FROM t\n```', ['SELECT "we;ird" FROM t']),
    ("a ; inside a $$ string", "```sql\nSELECT $$x;y$$\n```", ["SELECT $$x;y$$"]),
    ("bare SQL", "SELECT name FROM t WHERE x > 1", ["SELECT name FROM t WHERE x > 1"]),
    (
        "prose around, inline",
        "Here is the query: SELECT name FROM t ORDER BY name; It lists names.",
        ["SELECT name FROM t ORDER BY name"],
    ),
    (
        "'order by' inside a literal",
        "The query: SELECT id FROM t WHERE note = 'order by; x' ORDER BY id.",
        ["SELECT id FROM t WHERE note = 'order by; x' ORDER BY id"],
    ),
    ("prose line after the query", "SELECT a FROM t\nThis returns a.", ["SELECT a FROM t"]),
    (
        "a sentence after the query",
        "SELECT a FROM t WHERE x = 1.5. This is the answer.",
        ["SELECT a FROM t WHERE x = 1.5"],
    ),
    (
        "a clause after a blank line continues",
        "SELECT a\nFROM t\n\nWHERE a > 1\n\nDone, here's why.",
        ["SELECT a\nFROM t\n\nWHERE a > 1"],
    ),
    ("prose that starts like SQL is not SQL", "Select the rows from the table.", []),
    (
        "lower-case prose then SQL",
        "We should select the customers.\nSELECT * FROM customers;",
        ["SELECT * FROM customers"],
    ),
    ("inline code", "You can use `SELECT count(*) FROM t` for that.", ["SELECT count(*) FROM t"]),
    ("two bare statements", "SELECT 1; DROP TABLE t;", ["SELECT 1", "DROP TABLE t"]),
    ("hostile bare statements", "COPY t TO '/tmp/x.csv'", ["COPY t TO '/tmp/x.csv'"]),
    ("CTE", "with x as (select 1 as a)\nselect * from x", ["with x as (select 1 as a)\nselect * from x"]),
    ("no SQL", "The answer is 42.", []),
    ("empty", "", []),
    ("None-ish whitespace", "   \n\n  ", []),
]


@pytest.mark.parametrize("case,text,expected", CASES, ids=[c[0] for c in CASES])
def test_extract(case, text, expected):
    assert extract_sql(text) == expected


def test_split_falls_back_on_an_unterminated_string():
    assert split_statements("SELECT 'oops; SELECT 2") == ["SELECT 'oops; SELECT 2"]


def test_strip_keeps_positions():
    sql = "SELECT 'a;b', \"c;d\" -- e;f\n/* g; */ ;"
    blanked = strip_strings_and_comments(sql)
    assert len(blanked) == len(sql) and blanked.count(";") == 1 and blanked.rstrip().endswith(";")


@pytest.mark.parametrize("n", [39_000, 200_000])  # under MAX_CHARS, and 1 MB (cut to it)
def test_long_prose_costs_no_more_than_linear(n):
    assert growth(extract_sql, lambda k: "blah " * k, n) < LINEAR


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_never_raises(text):
    out = extract_sql(text)
    assert isinstance(out, list) and all(isinstance(s, str) and s.strip() for s in out)


@settings(max_examples=60, deadline=None)
@given(prose=st.text(alphabet="abcdefgh ,.\n", max_size=80), literal=st.text(alphabet="abc ;'order by", max_size=15))
def test_a_fenced_query_survives_any_prose_and_literal(prose, literal):
    query = "SELECT id FROM t WHERE note = '" + literal.replace("'", "''") + "'"
    assert extract_sql(f"{prose}\n```sql\n{query}\n```\n{prose}") == [query]
