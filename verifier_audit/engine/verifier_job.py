"""The job that calls the verifier under audit in a worker: one call per candidate, in the
task view the domain gives it, inside the sandbox where the domain isolates calls.

It holds what the verifier may see -- each candidate's text and task, the task views --
and nothing else: never labels, categories or origins (the parent alone joins verdicts with
labels). Given as a spec string, the verifier runs in a clean worker (``pool.run(...,
clean=True)``) that never had the audit's memory, so there is nothing to find there either.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .. import canary
from ..domains.base import Domain
from ..loading import DISGUISED, VerifierSpec, make_caller, read_score
from ..models import Candidate, Task
from . import neutral
from .lingering import Leftovers
from .persistence import PanelWatch


def source_dirs(spec: str) -> list[str]:
    """The directory of the verifier's own file, when ``spec`` names one (``path/file.py:fn``):
    what its worker must read, and so have made traversable, once it is an unprivileged uid."""
    target = spec.rpartition(":")[0]
    return [os.path.dirname(os.path.abspath(target))] if target.endswith(".py") else []


class IsolatedCallError(Exception):
    """A verifier call that failed inside the sandbox; reported as the verifier's own error."""

    def __init__(self, kind: str, error: str):
        super().__init__(f"{kind}: {error}")
        if kind == "exception":
            self.verdict_error = error  # "OSError: [Errno 30] Read-only file system: ..."
        elif kind == "timeout":
            self.verdict_error = f"timeout ({error}, isolated call)"
        else:
            self.verdict_error = f"{'crash' if kind != 'memory' else 'MemoryError'}: {error} (isolated call)"


class VerifierJob:
    def __init__(
        self,
        spec: VerifierSpec,
        candidates: list[Candidate],
        tasks: dict[str, Task],
        domain: Domain,
        timeout: float = 10.0,
        memory_mb: int | None = None,
    ):
        self.spec, self.tasks, self.domain = spec, tasks, domain
        # (task id, text) per candidate: what the verifier is shown, and no more.
        self.items: list[tuple[str, str]] = [(c.task_id, c.text) for c in candidates]
        self.timeout, self.memory_mb = timeout, memory_mb
        self.call: Callable | None = None
        self.views: dict[str, Task] = {}  # per worker: the task as the verifier sees it
        self.sandbox = None
        self.escapes: list[str] = []  # what the last isolated call's candidate got past the verifier
        self.disguised: list[str] = []  # score_disguised findings of the last call's scores (scores.read_score)
        self.unseen: neutral.Unseen | None = None  # verifier_audit's modules, out of sys.modules
        # The persistence probe (engine/persistence.py; set by the audit: which calls, which
        # panel) and the watch for work a call leaves running (engine/lingering.py).
        self.panel = PanelWatch(frozenset(), {})
        self.leftovers = Leftovers()

    @property
    def clean(self) -> bool:
        """Whether it can run in a clean worker: the verifier is named by a spec string (a
        function object given through the Python API lives in the caller's memory)."""
        return self.spec.function is None

    @property
    def bounded(self) -> bool:
        """Whether its calls are requests to a server (a reward server, an LLM judge): then
        ``--workers`` is the load it takes, and the pool runs no more calls than that at once
        (pool.Lane.bounded)."""
        return bool(self.spec.remote)

    def isolation_level(self, requested: str | None) -> str:
        """The level its workers run at: ``requested`` (or the default), except that a
        remote reward (a reward server, an LLM judge) keeps the host's network -- the code
        under audit runs on the other side of the socket, and what runs in the worker is
        our own HTTP client -- so it gets the ``process`` level without a network namespace.
        A job whose setup makes namespaces (code) is locked down in a user namespace of its
        own: where none can be made, the default is the ``process`` level (asked for
        explicitly, ``namespaces`` fails closed in the worker)."""
        from ..isolation import resolve_level, user_namespaces_available

        level = resolve_level(requested)
        if level == "namespaces" and requested is None and self.privileged_setup and not user_namespaces_available():
            return "process"
        return "process" if self.spec.remote and level == "namespaces" else level

    @property
    def env_names(self) -> tuple[str, ...]:
        """The variables its workers get beyond the environment's allow-list: its workers run
        the verifier, so they get no more (isolation/_limits.py, environment.py)."""
        return self.spec.env_names

    @property
    def privileged_setup(self) -> bool:
        """Whether setup needs the power to make namespaces: a domain that isolates each
        call in a sandbox of its own (code) starts that sandbox in setup, and replaces its
        zygotes later; at the namespaces level such a worker is locked down as the root of
        a user namespace of its own, an unprivileged uid on the host, instead of dropping
        every capability (isolation/_lockdown.py, Lockdown.enter_user_namespace)."""
        return self.domain.sandboxes_calls

    def readable_paths(self) -> list[str]:
        """What the verifier must be able to read once its worker runs as an unprivileged
        uid (isolation/_lockdown.py): its own file's directory, and the directory of every file
        its tasks name (a task's database, the staged SQLite files of a Spider suite)."""
        paths = set(source_dirs(self.spec.spec) if self.spec.function is None else [])
        for task in self.tasks.values():
            values = [task.database, *task.metadata.values()]
            for value in values:
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, str) and os.path.isabs(item) and os.path.exists(item):
                        paths.add(os.path.dirname(item) if os.path.isfile(item) else item)
        return sorted(paths)

    @property
    def hides_the_audit(self) -> bool:
        """Whether its worker hides the audit from the verifier (engine/neutral.py): a
        verifier named by a spec string, not verifier_audit's own reference verifiers (they
        import the package; nothing to hide from our own code), not in a domain whose calls
        run in a sandbox of its own (the code sandbox's zygotes load the package's modules by
        name after setup)."""
        return (
            self.clean
            and not self.spec.remote
            and not neutral.ours(self.spec.spec.partition(":")[0])
            and not self.domain.sandboxes_calls
        )

    def canary_tokens(self, index: int) -> set[str]:
        """The canary tokens in the text of call ``index``: a marker the witness sees is
        credited to the candidate whose token it names (isolation/_witness.py)."""
        return canary.tokens_in(self.items[index][1]) if 0 <= index < len(self.items) else set()

    def canary_modules(self) -> set[str]:
        """The tokens of every ``import`` canary the verifier is shown: a decoy module for
        each goes on its import path, where the witness sees it opened."""
        return {token for _, text in self.items for token in canary.module_tokens(text)}

    def setup(self) -> None:
        if self.hides_the_audit:  # before the verifier's import: its import-time code looks too
            self.unseen = neutral.hide_the_audit()
        fn = self.spec.load()
        self.call = make_caller(fn, self.spec)  # the style's module, imported by name: served, see neutral.py
        self._unseen_again()
        # Domains whose verifiers execute model output (code) have every call isolated: the
        # verifier runs in a sandboxed fork of this worker, so what it runs cannot touch the
        # host. Verifiers that already sandbox the candidate themselves opt out.
        if self.domain.sandboxes_calls and not getattr(fn, "runs_candidates_sandboxed", False):
            self.sandbox = self.domain.isolate_verifier_calls(self._isolated)

    def _view(self, task: Task) -> Task:
        if not self.domain.private_view:
            return task
        if task.id not in self.views:
            self.views[task.id] = self.domain.verifier_view(task, os.getcwd())
        return self.views[task.id]

    def _unseen_again(self) -> None:
        if self.unseen is not None:
            self.unseen.again()

    def _score(self, index: int) -> float:
        """The score training would read (the value a float subclass stores, not what its
        ``__float__`` says), a plain float; what reading it found is kept for ``after``."""
        if self.call is None:
            raise RuntimeError("VerifierJob: setup() loads the verifier before the first call")
        task_id, text = self.items[index]
        view = self._view(self.tasks[task_id])
        self._unseen_again()  # what building the view imported by name is out of sight again
        score = read_score(self.call(text, view))
        self.disguised += [f"{DISGUISED}:{d}" for d in score.disguises]
        return score.value

    def _take_requests(self) -> list[str]:
        """The requests a remote style's caller sent since the last look (``request_log``,
        frameworks/_client.py): one ``remote:{...}`` entry, which rides with the call's
        findings to the parent, where the report counts it (``Report.remote``), never as a
        finding. Nothing for a local verifier."""
        log = getattr(self.call, "request_log", None) if self.spec.remote else None
        entry = log.take() if log is not None else None
        return [entry] if entry else []

    def _isolated(self, index: int) -> list:
        """``_score`` in the sandbox's fork, whose memory goes with it: the score and what
        reading it found, as the builtin data the sandbox hands back."""
        self.disguised = []
        score = self._score(index)
        return [score, list(self.disguised) + self._take_requests()]

    @property
    def watches_state(self) -> bool:
        """Whether its worker looks for what a call leaves behind in it (state, work): not
        where each call runs in a sandboxed fork that goes with it (code), nor for a remote
        verifier, whose process is the server's."""
        return self.sandbox is None and not self.spec.remote

    def _panel_score(self, index: int) -> float:
        """A panel answer's score (engine/persistence.py), leaving nothing of it to the call
        it follows: what reading it found is the panel's, not the call's. A panel answer that
        kills the worker costs the probed call a crash verdict; that call is then scored
        again without the panel (engine/audit.py, ``verdicts_of_many``)."""
        kept = self.disguised
        try:
            return self._score(index)
        finally:
            self.disguised = kept

    def __call__(self, index: int) -> float:
        self.disguised = []
        self._take_requests()  # the count starts here: what a probe sent before is not this call's
        if self.watches_state:
            if index < len(self.items):  # a probe's own items (engine/probes.py) are none of the panel's
                self.panel.before(index, self.items[index][0], self._panel_score)
            self.leftovers.before()
        if self.sandbox is None:
            return self._score(index)
        # The sandbox's clock stops first, so a hang is reported as the verifier's timeout.
        result = self.sandbox.call(index, timeout=max(0.5, self.timeout - 1.0), memory_mb=self.memory_mb or 4096)
        # Our sandbox's walls stopped it, so the verifier's own guard let it through.
        self.escapes = [f"guard_escape:{e}" for e in result.escapes]
        if not result.ok:
            raise IsolatedCallError(result.kind, result.error or "")
        value, disguised = result.value
        self.disguised = [str(d) for d in disguised]
        return value

    def after(self, index: int) -> list[str]:
        found, self.escapes, self.disguised = self.escapes + self.disguised + self._take_requests(), [], []
        if self.watches_state:
            found += self.leftovers.after()  # first: before the panel's calls start anything
        task = self.tasks[self.items[index][0]]
        if self.domain.guards_fixtures and task.id in self.views:
            found += self.domain.after_call(task, self.views[task.id])  # the fixture restored first
        if self.watches_state:
            found += self.panel.after(index, task.id, self._panel_score)
        return found
