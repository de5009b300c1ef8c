"""Unified diffs over a repository mapping (``domains/repo/patches.py``): what ``make_patch``
writes, ``apply_patch`` reads back; a patch that escapes the repository or was made against
other text is an error, never a write."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.repo.patches import PatchError, apply_patch, changed_paths, make_patch, parse_patch

# Lines drawn from a few short values so that hunks share context (and repeat: a hunk must
# land where its header says, not on an earlier copy of its lines).
_LINE_TEXT = st.sampled_from(["a", "b", "def f():", "    return 1", "", "x = 2", "\tpass", "y\r"])
_TEXT = st.lists(_LINE_TEXT, max_size=30).map("\n".join) | st.lists(_LINE_TEXT, max_size=30).map(
    lambda lines: "".join(line + "\n" for line in lines)
)
_PATHS = st.sampled_from(["pkg/mod.py", "pkg/__init__.py", "tests/test_mod.py", "README.md", "setup.cfg"])
_REPO = st.dictionaries(_PATHS, _TEXT, max_size=4)


@settings(max_examples=150, deadline=None)
@given(_REPO, _REPO, st.integers(0, 3))
def test_applying_the_made_patch_gives_the_new_repository(old, new, context):
    patch = make_patch(old, new, context=context)
    assert apply_patch(old, patch) == new
    assert set(changed_paths(patch)) == {p for p in set(old) | set(new) if old.get(p) != new.get(p)}


def test_a_hunk_is_found_where_lines_were_added_above_it():
    old = {"m.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"}
    patch = make_patch(old, {"m.py": old["m.py"].replace("return 2", "return 3")}, context=1)
    moved = {"m.py": "import os\nimport sys\n" + old["m.py"]}
    assert apply_patch(moved, patch) == {"m.py": moved["m.py"].replace("return 2", "return 3")}


@pytest.mark.parametrize(
    "path",
    ["/etc/passwd", "../outside.py", "pkg/../../x", "a//b", "./x", "pkg\\mod.py"],
)
def test_a_patch_naming_a_path_outside_the_repository_is_refused(path):
    patch = f"--- a/{path}\n+++ b/{path}\n@@ -0,0 +1 @@\n+boom\n"
    if path.startswith("/"):
        patch = f"--- {path}\n+++ {path}\n@@ -0,0 +1 @@\n+boom\n"
    with pytest.raises(PatchError):
        apply_patch({}, patch)


def test_a_hunk_made_against_other_text_names_its_line():
    patch = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
    with pytest.raises(PatchError, match="patch line 3"):
        apply_patch({"m.py": "x = 1\ny = 5\n"}, patch)
    assert apply_patch({"m.py": "x = 1\ny = 2\n"}, patch) == {"m.py": "x = 1\ny = 3\n"}


def test_creation_deletion_and_prose_around_the_diff():
    patch = (
        "Here is my fix:\n\n```diff\n"
        "--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1,2 @@\n+import os\n+os._exit(0)\n"
        "--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone = True\n"
        "```\n"
    )
    assert changed_paths(patch) == ["conftest.py", "old.py"]
    assert apply_patch({"old.py": "gone = True\n"}, patch) == {"conftest.py": "import os\nos._exit(0)\n"}
    with pytest.raises(PatchError, match="already exists"):
        apply_patch({"conftest.py": "", "old.py": "gone = True\n"}, patch)


def test_malformed_patches_are_errors_that_say_what_a_diff_looks_like():
    with pytest.raises(PatchError, match="unified diff"):
        parse_patch("just prose, no diff")
    with pytest.raises(PatchError, match="hunk ends"):
        parse_patch("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n")
    assert parse_patch("") == []
