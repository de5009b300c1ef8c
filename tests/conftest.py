import os

import pytest
from cli_support import run_cli


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    # One candidate cache for the whole test session, never the user's own.
    monkeypatch.setenv("VERIFIER_AUDIT_CACHE", str(tmp_path_factory.getbasetemp() / "va-cache"))


@pytest.fixture
def cli(tmp_path):
    """Run the real command in a subprocess (so kill -9 and exit codes are real)."""
    return run_cli


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than the cores (at most 4, as ``--maxprocesses``). The
    audits' own worker pools wait on timeouts, subprocesses and sandboxes, leaving a core
    idle part of the time (README, "Running the tests")."""
    return min(4, (os.cpu_count() or 1) + 1)


# Under `--dist loadfile` a file runs whole in one worker, in collection order: the longest
# files go first, so that none of them starts last and runs alone at the end (seconds per
# file from `--durations=0` of a whole run, 2026-12-06, largest first; the first three
# re-ranked after their bounding the same day, by the CPU of each file's whole process
# tree: test_cli_e2e 71 s, test_code_domain 56 s, test_search 49 s; the next ones after a
# second round, the same way: test_sql_e2e 52 s, test_audit_files 44 s, test_score_scale
# 28 s, test_resume_fingerprint 28 s, test_lying_scores 21 s, test_env_and_limits 19 s,
# test_blacklist_canaries 15 s, test_isolation 10 s, test_sql_limits 6 s; the files not
# measured then keep their places).
_LONGEST_FIRST = (
    "test_cli_e2e.py",
    "test_code_domain.py",
    "test_search.py",
    "test_sql_e2e.py",
    "test_audit_files.py",
    "test_score_scale.py",
    "test_resume_fingerprint.py",
    "test_lying_scores.py",
    "test_env_and_limits.py",
    "test_blacklist_canaries.py",
    "test_math_generators.py",
    "test_isolation.py",
    "test_ray_executor.py",
    "test_code_inputs.py",
    "test_sql_limits.py",
    "test_search_sql_code.py",
    "test_real_verifiers.py",
    "test_call_boundary.py",
    "test_pytest_plugin.py",
    "test_report_html.py",
    "test_terminal_verdict.py",
    "test_http_style.py",
    "test_cli_flags.py",
    "test_pool.py",
    "test_answer_formats.py",
    "test_sql_generators.py",
    "test_strategies.py",
    "test_code_catalog.py",
    "test_checklist.py",
    "test_report_html_cards.py",
)


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(_LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's own order kept


# No test races the clock (tests/test_no_clock.py): Hypothesis's per-example deadline (200 ms
# by default) is a wall-clock limit too, which a loaded machine can exceed.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("no-deadline", deadline=None)
_hypothesis_settings.load_profile("no-deadline")
