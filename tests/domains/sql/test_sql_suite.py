"""The built-in SQL suite: size, spread, splits, and every gold runs on its fixture."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from verifier_audit.domains.sql.compare import gold_is_ordered
from verifier_audit.domains.sql.database import run_query
from verifier_audit.domains.sql.fixtures import SCHEMA_NAMES, materialise
from verifier_audit.resources import data_path
from verifier_audit.suites import load_suite

SUITE_FILE = data_path("suites", "sql", "tasks.jsonl")
SHIFTED = {"window", "recursive_cte", "set_operation"}
REQUIRED = {
    "filter",
    "inner_join",
    "outer_join",
    "self_join",
    "aggregate",
    "group_by",
    "having",
    "order_by",
    "limit",
    "ties",
    "distinct",
    "in_subquery",
    "not_in",
    "exists",
    "not_exists",
    "cte",
    "window",
    "case",
    "date",
    "set_operation",
    "recursive_cte",
    "null_handling",
}


@pytest.fixture(scope="module")
def tasks():
    return load_suite("sql").tasks


def test_size_and_spread(tasks):
    assert len(tasks) >= 150
    assert all(t.domain == "sql" for t in tasks)
    assert [t.id for t in tasks] == [f"sql-{i:04d}" for i in range(1, len(tasks) + 1)]
    per = Counter((t.metadata["schema"], t.split) for t in tasks)
    for schema in SCHEMA_NAMES:
        for split in ("train", "heldout", "shifted"):
            assert per[schema, split] >= 8, (schema, split)
    assert len({t.prompt for t in tasks}) == len(tasks)
    assert len({t.reference for t in tasks}) == len(tasks)


def test_constructs_covered_and_shifted_is_really_shifted(tasks):
    everywhere = Counter(c for t in tasks for c in t.metadata["constructs"])
    assert REQUIRED <= set(everywhere), REQUIRED - set(everywhere)
    seen_in_training = {c for t in tasks if t.split in ("train", "heldout") for c in t.metadata["constructs"]}
    assert not SHIFTED & seen_in_training
    for task in tasks:
        if task.split == "shifted":
            assert SHIFTED & set(task.metadata["constructs"]), task.id
    train = {c for t in tasks if t.split == "train" for c in t.metadata["constructs"]}
    heldout = {c for t in tasks if t.split == "heldout" for c in t.metadata["constructs"]}
    assert heldout <= train  # heldout asks new questions with known constructs


def test_every_gold_runs_hardened_and_returns_rows(tasks, tmp_path):
    paths = {name: materialise(name, tmp_path) for name in SCHEMA_NAMES}
    for task in tasks:
        result = run_query(paths[task.metadata["schema"]], task.reference, timeout=5.0)
        assert result.ok, (task.id, result.error)
        assert result.rows, task.id


def test_gold_orders_only_when_the_question_asks(tasks):
    order_words = ("first", "highest to", "most", "oldest", "newest", "order")
    for task in tasks:
        if gold_is_ordered(task.reference):
            assert any(w in task.prompt.lower() for w in order_words), task.id
        if " LIMIT " in task.reference.upper():
            # a LIMIT in the gold always comes with a tie-breaker the question states
            assert "ties broken" in task.prompt.lower() or "breaking ties" in task.prompt.lower(), task.id


def test_file_is_deterministic_and_up_to_date():
    script = Path(__file__).resolve().parents[3] / "scripts" / "make_sql_suite.py"
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = SUITE_FILE.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert set(first) == {"id", "domain", "prompt", "reference", "split", "metadata"}
    assert set(first["metadata"]) == {"schema", "constructs"}
