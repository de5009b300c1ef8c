"""The built-in repo suite (suites/repo/tasks.jsonl, made by scripts/make_repo_suite.py):
the layout of every row, the splits, and what the script makes of one task, re-made here.
The script's own validation (pytest run on every buggy and fixed repository) runs when it
writes the file; here one task is run, to keep the test cheap."""

from __future__ import annotations

import ast
import fnmatch
import importlib.util
import json
import sys
from collections import Counter

import pytest
from cli_support import ROOT

from verifier_audit.domains.code.generators.mutants import mutants
from verifier_audit.domains.kit import builtin_catalog
from verifier_audit.domains.repo.generators import known_bad
from verifier_audit.domains.repo.oracle import label_completion
from verifier_audit.domains.repo.patches import apply_patch, changed_paths
from verifier_audit.models import Task

SUITE = ROOT / "suites" / "repo" / "tasks.jsonl"
ROWS = [json.loads(line) for line in SUITE.read_text(encoding="utf-8").splitlines()]
KEYS = {
    "project",
    "family",
    "files",
    "hidden_tests",
    "fail_to_pass",
    "pass_to_pass",
    "allowed_paths",
    "bug",
    "alternatives",
}


@pytest.fixture(scope="module")
def script(request):
    sys.path.insert(0, str(ROOT / "scripts"))
    request.addfinalizer(lambda: sys.path.remove(str(ROOT / "scripts")))
    spec = importlib.util.spec_from_file_location("make_repo_suite", ROOT / "scripts" / "make_repo_suite.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_suite_has_40_tasks_over_8_projects_and_shifted_projects_absent_from_train():
    projects = Counter(row["metadata"]["project"] for row in ROWS)
    assert len(ROWS) >= 40 and len(projects) >= 8
    by_split = {
        split: {r["metadata"]["project"] for r in ROWS if r["split"] == split}
        for split in ("train", "heldout", "shifted")
    }
    assert all(by_split.values())
    assert not by_split["shifted"] & (by_split["train"] | by_split["heldout"])
    assert by_split["heldout"] <= by_split["train"]  # other bugs of train projects
    assert len({row["id"] for row in ROWS}) == len(ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_each_row_has_the_layout_and_a_gold_that_changes_only_the_package(row):
    meta = row["metadata"]
    assert row["domain"] == "repo" and row["id"].startswith(f"repo/{meta['project']}/") and set(meta) == KEYS
    assert meta["files"]["pytest.ini"] == "[pytest]\ntestpaths = tests\npythonpath = .\n"
    assert len(meta["fail_to_pass"]) >= 1 and len(meta["pass_to_pass"]) >= 5
    assert not set(meta["fail_to_pass"]) & set(meta["pass_to_pass"])
    assert all(node.split("::")[0] in meta["files"] for node in meta["fail_to_pass"] + meta["pass_to_pass"])
    assert all(p.startswith("tests/test_hidden_") and p not in meta["files"] for p in meta["hidden_tests"])
    changed = changed_paths(row["reference"])
    assert len(changed) == 1 and fnmatch.fnmatchcase(changed[0], meta["allowed_paths"][0])
    assert not any(
        fnmatch.fnmatchcase(p, g) for p in meta["files"] if p.startswith("tests/") for g in meta["allowed_paths"]
    )


def test_each_bug_is_one_mutant_of_one_module_of_the_clean_project(script):
    """What the script makes, without running pytest: the gold gives the clean project
    back, and the buggy module is one of the code domain's mutants of the clean one."""
    projects = {p.name: p for p in script.PROJECTS}
    made: dict[str, set[str]] = {}  # module path -> its mutants' sources, made once
    for row in ROWS:
        project = projects[row["metadata"]["project"]]
        assert apply_patch(row["metadata"]["files"], row["reference"]) == script.project_files(project), row["id"]
        (path,) = changed_paths(row["reference"])
        if path not in made:
            made[path] = {m.source for m in mutants(project.modules[path.split("/")[1][:-3]], "")}
        assert row["metadata"]["files"][path] in made[path], row["id"]
        assert row["metadata"]["hidden_tests"] == {
            k: v for k, v in script.hidden_files(project).items() if k in row["metadata"]["hidden_tests"]
        }


def test_one_task_remade_by_running_its_tests(script):
    """The first shifted task: its failing tests fail on the buggy repository, its passing
    ones pass, a hidden test fails, and the issue quotes the failing statement."""
    row = next(r for r in ROWS if r["split"] == "shifted")
    meta = row["metadata"]
    run = script.run_pytest({**meta["files"], **meta["hidden_tests"]})
    failing = {node for node, (outcome, _) in run.items() if outcome != "passed"}
    assert set(meta["fail_to_pass"]) <= failing and not set(meta["pass_to_pass"]) & failing
    assert any(node.split("::")[0] in meta["hidden_tests"] for node in failing)
    # the issue names the statement that failed (pytest's own wording of what came back
    # may change with its version, so only the statement is compared)
    failure = run[meta["fail_to_pass"][0]][1]
    statement = next(line[1:].strip() for line in failure.splitlines() if line.startswith(">"))
    assert f"\n    {statement}\n" in row["prompt"]


def _literal_calls(source: str) -> list[str]:
    """The ``f(literal, ...) == literal`` comparisons of a test file: what a patch that reads
    tests/ at import can collect and special-case (the catalog's hidden_tests_read)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        call = node.left if isinstance(node, ast.Compare) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and isinstance(node.ops[0], ast.Eq | ast.Is):
            try:
                [ast.literal_eval(a) for a in call.args]
                [ast.literal_eval(c) for c in node.comparators]
            except ValueError:
                continue
            found.append(ast.unparse(node))
    return found


def test_hidden_tests_hold_no_literal_answers_and_compare_types_exactly():
    """The hidden tests draw their inputs at run time and compare through ``same`` (type
    first): nothing for a tests reader to special-case, nothing an always-equal object
    passes (docs/repo-suite.md)."""
    for row in ROWS:
        for path, source in row["metadata"]["hidden_tests"].items():
            assert not _literal_calls(source), (row["id"], path, _literal_calls(source))
            assert "assert type(got) is type(expected)" in source and "same(" in source.split("def same", 1)[1]


def test_the_tests_read_hack_fails_a_task_it_passed_on_literal_hidden_tests():
    """repo/wrap/truncate_return_none: with literal hidden asserts the catalog's
    hidden_tests_read was labelled correct (the oracle dropped it as equivalent)."""
    task = next(Task(**row) for row in ROWS if row["id"] == "repo/wrap/truncate_return_none")
    entry = next(e for e in builtin_catalog("repo") if e.id == "hidden_tests_read")
    label = label_completion(known_bad.fill(entry, task), task)
    assert label.label == "incorrect" and "tests/test_hidden_words.py::" in label.reason, label.reason


def test_each_alternative_is_another_implementation_of_the_golds_function(script):
    """Without running pytest (the script ran every test on each when it wrote the file):
    each task's alternative changes the gold's file alone, and is no renaming of the clean
    module (``shape``: the trees differ with every name replaced by its order)."""
    for row in ROWS:
        meta = row["metadata"]
        (alternative,) = meta["alternatives"]
        assert changed_paths(alternative) == changed_paths(row["reference"]), row["id"]
        (path,) = changed_paths(alternative)
        other, fixed = apply_patch(meta["files"], alternative), apply_patch(meta["files"], row["reference"])
        assert other[path] != fixed[path] and script.shape(other[path]) != script.shape(fixed[path]), row["id"]
    renamed = ("def f(a):\n    b = a\n    return b\n", "def f(x):\n    y = x\n    return y\n")
    assert script.shape(renamed[0]) == script.shape(renamed[1])  # a renaming has one shape


def test_one_alternative_is_labelled_correct_by_the_oracle():
    row = next(r for r in ROWS if r["split"] == "shifted")
    task = Task.model_validate(row)
    assert label_completion(row["metadata"]["alternatives"][0], task).label == "correct"
