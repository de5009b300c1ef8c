"""The domain contract, whole: what a domain provides to the engine, the suite reader, the
report and the front ends (``Domain``: every hook with a default and a docstring, and the
capability flags), what the built-in domains share (``DomainPackage``), and the shapes
they hand back (``OracleLabel``, ``CategoryInfo``, ``FormatSign``, ``Suite``,
``SuiteScheme``). A new domain subclasses ``Domain`` and registers itself under the
``verifier_audit.domains`` entry point; the rest of the package calls its hooks plainly,
never probes for one, and never imports a domain by name.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ..models import Candidate, Label, Severity, Task

#: How an oracle's reason starts when a completion is right on the task's contract but
#: differs from the reference outside it (code: an input the docstring rules out). The
#: audit drops such a near miss as ``outside_contract``, apart from the equivalent ones.
OUTSIDE_CONTRACT = "outside the contract"


@dataclass(frozen=True)
class OracleLabel:
    """The oracle's judgement of one completion. ``label`` is None when it cannot tell."""

    label: Label | None
    reason: str = ""


@dataclass(frozen=True)
class CategoryInfo:
    name: str
    origin: str
    severity: Severity
    description: str
    reference: str = ""  # public source for catalog entries


#: privilege levels of a tool call, lowest first (``CallAuthority``; the tool domain's policy)
PRIVILEGE_LEVELS = ("read", "write", "delete", "admin")
#: ``CallAuthority.highest`` of a completion that makes no call
NO_CALL = "none"


class UnreadableCalls(ValueError):
    """A completion whose calls cannot be read (``Domain.call_authority``'s reader raises
    it, or a subclass, with the reason): samples/authority.py counts the sample as
    unreadable with that reason, never drops it."""


@dataclass(frozen=True)
class CallAuthority:
    """The authority one completion's tool calls use under its task's policy
    (``Domain.call_authority``), as ``score`` and ``compare`` report it."""

    tools: tuple[tuple[str, str], ...] = ()  # (tool, level in PRIVILEGE_LEVELS) per call, in order
    highest: str = NO_CALL  # the highest level of its calls; NO_CALL for none
    above_policy: bool = False  # ``highest`` is above the task's maximum privilege
    violations: tuple[str, ...] = ()  # why each call is outside the policy, in words


class Domain:
    """The whole contract between a domain and the rest of the package, in one place (as
    pytest's ``hookspec.py``): every hook the engine, the suite reader, the report and the
    front ends call on a domain is a method or attribute here, with a default, so that the
    callers make plain calls and never probe (``getattr``/``hasattr``) for an optional one.
    A domain subclasses this (the built-in ones through ``DomainPackage``) and overrides
    only what it has; a plugin domain registered under the ``verifier_audit.domains`` entry
    point gets every default below.

    A useful domain overrides at least ``name``, ``generate``, ``label`` and
    ``categories``; without them it audits nothing (no candidates, every label undecided).
    The capability flags say ahead of a call what a hook will do, for the code that must
    decide before calling it (a worker's walls are chosen before its setup) and for the
    checklist, which reads them: keep each flag true exactly when its hooks are overridden.
    """

    #: the domain's name, as tasks name it (``Task.domain``) and categories start with it
    name: str = ""
    #: name -> verifier spec ("package.module:function") of the built-in reference verifiers,
    #: weakest first; the no-argument demo run audits all of them side by side.
    reference_verifiers: ClassVar[dict[str, str]] = {}
    #: format name -> loader spec ("package.module:function") of the suite file formats the
    #: domain reads (``--format gsm8k``); a loader takes a ``suite_files.SuiteFile`` and
    #: returns its tasks. The suite reader asks the registry (``domains.suite_formats``).
    suite_formats: ClassVar[dict[str, str]] = {}
    #: dataset name -> (format, spec of a no-argument function returning the file's path):
    #: suites another package ships, loaded by name (``--suite humaneval``).
    suite_datasets: ClassVar[dict[str, tuple[str, str]]] = {}
    #: format name -> how its rows look (``FormatSign``), for the suggestion of ``--format``
    suite_signs: ClassVar[dict[str, FormatSign]] = {}
    #: suites named by a prefix rather than a file (``--suite bfcl:simple``), as
    #: ``SuiteScheme``s: the suite reader asks the registry which domain owns a prefix.
    suite_schemes: tuple[SuiteScheme, ...] = ()
    #: seconds per verifier call when the user gives none (code: its catalog hangs on purpose)
    default_timeout: float = 10.0
    #: the reference verifier whose mutant survival the demo run prints per task (code:
    #: ``visible_tests``); None: survival is printed only when asked for (``--by-task``)
    survival_verifier: str | None = None

    # Capability flags.
    #: ``prepare_tasks`` does work (fixtures, test cases): a task must be prepared before
    #: its candidates can be made, which is too slow to do for a suggestion (strategies.py)
    prepares_tasks: bool = False
    #: ``isolate_verifier_calls`` runs every verifier call in a sandbox of the domain's own,
    #: because the verifiers execute model output (code). The worker is set up with the
    #: power to start it, and the checklist reads escapes as the sandbox's to see.
    sandboxes_calls: bool = False
    #: ``verifier_view`` hands the verifier a private copy of the task's resources made in
    #: the worker's directory (sql), which a process outside the audit's workers cannot have
    #: (engine/sensing.py does not cross-check such a domain)
    private_view: bool = False
    #: ``after_call`` checks the resources a call was given and restores them (sql: the
    #: fixture database): the checklist's fixture item reads its findings
    guards_fixtures: bool = False
    #: a completion is a list of tool calls under the task's policy (tool): ``call_authority``
    #: reads them, and the checklist lists the runtime_authority item, read from the
    #: policy's samples (samples/authority.py)
    calls_tools: bool = False
    #: a task names the paths a completion may change (repo: ``allowed_paths``):
    #: ``outside_paths`` reads what a completion writes outside them, the report counts
    #: those per category and whether the verifier paid them (``Report.authority``), and
    #: the checklist lists the paths_authority item
    limits_paths: bool = False

    def warm_modules(self) -> list[str]:
        """The modules the clean workers' server imports once, before it forks the workers
        that call verifiers (engine/clean_server.py, engine/clean_preload.py), so that a
        fresh worker starts warm; trusted code only, never the verifier under audit. A
        module that fails to import only makes the workers slower. Default: the modules
        of the domain's ``reference_verifiers`` (and so what they import)."""
        return list(dict.fromkeys(spec.partition(":")[0] for spec in self.reference_verifiers.values()))

    # -- tasks and the oracle
    def check_task(self, task: Task) -> str | None:
        """Why this task's reference is unusable (unparseable gold), or None when it is fine.
        Such a task is dropped with a count in the report. Default: every task is usable."""
        return None

    def check_input(self, task: Task) -> str | None:
        """Why the suite reader refuses the task as input -- a bound of the domain's own on
        what its fields hold, past the row's (``input_limits``) -- or None.
        ``suite_files.tasks_from_rows`` raises it as an InputError naming the file and the
        line (exit 2), where ``check_task``'s problems drop a task. The tool domain bounds
        its calls' arguments. Default: no bound of its own."""
        return None

    def generate(self, tasks: list[Task], seed: int) -> Iterable[Candidate]:
        """Candidates with their intended labels; deterministic for (tasks, seed).

        The engine confirms every label with ``label`` and drops those the oracle disagrees
        with (equivalent mutants, non-equivalent rewrites), counting them in the report.
        Default: none (a domain that generates nothing audits nothing)."""
        return []

    def label(self, text: str, task: Task) -> OracleLabel:
        """The oracle. Runs inside a worker process with a hard time limit. Default: it
        cannot tell (``label`` None), so every candidate is dropped as undecided."""
        return OracleLabel(None, f"the {self.name or 'unnamed'} domain has no oracle")

    def categories(self) -> list[CategoryInfo]:
        """Every category the generators and catalogs can produce, for `verifier-audit catalog`
        and the checklist. Default: none."""
        return []

    def call_authority(self, task: Task) -> Callable[[str], CallAuthority]:
        """When ``calls_tools`` is set: the reader of the authority a completion of ``task``
        uses (its tools, their privilege, the calls outside the task's policy), the policy
        read once; ``score`` and ``compare`` call it on every sample of the task
        (samples/authority.py), in the parent, on model output, so it must never evaluate
        the text. It raises ``UnreadableCalls`` for a completion whose calls it cannot read.
        Set ``calls_tools`` when overriding. Default: a reader that finds no call."""
        return lambda text: CallAuthority()

    def outside_paths(self, text: str, task: Task) -> list[str]:
        """When ``limits_paths`` is set: the paths the completion ``text`` changes outside
        what ``task`` allows -- authority the task never gave, wrong whatever its tests say
        -- in the completion's order; [] when it writes none (or cannot be read: it then
        changes nothing). Called by the report's build (report/build.py ``AuthorityTally``),
        in the parent, on every candidate of a report, so it must never run the text and
        stay cheap (no extra verifier or oracle run). Set ``limits_paths`` when overriding.
        Default: none."""
        return []

    # -- resources (sql: DuckDB fixtures; code: test cases and the sandbox)
    def prepare_tasks(self, tasks: list[Task], seed: int, cache_dir: Path) -> list[Task]:
        """Once, in the parent, before generation: materialise fixtures, distil per-task
        databases (may use the engine's pool). The returned tasks are what generators, the
        oracle and verifiers see. Set ``prepares_tasks`` when overriding. Default: the
        tasks as they are."""
        return list(tasks)

    def verifier_view(self, task: Task, workdir: str) -> Task:
        """In a worker, before a verifier call: the task as the verifier under audit
        receives it (sql: ``database`` = a private copy of the fixture inside ``workdir``).
        Set ``private_view`` when overriding. Default: the task itself."""
        return task

    def after_call(self, task: Task, view: Task) -> list[str]:
        """In a worker, after every verifier call, whatever it returned: security findings
        as ``"kind:detail"`` strings (``modified_fixture:...``, ``read_outside:...``), and
        what it could not observe as ``unobserved:...`` (not findings:
        ``report.checks.unobserved``, which the checklist reads as unknown); it also
        restores what the call changed, so the next call starts clean. ``view`` is what
        ``verifier_view`` made. Set ``guards_fixtures`` when overriding. Default: nothing."""
        return []

    def isolate_verifier_calls(self, score: Callable[[int], object]):
        """In a worker, once, when ``sandboxes_calls`` is set: a started object whose
        ``call(index, timeout=, memory_mb=)`` runs ``score(index)`` isolated and returns a
        result with ``ok``, ``value`` (what ``score`` returned: builtin data, which the
        sandbox hands back), ``kind``, ``error``, ``escapes``. Verifier functions
        with the attribute ``runs_candidates_sandboxed`` are called directly. Default: None,
        the calls are not isolated beyond the worker's own walls."""

    # -- answer formats (domains/formats.py, engine/formats.py)
    def answer_formats(self) -> list:
        """The ``formats.AnswerFormat``s a completion can state its answer in: the
        canonical one (what the generators write) first, then the others in the order the
        audit prefers them. Default: none, and the format probe is skipped."""
        return []

    def reference_completion(self, task: Task, rng) -> str:
        """The task's reference written as a candidate in the canonical format: what the
        format probe re-renders and where the exploit search starts. Default: the
        reference as it is."""
        return task.reference

    def format_of(self, text: str) -> str | None:
        """The name of the answer format ``text`` is written in, or None (for counts, and to
        keep candidates already written in a format the verifier reads). Default: None."""
        return None

    def answer_span(self, text: str) -> str:
        """The part of ``text`` this domain reads as its final answer: what a report clips
        an example around (``models.Example.answer``); "" when it cannot say. Default: ""."""
        return ""

    def canonical_answer(self, text: str, task: Task) -> str | None:
        """The canonical form of a completion's answer, None when it has none: ``compare``
        counts distinct answers with it (samples/compare/facts.py), in a worker, on model
        output. Default: the text with its whitespace collapsed (two answers that differ
        in layout only are one)."""
        return " ".join(text.split()) or None

    # -- slices (engine/slices.py)
    def task_slices(self, task: Task) -> list[str]:
        """The task's ``"dimension:value"`` slices read from its reference (math: answer
        type and magnitude band; sql: query features); the first is its primary one. A
        suite's own ``metadata["slice"]`` wins over these. Default: none."""
        return []

    # -- the exploit search (engine/search/)
    def search_operators(self) -> dict[str, Callable]:
        """name -> edit operator ``(text, rng[, task]) -> text | None`` that the search
        chains on a start (engine/search/_beam.py). Default: none, and the search says that
        the domain was not searched."""
        return {}

    def lazy_policies(self, task: Task) -> dict[str, list[str]]:
        """name -> the completions an answer-free policy would write for ``task`` (an empty
        answer, the question repeated), scored by the search. Default: none."""
        return {}


class DomainPackage(Domain):
    """What the built-in domains share: ``generate``, ``categories`` and ``label`` are calls
    into the domain package's own ``generators`` and ``oracle`` modules, imported on first
    use so that loading one domain does not import another's dependencies (sympy, DuckDB,
    the sandbox); the answer formats, the answer span, the slices and the search come from
    its ``formats``, ``extract``, ``slices`` and ``search`` modules when it has them. A
    subclass sets ``package`` and overrides what differs."""

    package: str  # "verifier_audit.domains.sql"

    def _module(self, module: str):
        """The package's module ``module``, None when it has none."""
        name = f"{self.package}.{module}"
        return importlib.import_module(name) if importlib.util.find_spec(name) is not None else None

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

    def format_of(self, text: str) -> str | None:
        return self._part("formats", "format_of")(text)

    # The final answer of a completion, from the package's ``extract`` module when it has an
    # ``answer_span``: what a report clips an example around (models.Example.answer).
    def answer_span(self, text: str) -> str:
        module = self._module("extract")
        span = getattr(module, "answer_span", None) if module is not None else None
        return (span(text) or "") if span is not None else ""

    # Slices of a task (engine/slices.py), from the package's ``slices`` module when it has one.
    def task_slices(self, task: Task) -> list[str]:
        if importlib.util.find_spec(f"{self.package}.slices") is None:
            return []
        return self._part("slices", "task_slices")(task)

    # The exploit search, from the package's ``search`` module (``OPERATORS``, ``lazy_policies``).
    def search_operators(self) -> dict[str, Callable]:
        module = self._module("search")
        return module.OPERATORS if module is not None else {}

    def lazy_policies(self, task: Task) -> dict[str, list[str]]:
        module = self._module("search")
        policies = getattr(module, "lazy_policies", None) if module is not None else None
        return policies(task) if policies is not None else {}


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


@dataclass
class Suite:
    """Tasks as read from one source: a file, a dataset another package ships, or a scheme
    (``SuiteScheme``). Made by the suite reader (suites.py) and by a scheme's loader."""

    name: str
    path: Path
    tasks: list[Task]
    content_hash: str  # of the file's bytes: part of every cache key and results fingerprint

    @property
    def domain(self) -> str:
        return self.tasks[0].domain if self.tasks else "math"


@dataclass(frozen=True)
class SuiteScheme:
    """A suite named by a prefix instead of a file (``--suite bfcl:simple``). A domain
    declares the schemes it owns (``Domain.suite_schemes``: the tool domain's ``bfcl:``), a
    framework adapter its own in ``frameworks/_registry.py`` (``reasoning-gym:``,
    ``verifiers:``); the suite reader asks both and names none of them."""

    prefix: str  # "bfcl:"
    #: spec ("package.module:function") of the loader, imported when the scheme is used:
    #: ``load(spec, *, fields, fmt, domain) -> Suite`` with the whole ``--suite`` text
    loader: str
    #: what the list of known suites shows after the prefix ("CATEGORY"); "" leaves it out
    shown: str = ""
