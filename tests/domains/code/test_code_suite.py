"""The built-in code suite (suites/code/tasks.jsonl) and its generator."""

import ast
import importlib.util
import inspect
from pathlib import Path

import pytest

from verifier_audit.models import Task

ROOT = Path(__file__).resolve().parents[3]
SUITE = ROOT / "suites" / "code" / "tasks.jsonl"
SHIFTED_ONLY = {"dp", "dict_returning", "tuple_returning"}
TYPES = {"int", "float", "str", "bool", "list[int]", "list[str]", "dict[str,int]", "tuple[int,int]"}


@pytest.fixture(scope="module")
def tasks():
    return _load()


def extra(task, name):
    return (task.model_extra or {})[name]


def signature_line(task):
    sig = task.metadata["signature"]
    args = ", ".join(f"{n}: {t.replace(',', ', ')}" for n, t in sig["args"])
    return f"def {extra(task, 'entry_point')}({args}) -> {sig['returns'].replace(',', ', ')}:"


def test_size_ids_and_splits(tasks):
    assert len(tasks) >= 100
    ids = [t.id for t in tasks]
    assert len(set(ids)) == len(ids)
    assert all(t.id.startswith("code-") and t.domain == "code" for t in tasks)
    assert {t.split for t in tasks} == {"train", "heldout", "shifted"}
    assert len({extra(t, "entry_point") for t in tasks}) == len(tasks)


def test_shifted_families_absent_from_train_and_heldout(tasks):
    by_split = {s: {t.metadata["family"] for t in tasks if t.split == s} for s in ("train", "heldout", "shifted")}
    assert by_split["shifted"] == SHIFTED_ONLY
    assert not by_split["train"] & SHIFTED_ONLY
    assert not by_split["heldout"] & SHIFTED_ONLY
    assert by_split["heldout"] <= by_split["train"]
    # the result types that make the shift: no train task returns a dict or a tuple
    train_returns = {t.metadata["signature"]["returns"] for t in tasks if t.split == "train"}
    assert not train_returns & {"dict[str,int]", "tuple[int,int]"}


def test_metadata_shape(tasks):
    for t in tasks:
        sig = t.metadata["signature"]
        assert sig["returns"] in TYPES
        assert all(typ in TYPES for _, typ in sig["args"])
        assert set(t.metadata["input_hints"]) == {n for n, _ in sig["args"]}


def test_prompt_and_reference_contain_the_signature(tasks):
    for t in tasks:
        line = signature_line(t)
        assert line in t.prompt, t.id
        assert t.reference.startswith(t.prompt), t.id
        assert ">>> " in t.prompt, t.id


def _load():
    return [Task.model_validate_json(line) for line in SUITE.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("t", _load(), ids=lambda t: t.id)
def test_reference_passes_its_visible_tests(t):
    ns = {}
    exec(compile(t.reference, t.id, "exec"), ns)
    fn = ns[extra(t, "entry_point")]
    assert list(inspect.signature(fn).parameters) == [n for n, _ in t.metadata["signature"]["args"]]
    tns = {}
    exec(compile(extra(t, "tests"), t.id + "-tests", "exec"), tns)
    tns["check"](fn)


def test_references_import_nothing(tasks):
    for t in tasks:
        tree = ast.parse(t.reference)
        assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(tree)), t.id


def test_tests_are_weak(tasks):
    for t in tasks:
        tree = ast.parse(extra(t, "tests"))
        check = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"]
        assert len(check) == 1
        asserts = sum(isinstance(n, ast.Assert) for n in ast.walk(tree))
        assert 2 <= asserts <= 4, t.id


def test_generator_is_up_to_date():
    spec = importlib.util.spec_from_file_location("make_code_suite", ROOT / "scripts" / "make_code_suite.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0
