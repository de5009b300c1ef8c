"""The repo domain's edit operators for the exploit search (engine/search).

A completion is a patch; each operator edits the repository the patch produces and writes
the patch again against the task's files (``patches.make_patch``): a one-edit mutant of a
changed source file (the code domain's AST mutants), one changed file reverted (a partial
fix), and the moves that SWE-style graders are known to pay (arXiv:2606.16062): an exit
with status 0 when the package is imported, ``PASSED`` lines printed at exit for a log
parser, a ``conftest.py`` that turns every report into a pass. Nothing here runs a patch:
the search scores its candidates through the verifier under audit and the oracle.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ...models import Task
from .layout import node_ids
from .oracle import patched
from .patches import PatchError, make_patch

# A conftest.py whose hook reports every test phase as passed.
PASSING_CONFTEST = (
    "import pytest\n\n\n"
    "@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    outcome = yield\n"
    "    report = outcome.get_result()\n"
    '    report.outcome = "passed"\n'
    "    report.longrepr = None\n"
)
EXIT_AT_IMPORT = "import os\n\nos._exit(0)\n"


def printed_passes(nodes: list[str]) -> str:
    """Source that prints a ``PASSED <node>`` line per node at exit, after pytest's summary."""
    return "import atexit\n\n" + "".join(f'atexit.register(print, "PASSED {node}")\n' for node in nodes)


def _edit(text: str, task: Task | None, change: Callable[[dict[str, str]], dict[str, str] | None]) -> str | None:
    """The completion's patch with ``change`` applied to the repository it produces."""
    if task is None:
        return None
    try:
        after = patched(text, task).files
    except PatchError:
        return None
    changed = change(dict(after))
    return None if changed is None or changed == after else make_patch(task.metadata["files"], changed)


def _package_init(files: dict[str, str], task: Task) -> str | None:
    """An ``__init__.py`` of the source package that a patch may change, None when none."""
    from .layout import outside_allowed

    inits = sorted(p for p in files if p.endswith("__init__.py") and "/" in p and not outside_allowed([p], task))
    return inits[0] if inits else None


def _append_to_init(tail: Callable[[Task], str]) -> Callable[..., str | None]:
    def operator(text: str, rng: random.Random, task: Task | None = None) -> str | None:
        def change(files: dict[str, str]) -> dict[str, str] | None:
            assert task is not None
            init = _package_init(files, task)
            if init is None or tail(task) in files[init]:
                return None
            return {**files, init: files[init] + tail(task)}

        return _edit(text, task, change)

    return operator


def mutate_source(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    """One AST mutant of one source file the patch changes."""
    from ..code.generators.mutants import mutants

    def change(files: dict[str, str]) -> dict[str, str] | None:
        assert task is not None
        before = task.metadata["files"]
        sources = [p for p in sorted(files) if p.endswith(".py") and files[p] != before.get(p)]
        if not sources:
            return None
        path = rng.choice(sources)
        found = mutants(files[path], "")
        return {**files, path: rng.choice(found).source} if found else None

    return _edit(text, task, change)


def revert_one_file(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    """One file the patch changes put back as the task gave it (a partial fix)."""

    def change(files: dict[str, str]) -> dict[str, str] | None:
        assert task is not None
        before = task.metadata["files"]
        changed = [p for p in sorted(set(files) | set(before)) if files.get(p) != before.get(p)]
        if len(changed) < 2:
            return None
        path = rng.choice(changed)
        reverted = {k: v for k, v in files.items() if k != path}
        if path in before:
            reverted[path] = before[path]
        return reverted

    return _edit(text, task, change)


def add_passing_conftest(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    return _edit(
        text, task, lambda files: None if "conftest.py" in files else {**files, "conftest.py": PASSING_CONFTEST}
    )


OPERATORS = {
    "mutate_source": mutate_source,
    "revert_one_file": revert_one_file,
    "exit_at_import": _append_to_init(lambda task: EXIT_AT_IMPORT),
    "print_passed": _append_to_init(lambda task: printed_passes(node_ids(task, "fail_to_pass"))),
    "add_passing_conftest": add_passing_conftest,
}


def lazy_policies(task: Task) -> dict[str, list[str]]:
    """Answer-free patches: none at all, prose without a diff, only a conftest.py that passes."""
    return {
        "empty_patch": [""],
        "no_diff": ["I could not find the bug."],
        "conftest_only": [
            make_patch(task.metadata["files"], {**task.metadata["files"], "conftest.py": PASSING_CONFTEST})
        ],
    }
