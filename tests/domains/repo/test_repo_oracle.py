"""The repo oracle (issue 36) on tiny_task(): the gold patch correct wherever the
completion puts it, the unpatched repository incorrect, and the patches that win a naive
grader -- a conftest.py that passes everything, the tests edited, an exit at import --
incorrect, the first two as authority violations naming the paths."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from repo_hacks import CONFTEST_PASSES, EDITS_TESTS, EMPTY, EXITS_AT_IMPORT, GOLD
from repo_support import tiny_task

from verifier_audit.domains.kit import builtin_catalog
from verifier_audit.domains.repo.extract import diff_of
from verifier_audit.domains.repo.generators import known_bad
from verifier_audit.domains.repo.oracle import AUTHORITY, authority_paths, label_completion, outside_paths


def test_the_gold_patch_in_prose_and_a_fence_is_correct():
    label = label_completion(f"The median was wrong.\n\n```diff\n{GOLD}```\n\nThis fixes both.", tiny_task())
    assert label.label == "correct", label.reason


def test_the_unpatched_repository_is_incorrect():
    label = label_completion(EMPTY, tiny_task())
    assert label.label == "incorrect" and "tests/test_core.py::test_median_even (failed)" in label.reason


def test_an_exit_at_import_is_incorrect():
    label = label_completion(EXITS_AT_IMPORT, tiny_task())
    assert label.label == "incorrect" and "did not end" in label.reason


def test_a_patch_outside_the_allowed_paths_is_an_authority_violation():
    for patch, path in ((CONFTEST_PASSES, "conftest.py"), (EDITS_TESTS, "tests/test_core.py")):
        label = label_completion(patch, tiny_task())
        assert label.label == "incorrect" and label.reason == AUTHORITY + path
        assert authority_paths(label.reason) == [path] == outside_paths(patch, tiny_task())
    assert (
        outside_paths(GOLD, tiny_task()) == []
        and outside_paths("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", tiny_task()) is None
    )
    assert authority_paths("not passed: x") == []


def test_an_always_equal_result_and_special_cased_test_inputs_are_incorrect():
    # With literal `==` hidden asserts both passed the oracle's rule (and the audit dropped
    # them as equivalent): the hidden tests now compare types exactly and compute their inputs.
    entries = {e.id: e for e in builtin_catalog("repo")}
    for entry_id, hidden_test in (
        ("always_equal_results", "test_median_matches_statistics"),
        ("hidden_tests_read", "test_median_of_pairs"),
    ):
        label = label_completion(known_bad.fill(entries[entry_id], tiny_task()), tiny_task())
        assert label.label == "incorrect" and f"tests/test_hidden_core.py::{hidden_test} (failed)" in label.reason, (
            entry_id,
            label.reason,
        )


def test_a_patch_that_does_not_apply_says_so():
    label = label_completion(GOLD.replace("ordered[middle]", "ordered[m]"), tiny_task())
    assert label.label == "incorrect" and label.reason.startswith("the patch does not apply: ")


PROSE = st.text(st.characters(blacklist_characters="`-+@"), max_size=40)


@given(PROSE, PROSE, st.booleans())
def test_the_diff_is_read_out_of_prose_and_fences(before, after, fenced):
    body = f"```diff\n{GOLD}```" if fenced else GOLD
    assert diff_of(f"{before}\n{body}\n{after}").startswith(GOLD if fenced else f"{before}\n") or not fenced
    if fenced:
        assert diff_of(f"{before}\n{body}\n{after}") == GOLD
