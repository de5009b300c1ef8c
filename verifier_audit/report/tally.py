"""A Report from a stream of (candidate, verdict) pairs, in bounded memory.

``build_report`` takes every candidate and verdict at once; ``score`` on a million samples
cannot hold them (issue 17). ``ReportTally`` is fed the same pairs one at a time, in the
order ``build_report`` would see them (the candidates' order), keeps what the Report needs
— counts per category, per (category, slice) and per origin's tasks, the first few examples
and error messages, the security findings — and gives the same Report: ``assemble_report``
does the rest for both. Memory grows with the number of categories, slices, tasks, error
kinds and security findings, not with the number of candidates -- but for the call times
behind the latency percentiles (``LatencyTally``: 8 bytes a call). (The property test in
tests/samples/test_score_scale.py checks that the two agree, byte for byte, on any input.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..loading import VerifierSpec
from ..metrics import _clip, _misjudged, accepted, wilson
from ..models import (
    Candidate,
    CategoryResult,
    Checks,
    Example,
    ExploitableTasks,
    Formats,
    MutantSurvival,
    Report,
    SearchSummary,
    SecurityFinding,
    SliceResult,
    Task,
    TaskSurvival,
    Verdict,
)
from .build import (
    _FINDING_TEXT,
    MAX_UNOBSERVED,
    NOT_FINDINGS,
    UNOBSERVED,
    AuthorityTally,
    LatencyTally,
    OutOfRangeTally,
    RemoteTally,
    _error_kind,
    assemble_report,
)

if TYPE_CHECKING:
    from ..engine.options import AuditOptions

EXAMPLES = 3  # per category, as metrics.category_results
MESSAGES_PER_KIND = 3  # as build.error_messages


@dataclass
class _Group:
    """One category, or one (category, slice): counts, and what its first member says."""

    origin: str
    severity: object
    label: str
    scored: int = 0
    ok: int = 0
    accepted: int = 0
    misjudged: int = 0
    error_kinds: Counter = field(default_factory=Counter)
    examples: list = field(default_factory=list)


class ReportTally:
    """Feed ``add(candidate, verdict)`` in candidate order; ``report(...)`` at the end."""

    def __init__(self, tasks: dict[str, Task], threshold: float, *, task_order: Iterable[str] | None = None):
        self.tasks, self.threshold = tasks, threshold
        self._order = {t: i for i, t in enumerate(task_order if task_order is not None else tasks)}
        self.n_candidates = 0
        self.calls = 0
        self.categories: dict[str, _Group] = {}
        self.slices: dict[tuple[str, str], _Group] = {}
        self.scored_tasks: dict[str, set[str]] = {}
        self.paid_tasks: dict[str, set[str]] = {}
        self.findings: list[tuple[str, int, SecurityFinding]] = []
        self.errors = 0
        self.error_kinds: Counter = Counter()
        self.messages: dict[str, list[str]] = {}
        self.first_error: str | None = None
        self._unobserved: set[str] = set()
        self.out_of_range = OutOfRangeTally()
        self.remote = RemoteTally()
        self.latency = LatencyTally()
        self.authority = AuthorityTally()
        self.splits: Counter = Counter()  # the candidates' task splits (Checks.splits)
        # near-miss candidates (mutant survival); none in ``score``
        self._near_judged: Counter = Counter()
        self._near_survivors: dict[str, list[str]] = {}
        self._near_errors = 0

    def _verdict(self, v: Verdict) -> None:
        """What every verdict counts for, with a candidate or not."""
        self.calls += 1
        self.out_of_range.count(v)
        self.remote.count(v)
        for entry in v.security:
            if entry.startswith(f"{UNOBSERVED}:"):
                self._unobserved.add(entry.partition(":")[2])
                if len(self._unobserved) > MAX_UNOBSERVED:
                    self._unobserved.discard(max(self._unobserved))
        if v.status == "error":
            self.errors += 1
            kind = _error_kind(v.error or "")
            self.error_kinds[kind] += 1
            if self.first_error is None:
                self.first_error = v.error
            text = _clip(v.error or "", 300)
            seen = self.messages.setdefault(kind, [])
            if text not in seen and len(seen) < MESSAGES_PER_KIND:
                seen.append(text)

    def add(self, c: Candidate, v: Verdict) -> None:
        """One candidate and its verdict (the verdict's own ``accepted`` is ignored: the
        threshold decides, as in ``build_report``)."""
        v = v.model_copy(update={"accepted": accepted(v.score, self.threshold)})
        self.n_candidates += 1
        self._verdict(v)
        self.out_of_range.example(c.id, v)
        self.latency.count(c, v)
        self.authority.count(c, v, self.tasks[c.task_id])
        self.splits[self.tasks[c.task_id].split] += 1
        ok = v.status == "ok"
        wrong = ok and _misjudged(c, v)
        groups = [self.categories.setdefault(c.category, _Group(c.origin, c.severity, c.label))]
        groups += [
            self.slices.setdefault((c.category, name), _Group(c.origin, c.severity, c.label)) for name in c.slices
        ]
        for i, g in enumerate(groups):
            g.scored += 1
            if ok:
                g.ok += 1
                g.accepted += bool(v.accepted)
                g.misjudged += wrong
            elif i == 0:
                g.error_kinds[_error_kind(v.error or "")] += 1
        cat = groups[0]
        if wrong and len(cat.examples) < EXAMPLES:
            cat.examples.append(
                Example(
                    candidate_id=c.id,
                    task_id=c.task_id,
                    text=_clip(c.text),
                    reference=_clip(self.tasks[c.task_id].reference),
                    note=c.note,
                    score=v.score,
                )
            )
        if c.label == "incorrect" and ok:
            for origin in (c.origin, "all"):
                self.scored_tasks.setdefault(origin, set()).add(c.task_id)
                if v.accepted:
                    self.paid_tasks.setdefault(origin, set()).add(c.task_id)
        for n, (kind, _, detail) in enumerate(entry.partition(":") for entry in v.security):
            if kind not in NOT_FINDINGS:
                self.findings.append(
                    (
                        c.id,
                        n,
                        SecurityFinding(
                            kind=kind,
                            candidate_id=c.id,
                            task_id=c.task_id,
                            detail=f"{_FINDING_TEXT.get(kind, kind)} ({detail}) while scoring {c.id} ({c.category})",
                        ),
                    )
                )
        if c.origin == "near_miss":
            if ok:
                self._near_judged[c.task_id] += 1
                if v.accepted:
                    self._near_survivors.setdefault(c.task_id, []).append(f"{c.category.rpartition('.')[2]}: {c.note}")
            else:
                self._near_errors += 1

    def add_verdict(self, v: Verdict) -> None:
        """A verdict with no candidate of the report (counted in the error figures only, as
        ``build_report`` counts every verdict it is given)."""
        self._verdict(v.model_copy(update={"accepted": accepted(v.score, self.threshold)}))

    # ------------------------------------------------------------------------------ results

    def category_results(self) -> list[CategoryResult]:
        out = []
        for name in sorted(self.categories):
            g = self.categories[name]
            out.append(
                CategoryResult(
                    name=name,
                    origin=g.origin,
                    severity=g.severity,
                    label=g.label,
                    n=g.ok,
                    accepted=g.accepted,
                    rate=g.misjudged / g.ok if g.ok else 0.0,
                    ci=wilson(g.misjudged, g.ok),
                    errors=g.scored - g.ok,
                    measured=bool(g.ok) or g.scored == 0,
                    examples=list(g.examples),
                )
            )
        return [
            c.model_copy(update={"error_kinds": dict(sorted(self.categories[c.name].error_kinds.items()))})
            if self.categories[c.name].error_kinds
            else c
            for c in out
        ]

    def slice_results(self) -> list[SliceResult]:
        return [
            SliceResult(
                category=category,
                slice=name,
                label=g.label,
                n=g.ok,
                accepted=g.accepted,
                rate=g.misjudged / g.ok if g.ok else 0.0,
                ci=wilson(g.misjudged, g.ok),
                errors=g.scored - g.ok,
            )
            for (category, name), g in sorted(self.slices.items())
        ]

    def exploitable(self) -> list[ExploitableTasks]:
        out = []
        for origin in sorted(self.scored_tasks, key=lambda o: (o == "all", o)):
            n, k = len(self.scored_tasks[origin]), len(self.paid_tasks.get(origin, ()))
            out.append(ExploitableTasks(origin=origin, tasks=n, exploitable=k, rate=k / n, ci=wilson(k, n)))
        return out

    def mutant_survival(self, equivalent: Counter) -> MutantSurvival | None:
        """As ``build.mutant_survival``; ``equivalent``: dropped equivalent mutants per task."""
        if not self._near_judged and not equivalent:
            return None
        n_judged, n_equiv = sum(self._near_judged.values()), sum(equivalent.values())
        n_survived = sum(len(v) for v in self._near_survivors.values())
        order = self._order
        tasks = [
            TaskSurvival(
                task_id=t,
                equivalent=equivalent[t],
                judged=self._near_judged[t],
                survivors=self._near_survivors.get(t, []),
            )
            for t in sorted(set(self._near_survivors) | set(equivalent), key=lambda t: order.get(t, len(order)))
        ]
        return MutantSurvival(
            generated=n_judged + n_equiv + self._near_errors,
            equivalent=n_equiv,
            judged=n_judged,
            survived=n_survived,
            rate_before_filtering=round((n_survived + n_equiv) / (n_judged + n_equiv), 6)
            if n_judged + n_equiv
            else 0.0,
            rate_after_filtering=round(n_survived / n_judged, 6) if n_judged else 0.0,
            tasks=tasks,
        )

    def report(
        self,
        spec: VerifierSpec,
        options: AuditOptions,
        settings: dict,
        *,
        suite: str,
        split: str | None = None,
        dropped: dict[str, int] | None = None,
        equivalent: Counter | None = None,
        checks: Checks | None = None,
        formats: Formats | None = None,
        search: SearchSummary | None = None,
    ) -> Report:
        findings = [f for _, _, f in sorted(self.findings, key=lambda row: (row[0], row[1]))]
        return assemble_report(
            spec,
            options,
            settings,
            suite=suite,
            split=split,
            n_candidates=self.n_candidates,
            categories=self.category_results(),
            findings=findings,
            calls=self.calls,
            errors=self.errors,
            error_kinds=self.error_kinds,
            messages=dict(sorted(self.messages.items())),
            first_error=self.first_error,
            unobserved_spots=sorted(self._unobserved),
            slices=self.slice_results(),
            exploitable=self.exploitable(),
            mutants=self.mutant_survival(equivalent or Counter()),
            dropped=dict(dropped or {}),
            checks=checks,
            formats=formats,
            search=search,
            out_of_range=self.out_of_range.result(),
            remote=self.remote.result() if spec.remote else None,
            latency=self.latency.result(),
            authority=self.authority.result(),
        )
