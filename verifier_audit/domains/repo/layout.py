"""A repository task's layout, what a patch may change, and what the oracle restores.

A repo task (docs/repo-domain.md, agreed with the candidates' and the suite's authors):
``reference`` is the gold patch (a unified diff, ``patches.make_patch`` against
``metadata.files``), and in ``metadata``:

* ``files``: ``{relative path: text}``, the repository with the bug (a package at the root,
  visible tests under ``tests/``, a ``pytest.ini``);
* ``hidden_tests``: ``{"tests/test_hidden_<x>.py": text}``, added by the oracle before its
  run, never part of ``files``;
* ``fail_to_pass``, ``pass_to_pass``: visible pytest node ids (``path::name``) that fail
  before the gold and pass after it, and that pass before and after it (>= 1 and >= 5);
* ``allowed_paths``: ``fnmatch.fnmatchcase`` globs over the relative path: what a patch may
  change (the source package; never tests, ``conftest.py`` or configuration);
* ``alternatives`` (optional): unified diffs against ``files``, each another correct fix
  written differently from the gold (another implementation): equivalent candidates, each
  labelled by the oracle like any other.

The test side of a repository (``is_test_side``): everything under ``tests/``, any
``conftest.py`` and the files pytest reads its configuration from. The oracle runs a patched
repository with that side as the task gave it (``pristine_tests``), so what a patch does
there never decides its label.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping

from ...models import Task
from .patches import PatchError, apply_patch, check_path

# The files pytest reads its configuration (``addopts``, ``testpaths``, plugins) from.
CONFIG_FILES = ("pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")
# What a task must have at least (issue 36): one failing test to fix, five to keep.
MIN_FAIL_TO_PASS = 1
MIN_PASS_TO_PASS = 5


def is_test_side(path: str) -> bool:
    """A file of the repository's tests or test configuration (restored by the oracle)."""
    name = path.rsplit("/", 1)[-1]
    return path.startswith("tests/") or name == "conftest.py" or path in CONFIG_FILES


def allowed(path: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(path, glob) for glob in globs)


def outside_allowed(paths: list[str], task: Task) -> list[str]:
    """The paths among ``paths`` that the task does not allow a patch to change."""
    globs = list(task.metadata.get("allowed_paths") or [])
    return [p for p in paths if not allowed(p, globs)]


def pristine_tests(files: Mapping[str, str], task: Task) -> dict[str, str]:
    """``files`` (a patched repository) with its test side as the task gave it: test files
    and configuration put back, those the patch added removed, and the hidden tests added."""
    pristine = task.metadata["files"]
    kept = {path: text for path, text in files.items() if not is_test_side(path)}
    kept.update({path: text for path, text in pristine.items() if is_test_side(path)})
    kept.update(task.metadata.get("hidden_tests") or {})
    return kept


def node_ids(task: Task, *which: str) -> list[str]:
    """The node ids of ``which`` (``"fail_to_pass"``, ``"pass_to_pass"``), in order."""
    return [node for key in which for node in task.metadata.get(key) or []]


def hidden_paths(task: Task) -> list[str]:
    """The hidden test files: the oracle runs them whole (every test in them)."""
    return sorted(task.metadata.get("hidden_tests") or {})


def check_layout(task: Task) -> str | None:
    """Why the task cannot be audited as a repo task, or None. Each reason names the task,
    the field and the fix."""
    where = f"task {task.id}"
    meta = task.metadata
    files = meta.get("files")
    if not isinstance(files, dict) or not files:
        return f'{where}: metadata.files: expected {{"relative path": "text", ...}}, the repository with the bug'
    for key, value in (("files", files), ("hidden_tests", meta.get("hidden_tests") or {})):
        if not isinstance(value, dict):
            return f'{where}: metadata.{key}: expected {{"relative path": "text", ...}}'
        for path, text in value.items():
            if not isinstance(path, str) or not isinstance(text, str):
                return f"{where}: metadata.{key}: {path!r}: expected a relative path mapped to the file's text"
            try:
                check_path(path)
            except PatchError as exc:
                return f"{where}: metadata.{key}: {exc}; give paths relative to the repository root"
    hidden = meta.get("hidden_tests") or {}
    for path in hidden:
        if not path.startswith("tests/") or path in files:
            return (
                f"{where}: metadata.hidden_tests: {path!r}: a hidden test file is a new file under tests/ "
                "(not one of metadata.files)"
            )
    globs = meta.get("allowed_paths")
    if not isinstance(globs, list) or not globs or not all(isinstance(g, str) and g for g in globs):
        return f'{where}: metadata.allowed_paths: expected a non-empty list of globs (e.g. ["pkg/*.py"])'
    for key, least in (("fail_to_pass", MIN_FAIL_TO_PASS), ("pass_to_pass", MIN_PASS_TO_PASS)):
        nodes = meta.get(key)
        if not isinstance(nodes, list) or not all(isinstance(n, str) for n in nodes):
            return f'{where}: metadata.{key}: expected a list of pytest node ids ("tests/test_x.py::test_a")'
        if len(nodes) < least:
            return f"{where}: metadata.{key}: {len(nodes)} node ids; a task needs at least {least}"
        for node in nodes:
            path = node.split("::", 1)[0]
            if "::" not in node or path not in files:
                return (
                    f"{where}: metadata.{key}: {node!r} is no visible test: a node id is "
                    "'<a test file of metadata.files>::<test name>'"
                )
    alternatives = meta.get("alternatives", [])
    if not isinstance(alternatives, list) or not all(isinstance(a, str) and a for a in alternatives):
        return (
            f"{where}: metadata.alternatives: expected a list of unified diffs against metadata.files "
            "(other correct fixes), or no such key"
        )
    try:
        patched = apply_patch(files, task.reference)
    except PatchError as exc:
        return f"{where}: reference: the gold patch does not apply to metadata.files: {exc}; remake it with patches.make_patch"
    if patched == files:
        return f"{where}: reference: the gold patch changes nothing; it is the fix of the issue, as a unified diff"
    changed = [p for p in sorted(set(files) | set(patched)) if files.get(p) != patched.get(p)]
    outside = outside_allowed(changed, task)
    if outside:
        return (
            f"{where}: reference: the gold patch changes {', '.join(outside)}, outside metadata.allowed_paths "
            f"{globs}; widen allowed_paths or keep the gold to the source package"
        )
    test_side = [glob for glob in globs if any(is_test_side(p) and allowed(p, [glob]) for p in (*files, *hidden))]
    if test_side:
        return (
            f"{where}: metadata.allowed_paths: {', '.join(test_side)} lets a patch change the tests or their "
            "configuration; allow the source package only"
        )
    return None
