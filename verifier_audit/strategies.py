"""Hypothesis strategies that draw candidates of known truth for one task.

Property-test your own verifier with the candidates the audit uses::

    from hypothesis import given
    from verifier_audit.strategies import equivalent, known_bad, near_miss, tasks

    task = tasks("math")[0]

    @given(near_miss(task))
    def test_rejects_near_misses(candidate):
        assert not my_verifier(candidate.text, task.reference)

Every strategy here works for every installed domain (math, sql, code, plugins): it asks
the task's domain (``task.domain``) to prepare the task, generate its candidates with the
domain's seeded generators and, unless ``confirmed=False``, confirm each label with the
domain's oracle. That work is done once per (task, seed) and cached in this process, so a
test with 100 examples generates and labels once; it happens when the test first runs, not
when the strategy is created (at import), as with Hypothesis's own strategies.

The draws are :class:`~verifier_audit.models.Candidate` objects (``text``, ``label``,
``category``, ``origin``, ``note``); their repr shortens long texts, so a falsifying
example with a 2 MB hostile output stays readable.

Problems are reported as :class:`StrategyError`, a Hypothesis ``InvalidArgument`` that
names the task and says what to do (a task of an unknown domain, a reference the domain
cannot use, a task with no candidate of the requested origin).

See docs/strategies.md.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from pydantic import ValidationError

from .domains import get_domain
from .domains.base import Domain
from .errors import InputError
from .models import Candidate, Task

__all__ = ["StrategyError", "candidates", "equivalent", "known_bad", "near_miss", "prepared_task", "tasks"]

ORIGINS = ("near_miss", "equivalent", "known_bad")
_DESCRIBED = {
    "near_miss": "near-miss (wrong answers derived from the reference)",
    "equivalent": "equivalent (right answers written differently)",
    "known_bad": "known-bad (catalog: hedges, hacks, hostile inputs)",
}

# Tasks whose candidates stay in memory; a math task holds about 2 MB of them (the catalog's
# hostile outputs), so the cache is bounded and the least recently used task goes first.
_CACHE_SIZE = 32
_REPR_TEXT = 120  # characters of a candidate's text that its repr shows


class StrategyError(InvalidArgument, InputError):
    """A strategy of this module cannot be built for the task it was given.

    An ``InvalidArgument`` (what Hypothesis raises for a bad strategy argument) and the
    package's ``InputError``; the message names the task and says what to change."""


# --------------------------------------------------------------------------- public API


def tasks(suite: str = "math", split: str | None = None, limit: int | None = None) -> list[Task]:
    """The tasks of a built-in suite (``"math"``, ``"sql"``, ``"code"``) or of a JSONL suite file.

    ``split`` keeps one split (``"train"``, ``"heldout"``, ``"shifted"``); ``limit`` keeps the
    first tasks. Cheap: it only reads the file, so it is fine at import time."""
    from .suites import load_suite, select

    try:
        return select(load_suite(suite), split=split, limit=limit)
    except InputError as exc:
        raise StrategyError(str(exc)) from None


def near_miss(task: Task | dict, *, confirmed: bool = True, seed: int = 0) -> st.SearchStrategy[Candidate]:
    """Wrong answers close to ``task``'s reference (label ``"incorrect"``).

    A near-miss is a mutation of the reference: a sign flip, an off-by-one, a dropped term
    (math); a missing ``DISTINCT`` or a shifted boundary (sql); an AST mutant (code). A
    verifier should reject every draw.

    ``confirmed=True`` (the default) keeps only candidates the domain's oracle finds wrong:
    a mutant that happens to be equivalent to the reference is never drawn. ``seed`` is the
    generation seed (the audit's ``--seed``), not Hypothesis's: it fixes which candidates
    exist; Hypothesis chooses among them.
    """
    return _strategy("near_miss", task, origins=("near_miss",), confirmed=confirmed, seed=seed)


def equivalent(task: Task | dict, *, confirmed: bool = True, seed: int = 0) -> st.SearchStrategy[Candidate]:
    """Right answers written differently from ``task``'s reference (label ``"correct"``).

    ``1/2`` as ``0.5`` or ``\\frac{2}{4}`` (math), a query rewritten with a join alias or a
    subquery (sql), a refactored function (code). A verifier should accept every draw.

    ``confirmed=True`` keeps only rewrites the oracle finds equivalent. ``seed``: see
    :func:`near_miss`.
    """
    return _strategy("equivalent", task, origins=("equivalent",), confirmed=confirmed, seed=seed)


def known_bad(
    task: Task | dict, *, confirmed: bool = True, seed: int = 0, probes: bool = False
) -> st.SearchStrategy[Candidate]:
    """Entries of the domain's catalog of known attacks, filled in for ``task`` (label
    ``"incorrect"``): hedges, last-number traps, prompt injection, reward hacks, hostile
    inputs (huge, deeply nested, NUL bytes) and canaries. A verifier should reject every draw.

    A few catalog entries are false-rejection probes: right answers in a form verifiers trip
    on (labelled ``"correct"``). They are left out unless ``probes=True``; then check
    ``candidate.label``. ``confirmed`` and ``seed``: see :func:`near_miss`.
    """
    labels = ("incorrect", "correct") if probes else ("incorrect",)
    return _strategy("known_bad", task, origins=("known_bad",), confirmed=confirmed, seed=seed, labels=labels)


def candidates(task: Task | dict, *, confirmed: bool = True, seed: int = 0) -> st.SearchStrategy[Candidate]:
    """Any candidate of ``task``: near-misses, equivalents and known-bad entries (probes
    included), so check ``candidate.label``::

        @given(candidates(task))
        def test_verdicts(candidate):
            assert my_verifier(candidate.text, task.reference) == (candidate.label == "correct")

    An origin the task has no candidate of is skipped; it is an error only when there is
    none at all. ``confirmed`` and ``seed``: see :func:`near_miss`.
    """
    return _strategy(
        "candidates", task, origins=ORIGINS, confirmed=confirmed, seed=seed, labels=("incorrect", "correct")
    )


def prepared_task(task: Task | dict, *, seed: int = 0) -> Task:
    """``task`` as a verifier under audit receives it: pass this one to your verifier when
    it needs the domain's fields.

    Domains whose tasks need resources fill them in (the domain's ``prepare_tasks`` and
    ``verifier_view`` hooks, as in an audit): sql sets ``database`` to a private, writable
    copy of the task's fixture (in a temporary folder of this process, one per fixture; the
    cached fixture itself is never handed out) and ``metadata["databases"]`` to the fuzzed
    databases the strong verifier reads; code adds the test cases to ``metadata``. A math
    task comes back as it is. The candidates are those of ``task`` either way."""
    entry = _entry(_as_task(task), seed)
    if not entry.domain.private_view:
        return entry.task
    if entry.view is None:
        entry.view = entry.domain.verifier_view(entry.task, _workdir())
    return entry.view


# ----------------------------------------------------------------------- construction


def _strategy(
    name: str,
    task: Task | dict,
    *,
    origins: tuple[str, ...],
    confirmed: bool,
    seed: int,
    labels: tuple[str, ...] = ("incorrect", "correct"),
) -> st.SearchStrategy[Candidate]:
    # Lazy, like Hypothesis's own strategies: nothing is generated (and no error raised)
    # until a test draws from it, so `@given(near_miss(task))` costs nothing at import.
    def build() -> st.SearchStrategy[Candidate]:
        if not isinstance(confirmed, bool):
            raise StrategyError(f"{name}(confirmed={confirmed!r}): expected True or False")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise StrategyError(f"{name}(seed={seed!r}): expected an int (the generation seed, e.g. 0)")
        the_task = _as_task(task, name)
        entry = _entry(the_task, seed)
        if confirmed:  # one oracle pass for every origin asked for
            entry.label(i for i, c in enumerate(entry.generated) if c.origin in origins)
        by_origin = {origin: [c for c in entry.pick(origin, confirmed) if c.label in labels] for origin in origins}
        branches = [_stratified(found) for found in by_origin.values() if found]
        if not branches:
            raise StrategyError(_nothing_to_draw(name, entry, origins, labels, confirmed))
        return branches[0] if len(branches) == 1 else st.one_of(branches)

    build.__name__ = f"{name}(task={_task_id(task)!r}, confirmed={confirmed!r}, seed={seed!r})"
    return st.deferred(build)


def _stratified(found: list[Candidate]) -> st.SearchStrategy[Candidate]:
    """A category, then a candidate of it.

    Why ``sampled_from`` over a list made once, and not ``integers()`` seeds fed to the
    generators: a seed is an opaque number, so shrinking it (towards 0) jumps to an
    unrelated candidate set instead of a simpler candidate, and every new seed costs a
    fresh generation and a fresh oracle pass (processes, databases, a sandbox). A fixed,
    confirmed list costs one of each per (task, seed); Hypothesis shrinks an index towards
    the front, and the front is where we put the simplest candidates (shortest text first),
    and Hypothesis knows the space is finite and stops when it has seen it all.

    Drawing the category first gives every category the same chance, so a hole in a
    category with one candidate is found as readily as one in a category with twenty.

    Why two integers and not ``sampled_from(categories).flatmap(...)``: Hypothesis ranks
    examples by their number of choices first, and a category of one candidate draws no
    second choice, so every failure shrank to the nearest one-candidate category, however
    late in the order. Two choices for every draw make the order (category, then
    simplicity) the one the shrinker sees; the index is clamped to the category's size, so
    a smaller index is never a less simple candidate.
    """
    by_category: dict[str, list[Candidate]] = {}
    for c in found:
        by_category.setdefault(c.category, []).append(c)
    groups = [sorted(group, key=lambda c: (len(c.text), c.id)) for _, group in sorted(by_category.items())]
    widest = max(len(group) for group in groups)
    return st.tuples(st.integers(0, len(groups) - 1), st.integers(0, widest - 1)).flatmap(_Pick(groups))


class _Pick:
    """The function ``flatmap`` applies: (category index, candidate index) to ``just`` a
    candidate. Not ``map``: Hypothesis reports a mapped value as the call that made it,
    ``_Pick(...)((9, 0))``, and a failure should show the candidate itself."""

    def __init__(self, groups: list[list[Candidate]]):
        self.groups = groups

    def __call__(self, drawn: tuple[int, int]) -> st.SearchStrategy[Candidate]:
        group = self.groups[drawn[0]]
        return st.just(group[min(drawn[1], len(group) - 1)])

    def __repr__(self) -> str:
        return "candidate_of_category"


def _task_id(task: Any) -> str:
    if isinstance(task, Task):
        return task.id
    if isinstance(task, dict):
        return str(task.get("id", "?"))
    return type(task).__name__


def _as_task(task: Task | dict, name: str = "prepared_task") -> Task:
    if isinstance(task, Task):
        return task
    if isinstance(task, dict):
        try:
            return Task.model_validate(task)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'task'}: {e['msg']}" for e in exc.errors())
            raise StrategyError(
                f"{name}(task=...): not a valid task ({problems}); a task needs id, domain, prompt and reference"
            ) from None
    raise StrategyError(
        f"{name}(task={task!r}): expected a verifier_audit.models.Task (or a dict of its "
        "fields), e.g. verifier_audit.strategies.tasks('math')[0]"
    )


# --------------------------------------------------------------- generation and oracle


@dataclass
class _Entry:
    """One task's candidates for one seed, and the oracle's verdict on those asked about."""

    domain: Domain
    task: Task  # as prepared by the domain
    generated: list[Candidate]
    oracle: dict[int, tuple[str | None, str]] = field(default_factory=dict)  # index -> (label, reason)
    picked: dict[tuple[str, bool], list[Candidate]] = field(default_factory=dict)
    view: Task | None = None  # what prepared_task returns, made on first request

    def pick(self, origin: str, confirmed: bool) -> list[Candidate]:
        key = (origin, confirmed)
        if key not in self.picked:
            indices = [i for i, c in enumerate(self.generated) if c.origin == origin]
            if confirmed:
                self.label(indices)
                indices = [i for i in indices if self.oracle[i][0] == self.generated[i].label]
            self.picked[key] = [self.generated[i] for i in indices]
        return self.picked[key]

    def label(self, indices: Iterable[int]) -> None:
        """The oracle on the candidates not asked about yet, through the engine's worker pool:
        each call in a worker process with a hard time limit, as the audit runs it (hostile
        candidates can hang a parser or a query; a code candidate runs in the sandbox)."""
        from .engine import pool
        from .engine.audit import AuditOptions

        todo = [i for i in indices if i not in self.oracle]
        if not todo:
            return
        options = AuditOptions()
        job = _OracleCalls(self.domain, self.task, self.generated)
        for out in pool.run(
            job, todo, workers=options.workers, timeout=options.oracle_timeout, memory_mb=options.memory_mb
        ):
            self.oracle[out.index] = out.value if out.ok else (None, f"oracle {out.error_kind}: {out.error}")


class _OracleCalls:
    """The pool job: ``domain.label`` on one candidate (inherited by the forked workers)."""

    def __init__(self, domain: Domain, task: Task, generated: list[Candidate]):
        self.domain, self.task, self.generated = domain, task, generated

    def setup(self) -> None:
        pass

    def __call__(self, index: int) -> tuple[str | None, str]:
        result = self.domain.label(self.generated[index].text, self.task)
        return result.label, result.reason


_cache: OrderedDict[tuple[int, str], _Entry] = OrderedDict()
_lock = threading.RLock()
_views: list[str] = []  # the temporary folder of prepared_task's private copies, once made


def _workdir() -> str:
    with _lock:
        if not _views:
            _views.append(tempfile.mkdtemp(prefix="va-strategies-"))
            atexit.register(shutil.rmtree, _views[0], True)
        return _views[0]


def _entry(task: Task, seed: int) -> _Entry:
    key = (seed, task.model_dump_json())
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
        entry = _make_entry(task, seed)
        _cache[key] = entry
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
        return entry


def _make_entry(task: Task, seed: int) -> _Entry:
    try:
        domain = get_domain(task.domain)
    except InputError as exc:
        raise StrategyError(
            f"task {task.id!r}: {exc}. Set the task's domain to one of them, or install the "
            f"package that provides {task.domain!r}."
        ) from None
    if domain.prepares_tasks:
        from .engine.audit import default_cache_dir

        try:
            task = domain.prepare_tasks([task], seed, default_cache_dir())[0]
        except (InputError, ValueError) as exc:  # the task lacks what the domain needs
            raise StrategyError(
                f"task {task.id!r}: the {task.domain} domain cannot prepare it: {exc}. Fix the "
                f"task or use another task, {_another(domain, task)}."
            ) from None
    problem = domain.check_task(task)
    if problem:
        raise StrategyError(
            f"task {task.id!r} ({task.domain}): {problem}. No candidate can be generated "
            f"for it; fix its reference or use another task, {_another(domain, task)}."
        )
    generated = [_Shown.model_construct(**dict(c)) for c in domain.generate([task], seed) if c.task_id == task.id]
    return _Entry(domain, task, generated)


def _nothing_to_draw(
    name: str, entry: _Entry, origins: tuple[str, ...], labels: tuple[str, ...], confirmed: bool
) -> str:
    task = entry.task
    what = " or ".join(_DESCRIBED[o] for o in origins) if len(origins) > 1 else _DESCRIBED[origins[0]]
    of_origin = [(i, c) for i, c in enumerate(entry.generated) if c.origin in origins]
    made = [(i, c) for i, c in of_origin if c.label in labels]
    if not of_origin:
        why = f"the {task.domain} generators make no {what} candidate from its reference {_short(task.reference)}"
    elif not made:
        why = f"its {len(of_origin)} {what} candidate(s) are all false-rejection probes (use probes=True)"
    else:
        reasons: dict[str, int] = {}
        for i, c in made:
            label, reason = entry.oracle.get(i, (c.label, ""))
            if label is None:
                key = reason.split(":")[0] if reason.startswith("oracle ") else "oracle could not tell"
            elif label != c.label:
                key = "equivalent to the reference" if c.label == "incorrect" else "judged wrong"
            else:
                continue
            reasons[key] = reasons.get(key, 0) + 1
        why = (
            f"the generators made {len(made)} {what} candidate(s) but the oracle confirmed none ("
            + ", ".join(f"{n} {r}" for r, n in sorted(reasons.items()))
            + "); confirmed=False draws them with their intended labels, which the oracle disputes"
        )
    return (
        f"{name}(task={task.id!r}): nothing to draw: {why}. Use another task, "
        f"{_another(entry.domain, task, origins)}, or another strategy (candidates(task) draws any origin)."
    )


def _another(domain: Domain, task: Task, origins: tuple[str, ...] = ORIGINS) -> str:
    """A suggestion: a built-in task of the same domain that has candidates of ``origins``."""
    from .suites import builtin_suites, load_suite

    if task.domain not in builtin_suites():
        return "e.g. one with another kind of reference"
    hint = f"e.g. one of verifier_audit.strategies.tasks({task.domain!r})"
    if domain.prepares_tasks:
        return hint  # candidates need the task prepared first: too slow to search for one here
    try:
        for other in load_suite(task.domain).tasks[:50]:
            if (
                other.id != task.id
                and not domain.check_task(other)
                and any(c.origin in origins for c in domain.generate([other], 0))
            ):
                return f"e.g. task {other.id!r} of tasks({task.domain!r}) (reference {_short(other.reference)})"
    except Exception:  # noqa: BLE001 - only a hint: never hide the real error behind another
        return hint
    return hint


def _short(text: str, limit: int = 60) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


class _Elided(str):
    """A long text whose repr shows its start and its length."""

    def __repr__(self) -> str:
        return f"{str.__repr__(self[:_REPR_TEXT])} + <{len(self) - _REPR_TEXT:,} more characters>"


class _Shown(Candidate):
    """A Candidate whose repr (what Hypothesis prints for a falsifying example) shortens the
    text; the object, its fields and its JSON are a Candidate's."""

    def __repr_name__(self) -> str:
        return "Candidate"

    def __eq__(self, other: object) -> bool:  # equal to a plain Candidate with the same fields
        if isinstance(other, Candidate):
            return dict(self) == dict(other)
        return NotImplemented

    __hash__ = None  # like every pydantic model

    def __repr_args__(self):
        for name, value in super().__repr_args__():
            if name == "text" and isinstance(value, str) and len(value) > _REPR_TEXT + 40:
                value = _Elided(value)
            yield name, value
