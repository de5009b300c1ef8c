"""Suite files are user input: every error names the file and the line."""

import json

import pytest

from verifier_audit.cli import main
from verifier_audit.errors import InputError
from verifier_audit.suites import load_suite, parse_field_mapping


def _write(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def good(i):
    return {"id": f"q{i}", "domain": "math", "prompt": f"What is {i}+1?", "reference": str(i + 1)}


def test_broken_line_7_is_named(tmp_path, capsys):
    path = _write(
        tmp_path / "suite.jsonl", [good(i) for i in range(1, 7)] + ['{"id": "q7", "prompt": oops}'] + [good(8)]
    )
    with pytest.raises(InputError, match=r"suite.jsonl:7: invalid JSON"):
        load_suite(str(path))
    assert main(["run", "--verifier", "operator:eq", "--suite", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:7:" in err


def test_missing_field_names_line_and_the_fix(tmp_path):
    path = _write(tmp_path / "s.jsonl", [good(1), {"id": "q2", "question": "2+2?", "answer": "4"}])
    with pytest.raises(InputError) as err:
        load_suite(str(path))
    msg = str(err.value)
    assert "s.jsonl:2:" in msg and "prompt" in msg and "--field" in msg and "question, answer" in msg


def test_field_mapping(tmp_path):
    path = _write(tmp_path / "s.jsonl", [{"question": "2+2?", "answer": 4}, {"question": "3+3?", "answer": 6}])
    suite = load_suite(str(path), fields=["prompt=question", "reference=answer"])
    assert [t.reference for t in suite.tasks] == ["4", "6"]
    assert [t.id for t in suite.tasks] == ["s-1", "s-2"]


def test_bad_mapping_and_duplicates(tmp_path):
    with pytest.raises(InputError, match="not a task field"):
        parse_field_mapping(["answer=reference"])
    with pytest.raises(InputError, match="expected OURS=THEIRS"):
        parse_field_mapping(["prompt"])
    path = _write(tmp_path / "d.jsonl", [good(1), good(2), good(1)])
    with pytest.raises(InputError, match=r"d.jsonl:3: duplicate task id 'q1' \(first on line 1\)"):
        load_suite(str(path))


def test_unknown_suite_and_empty_file(tmp_path):
    with pytest.raises(InputError, match="not a built-in suite"):
        load_suite("no-such-suite")
    empty = tmp_path / "e.jsonl"
    empty.write_text("\n")
    with pytest.raises(InputError, match="no tasks"):
        load_suite(str(empty))


def test_bad_split_value_is_reported(tmp_path):
    path = _write(tmp_path / "s.jsonl", [good(1), {**good(2), "split": "validation"}])
    with pytest.raises(InputError, match=r"s.jsonl:2: not a valid task \(split"):
        load_suite(str(path))
