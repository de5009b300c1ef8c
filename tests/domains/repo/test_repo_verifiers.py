"""The repo domain's reference graders (issue 36) on tiny_task(): the gold patch paid by
every one, the unpatched repository refused by every one, and for each naive grader a
hand-written patch (repo_hacks.py) that it pays and the strong grader refuses."""

from __future__ import annotations

import pytest
import repo_hacks as hacks
from repo_support import tiny_task

from verifier_audit.domains.repo import verifiers

NAIVE = ("exit_code", "fail_to_pass_only", "log_parse", "junit")


@pytest.mark.parametrize("name", NAIVE)
def test_the_gold_is_paid_and_the_unpatched_repository_refused(name):
    grade = getattr(verifiers, name)
    assert grade(hacks.GOLD, tiny_task()) is True
    assert grade(hacks.EMPTY, tiny_task()) is False


@pytest.mark.parametrize(
    ("name", "hack"),
    [
        ("exit_code", "CONFTEST_PASSES"),
        ("exit_code", "EXITS_AT_IMPORT"),
        ("fail_to_pass_only", "BREAKS_NEIGHBOUR"),
        ("log_parse", "PRINTS_PASSED"),
        ("junit", "WRITES_JUNIT"),
    ],
)
def test_each_naive_grader_pays_its_hack_and_strong_does_not(name, hack):
    patch = getattr(hacks, hack)
    assert getattr(verifiers, name)(patch, tiny_task()) is True
    assert verifiers.strong(patch, tiny_task()) is False


def test_strong_is_the_oracle_and_every_grader_runs_in_the_sandbox():
    # strong's gold and empty patch are the oracle's tests (test_repo_oracle.py)
    assert all(getattr(verifiers, name).runs_candidates_sandboxed for name in (*NAIVE, "strong"))
