"""Result comparison: the pitfalls from ANCHORS as a table, then properties."""

import datetime as dt
import math
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.sql.compare import (
    gold_is_ordered,
    order_key_positions,
    results_equal,
    values_equal,
    with_order_keys,
)
from verifier_audit.domains.sql.database import Result

NAN = float("nan")

# (case, gold rows, candidate rows, ordered, gold keys, equal?)
PITFALLS = [
    ("bag: a missing DISTINCT keeps duplicates", [(1,), (1,), (2,)], [(1,), (2,)], False, None, False),
    ("bag: an extra duplicate", [(1,), (2,)], [(1,), (1,), (2,)], False, None, False),
    ("bag: same multiset in another order", [(1,), (1,), (2,)], [(2,), (1,), (1,)], False, None, True),
    ("unordered gold: row order ignored", [(1, "a"), (2, "b")], [(2, "b"), (1, "a")], False, None, True),
    ("ordered gold: row order matters", [(1, "a"), (2, "b")], [(2, "b"), (1, "a")], True, [(1,), (2,)], False),
    (
        "ordered: ties compared as a group",
        [(5, "x"), (5, "y"), (7, "z")],
        [(5, "y"), (5, "x"), (7, "z")],
        True,
        [(5,), (5,), (7,)],
        True,
    ),
    (
        "ordered: a tie does not excuse crossing groups",
        [(5, "x"), (5, "y"), (7, "z")],
        [(5, "x"), (7, "z"), (5, "y")],
        True,
        [(5,), (5,), (7,)],
        False,
    ),
    ("ordered without keys: only identical rows tie", [(5, "x"), (5, "y")], [(5, "y"), (5, "x")], True, None, False),
    ("NULL equals NULL in results", [(None, 1)], [(None, 1)], False, None, True),
    ("NULL is not a value", [(None,)], [(0,)], False, None, False),
    ("NULL is not the empty string", [(None,)], [("",)], False, None, False),
    ("NOT IN over a NULL: empty versus rows", [], [(1,), (2,)], False, None, False),
    ("NaN equals NaN", [(NAN,)], [(NAN,)], False, None, True),
    ("NaN is not NULL", [(NAN,)], [(None,)], False, None, False),
    ("NaN is not a number", [(NAN,)], [(0.0,)], False, None, False),
    ("DECIMAL 0.30 vs DOUBLE 0.30000000000000004", [(Decimal("0.30"),)], [(0.1 + 0.2,)], False, None, True),
    ("DECIMAL vs DOUBLE that really differ", [(Decimal("0.30"),)], [(0.31,)], False, None, False),
    ("integer vs integral double", [(3,)], [(3.0,)], False, None, True),
    ("integer division is a different answer", [(2.5,)], [(2,)], False, None, False),
    ("big integers are exact", [(12345678901234567,)], [(12345678901234568,)], False, None, False),
    ("True is not 1", [(True,)], [(1,)], False, None, False),
    ("False is not 0", [(False,)], [(0,)], False, None, False),
    ("column order counts", [(1, "a")], [("a", 1)], False, None, False),
    ("swapped-meaning columns", [(1, 9)], [(9, 1)], False, None, False),
    ("column names ignored", [(1,)], [(1,)], False, None, True),
    ("strings are exact", [("Paris",)], [("paris",)], False, None, False),
    ("trailing space counts", [("a",)], [("a ",)], False, None, False),
    ("date is not a timestamp", [(dt.date(2024, 1, 1),)], [(dt.datetime(2024, 1, 1),)], False, None, False),
    ("date is not its string", [(dt.date(2024, 1, 1),)], [("2024-01-01",)], False, None, False),
    ("lists elementwise with tolerance", [([1.0, Decimal("0.30")],)], [([1, 0.30000000000000004],)], False, None, True),
    ("lists keep their order", [([1, 2],)], [([2, 1],)], False, None, False),
    ("empty equals empty", [], [], False, None, True),
    ("row count differs", [(1,)], [], False, None, False),
    ("infinities", [(math.inf,)], [(math.inf,)], False, None, True),
    ("opposite infinities", [(math.inf,)], [(-math.inf,)], False, None, False),
]


@pytest.mark.parametrize("case,gold,cand,ordered,keys,equal", PITFALLS, ids=[p[0] for p in PITFALLS])
def test_pitfalls(case, gold, cand, ordered, keys, equal):
    assert results_equal(gold, cand, ordered=ordered, gold_keys=keys) is equal


def test_column_count_differs_even_without_rows():
    assert not results_equal(Result(columns=["a"], rows=[]), Result(columns=["a", "b"], rows=[]), ordered=False)
    assert results_equal(
        Result(columns=["n"], rows=[(1,)]), Result(columns=["count_star()"], rows=[(1,)]), ordered=False
    )


@pytest.mark.parametrize(
    "sql,ordered",
    [
        ("SELECT a FROM t ORDER BY a", True),
        ("SELECT a FROM t WHERE note = 'order by a'", False),
        ("SELECT a FROM t -- order by a", False),
        ("SELECT a FROM (SELECT a FROM t ORDER BY a) s", False),
        ("SELECT a, row_number() OVER (ORDER BY a) FROM t", False),
        ("SELECT string_agg(a, ',' ORDER BY a) FROM t", False),
        ("WITH x AS (SELECT a FROM t ORDER BY a) SELECT a FROM x", False),
        ("WITH x AS (SELECT a FROM t) SELECT a FROM x ORDER BY a DESC LIMIT 3", True),
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", True),
        ("SELECT a FROM t UNION SELECT b FROM (SELECT b FROM u ORDER BY b)", False),
        ("(SELECT a FROM t ORDER BY a)", True),
        ("SELECT a FROM t WHERE a IN (SELECT b FROM u ORDER BY b LIMIT 2)", False),
    ],
)
def test_gold_is_ordered_only_at_the_top_level(sql, ordered):
    assert gold_is_ordered(sql) is ordered


def test_order_key_positions():
    assert order_key_positions("SELECT name, total AS t FROM x ORDER BY t DESC, name", ["name", "t"]) == [1, 0]
    assert order_key_positions("SELECT name, price * 2 FROM x ORDER BY price * 2", ["name", "p"]) == [1]
    assert order_key_positions("SELECT a, b FROM x ORDER BY 2", ["a", "b"]) == [1]
    assert order_key_positions("SELECT name FROM x ORDER BY price", ["name"]) is None
    sql, n = with_order_keys("SELECT name FROM x ORDER BY price DESC, 1")
    assert n == 2 and "price" in sql and "__va_order_key_1" in sql


def test_values_equal_respects_kinds():
    assert values_equal(Decimal("1.10"), Decimal("1.1"))
    assert not values_equal(True, 1)
    assert not values_equal("1", 1)


# ---------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------

cells = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(max_size=5),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False, allow_infinity=False),
    st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2030, 1, 1)),
)
rows_of = st.integers(1, 3).flatmap(lambda width: st.lists(st.tuples(*[cells] * width), max_size=12))


@settings(max_examples=200, deadline=None)
@given(rows=rows_of, data=st.data())
def test_shuffling_an_unordered_result_keeps_it_equal(rows, data):
    shuffled = data.draw(st.permutations(rows))
    assert results_equal(rows, shuffled, ordered=False)


@settings(max_examples=200, deadline=None)
@given(rows=rows_of.filter(bool), data=st.data())
def test_dropping_a_row_makes_it_unequal(rows, data):
    i = data.draw(st.integers(0, len(rows) - 1))
    fewer = rows[:i] + rows[i + 1 :]
    assert not results_equal(rows, fewer, ordered=False)
    assert not results_equal(rows, fewer, ordered=True)


@settings(max_examples=200, deadline=None)
@given(rows=rows_of.filter(bool), data=st.data())
def test_duplicating_a_row_makes_it_unequal(rows, data):
    i = data.draw(st.integers(0, len(rows) - 1))
    assert not results_equal(rows, rows[:i] + [rows[i]] + rows[i:], ordered=False)


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(0, 3), min_size=1, max_size=12), data=st.data())
def test_ordered_comparison_ignores_order_within_ties(keys, data):
    keys = sorted(keys)
    gold = [(k, i) for i, k in enumerate(keys)]  # second column makes tied rows distinct
    groups = {}
    for row in gold:
        groups.setdefault(row[0], []).append(row)
    cand = [row for k in sorted(groups) for row in data.draw(st.permutations(groups[k]))]
    assert results_equal(gold, cand, ordered=True, gold_keys=[(k,) for k in keys])


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(0, 3), min_size=2, max_size=12, unique=True), data=st.data())
def test_ordered_comparison_sees_swapped_distinct_keys(keys, data):
    keys = sorted(keys)
    gold = [(k,) for k in keys]
    i = data.draw(st.integers(0, len(keys) - 2))
    cand = gold[:i] + [gold[i + 1], gold[i]] + gold[i + 2 :]
    assert not results_equal(gold, cand, ordered=True, gold_keys=gold)
    assert results_equal(gold, cand, ordered=False)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), max_size=8))
def test_float_noise_is_tolerated(values):
    gold = [(Decimal(repr(v)),) for v in values]
    noisy = [(v * (1 + 1e-13),) for v in values]
    assert results_equal(gold, noisy, ordered=False)
