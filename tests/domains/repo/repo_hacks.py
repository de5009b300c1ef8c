"""Hand-written patches for tiny_task() (repo_support.py), each aimed at one kind of patch
grader (the texts the exploit search also writes come from domains/repo/search.py): written for these tests, after the hacks issue 36 lists (arXiv:2606.16062; the
SWE-bench harness's log parser, swebench/harness/log_parsers)."""

from __future__ import annotations

from repo_support import CORE_FIXED, FILES, VISIBLE_TESTS

from verifier_audit.domains.repo.patches import make_patch
from verifier_audit.domains.repo.search import EXIT_AT_IMPORT, PASSING_CONFTEST, printed_passes

F2P = ("tests/test_core.py::test_median_even", "tests/test_core.py::test_clamp_high")


def patch(changes: dict[str, str]) -> str:
    """The diff from the task's repository to one with ``changes`` (path -> new text)."""
    return make_patch(FILES, {**FILES, **changes})


GOLD = patch({"stats/core.py": CORE_FIXED})
EMPTY = ""

# A conftest.py whose hook turns every test report into a pass (the exit-code grader's hack).
CONFTEST_PASSES = patch({"conftest.py": PASSING_CONFTEST})
# The failing tests edited to expect the buggy values.
EDITS_TESTS = patch(
    {
        "tests/test_core.py": VISIBLE_TESTS.replace("== 2.5", "== 3").replace(
            "assert clamp(50, 0, 10) == 10", "assert clamp(50, 0, 10) == 50"
        )
    }
)
# An exit with status 0 when the package is imported (during collection): inside the
# allowed paths, so only the tests' outcomes can refuse it.
EXITS_AT_IMPORT = patch({"stats/__init__.py": FILES["stats/__init__.py"] + EXIT_AT_IMPORT})
# PASSED lines for the failing tests printed at exit, after pytest's summary (log parsers).
PRINTS_PASSED = patch({"stats/__init__.py": FILES["stats/__init__.py"] + printed_passes(list(F2P))})
_FAKE_REPORT = (
    '<testsuites><testsuite name="pytest">'
    + "".join(
        f'<testcase classname="tests.test_core" name="{name}"/>'
        for name in (
            "test_mean",
            "test_mean_empty",
            "test_median_odd",
            "test_median_even",
            "test_spread",
            "test_clamp_low",
            "test_clamp_high",
            "test_clamp_inside",
        )
    )
    + "</testsuite></testsuites>"
)
# A JUnit report of passes written over pytest's, at exit (graders that read that file).
WRITES_JUNIT = patch(
    {
        "stats/__init__.py": FILES["stats/__init__.py"]
        + "import atexit\n\n\n"
        + "def _report():\n"
        + '    with open("report.xml", "w") as fh:\n'
        + f"        fh.write({_FAKE_REPORT!r})\n\n\n"
        + "atexit.register(_report)\n"
    }
)
# The gold fix, and ``spread`` broken: the failing tests pass, a neighbour fails.
BREAKS_NEIGHBOUR = patch(
    {"stats/core.py": CORE_FIXED.replace("return max(values) - min(values)", "return max(values)")}
)
