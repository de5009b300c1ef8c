"""Verdicts -> Report (``build_reports``: from what ``engine.audit.audit_verdicts`` hands
back). Deterministic: the same verdicts give byte-identical JSON, which is
what makes a resumed audit's report comparable with an uninterrupted one."""

from __future__ import annotations

import heapq
from array import array
from collections import Counter
from typing import TYPE_CHECKING

from .._version import __version__
from ..frameworks._client import REMOTE, read_requests
from ..loading import DISGUISED, OUT_OF_RANGE, VerifierSpec
from ..metrics import (
    _clip,
    accepted,
    beyond_variance,
    category_results,
    coverage_debt,
    exploitable_tasks,
    gate,
    percentile,
    pooled_rate,
    slice_results,
)
from ..models import (
    Authority,
    Candidate,
    CategoryAuthority,
    CategoryLatency,
    CategoryResult,
    Checks,
    Formats,
    Latency,
    MutantSurvival,
    OutOfRange,
    RemoteHealth,
    Report,
    SearchSummary,
    SecurityFinding,
    SliceResult,
    SlowCall,
    Task,
    TaskSurvival,
    Verdict,
    WeightedDebt,
)
from .source import source_findings

if TYPE_CHECKING:
    from ..domains.base import Domain
    from ..engine.audit import VerifierVerdicts
    from ..engine.options import AuditOptions, Prepared


_FINDING_TEXT = {
    "executes_model_output": "a canary fired: the verifier executed model output",
    "modified_fixture": "the verifier let a candidate change its database",
    "read_outside": "the verifier let a candidate read a file outside its fixture",
    "guard_escape": "the verifier's own guard let a candidate's escape through; the audit's sandbox stopped it",
    DISGUISED: "the verifier's score is not what a trainer reads: its own conversion says another number than it holds",
    "audit_aware": "the verifier scores differently when it cannot tell it is audited",
    "persistent_state": "one sample changes what later calls pay",
    "lingering_work": "its timeout returns but leaves work running",
}


def audit_aware(checks: Checks | None) -> list[SecurityFinding]:
    """The cross-check's finding (engine/sensing.py): scores that changed in a process
    shaped like a training job, beyond the verifier's own variance (its determinism probe)."""
    cross = checks.training_like if checks is not None else None
    if cross is None or not cross.disagreeing:
        return []
    own = checks.determinism
    changed, probed = (own.disagreed - own.errors, own.sampled) if own is not None else (0, 0)
    if not beyond_variance(cross.disagreed, cross.sampled, changed, probed):
        return []
    candidate_id, task_id = cross.disagreeing[0]
    shown = "; ".join(cross.examples[:3])
    return [
        SecurityFinding(
            kind="audit_aware",
            candidate_id=candidate_id,
            task_id=task_id,
            detail=f"scores {cross.disagreed} of {cross.sampled} candidates differently when it can "
            f"tell it is audited (re-scored in a process shaped like a training job; its own "
            f"determinism probe changed {changed} of {probed}): {shown}",
        )
    ]


# Not a finding: what a domain's guard could not observe ("unobserved:<what>"). It goes to
# checks.unobserved, which the checklist reads as unknown; the gate does not count it.
UNOBSERVED = "unobserved"
MAX_UNOBSERVED = 20
# The verdict entries that are no finding: unobserved spots, and a remote call's requests
# ("remote:{...}", frameworks/_client.py), which go to Report.remote (RemoteTally).
NOT_FINDINGS = (UNOBSERVED, REMOTE)


def unobserved(verdicts) -> list[str]:
    spots = {entry.partition(":")[2] for v in verdicts for entry in v.security if entry.startswith(f"{UNOBSERVED}:")}
    return sorted(spots)[:MAX_UNOBSERVED]


def _error_kind(message: str) -> str:
    if message.startswith("timeout"):
        return "timeout"
    if message.startswith("crash"):
        return "crash"
    return message.split(":", 1)[0]  # the exception's type


class OutOfRangeTally:
    """``Report.out_of_range``, the same for ``build_report`` and the streaming
    ``ReportTally``: ``count`` every verdict (as the error figures count them), ``example``
    the report's candidates in candidate order. What the worker sent is read here again: a
    finite score out of [0, 1] from the verdict's own number, a non-finite one from its
    error kind (the worker's ``ScoreOutOfRange``, or the parent's own check of the pipe,
    engine/audit.py)."""

    EXAMPLES = 5

    def __init__(self) -> None:
        self.counts = Counter()
        self.examples: list[str] = []

    @staticmethod
    def kind(v: Verdict) -> str | None:
        if v.status == "ok" and v.score is not None:
            return "above" if v.score > 1 else "below" if v.score < 0 else None
        return "not_finite" if v.status == "error" and _error_kind(v.error or "") == OUT_OF_RANGE else None

    def count(self, v: Verdict) -> None:
        kind = self.kind(v)
        if kind is not None:
            self.counts[kind] += 1

    def example(self, candidate_id: str, v: Verdict) -> None:
        kind = self.kind(v)
        if kind is not None and len(self.examples) < self.EXAMPLES:
            self.examples.append(
                f"{candidate_id}: {v.score:g}" if kind != "not_finite" else f"{candidate_id}: not finite"
            )

    def result(self) -> OutOfRange:
        return OutOfRange(
            calls=sum(self.counts.values()),
            above=self.counts["above"],
            below=self.counts["below"],
            not_finite=self.counts["not_finite"],
            examples=list(self.examples),
        )


class RemoteTally:
    """``Report.remote``, the same for ``build_report`` and the streaming ``ReportTally``:
    ``count`` every verdict; each carries its call's requests as one ``remote:`` entry
    (``frameworks._client.RequestLog``). A call the pool killed (its timeout) sent no entry:
    it counts as a call, its requests are not known."""

    def __init__(self) -> None:
        self.calls = self.requests = 0
        self.retried: Counter = Counter()
        self.failed: Counter = Counter()

    def count(self, v: Verdict) -> None:
        self.calls += 1
        for entry in v.security:
            record = read_requests(entry)
            if record is not None:
                self.requests += record["requests"]
                self.retried.update(record["retried"])
                if record["failed"] is not None:
                    self.failed[record["failed"]] += 1

    def result(self) -> RemoteHealth:
        retried = sum(self.retried.values())
        return RemoteHealth(
            calls=self.calls,
            requests=self.requests,
            retried=dict(sorted(self.retried.items())),
            failed=dict(sorted(self.failed.items())),
            retry_rate=round(retried / self.requests, 6) if self.requests else 0.0,
        )


#: the p99 call time over which the report warns: a reward called a million times at this
#: pace holds training up for days (docs/grader-behaviour.md, "Latency")
WARN_P99_SECONDS = 1.0


class LatencyTally:
    """``Report.latency``, the same for ``build_report`` and the streaming ``ReportTally``:
    ``count`` each candidate's verdict in candidate order. Percentiles are exact (nearest
    rank), so the call times are kept: 8 bytes a call (a million calls, 8 MB), the one part
    of the streaming tally that grows with the calls. The slowest few are a bounded heap,
    ties to the earlier candidate."""

    SLOWEST = 5

    def __init__(self) -> None:
        self.times: dict[str, array] = {}
        self._heap: list[tuple[tuple[float, int], SlowCall]] = []
        self._seq = 0

    def count(self, c: Candidate, v: Verdict) -> None:
        self.times.setdefault(c.category, array("d")).append(v.seconds)
        error = _error_kind(v.error or "") if v.status == "error" else None
        row = (
            (v.seconds, -self._seq),
            SlowCall(candidate_id=c.id, category=c.category, seconds=v.seconds, error=error),
        )
        self._seq += 1
        if len(self._heap) < self.SLOWEST:
            heapq.heappush(self._heap, row)
        elif row[0] > self._heap[0][0]:
            heapq.heapreplace(self._heap, row)

    def result(self) -> Latency | None:
        if not self.times:
            return None
        every = sorted(t for times in self.times.values() for t in times)
        rows = []
        for name, times in self.times.items():
            ordered = sorted(times)
            rows.append(
                CategoryLatency(
                    category=name,
                    calls=len(ordered),
                    p50=percentile(ordered, 50),
                    p99=percentile(ordered, 99),
                    max=ordered[-1],
                )
            )
        rows.sort(key=lambda r: (-r.p99, -r.max, r.category))
        p99 = percentile(every, 99)
        worst = rows[0]
        warning = (
            f"p99 call time {p99:.2f} s > {WARN_P99_SECONDS:g} s (slowest category {worst.category}, p99 "
            f"{worst.p99:.2f} s): a training job calls this verifier millions of times"
            if p99 > WARN_P99_SECONDS
            else None
        )
        return Latency(
            calls=len(every),
            p50=percentile(every, 50),
            p99=p99,
            categories=rows,
            slowest=[call for _, call in sorted(self._heap, key=lambda r: r[0], reverse=True)],
            warning=warning,
        )


class AuthorityTally:
    """``Report.authority``, the same for ``build_report`` and the streaming
    ``ReportTally``: ``count`` each candidate of the report in candidate order. Which paths a
    completion writes outside its task's allowed ones is read from the text by its domain
    (``Domain.outside_paths``: no run), for a domain whose tasks limit them
    (``Domain.limits_paths``); the report of any other domain has no figures (None), not
    zeros that would read as 'none paid'. Memory: counts per category and a few examples."""

    EXAMPLES = 3

    def __init__(self) -> None:
        self._domains: dict[str, Domain | None] = {}
        self.limited = False  # a candidate of a domain that limits paths was counted
        self.n: Counter = Counter()  # category -> scored without error
        self.outside: Counter = Counter()
        self.paid: Counter = Counter()
        self.errors: Counter = Counter()
        self.origins: dict[str, str] = {}
        self.examples: dict[str, tuple[list[str], list[str]]] = {}  # category -> (paid, not paid)

    def _domain(self, name: str) -> Domain | None:
        """The domain ``name`` when its tasks limit paths, else None (not installed here: None)."""
        if name not in self._domains:
            from ..domains import get_domain
            from ..errors import InputError

            try:
                domain = get_domain(name)
            except InputError:
                domain = None
            self._domains[name] = domain if domain is not None and domain.limits_paths else None
        return self._domains[name]

    def count(self, c: Candidate, v: Verdict, task: Task) -> None:
        """``v`` with its ``accepted`` set at the report's threshold."""
        domain = self._domain(task.domain)
        if domain is None:
            return
        self.limited = True
        self.origins.setdefault(c.category, c.origin)
        ok = v.status == "ok"
        self.n[c.category] += ok
        paths = domain.outside_paths(c.text, task)
        if not paths:
            return
        if not ok:
            self.errors[c.category] += 1
            return
        self.outside[c.category] += 1
        self.paid[c.category] += bool(v.accepted)
        shown = self.examples.setdefault(c.category, ([], []))[0 if v.accepted else 1]
        if len(shown) < self.EXAMPLES:
            shown.append(f"{c.id}: {', '.join(paths)}")

    def result(self) -> Authority | None:
        if not self.limited:
            return None
        names = sorted(set(self.outside) | set(self.errors))
        rows = [
            CategoryAuthority(
                category=name,
                origin=self.origins[name],
                n=self.n[name],
                outside=self.outside[name],
                paid=self.paid[name],
                errors=self.errors[name],
                examples=[*self.examples.get(name, ([], []))[0], *self.examples.get(name, ([], []))[1]][
                    : self.EXAMPLES
                ],
            )
            for name in names
        ]
        return Authority(
            n=sum(self.n.values()),
            outside=sum(self.outside.values()),
            paid=sum(self.paid.values()),
            errors=sum(self.errors.values()),
            categories=rows,
        )


def _call_order(prepared: Prepared):
    """Verdicts in candidate order, so the 'first' error is the same on every run."""
    order = {c.id: i for i, c in enumerate(prepared.candidates)}
    return lambda v: order.get(v.candidate_id, len(order))


def error_messages(errors: list[Verdict], per_kind: int = 3, width: int = 300) -> dict[str, list[str]]:
    """A few distinct messages per error kind, clipped, in the order first seen."""
    out: dict[str, list[str]] = {}
    for v in errors:
        text = _clip(v.error or "", width)
        seen = out.setdefault(_error_kind(v.error or ""), [])
        if text not in seen and len(seen) < per_kind:
            seen.append(text)
    return dict(sorted(out.items()))


def build_report(
    prepared: Prepared,
    spec: VerifierSpec,
    verdicts: dict[str, Verdict],
    options: AuditOptions,
    settings: dict,
    checks: Checks | None = None,
    formats: Formats | None = None,
    search: SearchSummary | None = None,
) -> Report:
    verdicts = {
        cid: v.model_copy(update={"accepted": accepted(v.score, options.threshold)}) for cid, v in verdicts.items()
    }
    tasks = {t.id: t for t in prepared.tasks}
    candidates = [c for c in prepared.candidates if c.id in verdicts]
    categories = category_results(candidates, verdicts, tasks)
    kinds: dict[str, Counter] = {}
    for c in candidates:
        v = verdicts[c.id]
        if v.status == "error":
            kinds.setdefault(c.category, Counter())[_error_kind(v.error or "")] += 1
    categories = [
        cat.model_copy(update={"error_kinds": dict(sorted(kinds[cat.name].items()))}) if cat.name in kinds else cat
        for cat in categories
    ]
    by_id = {c.id: c for c in candidates}
    findings = [
        SecurityFinding(
            kind=kind,
            candidate_id=cid,
            task_id=by_id[cid].task_id,
            detail=f"{_FINDING_TEXT.get(kind, kind)} ({detail}) while scoring {cid} ({by_id[cid].category})",
        )
        for cid, v in sorted(verdicts.items())
        if cid in by_id
        for kind, _, detail in (entry.partition(":") for entry in v.security)
        if kind not in NOT_FINDINGS
    ]
    errors = [v for v in sorted(verdicts.values(), key=_call_order(prepared)) if v.status == "error"]
    out_of_range, remote, latency, authority = OutOfRangeTally(), RemoteTally(), LatencyTally(), AuthorityTally()
    for v in verdicts.values():
        out_of_range.count(v)
        remote.count(v)
    for c in candidates:
        out_of_range.example(c.id, verdicts[c.id])
        latency.count(c, verdicts[c.id])
        authority.count(c, verdicts[c.id], tasks[c.task_id])
    return assemble_report(
        spec,
        options,
        settings,
        suite=prepared.suite_name,
        split=prepared.split,
        n_candidates=len(candidates),
        categories=categories,
        findings=findings,
        calls=len(verdicts),
        errors=len(errors),
        error_kinds=Counter(_error_kind(v.error or "") for v in errors),
        messages=error_messages(errors),
        first_error=errors[0].error if errors else None,
        unobserved_spots=unobserved(verdicts.values()),
        slices=slice_results(candidates, verdicts),
        exploitable=exploitable_tasks(candidates, verdicts),
        mutants=mutant_survival(prepared, candidates, verdicts),
        dropped=prepared.dropped_counts,
        checks=checks,
        formats=formats,
        search=search,
        out_of_range=out_of_range.result(),
        remote=remote.result() if spec.remote else None,
        latency=latency.result(),
        authority=authority.result(),
    )


def build_reports(results: list[VerifierVerdicts], options: AuditOptions) -> list[Report]:
    """One report per verifier the engine audited, in its order."""
    return [
        build_report(
            r.view, r.spec, r.verdicts, options, r.settings, checks=r.checks, formats=r.formats, search=r.search
        )
        for r in results
    ]


def with_answers(categories: list[CategoryResult]) -> list[CategoryResult]:
    """The categories with each example's ``answer`` read by the category's domain (its
    ``answer_span``: math the final answer, SQL the query), so that a renderer clipping the
    example keeps the answer whole (``report.text.excerpt``). Done here, where both the
    in-memory build and the streaming tally (report/tally.py) assemble their report, so the
    two stay the same. A domain that cannot say, or is not installed here, leaves ""."""
    from ..domains import get_domain
    from ..errors import InputError

    out = []
    for c in categories:
        try:
            span = get_domain(c.name.partition(".")[0]).answer_span if c.examples else None
        except InputError:
            span = None
        if span is not None:
            c = c.model_copy(
                update={
                    "examples": [e if e.answer else e.model_copy(update={"answer": span(e.text)}) for e in c.examples]
                }
            )
        out.append(c)
    return out


def assemble_report(
    spec: VerifierSpec,
    options: AuditOptions,
    settings: dict,
    *,
    suite: str,
    split,
    n_candidates: int,
    categories: list[CategoryResult],
    findings: list[SecurityFinding],
    calls: int,
    errors: int,
    error_kinds: Counter,
    messages: dict[str, list[str]],
    first_error,
    unobserved_spots: list[str],
    slices: list[SliceResult],
    exploitable,
    mutants,
    dropped: dict[str, int],
    checks: Checks | None = None,
    formats: Formats | None = None,
    search: SearchSummary | None = None,
    out_of_range: OutOfRange | None = None,
    remote: RemoteHealth | None = None,
    latency: Latency | None = None,
    authority: Authority | None = None,
) -> Report:
    """The Report from what the verdicts add up to (``build_report`` computes those from
    the candidates and verdicts in memory, ``report/tally.py`` from a stream of them): the
    debt, pooled rates, gate and source findings are worked out here, the same for both."""
    categories = with_answers(categories)
    debt, debt_ci = coverage_debt(categories)
    fa, fa_ci, _ = pooled_rate(categories, "incorrect")
    fr, fr_ci, _ = pooled_rate(categories, "correct")
    if checks is not None:
        checks = checks.model_copy(update={"unobserved": unobserved_spots})
    findings = findings + audit_aware(checks)
    weighted = weighted_debt(categories, slices, options.weights) if options.weights is not None else None
    report = Report(
        tool_version=__version__,
        verifier=spec.spec if spec.part is None else f"{spec.spec}[{spec.part}]",
        style=spec.style,
        suite=suite,
        split=split,
        seed=options.seed,
        threshold=options.threshold,
        n_candidates=n_candidates,
        coverage_debt=round(debt, 6),
        coverage_debt_ci=debt_ci,
        false_acceptance_rate=round(fa, 6),
        false_acceptance_ci=fa_ci,
        false_rejection_rate=round(fr, 6),
        false_rejection_ci=fr_ci,
        error_rate=round(errors / calls, 6) if calls else 0.0,
        errors=errors,
        error_kinds=dict(sorted(error_kinds.items())),
        error_messages=messages,
        categories=categories,
        security_findings=findings,
        dropped=dropped,
        mutant_survival=mutants,
        gate=gate(
            debt,
            categories,
            fr,
            findings,
            options.gate,
            enforced=options.enforce_gate,
            errors=errors,
            calls=calls,
            first_error=first_error,
            slices=slices,
            weighted=weighted,
            remote=remote,
            nondeterminism=checks.nondeterminism if checks is not None else None,
            latency=latency,
        ),
        settings={
            **{k: v for k, v in settings.items() if k not in ("verifiers",)},
            "threshold": options.threshold,
            "max_debt": options.gate.max_debt,
            "max_category": options.gate.max_category,
            "max_false_rejection": options.gate.max_false_rejection,
            "max_error_rate": options.gate.max_error_rate,
            "max_retry_rate": options.gate.max_retry_rate,
            "max_nondeterminism": options.gate.max_nondeterminism,
            "max_call_seconds": options.gate.max_call_seconds,
            "waived_categories": list(options.gate.waived_categories),
            "category_limits": dict(sorted(options.gate.category_limits.items())),
            "min_slice_n": options.gate.min_slice_n,
            "search": options.search,
        },
        checks=checks,
        formats=formats,
        slices=slices,
        exploitable_tasks=exploitable,
        weighted_debt=weighted,
        search=search,
        out_of_range=out_of_range or OutOfRange(),
        remote=remote,
        latency=latency,
        authority=authority,
    )
    # The source is read after the verdicts, so each finding can say whether they confirm it.
    report.source_findings, report.source_files = source_findings(spec, report)
    return report


def weighted_debt(categories: list[CategoryResult], slices: list[SliceResult], weights) -> WeightedDebt:
    """The coverage debt as the user's task mix would see it: per primary slice, the debt of
    the categories on that slice's candidates; their mean weighted by the user's shares,
    renormalised over the slices the audit has candidates of (the rest is ``unmatched``)."""
    by_name = {c.name: c for c in categories}
    per_slice: dict[str, float] = {}
    for name in weights.weights:
        rows = [
            CategoryResult(
                name=s.category,
                origin=by_name[s.category].origin,
                severity=by_name[s.category].severity,
                label=s.label,
                n=s.n,
                accepted=s.accepted,
                rate=s.rate,
                ci=s.ci,
            )
            for s in slices
            if s.slice == name and s.category in by_name
        ]
        if any(r.label == "incorrect" and r.n for r in rows):
            per_slice[name] = round(coverage_debt(rows)[0], 6)
    matched = sum(weights.weights[name] for name in per_slice)
    debt = round(sum(weights.weights[name] * d for name, d in per_slice.items()) / matched, 6) if matched else None
    return WeightedDebt(
        source=weights.source,
        dimension=weights.dimension,
        weights=dict(weights.weights),
        debt=debt,
        per_slice=per_slice,
        unmatched={k: w for k, w in weights.weights.items() if k not in per_slice},
    )


def mutant_survival(prepared: Prepared, candidates: list, verdicts: dict[str, Verdict]) -> MutantSurvival | None:
    """Near-miss candidates as a mutation analysis of the verifier: per task, the mutants
    it accepts (survivors), after the oracle removed the equivalent ones."""
    near = [c for c in candidates if c.origin == "near_miss" and verdicts[c.id].status == "ok"]
    equivalent = Counter(d.task_id for d in prepared.dropped if d.reason == "equivalent_mutant")
    if not near and not equivalent:
        return None
    judged, survivors = Counter(), {}
    for c in near:
        judged[c.task_id] += 1
        if verdicts[c.id].accepted:
            survivors.setdefault(c.task_id, []).append(f"{c.category.rpartition('.')[2]}: {c.note}")
    errors = sum(1 for c in candidates if c.origin == "near_miss" and verdicts[c.id].status != "ok")
    n_judged, n_equiv = sum(judged.values()), sum(equivalent.values())
    n_survived = sum(len(v) for v in survivors.values())
    order = {t.id: i for i, t in enumerate(prepared.tasks)}
    tasks = [
        TaskSurvival(task_id=t, equivalent=equivalent[t], judged=judged[t], survivors=survivors.get(t, []))
        for t in sorted(set(survivors) | set(equivalent), key=lambda t: order.get(t, len(order)))
    ]
    return MutantSurvival(
        generated=n_judged + n_equiv + errors,
        equivalent=n_equiv,
        judged=n_judged,
        survived=n_survived,
        rate_before_filtering=round((n_survived + n_equiv) / (n_judged + n_equiv), 6) if n_judged + n_equiv else 0.0,
        rate_after_filtering=round(n_survived / n_judged, 6) if n_judged else 0.0,
        tasks=tasks,
    )
