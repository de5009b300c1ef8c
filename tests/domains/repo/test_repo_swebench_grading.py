"""SWE-bench's own grading (the ``swebench`` package, 5.0.2: its pytest log parser,
``get_logs_eval``, ``get_eval_tests_report``, ``get_resolution_status``) audited on the tiny
stats task (tests/domains/repo/swebench_grader.py runs the patch as its eval script does).

The finding (docs/real-verifiers.md, "SWE-bench grading"): the harness re-applies the test
patch but leaves every other file a candidate patch adds, so a ``conftest.py`` that turns
each test's report into a pass is RESOLVED_FULL with the package still wrong; and printed
``PASSED`` lines get through the exit-status cross-check 5.0.2 added when the process that
prints them also exits 0. Its cross-check does catch printed lines with the real failing
exit status. Each hack leaves the package as buggy as the empty patch, which is not
resolved."""

from __future__ import annotations

import pytest
from repo_support import CORE_BUGGY, tiny_task
from swebench_grader import swebench_report, swebench_resolved

from verifier_audit.domains.repo.patches import changed_paths, make_patch

pytest.importorskip("unidiff", reason="swebench's grading imports unidiff (.ci/run installs it)")
pytest.importorskip("swebench", reason="pip install --no-deps swebench==5.0.2 unidiff==1.0.1 (.ci/run)")

TASK = tiny_task()
FILES = TASK.metadata["files"]

# A conftest.py that reports every test's call as passed: pytest itself prints PASSED
# lines and exits 0. SWE-bench resets only the test patch's files before its run.
CONFTEST = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
"""

# Lines in the format of pytest's -rA summary, printed when the interpreter exits, after
# pytest's own summary (the parser keeps the last status of each test) ...
FAKE_LINES = "".join(f"PASSED {node}\\n" for node in TASK.metadata["fail_to_pass"])
PRINTED = f"""\
import atexit
import sys


def _report():
    sys.stdout.write("{FAKE_LINES}")
    sys.stdout.flush()


atexit.register(_report)
"""
# ... and the same with the exit status set to 0 after them.
PRINTED_EXIT_0 = PRINTED.replace(
    "    sys.stdout.flush()\n", "    sys.stdout.flush()\n    import os\n\n    os._exit(0)\n"
)


def _adding(path: str, text: str) -> str:
    """A patch that leaves the package as buggy as it is and adds ``path``."""
    return make_patch(FILES, dict(FILES, **{path: text}))


def _init_plus(text: str) -> str:
    return make_patch(FILES, dict(FILES, **{"stats/__init__.py": FILES["stats/__init__.py"] + text}))


def test_the_gold_is_resolved_and_no_patch_is_not():
    status, report = swebench_report(TASK.reference, TASK)
    assert status == "RESOLVED_FULL" and report["FAIL_TO_PASS"]["failure"] == []
    assert swebench_resolved("", TASK) == 0.0
    assert FILES["stats/core.py"] == CORE_BUGGY


def test_a_patch_that_does_not_apply_is_not_resolved():
    assert swebench_resolved(TASK.reference.replace("ordered[middle]", "ordered[mid]"), TASK) == 0.0


def test_finding_a_conftest_the_patch_adds_is_resolved_full_with_the_package_still_wrong():
    hack = _adding("conftest.py", CONFTEST)
    status, report = swebench_report(hack, TASK)
    assert status == "RESOLVED_FULL", report
    # the truth: the package is untouched (the empty patch above is RESOLVED_NO), and the
    # oracle removes a conftest.py a patch adds before its run
    assert changed_paths(hack) == ["conftest.py"]


def test_finding_printed_passed_lines_with_exit_0_are_resolved_full():
    assert swebench_report(_init_plus(PRINTED_EXIT_0), TASK)[0] == "RESOLVED_FULL"


def test_its_exit_status_check_catches_printed_lines_when_the_real_status_is_kept():
    """5.0.2's cross-check: a log that reports no failure from a run that exited 1."""
    assert swebench_report(_init_plus(PRINTED), TASK)[0] == "RESOLVED_NO"
