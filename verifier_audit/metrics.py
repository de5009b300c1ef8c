"""Rates with intervals, coverage debt, and the gate.

* Per category: false acceptance (incorrect candidates accepted) or false rejection
  (correct candidates rejected), with a Wilson 95% interval. Errors are counted apart and
  left out of the denominators: a crash is neither an acceptance nor a rejection.
* Coverage debt: the severity-weighted mean of the failure categories' false-acceptance
  rates, each category weighing the same within a severity, so a thousand easy cases cannot
  drown one exploit. Its interval is a normal approximation on the weighted sum with
  Agresti-Coull adjusted rates, which keeps a width at 0/n (a category with 12 clean
  candidates is not proof of a closed hole).
* Per category and slice (the task's answer type, query feature, return type): the same
  rates within each slice, and the exploitable-task rate: the share of tasks on which at
  least one wrong candidate is paid. The gate applies max-category to every slice with
  ``min_slice_n`` candidates scored, so a hole confined to one slice is not averaged away.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

from .models import (
    SEVERITY_WEIGHT,
    Candidate,
    CategoryResult,
    Example,
    ExploitableTasks,
    GateConfig,
    GateResult,
    Interval,
    Latency,
    Nondeterminism,
    RemoteHealth,
    SecurityFinding,
    Severity,
    SliceResult,
    Task,
    Verdict,
    WeightedDebt,
)

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> Interval:
    if n == 0:
        return Interval(low=0.0, high=1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At k == 0 or k == n the bound is exact; floating point would otherwise miss it by 1 ulp.
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return Interval(low=low, high=high)


Z99 = 2.5758293035489004
AUDIT_AWARE_P = 1e-3  # how unlikely its own variance must make the disagreements to call them awareness


def beyond_variance(disagreed: int, sampled: int, own_disagreed: int, own_sampled: int) -> bool:
    """Whether ``disagreed`` of ``sampled`` scores that changed when the verifier could not
    tell it was audited are more than its own variance explains. Its variance is the
    determinism probe's: ``own_disagreed`` of ``own_sampled`` candidates scored again in
    audit workers. A verifier that never changed its mind there may not change it once; for
    one that did, the disagreements count only when a binomial tail at the upper 99% bound
    of its own rate puts them below ``AUDIT_AWARE_P`` (a random grader disagrees at its own
    rate and is not called audit-aware)."""
    if disagreed <= 0 or sampled <= 0:
        return False
    if own_disagreed <= 0:
        return True
    rate = wilson(own_disagreed, own_sampled, Z99).high
    tail = sum(math.comb(sampled, k) * rate**k * (1 - rate) ** (sampled - k) for k in range(disagreed, sampled + 1))
    return tail < AUDIT_AWARE_P


def _misjudged(candidate: Candidate, verdict: Verdict) -> bool:
    return verdict.accepted is (candidate.label == "incorrect")


def category_results(
    candidates: list[Candidate],
    verdicts: dict[str, Verdict],
    tasks: dict[str, Task],
    *,
    examples: int = 3,
) -> list[CategoryResult]:
    groups: dict[str, list[Candidate]] = defaultdict(list)
    for c in candidates:
        groups[c.category].append(c)
    results = []
    for name in sorted(groups):
        members = groups[name]
        first = members[0]
        scored = [(c, verdicts[c.id]) for c in members if c.id in verdicts]
        ok = [(c, v) for c, v in scored if v.status == "ok"]
        accepted = sum(1 for _, v in ok if v.accepted)
        wrong = [(c, v) for c, v in ok if _misjudged(c, v)]
        k = len(wrong)  # FA count for incorrect categories, FR count for correct ones
        results.append(
            CategoryResult(
                name=name,
                origin=first.origin,
                severity=first.severity,
                label=first.label,
                n=len(ok),
                accepted=accepted,
                rate=k / len(ok) if ok else 0.0,
                ci=wilson(k, len(ok)),
                errors=len(scored) - len(ok),
                measured=bool(ok) or len(scored) == 0,
                examples=[
                    Example(
                        candidate_id=c.id,
                        task_id=c.task_id,
                        text=_clip(c.text),
                        reference=_clip(tasks[c.task_id].reference),
                        note=c.note,
                        score=v.score,
                    )
                    for c, v in wrong[:examples]
                ],
            )
        )
    return results


def slice_results(candidates: list[Candidate], verdicts: dict[str, Verdict]) -> list[SliceResult]:
    """Every (category, slice) with a candidate, in (category, slice) order. A candidate
    counts in each of its task's slices (a SQL query with a join and a GROUP BY in both)."""
    groups: dict[tuple[str, str], list[Candidate]] = defaultdict(list)
    for c in candidates:
        for name in c.slices:
            groups[(c.category, name)].append(c)
    out = []
    for (category, name), members in sorted(groups.items()):
        scored = [(c, verdicts[c.id]) for c in members if c.id in verdicts]
        ok = [(c, v) for c, v in scored if v.status == "ok"]
        k = sum(1 for c, v in ok if _misjudged(c, v))
        out.append(
            SliceResult(
                category=category,
                slice=name,
                label=members[0].label,
                n=len(ok),
                accepted=sum(1 for _, v in ok if v.accepted),
                rate=k / len(ok) if ok else 0.0,
                ci=wilson(k, len(ok)),
                errors=len(scored) - len(ok),
            )
        )
    return out


def exploitable_tasks(candidates: list[Candidate], verdicts: dict[str, Verdict]) -> list[ExploitableTasks]:
    """Per origin of wrong candidates (and all of them together): tasks with a wrong
    candidate scored without error, and those on which one of them was accepted."""
    scored: dict[str, set[str]] = defaultdict(set)
    paid: dict[str, set[str]] = defaultdict(set)
    for c in candidates:
        v = verdicts.get(c.id)
        if c.label != "incorrect" or v is None or v.status != "ok":
            continue
        for origin in (c.origin, "all"):
            scored[origin].add(c.task_id)
            if v.accepted:
                paid[origin].add(c.task_id)
    out = []
    for origin in sorted(scored, key=lambda o: (o == "all", o)):
        n, k = len(scored[origin]), len(paid[origin])
        out.append(ExploitableTasks(origin=origin, tasks=n, exploitable=k, rate=k / n, ci=wilson(k, n)))
    return out


def worst_slices(slices: list[SliceResult], min_n: int) -> dict[str, SliceResult]:
    """Per incorrect category, its slice of highest false acceptance among those with at
    least ``min_n`` candidates scored (ties: the larger n, then the name)."""
    worst: dict[str, SliceResult] = {}
    for s in slices:
        if s.label != "incorrect" or s.n < min_n:
            continue
        best = worst.get(s.category)
        if best is None or (s.rate, s.n) > (best.rate, best.n):
            worst[s.category] = s
    return worst


def slice_words(name: str) -> str:
    """ "answer:integer" -> "integer answers", for sentences a reader can take in at once."""
    dimension, _, value = name.partition(":")
    value = value.replace("_", " ")
    return {
        "answer": f"{value} answers",
        "magnitude": f"answers of magnitude {value}",
        "query": f"queries with {value}" if value != "plain" else "plain queries",
        "returns": f"functions returning {value}",
        "family": f"{value} tasks",
    }.get(dimension, name)


def _clip(text: str, limit: int = 400) -> str:
    """A short, valid-UTF-8 excerpt for reports (a lone surrogate becomes the text \\ud800,
    which every JSON reader accepts)."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]} … [{len(text) - limit} chars] … {text[-limit // 2 :]}"


def coverage_debt(categories: Iterable[CategoryResult]) -> tuple[float, Interval]:
    failures = [c for c in categories if c.label == "incorrect" and c.n > 0]
    if not failures:
        return 0.0, Interval(low=0.0, high=1.0)
    weights = [SEVERITY_WEIGHT[Severity(c.severity)] for c in failures]
    total = sum(weights)
    debt = sum(w * c.rate for w, c in zip(weights, failures)) / total
    variance = 0.0
    for w, c in zip(weights, failures):
        n_adj = c.n + Z95 * Z95
        p_adj = (c.rate * c.n + Z95 * Z95 / 2) / n_adj
        variance += (w / total) ** 2 * p_adj * (1 - p_adj) / n_adj
    half = Z95 * math.sqrt(variance)
    return debt, Interval(low=max(0.0, debt - half), high=min(1.0, debt + half))


def pooled_rate(categories: Iterable[CategoryResult], label: str) -> tuple[float, Interval, int]:
    """Micro-averaged rate over all candidates of one label (FA for incorrect, FR for correct)."""
    rows = [c for c in categories if c.label == label]
    n = sum(c.n for c in rows)
    k = sum(round(c.rate * c.n) for c in rows)
    return (k / n if n else 0.0), wilson(k, n), n


def gate(
    debt: float,
    categories: list[CategoryResult],
    false_rejection: float,
    security_findings: int | Sequence[SecurityFinding],
    config: GateConfig,
    *,
    enforced: bool = True,
    errors: int = 0,
    calls: int = 0,
    first_error: str | None = None,
    slices: list[SliceResult] | None = None,
    weighted: WeightedDebt | None = None,
    remote: RemoteHealth | None = None,
    nondeterminism: Nondeterminism | None = None,
    latency: Latency | None = None,
) -> GateResult:
    """The gate's verdict with every reason it failed. ``errors`` of ``calls`` verifier
    calls errored; ``first_error`` is quoted when no call succeeded (a broken import).
    ``slices``: max-category also holds on each slice with enough evidence. ``weighted``:
    the debt reweighted to the user's task mix (--weights-from), gated instead of ``debt``;
    the share of the user's tasks whose slice the audit has no candidate of is unmeasured,
    and counts against the gate as errors do. ``security_findings``: the findings (or their
    count); they are the first reason, because a verifier that let a candidate out of its
    walls is the worst news a report holds, whatever its rates (issue 31)."""
    reasons: list[str] = [security_reason(security_findings)] if security_findings else []
    waived = set(config.waived_categories)
    limits = config.category_limits
    reasons += _error_reasons(categories, errors, calls, first_error, config, waived)
    reasons += _retry_reasons(remote, config)
    reasons += _nondeterminism_reasons(nondeterminism, config)
    reasons += _latency_reasons(latency, config)
    # A waiver silences exactly its category: it is left out of the debt the gate checks too
    # (the report's coverage_debt still counts it).
    if weighted is not None:
        reasons += _weight_reasons(weighted, config)
        debt, what = (weighted.debt or 0.0), f"coverage debt weighted to {weighted.source}"
    elif waived or limits:
        debt, _ = coverage_debt(c for c in categories if c.name not in waived and c.name not in limits)
        what = "coverage debt (waived categories left out)"
    else:
        what = "coverage debt"
    if debt > config.max_debt:
        reasons.append(f"{what} {debt:.3f} > max-debt {config.max_debt:g}")
    worst = worst_slices(slices or [], config.min_slice_n)
    for c in categories:
        if c.label != "incorrect" or not c.n or c.name in waived:
            continue
        limit, flag = (limits[c.name], "waiver max_rate") if c.name in limits else (config.max_category, "max-category")
        if c.rate > limit:
            reasons.append(f"category {c.name}: false acceptance {c.rate:.2f} ({c.accepted}/{c.n}) > {flag} {limit:g}")
            continue
        s = worst.get(c.name)
        if s is not None and s.rate > limit:
            reasons.append(
                f"category {c.name} on {slice_words(s.slice)} ({s.slice}): false acceptance "
                f"{s.rate:.2f} ({s.accepted}/{s.n}) > {flag} {limit:g} (all slices: {c.rate:.2f}, "
                f"{c.accepted}/{c.n})"
            )
    fr_reasons, notes = _false_rejection_reasons(categories, false_rejection, config)
    reasons += fr_reasons
    return GateResult(passed=not reasons, enforced=enforced, reasons=reasons, notes=notes)


def _false_rejection_reasons(
    categories: list[CategoryResult], false_rejection: float, config: GateConfig
) -> tuple[list[str], list[str]]:
    """The false-rejection check, waivers treated as for false acceptance: a waived category
    of correct answers leaves the pooled rate the gate checks (the report's
    false_rejection_rate still counts it), and one waived with ``max_rate`` is held to that
    rate alone. Returns the reasons it fails and the notes that say what was left out, so
    a gate that passes because of waivers says so."""
    waived, limits = set(config.waived_categories), config.category_limits
    correct = [c for c in categories if c.label == "correct"]
    left_out = sorted(c.name for c in correct if c.name in waived or c.name in limits)
    if not left_out:
        if false_rejection > config.max_false_rejection:
            return [f"false rejection {false_rejection:.3f} > max-false-rejection {config.max_false_rejection:g}"], []
        return [], []
    reasons = []
    for c in correct:
        if c.name in limits and c.name not in waived and c.n and c.rate > limits[c.name]:
            reasons.append(
                f"category {c.name}: false rejection {c.rate:.2f} ({c.n - c.accepted}/{c.n}) > waiver "
                f"max_rate {limits[c.name]:g}"
            )
    gated, _, n = pooled_rate((c for c in correct if c.name not in left_out), "correct")
    names = ", ".join(left_out)
    if not n:
        note = (
            f"false rejection not gated: every category of correct answers is waived ({names}); "
            f"the reported false rejection {false_rejection:.3f} counts them"
        )
    else:
        note = (
            f"false rejection gated without the waived categories ({names}): {gated:.3f}; the reported "
            f"false rejection {false_rejection:.3f} counts them"
        )
        if gated > config.max_false_rejection:
            reasons.append(
                f"false rejection (waived categories left out) {gated:.3f} > max-false-rejection "
                f"{config.max_false_rejection:g}"
            )
    return reasons, [note]


# What each kind of security finding is, counted: "60 sandbox escapes (security findings)".
_FINDING_NOUNS = {
    "guard_escape": ("sandbox escape", "sandbox escapes"),
    "executes_model_output": ("execution of model output", "executions of model output"),
    "modified_fixture": ("change to a fixture database", "changes to a fixture database"),
    "read_outside": ("read outside the fixture", "reads outside the fixture"),
    "score_disguised": ("disguised score", "disguised scores"),
    "audit_aware": ("audit-aware scoring", "audit-aware scorings"),
    "persistent_state": ("sample that changes later calls' pay", "samples that change later calls' pay"),
    "lingering_work": ("call that left work running", "calls that left work running"),
}


def findings_phrase(kinds: dict[str, int]) -> str:
    """Security findings counted by what they are, most first: "60 sandbox escapes",
    "3 sandbox escapes, 1 disguised score" (a kind this table lacks is named as it is)."""

    def counted(kind: str, n: int) -> str:
        one, many = _FINDING_NOUNS.get(kind, (f"{kind} finding", f"{kind} findings"))
        return f"{n} {one if n == 1 else many}"

    return ", ".join(counted(k, n) for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))


def security_reason(findings: int | Sequence[SecurityFinding]) -> str:
    """The gate's reason for security findings, named by kind when the findings are given."""
    if isinstance(findings, int):
        return f"{findings} security finding{'' if findings == 1 else 's'}"
    kinds: dict[str, int] = defaultdict(int)
    for f in findings:
        kinds[f.kind] += 1
    return f"{findings_phrase(kinds)} (security finding{'' if len(findings) == 1 else 's'})"


def _weight_reasons(weighted: WeightedDebt, config: GateConfig) -> list[str]:
    unmatched = sum(weighted.unmatched.values())
    if weighted.debt is None:
        return [
            f"coverage debt weighted to {weighted.source}: not measured, the audit has no candidate of any of "
            f"its slices ({', '.join(sorted(weighted.unmatched))})"
        ]
    if unmatched > config.max_error_rate:
        names = ", ".join(f"{k} {v:.0%}" for k, v in sorted(weighted.unmatched.items(), key=lambda kv: -kv[1]))
        return [
            f"{unmatched:.0%} of the tasks in {weighted.source} are of slices this audit has no candidate of "
            f"({names}) > max-error-rate {config.max_error_rate:g}: not measured"
        ]
    return []


def _error_reasons(
    categories: list[CategoryResult],
    errors: int,
    calls: int,
    first_error: str | None,
    config: GateConfig,
    waived: set[str],
) -> list[str]:
    """Errors hide behaviour: what the audit could not measure counts against the gate."""
    if calls and errors == calls:
        quoted = f": {_clip(first_error, 200)!r}" if first_error else ""
        return [f"no successful call: all {calls} verifier calls errored (first error{quoted})"]
    reasons = []
    if calls and errors / calls > config.max_error_rate:
        reasons.append(
            f"error rate {errors / calls:.3f} ({errors}/{calls} calls) > max-error-rate "
            f"{config.max_error_rate:g}: errored calls measure nothing"
        )
    for c in categories:
        if not c.measured and c.name not in waived:
            kinds = ", ".join(f"{k} {n}" for k, n in c.error_kinds.items()) or "errors"
            reasons.append(f"category {c.name}: not measured, all {c.errors} calls errored ({kinds})")
    return reasons


def _retry_reasons(remote: RemoteHealth | None, config: GateConfig) -> list[str]:
    """A server whose requests the client had to retry: the error rate does not show it."""
    if remote is None or remote.retry_rate <= config.max_retry_rate:
        return []
    retried = sum(remote.retried.values())
    return [
        (
            f"retry rate {remote.retry_rate:.3f} ({retried:,} of {remote.requests:,} requests retried: "
            f"{_by_count(remote.retried)}) > max-retry-rate {config.max_retry_rate:g}: the server failed requests "
            "that only the retries answered"
        )
    ]


def _nondeterminism_reasons(probe: Nondeterminism | None, config: GateConfig) -> list[str]:
    """Candidates whose score changed when scored again: training pays them sometimes."""
    if probe is None or not probe.flipped or probe.rate <= config.max_nondeterminism:
        return []
    example = f"; e.g. {probe.examples[0]}" if probe.examples else ""
    return [
        f"nondeterminism {probe.rate:.3f} ({probe.flipped} of {probe.candidates} candidates changed score when "
        f"scored again, 95% CI {probe.ci.low:.2f}-{probe.ci.high:.2f}) > max-nondeterminism "
        f"{config.max_nondeterminism:g}: training pays the same answer sometimes{example}"
    ]


def _latency_reasons(latency: Latency | None, config: GateConfig) -> list[str]:
    """Categories whose p99 call time is over --max-call-seconds (off by default)."""
    limit = config.max_call_seconds
    if latency is None or limit is None:
        return []
    over = [c for c in latency.categories if c.p99 > limit]
    if not over:
        return []
    named = ", ".join(f"{c.category} {duration(c.p99)}" for c in over[:3]) + (
        f" and {len(over) - 3} more" if len(over) > 3 else ""
    )
    first = latency.slowest[0] if latency.slowest else None
    slowest = f"; slowest call: {first.candidate_id} {duration(first.seconds)}" if first else ""
    return [
        f"p99 call time over max-call-seconds {limit:g} in {len(over)} categor{'y' if len(over) == 1 else 'ies'}: {named}{slowest}"
    ]


def duration(seconds: float) -> str:
    """A call time in the unit that reads: ``840 us``, ``12.3 ms``, ``1.84 s``."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def latency_words(latency: Latency, categories: int = 3) -> str:
    """One line on the call times, for every report format: ``p50 1.2 ms, p99 4.1 ms over
    1,234 calls; slowest categories (p99): math.x 9.8 ms, ...; slowest call: id (category) 12 ms``."""
    said = f"p50 {duration(latency.p50)}, p99 {duration(latency.p99)} over {latency.calls:,} calls"
    if latency.categories:
        said += "; slowest categories (p99): " + ", ".join(
            f"{c.category} {duration(c.p99)}" for c in latency.categories[:categories]
        )
    if latency.slowest:
        s = latency.slowest[0]
        said += f"; slowest call: {s.candidate_id} ({s.category}) {duration(s.seconds)}" + (
            f", {s.error}" if s.error else ""
        )
    return said


def nondeterminism_words(probe: Nondeterminism) -> str:
    """One line on the repeat probe: ``0 of 40 candidates changed score when scored again
    (flip-prone ones 8 times each; 95% CI 0-8.8%)``."""
    which = "for a judge, spread over the categories, paid and refused," if probe.judged else "the flip-prone ones"
    said = (
        f"{probe.flipped} of {probe.candidates} candidates changed score when scored again ({which} "
        f"{probe.repeats} times each; {probe.rate:.1%}, 95% CI {probe.ci.low:.1%}-{probe.ci.high:.1%})"
    )
    if probe.examples:
        said += f": {probe.examples[0]}"
    if probe.errors:
        said += f"; {probe.errors} repeat calls errored"
    return said + ("; stopped early" if probe.stopped_early else "")


def percentile(ordered: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (0 < q <= 100) of sorted values: a value some
    call took, never an interpolation between two; 0.0 for none."""
    if not ordered:
        return 0.0
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def _by_count(counts: dict[str, int]) -> str:
    """``HTTP 500 251, connection reset 3``: the most frequent first."""
    return ", ".join(f"{k} {n:,}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def remote_words(remote: RemoteHealth) -> str:
    """One line on a remote style's requests, for every report format: ``HTTP 500 on 14% of
    requests (251 of 1,797), retried; 0 calls failed after retries``."""
    n = remote.requests
    order = sorted(remote.retried.items(), key=lambda kv: (-kv[1], kv[0]))
    if not n:
        said = f"no request counted for {remote.calls:,} calls"
    elif not order:
        said = f"{n:,} requests for {remote.calls:,} calls, none retried"
    else:
        said = ", ".join(
            f"{status} on {_share(k, n)} of requests ({k:,} of {n:,})"
            if i == 0
            else f"{status} on {_share(k, n)} ({k:,})"
            for i, (status, k) in enumerate(order)
        )
        said += ", retried"
    failed = sum(remote.failed.values())
    after = " after retries" if order else ""
    tail = f"{failed:,} calls failed{after} ({_by_count(remote.failed)})" if failed else f"0 calls failed{after}"
    return f"{said}; {tail}"


def _share(k: int, n: int) -> str:
    return "<1%" if 0 < k < n / 100 else f"{k / n:.0%}"


def accepted(score: float | None, threshold: float) -> bool | None:
    return None if score is None else score >= threshold
