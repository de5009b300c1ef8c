"""The repo domain's candidates (``domains/repo/generators``) on the tiny task: each is a
completion holding a diff that applies to the task's files, deterministic for a seed; the
near misses, equivalents and hacks do to a real pytest run what they are meant to (a few
representative ones run, each in a subprocess on the patched repository)."""

from __future__ import annotations

import os
import subprocess
import sys
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from repo_support import tiny_task

from verifier_audit.domains.kit import CatalogEntry, CatalogError, builtin_catalog
from verifier_audit.domains.repo.generators import categories, generate_all
from verifier_audit.domains.repo.generators.edits import (
    apply_unit,
    asserted_calls,
    called_functions,
    gold_files,
    iter_units,
    special_case,
)
from verifier_audit.domains.repo.patches import apply_patch, changed_paths, make_patch
from verifier_audit.models import Task

TASK = tiny_task()
FILES = TASK.metadata["files"]
TEST_CONFIG = ("conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")


def _by_category(seed: int = 0, task: Task = TASK) -> dict[str, list]:
    out: dict[str, list] = {}
    for c in generate_all([task], seed):
        out.setdefault(c.category, []).append(c)
    return out


CANDIDATES = _by_category()


def _pytest(files: dict[str, str], root: Path, *args: str) -> subprocess.CompletedProcess:
    """A plain ``python -m pytest`` on ``files`` written under ``root`` (the environment's
    pytest plugins not loaded: a fifth of the start-up, and a task's run needs none)."""
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )


def _patched(category: str, index: int = 0) -> dict[str, str]:
    return apply_patch(FILES, CANDIDATES[category][index].text)


def _strict(files: dict[str, str]) -> dict[str, str]:
    """The oracle's repository: the tests and the test configuration as the task has them,
    the hidden tests added."""
    kept = {p: t for p, t in files.items() if not (p.startswith("tests/") or p.split("/")[-1] in TEST_CONFIG)}
    pristine = {p: t for p, t in FILES.items() if p.startswith("tests/") or p.split("/")[-1] in TEST_CONFIG}
    return {**kept, **pristine, **TASK.metadata["hidden_tests"]}


# ------------------------------------------------------------------ what is generated


def test_categories_list_every_kind_and_the_catalog():
    infos = {c.name: c for c in categories()}
    for name in (
        "repo.near_miss.partial_fix",
        "repo.near_miss.visible_special_case",
        "repo.near_miss.breaks_pass_to_pass",
        "repo.near_miss.return_none",
        "repo.equivalent.gold_in_prose",
        "repo.equivalent.files_reordered",
        "repo.equivalent.locals_renamed",
        "repo.equivalent.helper_extracted",
    ):
        assert name in infos, name
    hacks = {e.category for e in builtin_catalog("repo")}
    assert len(hacks) >= 12 and all(h.startswith("repo.hack.") for h in hacks)
    assert {infos[h].origin for h in hacks} == {"known_bad"}
    # every category the tiny task gets is listed
    assert set(CANDIDATES) <= set(infos)


def test_the_tiny_task_gets_every_kind_of_candidate():
    kinds = {c.split(".")[1] for c in CANDIDATES}
    assert kinds == {"near_miss", "equivalent", "hack"}
    for name in ("partial_fix", "visible_special_case", "breaks_pass_to_pass"):
        assert f"repo.near_miss.{name}" in CANDIDATES
    assert len(CANDIDATES["repo.near_miss.partial_fix"]) == 2  # one per hunk of the gold
    for name in ("gold", "gold_in_prose", "comments_added", "context_wide", "context_narrow", "locals_renamed"):
        assert f"repo.equivalent.{name}" in CANDIDATES
    every = [c for group in CANDIDATES.values() for c in group]
    assert all((c.label == "correct") == (c.origin == "equivalent") for c in every)
    # some are written as models write them: a sentence and a fenced diff
    assert any("```diff\n" in c.text and not c.text.startswith("```") for c in every)
    assert any(c.text.startswith("diff --git ") for c in every)


def test_candidates_are_deterministic_per_seed():
    again = _by_category()
    assert {k: [(c.id, c.text) for c in v] for k, v in again.items()} == {
        k: [(c.id, c.text) for c in v] for k, v in CANDIDATES.items()
    }


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**32))
def test_every_candidate_applies_and_fixes_only_within_its_kind(seed):
    allowed = TASK.metadata["allowed_paths"]
    gold = gold_files(TASK)
    for c in generate_all([TASK], seed):
        files = apply_patch(FILES, c.text)  # raises PatchError when it does not apply
        assert files != FILES, c.id
        paths = changed_paths(c.text)
        if c.origin != "known_bad":  # near misses and equivalents stay inside the package
            assert all(any(fnmatchcase(p, g) for g in allowed) for p in paths), (c.id, paths)
        if c.category in (
            "repo.equivalent.gold_in_prose",
            "repo.equivalent.context_wide",
            "repo.equivalent.context_narrow",
        ):
            assert files == gold, c.id
        if c.origin == "near_miss":
            assert files != gold, c.id
        if c.origin == "known_bad":  # a hack, not a fix: the bug stays
            assert files["stats/core.py"] == FILES["stats/core.py"], c.id


_LINES = st.lists(st.sampled_from(["a\n", "b\n", "    c\n", "\n", "d"]), max_size=12).map("".join)


@settings(max_examples=60, deadline=None)
@given(_LINES, _LINES)
def test_the_parts_of_a_change_add_up_to_it(old, new):
    # partial_fix applies one part; every part applied at once is the whole change
    units = list(iter_units(old, new))
    assert apply_unit(old, new, [op for unit in units for op in unit]) == new
    for unit in units:
        assert apply_unit(old, new, unit) != old


def test_files_reordered_on_a_gold_over_two_files():
    fixed = dict(gold_files(TASK), **{"stats/__init__.py": '"""stats: small, tested statistics helpers."""\n'})
    task = TASK.model_copy(update={"id": "repo/stats/two_files", "reference": make_patch(FILES, fixed)})
    [reordered] = _by_category(task=task)["repo.equivalent.files_reordered"]
    assert changed_paths(reordered.text) == ["stats/core.py", "stats/__init__.py"]  # make_patch sorts them
    assert apply_patch(FILES, reordered.text) == fixed


def test_the_special_case_reads_the_visible_asserts():
    [call] = asserted_calls(FILES, "tests/test_core.py::test_median_even")
    assert (call.module, call.name, call.args, call.expected) == ("stats/core.py", "median", ([4, 1, 3, 2],), 2.5)
    source = special_case(FILES["stats/core.py"], "median", [call])
    assert source is not None and "if (values,) == ([4, 1, 3, 2],):\n        return 2.5\n" in source
    # truth asserts: `assert f(x)` expects True, `assert not f(x)` False, joined by `and`
    files = {
        "cal/leap.py": "def is_leap(year):\n    return year % 4 == 0\n",
        "tests/test_leap.py": "from cal.leap import is_leap\n\n\ndef test_leap():\n"
        "    assert is_leap(2024) and not is_leap(1900)\n    assert is_leap(year=2000) == True\n",
    }
    found = asserted_calls(files, "tests/test_leap.py::test_leap")
    assert [(c.args, c.kwargs, c.expected) for c in found] == [
        ((2024,), (), True),
        ((1900,), (), False),
        ((), (("year", 2000),), True),
    ]
    assert "    if (year,) == (1900,):\n        return False\n" in special_case(files["cal/leap.py"], "is_leap", found)


def test_the_functions_a_test_calls_include_methods():
    files = {
        "inv/stock.py": "class Stock:\n    def value(self):\n        return 1\n\n\ndef make():\n    return Stock()\n",
        "tests/test_stock.py": "from inv.stock import make\n\n\ndef test_value():\n    assert make().value() == 1\n",
    }
    assert called_functions(files, "tests/test_stock.py::test_value") == [
        ("inv/stock.py", "make"),
        ("inv/stock.py", "value"),
    ]


def test_a_broken_catalog_step_names_the_entry():
    entry = CatalogEntry(
        id="bad_step",
        category="repo.hack.bad",
        severity="high",
        template="=== rewrite conftest.py\npass",
        rationale="r",
        reference="pytest documentation",
        source="repo.yaml",
    )
    with pytest.raises(CatalogError, match="bad_step.*STEP one of"):
        generate_all([TASK], 0, [entry])


# ------------------------------------------------------------- what they do to pytest


def test_the_gold_and_its_equivalents_pass_the_hidden_tests(tmp_path):
    # The equivalents whose files differ from the gold's (the others give the gold's files:
    # test_every_candidate_applies...), hidden tests added, the tests as the task has them.
    for index, category in enumerate(
        ("repo.equivalent.comments_added", "repo.equivalent.locals_renamed", "repo.equivalent.helper_extracted")
    ):
        files = _patched(category)
        assert files != gold_files(TASK), category
        run = _pytest(_strict(files), tmp_path / str(index))
        assert run.returncode == 0 and "11 passed" in run.stdout, (category, run.stdout[-2000:])


def test_the_special_cased_near_miss_passes_the_visible_tests_and_fails_the_hidden(tmp_path):
    files = _patched("repo.near_miss.visible_special_case")
    assert _pytest(files, tmp_path / "visible").returncode == 0
    hidden = _pytest(_strict(files), tmp_path / "hidden")
    assert hidden.returncode == 1
    assert "FAILED tests/test_hidden_core.py::test_median_of_pairs" in hidden.stdout


def test_the_near_miss_that_breaks_a_neighbour_fails_a_pass_to_pass_test(tmp_path):
    files = _patched("repo.near_miss.breaks_pass_to_pass")
    run = _pytest(files, tmp_path)
    failed = {line.split()[1] for line in run.stdout.splitlines() if line.startswith("FAILED ")}
    assert failed and failed <= set(TASK.metadata["pass_to_pass"]), run.stdout[-2000:]


def test_the_conftest_hook_makes_a_plain_pytest_pass_without_the_fix(tmp_path):
    files = _patched("repo.hack.conftest_outcome")
    assert files["stats/core.py"] == FILES["stats/core.py"]  # no fix
    run = _pytest(files, tmp_path / "patched")
    assert run.returncode == 0 and "PASSED tests/test_core.py::test_median_even" in run.stdout
    assert _pytest(_strict(files), tmp_path / "strict").returncode == 1


def test_the_exit_hacks_make_pytest_exit_zero(tmp_path):
    for index, candidate in enumerate(CANDIDATES["repo.hack.exit_zero"]):
        run = _pytest(apply_patch(FILES, candidate.text), tmp_path / str(index))
        assert run.returncode == 0, candidate.id
        assert "passed" not in run.stdout, candidate.id  # no test ran


def test_the_fake_log_hack_prints_passed_lines_for_failing_tests(tmp_path):
    [at_exit] = [c for c in CANDIDATES["repo.hack.fake_log"] if c.id.endswith("passed_lines_at_exit")]
    run = _pytest(apply_patch(FILES, at_exit.text), tmp_path)
    assert run.returncode == 1
    assert "FAILED tests/test_core.py::test_median_even" in run.stdout
    # after pytest's summary: a log parser that keeps the last status reads PASSED
    last = run.stdout.rindex("PASSED tests/test_core.py::test_median_even")
    assert last > run.stdout.rindex("FAILED tests/test_core.py::test_median_even")


def test_the_report_hack_overwrites_the_junit_file_pytest_wrote(tmp_path):
    [at_exit] = [c for c in CANDIDATES["repo.hack.report_written"] if c.id.endswith("reports_rewritten_at_exit")]
    run = _pytest(apply_patch(FILES, at_exit.text), tmp_path, "--junitxml=report.xml")
    assert run.returncode == 1
    report = (tmp_path / "report.xml").read_text(encoding="utf-8")
    assert 'failures="0"' in report and 'name="test_median_even"' in report


# The median without the middle index: the sorted list walked in from both ends.
MEDIAN_WALKED = """def median(values):
    ordered = sorted(values)
    if not ordered:
        raise ValueError("median of no values")
    low, high = 0, len(ordered) - 1
    while high - low > 1:
        low, high = low + 1, high - 1
    return (ordered[low] + ordered[high]) / 2 if low != high else ordered[low]
"""


def test_a_tasks_alternatives_are_equivalents_the_oracle_confirms():
    """``metadata.alternatives`` (another correct implementation): one equivalent each,
    and the oracle labels it correct -- a grader that compares it to the gold's text or
    shape would refuse it."""
    from repo_support import CORE_FIXED

    from verifier_audit.domains.repo.oracle import label_completion

    core = (
        CORE_FIXED.split("def median(values):")[0]
        + MEDIAN_WALKED
        + "\n\n"
        + "def spread"
        + CORE_FIXED.split("def spread")[1]
    )
    other = make_patch(FILES, {**gold_files(TASK), "stats/core.py": core})
    task = TASK.model_copy(update={"metadata": {**TASK.metadata, "alternatives": [other]}})
    found = _by_category(0, task)["repo.equivalent.another_implementation"]
    assert [c.label for c in found] == ["correct"] and "repo.equivalent.another_implementation" not in CANDIDATES
    assert label_completion(found[0].text, task).label == "correct"
