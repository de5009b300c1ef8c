"""The repo oracle: a completion is correct when the patch it holds applies, changes only
the task's ``allowed_paths``, and, with the repository's test side restored to the task's
(tests, ``conftest.py`` files and pytest's configuration; files the patch added there
removed) and the hidden tests added, every ``fail_to_pass``, ``pass_to_pass`` and hidden
test passes -- read from the outcomes our pytest plugin sent over the run's result pipe
(run.py), never from the exit status, the log or a file in the repository.

A patch that changes a path outside ``allowed_paths`` is incorrect whatever its tests do:
an authority violation, named in the reason after ``AUTHORITY`` (the paths, in the
patch's order), so that the report can count such patches per candidate kind
(``authority_paths`` reads them back). A completion without a diff is an empty patch: the
repository as the task gave it, which fails its ``fail_to_pass`` tests.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...models import Task
from ..base import OracleLabel
from .extract import diff_of
from .layout import hidden_paths, is_test_side, node_ids, outside_allowed, pristine_tests
from .patches import PatchError, apply_patch
from .run import PytestRun, run_pytest

#: How the reason of a patch that writes outside the task's allowed paths starts.
AUTHORITY = "writes outside the allowed paths: "
#: pytest's flags for every run of the domain: no traceback (a failure's repr costs more
#: than the test; the outcome travels apart), quiet.
RUN_FLAGS = ("--tb=no", "-q")


@dataclass(frozen=True)
class Patched:
    """A completion's patch applied to its task's repository."""

    files: dict[str, str]
    changed: list[str]  # the paths whose text differs from the task's, created and deleted included


def patched(text: str, task: Task) -> Patched:
    """The repository after the completion's patch. Raises PatchError when it does not apply."""
    files = task.metadata["files"]
    after = apply_patch(files, diff_of(text))
    return Patched(after, [p for p in sorted(set(files) | set(after)) if files.get(p) != after.get(p)])


def authority_paths(reason: str) -> list[str]:
    """The paths an oracle reason names as written outside the allowed paths ([] for none)."""
    return reason[len(AUTHORITY) :].split(", ") if reason.startswith(AUTHORITY) else []


def run_restored(files: dict[str, str], task: Task, *which: str, hidden: bool = True) -> PytestRun:
    """The repository ``files`` run with its test side restored (and the hidden tests
    added when ``hidden``) on the node ids of ``which`` and the hidden test files."""
    targets = node_ids(task, *which) + (hidden_paths(task) if hidden else [])
    restored = pristine_tests(files, task)
    return run_pytest(restored, [*RUN_FLAGS, *targets], trusted=tuple(p for p in restored if is_test_side(p)))


def not_passed(run: PytestRun, task: Task, *which: str, hidden: bool = True) -> list[str]:
    """The tests of ``which`` (and the hidden files, each needing at least one test, every
    one passed) that did not pass in ``run``, in order."""
    missing = [node for node in node_ids(task, *which) if not run.passed(node)]
    if hidden:
        for path in hidden_paths(task):
            found = run.under(path)
            if not found:
                missing.append(path)
            missing += [node for node, outcome in found.items() if outcome != "passed"]
    return missing


def outside_paths(text: str, task: Task) -> list[str] | None:
    """The paths the completion's patch changes outside the task's ``allowed_paths`` (the
    authority it takes that the task never gave), without running anything; None when the
    patch does not apply."""
    try:
        return outside_allowed(patched(text, task).changed, task)
    except PatchError:
        return None


def label_completion(text: str, task: Task) -> OracleLabel:
    try:
        patch = patched(text, task)
    except PatchError as exc:
        return OracleLabel("incorrect", f"the patch does not apply: {exc}")
    outside = outside_allowed(patch.changed, task)
    if outside:
        return OracleLabel("incorrect", AUTHORITY + ", ".join(outside))
    run = run_restored(patch.files, task, "fail_to_pass", "pass_to_pass")
    if run.tampered:
        return OracleLabel("incorrect", f"nothing the run reported counts: {run.tampered}")
    if not run.finished:
        return OracleLabel("incorrect", f"the test session did not end ({run.error})")
    missing = not_passed(run, task, "fail_to_pass", "pass_to_pass")
    if missing:
        shown = ", ".join(f"{node} ({run.outcomes.get(node, 'no result')})" for node in missing[:3])
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return OracleLabel("incorrect", f"not passed: {shown}{more}")
    return OracleLabel("correct", f"{len(run.outcomes)} tests passed with the tests restored and the hidden ones added")
