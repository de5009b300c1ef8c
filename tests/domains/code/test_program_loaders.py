"""``--format apps``, ``codecontests`` and ``lcb``: small files in each dataset's own row
layout, written here (the problems are ours; the layouts are the dataset cards':
huggingface.co/datasets/codeparrot/apps, BAAI/TACO, deepmind/code_contests,
livecodebench/code_generation_lite), read into program tasks; bad rows name the file, the
line and the fix."""

from __future__ import annotations

import base64
import json
import pickle
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.domains import get_domain
from verifier_audit.domains.code.programs.cases import all_cases, judge, task_checker
from verifier_audit.domains.code.programs.loaders import _text_of
from verifier_audit.errors import InputError
from verifier_audit.suites import FORMATS, format_hint, load_suite

ADD = "a, b = map(int, input().split())\nprint(a + b)\n"
MAX = "input()\nprint(max(map(int, input().split())))\n"

# APPS: problem_id, question, solutions and input_output as JSON strings; one call-based row.
APPS_ROWS = [
    {
        "problem_id": 11,
        "question": "Read two integers a and b on one line. Print a + b.",
        "solutions": json.dumps([ADD, "print(sum(map(int, input().split())))\n"]),
        "input_output": json.dumps({"inputs": ["1 2\n", "-5 5\n", "10 20\n"], "outputs": ["3\n", "0\n", "30\n"]}),
        "difficulty": "introductory",
        "url": "https://example.org/add",
        "starter_code": "",
    },
    {
        "problem_id": 12,
        "question": "Return x doubled.",
        "solutions": json.dumps(["class Solution:\n    def double(self, x):\n        return 2 * x\n"]),
        "input_output": json.dumps({"fn_name": "double", "inputs": [[1], [4]], "outputs": [[2], [8]]}),
        "difficulty": "interview",
        "url": "https://example.org/double",
        "starter_code": "class Solution:\n    def double(self, x):\n",
    },
]

# TACO: no problem_id; some outputs are lists of lines.
TACO_ROW = {
    "question": "The first line holds n, the second n integers. Print the largest.",
    "solutions": json.dumps([MAX]),
    "input_output": json.dumps({"inputs": ["3\n1 9 2\n", "1\n-4\n"], "outputs": [["9"], ["-4"]]}),
    "difficulty": "EASY",
    "source": "codeforces",
    "name": "largest",
    "tags": "[]",
}

# CodeContests: tests as {"input": [...], "output": [...]}; solutions by language (1 is
# Python 2, 2 C++, 3 Python 3).
CC_ROW = {
    "name": "1000_A. Add",
    "description": "Read two integers a and b on one line. Print a + b.",
    "public_tests": {"input": ["1 2\n"], "output": ["3\n"]},
    "private_tests": {"input": ["7 8\n"], "output": ["15\n"]},
    "generated_tests": {"input": ["0 0\n", "-1 1\n"], "output": ["0\n", "0\n"]},
    "source": 2,
    "difficulty": 7,
    "solutions": {
        "language": [2, 1, 3],
        "solution": ["#include <cstdio>\nint main(){}", "print 1", ADD],
    },
    "incorrect_solutions": {"language": [], "solution": []},
}


def _lcb_row(**overrides) -> dict:
    row = {
        "question_title": "Add",
        "question_content": "Read two integers a and b on one line. Print a + b.",
        "platform": "atcoder",
        "question_id": "abc999_a",
        "contest_id": "abc999",
        "contest_date": "2026-01-01T00:00:00",
        "starter_code": "",
        "difficulty": "easy",
        "public_test_cases": json.dumps([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]),
        "private_test_cases": json.dumps([{"input": "4 5\n", "output": "9\n", "testtype": "stdin"}]),
        "metadata": "{}",
        "my_solution": ADD,
    }
    row.update(overrides)
    return row


def _write(tmp_path, name: str, rows: list[dict]):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_the_formats_are_declared_once_and_offered():
    assert {"apps", "codecontests", "lcb"} <= set(FORMATS)


def test_apps_rows_become_program_tasks_and_call_based_ones_are_dropped_by_name(tmp_path):
    suite = load_suite(str(_write(tmp_path, "apps.jsonl", APPS_ROWS)), fmt="apps")
    add, double = suite.tasks
    assert (add.id, add.domain, add.reference) == ("APPS/11", "program", ADD)
    assert add.metadata["cases"] == {
        "visible": [{"input": "1 2\n", "output": "3\n"}],
        "hidden": [{"input": "-5 5\n", "output": "0\n"}, {"input": "10 20\n", "output": "30\n"}],
    }
    assert add.metadata["difficulty"] == "introductory"
    program = get_domain("program")
    assert program.check_task(add) is None
    problem = program.check_task(double)
    assert problem is not None and "call-based" in problem and "'double'" in problem
    # The reference the loader picked passes its cases in the sandbox.
    verdict = judge(add.reference, all_cases(add), task_checker(add))
    assert verdict.correct, verdict.reason


def test_taco_rows_without_ids_and_outputs_as_lines(tmp_path):
    suite = load_suite(str(_write(tmp_path, "taco.jsonl", [TACO_ROW])), fmt="apps")
    (task,) = suite.tasks
    assert task.id == "taco-1"
    assert task.metadata["dataset_source"] == "codeforces"
    assert task.metadata["cases"]["hidden"] == [{"input": "1\n-4\n", "output": "-4\n"}]


def test_codecontests_reference_is_the_python3_solution_and_tests_split(tmp_path):
    (task,) = load_suite(str(_write(tmp_path, "cc.jsonl", [CC_ROW])), fmt="codecontests").tasks
    assert (task.id, task.reference) == ("1000_A. Add", ADD)
    assert task.metadata["cases"]["visible"] == [{"input": "1 2\n", "output": "3\n"}]
    assert [c["input"] for c in task.metadata["cases"]["hidden"]] == ["7 8\n", "0 0\n", "-1 1\n"]
    # A problem with no Python 3 solution is read, and dropped with the reason and the fix.
    python2_only = dict(CC_ROW, name="1000_B", solutions={"language": [1], "solution": ["print 1"]})
    tasks = load_suite(str(_write(tmp_path, "cc2.jsonl", [CC_ROW, python2_only])), fmt="codecontests").tasks
    problem = get_domain("program").check_task(tasks[1]) or ""
    assert "no Python 3 solution" in problem and "--field reference=COLUMN" in problem


def test_lcb_needs_a_reference_column_and_reads_public_and_private_cases(tmp_path):
    path = _write(tmp_path, "lcb.jsonl", [_lcb_row()])
    with pytest.raises(InputError, match=r"lcb\.jsonl:1: LiveCodeBench ships no reference.*--field reference="):
        load_suite(str(path), fmt="lcb")
    (task,) = load_suite(str(path), fmt="lcb", fields=["reference=my_solution"]).tasks
    assert (task.id, task.reference) == ("LCB/abc999_a", ADD)
    assert task.metadata["cases"] == {
        "visible": [{"input": "1 2\n", "output": "3\n"}],
        "hidden": [{"input": "4 5\n", "output": "9\n"}],
    }
    assert get_domain("program").check_task(task) is None


def test_lcb_functional_cases_mark_the_task_call_based(tmp_path):
    functional = json.dumps([{"input": "[1, 2]", "output": "3", "testtype": "functional"}])
    row = _lcb_row(public_test_cases=functional, private_test_cases="[]", metadata=json.dumps({"func_name": "add"}))
    (task,) = load_suite(str(_write(tmp_path, "f.jsonl", [row])), fmt="lcb", fields=["reference=my_solution"]).tasks
    assert task.metadata["call_based"] == "add"
    assert "'add'" in (get_domain("program").check_task(task) or "")


def test_lcb_compressed_private_cases_are_refused_never_unpickled(tmp_path):
    # The release's encoding: base64 of zlib of a pickle. This pickle would run code if
    # loaded (os.system through __reduce__); the loader must refuse it without reading it.
    class Boom:
        def __reduce__(self):
            import os

            return (os.system, (f"touch {tmp_path / 'pwned'}",))

    blob = base64.b64encode(zlib.compress(pickle.dumps(Boom()))).decode()
    rows = [_lcb_row(), _lcb_row(question_id="abc999_b", private_test_cases=blob)]
    with pytest.raises(InputError) as err:
        load_suite(str(_write(tmp_path, "z.jsonl", rows)), fmt="lcb", fields=["reference=my_solution"])
    message = str(err.value)
    assert "z.jsonl:2:" in message and "pickle" in message and '"[]"' in message
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    ("fmt", "row", "expected"),
    [
        ("apps", dict(APPS_ROWS[0], input_output="{not json"), r"bad\.jsonl:2: field 'input_output' is not valid JSON"),
        (
            "apps",
            dict(APPS_ROWS[0], input_output=json.dumps({"inputs": ["1"], "outputs": []})),
            r"bad\.jsonl:2: field 'input_output' must hold lists 'inputs' and 'outputs' of the same length",
        ),
        (
            "codecontests",
            dict(CC_ROW, public_tests={"input": [1], "output": ["x"]}),
            r"bad\.jsonl:2: public_tests\.input\[0\]",
        ),
        (
            "lcb",
            _lcb_row(public_test_cases=json.dumps([{"input": "1", "output": "1", "testtype": "file"}])),
            r"bad\.jsonl:2: .*testtype",
        ),
    ],
)
def test_bad_rows_name_the_file_and_the_line(tmp_path, fmt, row, expected):
    good = {"apps": APPS_ROWS[0], "codecontests": CC_ROW, "lcb": _lcb_row()}[fmt]
    path = _write(tmp_path, "bad.jsonl", [good, row])
    with pytest.raises(InputError, match=expected):
        load_suite(str(path), fmt=fmt, fields=["reference=my_solution"] if fmt == "lcb" else [])


def test_a_dataset_file_read_as_ours_suggests_its_format(tmp_path):
    hint = format_hint(_write(tmp_path, "cc.jsonl", [CC_ROW]))
    assert hint is not None and "--format codecontests" in hint


@given(st.lists(st.text(alphabet="ab 1\t", max_size=5), min_size=1, max_size=4))
def test_lines_given_as_a_list_read_as_the_same_tokens(lines):
    # APPS writes some outputs as a list of lines: they read as one text, one line each.
    text = _text_of(lines, "outputs", 0)
    assert text.split() == " ".join(lines).split()
    assert text.count("\n") == len(lines)
