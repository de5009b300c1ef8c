"""What a domain provides to the engine. A new domain implements this and registers itself
under the ``verifier_audit.domains`` entry point; the engine never imports a domain by name.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Iterable, Optional, Protocol

from ..models import Candidate, Label, Severity, Task


@dataclass(frozen=True)
class OracleLabel:
    """The oracle's judgement of one completion. ``label`` is None when it cannot tell."""

    label: Optional[Label]
    reason: str = ""


@dataclass(frozen=True)
class CategoryInfo:
    name: str
    origin: str
    severity: Severity
    description: str
    reference: str = ""  # public source for catalog entries


class Domain(Protocol):
    name: str
    #: name -> verifier spec ("package.module:function") of the built-in reference verifiers,
    #: weakest first; the no-argument demo run audits all of them side by side.
    reference_verifiers: dict[str, str]
    #: format name -> loader spec ("package.module:function") of the suite file formats the
    #: domain reads (``--format gsm8k``); a loader takes a ``suite_files.SuiteFile`` and
    #: returns its tasks. The suite reader asks the registry (``domains.suite_formats``).
    suite_formats: dict[str, str]
    #: dataset name -> (format, spec of a no-argument function returning the file's path):
    #: suites another package ships, loaded by name (``--suite humaneval``).
    suite_datasets: dict[str, tuple[str, str]]

    def check_task(self, task: Task) -> Optional[str]:
        """Why this task's reference is unusable (unparseable gold), or None when it is fine."""

    # Optional: ``check_input(task) -> Optional[str]``, why the suite reader refuses the task
    # as input -- a bound of the domain's own on what its fields hold, past the row's
    # (``input_limits``) -- or None. ``suite_files.tasks_from_rows`` raises it as an
    # InputError naming the file and the line (exit 2), where ``check_task``'s problems drop
    # a task with a count in the report. The tool domain bounds its calls' arguments.

    def generate(self, tasks: list[Task], seed: int) -> Iterable[Candidate]:
        """Candidates with their intended labels; deterministic for (tasks, seed).

        The engine confirms every label with ``label`` and drops those the oracle disagrees
        with (equivalent mutants, non-equivalent rewrites), counting them in the report."""

    def label(self, text: str, task: Task) -> OracleLabel:
        """The oracle. Runs inside a worker process with a hard time limit."""

    def categories(self) -> list[CategoryInfo]:
        """Every category the generators and catalogs can produce, for `verifier-audit catalog`."""


class DomainPackage:
    """What the built-in domains share: ``generate``, ``categories`` and ``label`` are calls
    into the domain package's own ``generators`` and ``oracle`` modules, imported on first
    use so that loading one domain does not import another's dependencies (sympy, DuckDB,
    the sandbox). A subclass sets ``package`` and overrides what differs."""

    package: str  # "verifier_audit.domains.sql"
    suite_formats: dict[str, str] = {}
    suite_datasets: dict[str, tuple[str, str]] = {}
    #: format name -> how its rows look (``FormatSign``), for the suggestion of ``--format``
    suite_signs: dict[str, FormatSign] = {}

    def _part(self, module: str, name: str):
        return getattr(importlib.import_module(f"{self.package}.{module}"), name)

    def generate(self, tasks: list[Task], seed: int) -> Iterable[Candidate]:
        return self._part("generators", "generate_all")(tasks, seed)

    def categories(self) -> list[CategoryInfo]:
        return self._part("generators", "categories")()

    def label(self, text: str, task: Task) -> OracleLabel:
        return self._part("oracle", "label_completion")(text, task)

    # Answer formats (domains/formats.py), from the package's ``formats`` module when it has one.
    def answer_formats(self) -> list:
        if importlib.util.find_spec(f"{self.package}.formats") is None:
            return []
        return self._part("formats", "FORMATS")

    def reference_completion(self, task: Task, rng) -> str:
        return self._part("formats", "reference_completion")(task, rng)

    def format_of(self, text: str) -> Optional[str]:
        return self._part("formats", "format_of")(text)

    # The final answer of a completion, from the package's ``extract`` module when it has an
    # ``answer_span``: what a report clips an example around (models.Example.answer).
    def answer_span(self, text: str) -> str:
        """The part of ``text`` this domain reads as its final answer; "" when it cannot say."""
        if importlib.util.find_spec(f"{self.package}.extract") is None:
            return ""
        span = getattr(importlib.import_module(f"{self.package}.extract"), "answer_span", None)
        return (span(text) or "") if span is not None else ""

    # Slices of a task (engine/slices.py), from the package's ``slices`` module when it has one.
    def task_slices(self, task: Task) -> list[str]:
        if importlib.util.find_spec(f"{self.package}.slices") is None:
            return []
        return self._part("slices", "task_slices")(task)


def verifier_specs(package: str, *names: str) -> dict[str, str]:
    """name -> spec of the functions ``names`` in ``package.verifiers``, in the order given."""
    return {name: f"{package}.verifiers:{name}" for name in names}


@dataclass(frozen=True)
class FormatSign:
    """How a row of a suite format looks, so that a file of it read without ``--format``
    gets the suggestion (suites.py): the fields every row has and, optionally, a pattern
    (``re.search``) its ``field``'s text matches -- also the text of a reference mapped
    from that field with ``--field``, when it is ``what`` (a worked solution), not the gold
    the format ``reads`` out of it."""

    fields: tuple[str, ...]
    field: str = ""
    pattern: str = ""
    what: str = ""  # "worked solutions ending in '#### n'"
    reads: str = ""  # "which reads the number after ####"


def suite_formats(package: str, **loaders: str) -> dict[str, str]:
    """format name -> spec of the loader functions ``loaders`` in ``package.loaders``, in the
    order given: ``suite_formats(__name__, gsm8k="gsm8k_suite")``."""
    return {fmt: f"{package}.loaders:{name}" for fmt, name in loaders.items()}


class Resources(Protocol):
    """Optional hooks for domains whose tasks need resources (sql: DuckDB fixtures).

    The engine calls them when a domain defines them:

    * ``prepare_tasks(tasks, seed, cache_dir) -> list[Task]`` once, in the parent, before
      generation: materialise fixtures, distil per-task databases (may use the engine's pool).
      The returned tasks are what generators, the oracle and verifiers see.
    * ``verifier_view(task, workdir) -> Task`` in a worker, before a verifier call: the
      task as the verifier under audit receives it (sql: ``database`` = a private copy of
      the fixture inside ``workdir``).
    * ``after_call(task, view) -> list[str]`` in a worker, after every verifier call,
      whatever it returned: security findings as ``"kind:detail"`` strings
      (``modified_fixture:...``, ``read_outside:...``), and what it could not observe as
      ``unobserved:...`` (not findings: ``report.checks.unobserved``, which the checklist
      reads as unknown); it also restores what the call changed, so the next call starts
      clean.
    * ``isolate_verifier_calls(score) -> sandbox`` in a worker, once: for domains whose
      verifiers execute model output (code). Returns a started object whose
      ``call(index, timeout=, memory_mb=)`` runs ``score(index)`` isolated and returns a
      result with ``ok``, ``value``, ``kind``, ``error``. Verifier functions with the attribute
      ``runs_candidates_sandboxed`` are called directly.

    And optional attributes: ``default_timeout`` (seconds per verifier call when the user
    gives none) and ``survival_verifier`` (the reference verifier whose mutant survival the
    demo run prints per task).
    """
