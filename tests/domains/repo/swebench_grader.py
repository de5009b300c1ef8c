"""A repo-task grader that grades a candidate patch as SWE-bench's harness does, with the
``swebench`` package's own log parser and report functions (swebench 5.0.2,
github.com/SWE-bench/SWE-bench: ``swebench/harness/grading.py`` and
``swebench/harness/log_parsers/python.py``). Written for the tests, as a test subject.

What the harness's eval script does in its container, done here in a temporary folder:
the candidate patch applied (a patch that does not apply is ``>>>>> Patch Apply Failed``:
not resolved); the files of the test patch (in a repo task: the visible test files its
FAIL_TO_PASS / PASS_TO_PASS ids name) put back to their state after the test patch --
``git checkout <base> <test files>`` then ``git apply test.patch`` -- and nothing else:
other files the candidate added (a ``conftest.py``) stay; pytest run with ``-rA`` on those
test files between the ``>>>>> Start Test Output`` / ``>>>>> End Test Output`` markers, its
exit status recorded after the end marker (``record_test_exit_code``). The log then goes to
``get_logs_eval`` (its parser, and its cross-check of the exit status against the parsed
statuses), ``get_eval_tests_report`` and ``get_resolution_status``: 1.0 for
``RESOLVED_FULL``, else 0.0.

``swebench.harness``'s ``__init__`` imports its Docker and Modal runners (``docker``,
``modal``, ``datasets``); the grading modules need only ``unidiff``. The package folder is
registered without running that ``__init__`` (``_harness``), and the real modules are
imported from it.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

from verifier_audit.domains.repo.patches import PatchError, apply_patch
from verifier_audit.models import Task

RUN_LIMIT = 60


def _harness() -> tuple[types.ModuleType, types.ModuleType]:
    """(swebench.harness.grading, swebench.harness.constants), imported without the
    package's ``__init__`` (module docstring)."""
    if "swebench.harness" not in sys.modules:
        import swebench

        package = types.ModuleType("swebench.harness")
        package.__path__ = [str(Path(swebench.__file__).parent / "harness")]
        sys.modules["swebench.harness"] = package
    return importlib.import_module("swebench.harness.grading"), importlib.import_module("swebench.harness.constants")


def directive_files(task: Task) -> list[str]:
    """The test patch's files: the files the FAIL_TO_PASS / PASS_TO_PASS ids live in."""
    ids = [*task.metadata["fail_to_pass"], *task.metadata["pass_to_pass"]]
    return sorted({node.split("::")[0] for node in ids})


def eval_log(completion: str, task: Task) -> str:
    """The log SWE-bench's eval script would write for this patch."""
    _, constants = _harness()
    files = task.metadata["files"]
    try:
        patched = apply_patch(files, completion)
    except PatchError as exc:
        return f"{constants.APPLY_PATCH_FAIL}: {exc}\n"
    directives = directive_files(task)
    patched.update({path: files[path] for path in directives})  # the test patch, re-applied
    with tempfile.TemporaryDirectory(prefix="swebench-grade-") as tmp:
        for path, text in patched.items():
            (Path(tmp) / path).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / path).write_text(text, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
        env.update(PYTHONDONTWRITEBYTECODE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        command = [sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", *directives]
        try:
            run = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True, timeout=RUN_LIMIT)
        except subprocess.TimeoutExpired:
            return f"{constants.TESTS_TIMEOUT}\n"
    return (
        f"{constants.START_TEST_OUTPUT}\n{run.stdout}{run.stderr}\n{constants.END_TEST_OUTPUT}\n"
        f"{constants.TEST_EXIT_CODE}: {run.returncode}\n"
    )


def swebench_report(completion: str, task: Task) -> tuple[str, dict]:
    """(resolution status, report) as SWE-bench's grading makes them from the log."""
    grading, constants = _harness()
    from swebench.types import TestSpec

    spec = TestSpec(
        instance_id=task.id,
        image="",
        eval_script_list=[],
        repo=str(task.metadata.get("project", "")),
        version="",
        FAIL_TO_PASS=list(task.metadata["fail_to_pass"]),
        PASS_TO_PASS=list(task.metadata["pass_to_pass"]),
        log_parser="parse_log_pytest",
    )
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, encoding="utf-8") as fh:
        fh.write(eval_log(completion, task))
    try:
        status_map, found = grading.get_logs_eval(spec, fh.name)
    finally:
        os.unlink(fh.name)
    if not found:
        return constants.ResolvedStatus.NO.value, {}
    gold = {constants.FAIL_TO_PASS: spec.FAIL_TO_PASS, constants.PASS_TO_PASS: spec.PASS_TO_PASS}
    report = grading.get_eval_tests_report(status_map, gold)
    return grading.get_resolution_status(report), report


def swebench_resolved(completion: str, task: Task) -> float:
    """1.0 iff SWE-bench's grading calls the patch RESOLVED_FULL."""
    _, constants = _harness()
    status, _ = swebench_report(completion, task)
    return 1.0 if status == constants.ResolvedStatus.FULL.value else 0.0
