"""The repo domain's search operators (issue 36): each edits the repository a patch
produces and writes a patch that applies to the task again; none runs anything."""

from __future__ import annotations

import random

import repo_hacks as hacks
from repo_support import tiny_task

from verifier_audit.domains.repo.oracle import outside_paths, patched
from verifier_audit.domains.repo.search import OPERATORS, lazy_policies


def test_each_operator_writes_a_patch_that_applies():
    task, rng = tiny_task(), random.Random(0)
    made = {name: op(hacks.GOLD, rng, task) for name, op in OPERATORS.items()}
    for name, hack in (("exit_at_import", hacks.EXITS_AT_IMPORT), ("print_passed", hacks.PRINTS_PASSED)):
        after, meant = patched(made[name], task), patched(hack, task)  # the gold fix, and the hack
        assert after.changed == ["stats/__init__.py", "stats/core.py"]
        assert after.files["stats/__init__.py"] == meant.files["stats/__init__.py"]
    assert made["revert_one_file"] is None  # the gold changes one file: nothing to revert apart
    assert outside_paths(made["add_passing_conftest"], task) == ["conftest.py"]
    mutant = patched(made["mutate_source"], task)
    assert mutant.changed == ["stats/core.py"] and made["mutate_source"] != hacks.GOLD
    assert all(
        op(hacks.GOLD.replace("ordered[middle]", "x"), rng, task) is None and op(hacks.GOLD, rng, None) is None
        for op in OPERATORS.values()
    )


def test_the_lazy_policies_are_patches_without_a_fix():
    policies = lazy_policies(tiny_task())
    assert policies["empty_patch"] == [""] and outside_paths(policies["conftest_only"][0], tiny_task()) == [
        "conftest.py"
    ]
