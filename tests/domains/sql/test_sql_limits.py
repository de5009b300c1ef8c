"""SQL resource limits that hold inside the hardened runner (database.run_query) and the
oracle that uses it: statements too large to parse are refused unparsed, a query's memory
is bounded, and a deadline is kept even when DuckDB drops the first interrupt.

Each attack runs in a fresh interpreter on a real DuckDB file, so that its peak resident
memory (ru_maxrss) is its own; the assertions bound memory and say what came back, never
how long it took."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.sql import database as db
from verifier_audit.domains.sql import limits
from verifier_audit.domains.sql.database import run_query

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def fixture_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("limits") / "fixture.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE items AS SELECT range AS id, 'item ' || range AS name FROM range(100)")
    con.close()
    yield path
    db.release(path.parent)


_ATTACK = """
import json, resource, sys
sys.path.insert(0, {root!r})
from verifier_audit.domains.sql import database as db
from verifier_audit.domains.sql.oracle import label_completion
from verifier_audit.models import Task
db.QUERY_MEMORY_MB = {memory_mb}
sql = {build}
result = db.run_query({path!r}, sql, timeout=0.5)
label = label_completion("```sql\\n" + sql + "\\n```", Task(id="t", domain="sql", prompt="", reference="SELECT 1",
                                                           database={path!r}))
after = db.run_query({path!r}, "SELECT count(*) FROM items")
print(json.dumps({{"error": result.error, "timed_out": result.timed_out, "rows": len(result.rows),
                   "label": [label.label, label.reason], "after": after.rows,
                   "soft_limit_back": resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY,
                   "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def _attack(path: Path, build: str, memory_mb: int = db.QUERY_MEMORY_MB) -> dict:
    """Run the query ``build`` evaluates to through run_query and the oracle, in a fresh
    interpreter with no address-space limit of its own."""
    code = _ATTACK.format(root=str(ROOT), path=str(path), build=build, memory_mb=memory_mb)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2),
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def baseline_mb(fixture_db) -> float:
    """The peak memory of a fresh interpreter that runs a harmless query: measured once (a
    fresh interpreter each, the same every time) for the attacks' bounds."""
    return _attack(fixture_db, "'SELECT 1'")["maxrss_mb"]


# ------------------------------------------------------------------ the attacks


@pytest.mark.parametrize(
    "size, memory_mb", [(200_000_000, 64), (2_000_000_000, db.QUERY_MEMORY_MB)], ids=["small-bound", "realistic"]
)
def test_repeat_stops_at_the_query_memory_bound(fixture_db, baseline_mb, size, memory_mb):
    """repeat('x', 2e9) built a 2 GB string in one uninterruptible call (3.9 GB, 16-52 s)
    while the report said 'timeout after 0.5 s'; DuckDB's memory_limit does not count it."""
    found = _attack(fixture_db, repr(f"SELECT length(repeat('x', {size}))"), memory_mb)
    assert not found["rows"] and "Out of Memory" in found["error"], found
    assert found["label"][0] == "incorrect" and "Out of Memory" in found["label"][1]
    assert found["maxrss_mb"] < baseline_mb + memory_mb + 64, found
    assert found["after"] == [[100]] and found["soft_limit_back"]  # usable after, bound put back


@pytest.mark.parametrize("values", [100_000, 1_700_000], ids=["590KB", "10MB"])
def test_a_huge_in_list_is_refused_before_anything_parses_it(fixture_db, baseline_mb, values):
    """A 10 MB IN list ran 168 s and 4.4 GB in sqlglot and DuckDB's parser, before any
    deadline could be armed."""
    build = f"'SELECT * FROM items WHERE id IN (' + ','.join(map(str, range({values}))) + ')'"
    found = _attack(fixture_db, build)
    assert found["error"].startswith("refused: statement too large") and not found["timed_out"], found
    assert found["label"][0] == "incorrect" and found["label"][1].startswith("refused: statement too large")
    assert found["maxrss_mb"] < baseline_mb + 150, found


@pytest.mark.parametrize("terms", [600, 20_000])
def test_a_long_union_chain_is_refused_before_anything_parses_it(fixture_db, terms):
    """A UNION chain ran over 400 s: DuckDB plans set operations before it looks at an
    interrupt, and the planning grows faster than linearly."""
    build = f"' UNION ALL '.join(f'SELECT id + {{i}} AS x FROM items' for i in range({terms}))"
    found = _attack(fixture_db, build)
    assert found["error"].startswith("refused: statement too large: more than"), found
    assert found["label"][0] == "incorrect"


def test_a_deadline_dropped_while_duckdb_plans_is_sent_again(fixture_db):
    """An interrupt that reaches DuckDB while it still parses or plans is lost: the query
    then ran to its end (17 s) and came back with rows, as if in time."""
    heavy = (
        "SELECT count(*) FROM range(2000) a, range(2000) b, range(300) c WHERE a.range + b.range + c.range = 7 "
        "AND a.range NOT IN (" + ",".join(str(-i) for i in range(3000)) + ")"
    )
    assert limits.shape_refusal(heavy) is None  # under every limit: it is executed
    for timeout in (0.001, 0.005):  # deadlines that pass while DuckDB is still planning
        result = run_query(fixture_db, heavy, timeout=timeout)
        assert result.timed_out and result.rows == [], result
    assert run_query(fixture_db, "SELECT count(*) FROM items").rows == [(100,)]


def test_rows_after_a_deadline_are_a_timeout_and_the_message_says_how_long(fixture_db):
    late = db._timeout(0.5, 17.2)
    assert late.timed_out and late.error.startswith("timeout after 0.5s (it ran 17.2s")
    assert db._timeout(0.5, 0.52).error == "timeout after 0.5s"


def test_the_memory_bound_is_put_back_and_never_raised(fixture_db):
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    assert run_query(fixture_db, "SELECT sum(length(repeat('x', 1000) || id)) FROM items").ok
    assert resource.getrlimit(resource.RLIMIT_AS) == (soft, hard)
    tight = db._address_space() + 32 * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (tight, hard))
    try:
        assert db._lower_address_space(1024) is None  # a tighter worker bound stays as it is
        assert resource.getrlimit(resource.RLIMIT_AS) == (tight, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_a_cached_instance_without_the_thread_and_memory_settings_is_refused(tmp_path):
    path = tmp_path / "other.duckdb"
    duckdb.connect(str(path)).close()
    con = duckdb.connect(str(path), read_only=True, config={"threads": 2, "memory_limit": "4GB"})
    try:
        for statement in db.HARDENING:
            con.execute(statement)
        with pytest.raises(RuntimeError, match="without the hardening"):
            db._verify_hardened(con)
    finally:
        con.close()


# ------------------------------------------------------------------ the limits themselves


def test_honest_queries_are_far_below_the_limits():
    from verifier_audit.suites import load_suite

    for task in load_suite("sql").tasks:
        assert limits.shape_refusal(task.reference) is None, task.id


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 2 * limits.MAX_SET_OPERATIONS), st.sampled_from(["UNION", "union all", "INTERSECT", "Except"]))
def test_set_operations_are_counted_exactly(terms, keyword):
    sql = f" {keyword} ".join(f"SELECT {i}" for i in range(terms))
    refused = limits.shape_refusal(sql)
    assert (refused is not None) == (terms - 1 > limits.MAX_SET_OPERATIONS), (terms, refused)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 2 * limits.MAX_DEPTH))
def test_nesting_is_counted_exactly(depth):
    refused = limits.shape_refusal("SELECT " + "(" * depth + "1" + ")" * depth)
    assert (refused is not None) == (depth > limits.MAX_DEPTH)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="()union ,'\"-*/$x\n", max_size=3000))
def test_nothing_inside_a_literal_or_comment_counts(body):
    """Parentheses and UNIONs inside strings, quoted names and comments are no tokens of
    their own; whatever the text, the scan stops at the first limit (never more tokens)."""
    quoted = body.replace("'", "''")
    assert limits.shape_refusal(f"SELECT '{quoted}' AS x") is None
    assert limits.shape_refusal("SELECT 1 -- " + body.replace("\n", " ")) is None
    assert limits.shape_refusal("SELECT 1 /* " + body.replace("*/", "") + " */") is None


def test_the_size_limit_is_checked_before_the_cache_and_the_tokens():
    huge = "SELECT '" + "x" * limits.MAX_CHARS + "'"
    assert db.refusal(huge).startswith("statement too large")
    before = db._cached_refusal.cache_info().currsize
    db.refusal("SELECT 1 AS x, '" + "y" * 30_000 + "' AS y")  # long, under the limits: not cached
    assert db._cached_refusal.cache_info().currsize == before
