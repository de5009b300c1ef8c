"""Exploit search (``verifier-audit run --search CALLS``): look for what the verifier pays
that the oracle says is wrong, the way a policy in training would, within a budget of
verifier calls.

    outcome = search(prepared, spec, options)    # options.search: the budget

Steps (each its own module): explore (``_beam``: a beam search per task and start over
chains of the domain's edit operators), shrink and group (``_families``: a minimal chain
per family), reach (the family's edits applied to every task), and the answer-free lazy
policies. Found families come back as candidates of ``<domain>.search.<family>`` with their
verdicts, so they go through the same report and gate as every other category. A domain
takes part through its hooks ``search_operators`` and ``lazy_policies`` (``domains/base.py``;
the built-in ones have them in their ``search`` module), so a plugin domain searches too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...domains import get_domain
from ...domains.kit import rng_for
from ...metrics import _clip
from ...models import Candidate, LazyPolicy, SearchFamily, SearchSummary, Severity, Verdict
from ._beam import Exploit, Start, explore
from ._calls import Calls
from ._families import lazy, reach, shrink, slug
from ._source import set_literal_reader, source_operators, verifier_literals

__all__ = ["SearchOutcome", "search", "set_literal_reader", "supports_search"]

SEARCH_TASKS = 12  # tasks explored (reach goes over all of them)
MAX_FAMILIES = 5  # per direction (false acceptance, false rejection)
LAZY_TASKS = 10
LAZY_CALLS = 13 * LAZY_TASKS  # the math strategies: 13 completions a task
EXPLORE_SHARE = 0.6  # of the budget; the rest goes to shrinking, reach and the lazy policies


@dataclass
class SearchOutcome:
    candidates: list[Candidate] = field(default_factory=list)  # the families' reach, as candidates
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    summary: SearchSummary | None = None


def supports_search(domain_name: str) -> bool:
    return bool(get_domain(domain_name).search_operators())


def search(prepared, spec, options, verifier_name: str) -> SearchOutcome:
    if not options.search:
        return SearchOutcome()
    domain = get_domain(prepared.domain)
    operators = dict(domain.search_operators())
    if options.source_guided:  # what the verifier's own source compares completions against
        operators.update(source_operators(verifier_literals(spec), domain.answer_span))
    if not operators:  # said, never silently skipped: the report must not read as "searched, nothing found"
        return SearchOutcome(
            summary=SearchSummary(
                budget=options.search,
                calls=0,
                stopped_early=f"not searched: the {prepared.domain} domain has no edit operators for the search yet",
            )
        )
    calls = Calls(prepared, spec, options, budget=options.search)
    threshold, seed = options.threshold, options.seed
    used = {c.task_id for c in prepared.candidates}
    tasks = [t for t in prepared.tasks if t.id in used]
    rng_for(seed, "search", "tasks").shuffle(tasks)
    starts_by_task = {t.id: _starts(t, prepared, domain, seed) for t in tasks}
    explored = tasks[:SEARCH_TASKS]
    starts = [s for t in explored for s in _explored_starts(starts_by_task[t.id], seed)]
    # Kept back for the reach of every family and the lazy policies, so that a family found
    # late is still measured on every task: a share of the budget, and at least what the
    # families found so far need (``_Reserve``), which grows as exploration finds them.
    reserve = min(int(options.search * (1 - EXPLORE_SHARE) / 2), 2 * MAX_FAMILIES * len(tasks) + LAZY_CALLS)
    explore_budget = min(int(options.search * EXPLORE_SHARE), options.search - reserve)
    needs = _Reserve(starts_by_task)
    exploits, found = explore(calls, starts, operators, explore_budget, seed, threshold, keep=needs.explore)
    stop_at = options.search - max(reserve, needs.reach(exploits))
    families = shrink(calls, exploits, operators, threshold, MAX_FAMILIES, stop_at=stop_at)
    outcome = SearchOutcome()
    reported = []
    slices_of = {c.task_id: c.slices for c in prepared.candidates}
    for fam in families:
        # Measured on every task it applies to, or not at all: a reach cut short by the
        # budget would read as a smaller one.
        measured = calls.left >= needs.kinds[fam.start.kind] and not calls.failing
        rows = reach(calls, fam, starts_by_task, operators, seed, threshold) if measured else []
        category = f"{prepared.domain}.search.{slug(fam.name)}"
        rejects = fam.direction == "false_rejection"
        misjudged = 0
        for i, (task_id, text, score, error) in enumerate(rows):
            c = Candidate(
                id=f"{task_id}/{category}/{i}",
                task_id=task_id,
                text=text,
                origin="search",
                category=category,
                severity=Severity.high,
                label="correct" if rejects else "incorrect",
                label_source="search+oracle",
                note=f"search family {fam.name}: {' then '.join(n for n, _ in fam.chain)} from the {fam.start.kind}",
                slices=slices_of.get(task_id, []),
            )
            ok = score is not None
            misjudged += ok and (score < threshold if rejects else score >= threshold)
            outcome.candidates.append(c)
            outcome.verdicts[c.id] = Verdict(
                verifier=verifier_name,
                candidate_id=c.id,
                status="ok" if ok else "error",
                score=score,
                error=None if ok else error,
            )
        reported.append(
            SearchFamily(
                name=fam.name,
                category=category,
                operators=[n for n, _ in fam.chain],
                start=fam.start.kind,
                task_id=fam.start.task_id,
                example=_clip(fam.text),
                score=fam.score,
                reach_tasks=len(rows),
                reach_misjudged=misjudged,
                reach_measured=measured,
                found_after=fam.found_after,
                direction=fam.direction,
            )
        )
    lazies = (
        lazy(calls, tasks[:LAZY_TASKS], domain.lazy_policies, threshold) if calls.left and not calls.failing else []
    )
    stopped = None
    if calls.failing:
        stopped = f"{calls.errors} of {calls.spent} calls errored: the search stopped (errors measure nothing)"
    elif any(not f.reach_measured for f in reported):
        stopped = "the budget ran out before the reach of every family was measured (a larger --search measures it)"
    outcome.summary = SearchSummary(
        budget=options.search,
        calls=calls.spent,
        errors=calls.errors,
        error_kinds=dict(sorted(calls.error_kinds.items())),
        stopped_early=stopped,
        first_exploit_after=min((e.found_after for e in exploits if e.direction == "false_acceptance"), default=None),
        exploits_found=found,
        tasks_searched=len(explored),
        families=reported,
        lazy_policies=[
            LazyPolicy(name=n, tasks=t, mean_reward=round(m, 6), paid=p, calls=c, errors=e)
            for n, t, m, p, c, e in lazies
        ],
    )
    return outcome


class _Reserve:
    """What measuring the reach of the exploits found so far needs: a family is measured
    on every task that has a start of its kind, one call each (at most), for the first
    MAX_FAMILIES chains per direction."""

    def __init__(self, starts_by_task: dict[str, dict[str, Start]]):
        self.kinds = Counter(kind for starts in starts_by_task.values() for kind in starts)

    def _groups(self, exploits: list[Exploit]) -> list[Exploit]:
        firsts: dict[tuple, Exploit] = {}
        for e in exploits:
            firsts.setdefault((e.direction, e.node.start.kind, tuple(n for n, _ in e.node.chain)), e)
        out = []
        for direction in ("false_acceptance", "false_rejection"):
            out += [e for e in firsts.values() if e.direction == direction][:MAX_FAMILIES]
        return out

    def reach(self, exploits: list[Exploit]) -> int:
        return sum(self.kinds[e.node.start.kind] for e in self._groups(exploits))

    def explore(self, exploits: list[Exploit]) -> int:
        """What exploring keeps: the reach, the shrinking, and one more family's reach (a
        batch of children may find a new one after the last look)."""
        groups = self._groups(exploits)
        return sum(self.kinds[e.node.start.kind] + 2 * len(e.node.chain) for e in groups) + max(
            self.kinds.values(), default=0
        )


def _starts(task, prepared, domain, seed: int) -> dict[str, Start]:
    """Where chains may start on ``task``: its reference, written as the generators write a
    right answer, and per category of its wrong candidates the shortest one (reach looks
    a family's start up here on every task)."""
    out = {
        "reference": Start(task.id, "reference", domain.reference_completion(task, rng_for(seed, "search", task.id)))
    }
    wrong = sorted(
        (
            c
            for c in prepared.candidates
            if c.task_id == task.id
            and c.label == "incorrect"
            and c.origin in ("near_miss", "known_bad")
            and len(c.text) < 2000
        ),
        key=lambda c: (c.category, len(c.text), c.id),
    )
    for c in wrong:
        out.setdefault(c.category, Start(task.id, c.category, c.text))
    return out


def _explored_starts(starts: dict[str, Start], seed: int) -> list[Start]:
    """The reference and WRONG_STARTS wrong candidates of other categories, seeded."""
    from ._beam import WRONG_STARTS

    wrong = [s for kind, s in sorted(starts.items()) if kind != "reference"]
    picked = rng_for(seed, "search", "starts", starts["reference"].task_id).sample(wrong, min(WRONG_STARTS, len(wrong)))
    return [starts["reference"], *picked]
