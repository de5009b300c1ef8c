"""The repo domain's registration and task layout (issue 36): ``check_task`` accepts the
layout and names the task, the field and the fix for what breaks it."""

from __future__ import annotations

import pytest
from repo_support import tiny_task

from verifier_audit.domains import get_domain
from verifier_audit.domains.repo.layout import is_test_side, outside_allowed, pristine_tests


def test_the_domain_is_registered():
    domain = get_domain("repo")
    assert domain.name == "repo" and domain.sandboxes_calls
    assert list(domain.reference_verifiers) == ["exit_code", "fail_to_pass_only", "log_parse", "junit", "strong"]
    assert domain.suite_formats == {"swebench": "verifier_audit.domains.repo.loaders:swebench_suite"}
    assert domain.check_task(tiny_task()) is None


def _broken(**changes):
    task = tiny_task()
    return task.model_copy(update={"metadata": {**task.metadata, **changes}})


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"files": {}}, "metadata.files"),
        (
            {"pass_to_pass": ["tests/test_core.py::test_mean"]},
            "metadata.pass_to_pass: 1 node ids; a task needs at least 5",
        ),
        ({"fail_to_pass": ["tests/test_gone.py::test_a"]}, "'tests/test_gone.py::test_a' is no visible test"),
        ({"allowed_paths": ["*.py"]}, "lets a patch change the tests"),
        ({"allowed_paths": ["other/*.py"]}, "outside metadata.allowed_paths"),
        ({"hidden_tests": {"tests/test_core.py": ""}}, "a hidden test file is a new file under tests/"),
        ({"files": {"../x.py": ""}}, "leaves the repository"),
        ({"alternatives": "diff --git"}, "metadata.alternatives: expected a list of unified diffs"),
    ],
)
def test_a_broken_layout_names_the_task_field_and_fix(changes, says):
    reason = get_domain("repo").check_task(_broken(**changes))
    assert reason is not None and reason.startswith("task repo/stats/median_clamp: ") and says in reason


def test_a_gold_that_does_not_apply_is_named():
    task = tiny_task().model_copy(update={"reference": tiny_task().reference.replace("ordered[middle]", "x[m]")})
    assert "the gold patch does not apply" in get_domain("repo").check_task(task)


def test_the_test_side_is_restored_and_the_hidden_tests_added():
    task = tiny_task()
    patched = dict(task.metadata["files"], **{"tests/test_core.py": "", "conftest.py": "x", "stats/core.py": "y"})
    restored = pristine_tests(patched, task)
    assert restored["tests/test_core.py"] == task.metadata["files"]["tests/test_core.py"]
    assert "conftest.py" not in restored and restored["stats/core.py"] == "y"
    assert set(task.metadata["hidden_tests"]) <= set(restored)
    assert [p for p in ("pytest.ini", "pkg/conftest.py", "tests/x.txt", "setup.py") if is_test_side(p)] == [
        "pytest.ini",
        "pkg/conftest.py",
        "tests/x.txt",
    ]
    assert outside_allowed(["stats/core.py", "tests/test_core.py", "stats/sub/x.py"], task) == ["tests/test_core.py"]
