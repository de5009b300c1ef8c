"""The repo domain's runner (issue 36): the repository's pytest forked from the code
sandbox's warm zygote, each test's outcome sent by our plugin over the run's result pipe,
so that a run which never reports a test has not passed it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from repo_support import FILES

from verifier_audit.domains.repo.run import fold_outcomes, run_pytest
from verifier_audit.domains.repo.verifiers import junit_key, parse_log


def test_the_outcomes_the_exit_status_and_the_log_of_a_run():
    run = run_pytest(FILES, ["--tb=no", "-rA", "tests/test_core.py"], read_back=("pytest.ini", "absent.txt"))
    assert run.finished and run.exit_status == 1 and len(run.outcomes) == 8
    assert run.outcomes["tests/test_core.py::test_median_even"] == "failed" and run.passed(
        "tests/test_core.py::test_mean"
    )
    assert parse_log(run.log)["tests/test_core.py::test_clamp_high"] == "FAILED" and "2 failed, 6 passed" in run.log
    assert run.files == {"pytest.ini": FILES["pytest.ini"]}


def test_an_exit_in_a_conftest_passes_nothing():
    """Before the runner, an exit 0 read as success; now no outcome arrives, so none passed."""
    run = run_pytest(dict(FILES, **{"conftest.py": "import os\n\nos._exit(0)\n"}), ["tests/test_core.py"])
    assert run.outcomes == {} and not run.finished and run.exit_status == 0
    assert "exited with status 0 without returning a result" in run.error


PHASES = st.lists(
    st.tuples(
        st.sampled_from(["t::a", "t::b"]),
        st.sampled_from(["setup", "call", "teardown"]),
        st.sampled_from(["passed", "failed", "skipped", "xfailed"]),
    )
)


@given(PHASES)
def test_a_test_passes_only_when_its_call_passed_and_no_phase_failed(reports):
    folded = fold_outcomes(reports)
    for node, outcome in folded.items():
        seen = {when: out for n, when, out in reports if n == node}
        assert (outcome == "passed") == (seen.get("call") == "passed" and "failed" not in seen.values())
        assert (outcome == "failed") == ("failed" in seen.values())


def test_the_log_and_junit_names_of_a_node():
    log = "PASSED t.py::a\nFAILED t.py::b - x\nsome text PASSED t.py::c\nPASSED t.py::b\n"
    assert parse_log(log) == {"t.py::a": "PASSED", "t.py::b": "PASSED"}  # the last line wins, as SWE-bench's
    assert junit_key("tests/test_x.py::TestA::test_b") == ("tests.test_x.TestA", "test_b")
    assert junit_key("tests/test_core.py::test_mean") == ("tests.test_core", "test_mean")


def test_a_path_outside_the_run_is_not_written():
    run = run_pytest({"../escape.py": "x = 1\n", **FILES}, ["tests/test_core.py"])
    assert not run.finished and run.outcomes == {} and "is not a path inside the repository" in run.log


def test_a_run_ends_inside_the_oracles_clock():
    """A patch that loops forever is labelled wrong by the run's own limits, never dropped as
    an oracle timeout (at 10 s of CPU time against the oracle's 10 s the two raced)."""
    from verifier_audit.domains.repo import run
    from verifier_audit.engine.audit import AuditOptions

    assert run.CPU_LIMIT < run.WALL_LIMIT < AuditOptions().oracle_timeout
