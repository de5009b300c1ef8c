"""Running a repository's own pytest on a patched snapshot, in the code domain's sandbox.

Each run is one fork of a warm zygote (``Sandbox.run_pytest``; the zygote is a fresh
``python -I`` that imported pytest and its built-in plugins once, never a module of the
repository, which the patch changes): the run writes the repository into its private working
directory, runs ``pytest -p no:cacheprovider`` there with the environment's plugins not
autoloaded, and our plugin sends each test phase's outcome to the zygote on the run's
result pipe -- a descriptor outside the repository, never a file the repository's code
could write by path, never the log. A test whose outcome does not arrive has not passed:
an ``os._exit(0)`` at import or in a ``conftest.py`` passes nothing. The walls, clocks and
memory bound are the sandbox's (``isolation/``).

Two callers, one runner: the oracle runs the repository with its test side restored and
the hidden tests added, and reads the outcomes; a reference verifier under audit runs the
repository as the patch left it (its tests, its ``conftest.py``, its ``pytest.ini``) and
reads what a harness of its kind reads -- the exit status, the log, a JUnit file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# The zygote's extra warm modules: pytest, and the built-in plugins ``pytest.main`` loads
# (``_pytest.config.default_plugins``; one missing from this pytest is skipped).
WARM = (
    "pytest",
    "_pytest.mark",
    "_pytest.main",
    "_pytest.runner",
    "_pytest.fixtures",
    "_pytest.helpconfig",
    "_pytest.python",
    "_pytest.terminal",
    "_pytest.debugging",
    "_pytest.unittest",
    "_pytest.capture",
    "_pytest.skipping",
    "_pytest.legacypath",
    "_pytest.tmpdir",
    "_pytest.monkeypatch",
    "_pytest.recwarn",
    "_pytest.assertion",
    "_pytest.junitxml",
    "_pytest.doctest",
    "_pytest.setuponly",
    "_pytest.setupplan",
    "_pytest.stepwise",
    "_pytest.warnings",
    "_pytest.logging",
    "_pytest.reports",
    "_pytest.faulthandler",
    "_pytest.pastebin",
    "_pytest.threadexception",
    "_pytest.unraisableexception",
    "_pytest._argcomplete",
    # what those plugins import while a session is configured (the debugging plugin's pdb)
    # or starts (the capture plugin's readline)
    "faulthandler",
    "pdb",
    "readline",
)
# One run's limits: a small repository's suite takes well under a second of CPU time;
# the wall clock is the backstop for a test that sleeps or blocks. Both end a run inside the
# oracle's own clock (``--oracle-timeout``, 10 s by default), so a patch that loops forever is
# labelled wrong ("the test session did not end"), not dropped as an oracle timeout: at 10 s
# of CPU time the two clocks raced, and one near-miss of the suite went either way.
CPU_LIMIT = 4.0
WALL_LIMIT = 8.0
MEMORY_MB = 512
# The outcome a test needs to count as passed (not skipped, xfailed or xpassed).
PASSED = "passed"
# The outcome of a test whose call phase never reported.
INCOMPLETE = "incomplete"


@dataclass(frozen=True)
class PytestRun:
    """What one pytest run did. ``outcomes``: node id -> its outcome as our plugin reported
    it (``failed`` when any phase failed, else the call's: ``passed``, ``skipped``,
    ``xfailed``, ``xpassed``), only for the tests whose reports arrived. ``finished``: the
    session ended and the plugin's last message came. ``exit_status``: the run's status as a
    shell sees ``python -m pytest`` end (negative: a signal; what an exit-code grader reads).
    ``log``: its stdout and stderr. ``files``: the files asked back, as the run left them.
    ``tampered``: how the repository's code interfered with the harness (a line on the result
    pipe that is not our plugin's, pytest's code replaced during the run), "" for none: then
    no outcome counts (``outcomes`` is empty), while the exit status, the log and the files
    are what the run left, as a harness of its own would read them."""

    outcomes: dict[str, str]
    finished: bool
    exit_status: int | None
    log: str
    files: dict[str, str] = field(default_factory=dict)
    error: str = ""
    tampered: str = ""

    def passed(self, node: str) -> bool:
        return self.outcomes.get(node) == PASSED

    def under(self, path: str) -> dict[str, str]:
        """The outcomes of the tests in the file ``path``."""
        return {node: outcome for node, outcome in self.outcomes.items() if node.split("::", 1)[0] == path}


def fold_outcomes(reports: list[tuple[str, str, str]]) -> dict[str, str]:
    """node id -> one outcome from its phases' reports (setup, call, teardown; collect)."""
    phases: dict[str, dict[str, str]] = {}
    for node, when, outcome in reports:
        phases.setdefault(node, {})[when] = outcome
    folded = {}
    for node, seen in phases.items():
        if "failed" in seen.values():
            folded[node] = "failed"
        elif "call" in seen:
            folded[node] = seen["call"]
        elif seen.get("setup", "passed") != "passed":  # skipped (or xfailed) before its call
            folded[node] = seen["setup"]
        else:  # no call reported: the run ended, or a hook swallowed it; never a pass
            folded[node] = INCOMPLETE
    return folded


def run_pytest(
    files: Mapping[str, str], args: list[str], *, read_back: tuple[str, ...] = (), trusted: tuple[str, ...] = ()
) -> PytestRun:
    """Run ``pytest ARGS`` (node ids, flags) in a private copy of the repository ``files``,
    forked from this process's warm pytest zygote. ``trusted``: the paths of ``files`` that
    are the task's own (its tests), compiled once in the zygote for every run after."""
    from ..code.cases import process_sandbox

    result = process_sandbox(WARM).run_pytest(
        dict(files),
        list(args),
        read_back=read_back,
        trusted=trusted,
        timeout=WALL_LIMIT,
        memory_mb=MEMORY_MB,
        cpu_timeout=CPU_LIMIT,
    )
    done = result.value if result.ok and isinstance(result.value, dict) else None
    return PytestRun(
        outcomes=fold_outcomes(result.tests),
        finished=done is not None,
        exit_status=result.exit_status,
        log=result.stdout,
        files=dict(done["files"]) if done is not None else {},
        error="" if done is not None else f"{result.kind}: {result.error}",
        tampered=result.tampered,
    )
