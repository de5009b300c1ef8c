"""Probes of a verifier beyond its verdicts: is it deterministic, and is it safe to call from
several threads and several processes? Evidence for the security checklist
(``report/checklist.py``), recorded in ``Report.checks``.

On a sample of candidates the verifier scored without error (``AuditOptions.probe_sample``,
spread over categories, the same for the same seed), after the audit's verdicts are in:

* **determinism** — each sampled candidate is scored again, in fresh worker processes of the
  engine's pool, and the score must equal the audit's exactly. Those processes are not the
  ones that gave the verdicts, so this comparison is also the **process-safety** evidence: a
  verifier that keeps state in its process (a cache keyed on ``id()``, a counter) shows
  here.
* **threads** — inside one worker, ``THREADS`` threads released together by a barrier score
  the sampled candidate (even threads) and a partner (odd threads): another candidate of
  the same task, one the verifier scored differently when there is one, so that state
  shared between two calls shows as a changed score. Every result must equal that
  candidate's score; a thread that raises disagrees, with its error recorded. In domains
  whose verifier calls are isolated (``isolate_verifier_calls``, the code domain) the
  threads run inside the isolated call, never in the worker itself.

* **nondeterminism** (issue 34) — the candidates most likely to flip (``flip_prone``: partial
  scores nearest the threshold, the worst categories' misjudged candidates, near-misses) are
  scored ``REPEATS`` times more, in the determinism probe's workers and run; a candidate
  flipped when any of its scores differs from the audit's. One re-score of 24 candidates
  misses a grader that checks 2 of its 5 cases at random: the candidates that can flip are
  rarely among them, and one call of a 1-in-3 flip misses it two times in three.
  ``REPEATS`` = 8 finds a 1-in-3 flip on one such candidate with probability
  1 - (2/3)**8 = 0.961 (docs/grader-behaviour.md shows the arithmetic). A verifier whose
  style says a model may give its verdicts (``VerifierSpec.judged``: an LLM judge, a reward
  server) can flip on any candidate: its repeats are spread over the categories, paid and
  refused, right and wrong (``Nondeterminism.judged``).

Every call goes through ``pool.run`` with the audit's memory limit and per-call timeout (the
threaded call runs ``THREADS`` calls on one clock: it gets the timeout plus room for them at
twice the first pass's pace, at most ``THREADS`` times the timeout). Probe outcomes never reach the results store: its rows are the audit's verdicts,
so a resumed audit runs the probes again. A probe stops after ``MAX_FAILURES`` timeouts or
crashes, so a verifier that hangs under threads costs a few timeouts, not the sample's.
"""

from __future__ import annotations

import math
import random
import threading
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from ..domains import get_domain
from ..loading import VerifierSpec
from ..metrics import wilson
from ..models import Checks, Nondeterminism, ProbeResult, Verdict
from . import pool
from .sensing import cross_check, round_robin
from .verifier_job import VerifierJob

if TYPE_CHECKING:
    from .options import AuditOptions, Prepared

THREADS = 4
# Each flip-prone candidate is scored REPEATS more times: (2/3)**8 = 0.039 < 0.05, so a
# candidate paid 1 time in 3 (or refused 1 time in 3) shows a flip with >= 95% probability.
REPEATS = 8
FLIP_CANDIDATES = 16  # flip-prone candidates repeated: REPEATS x this many calls, 128
MAX_EXAMPLES = 5
MAX_FAILURES = 1  # a timeout or crash is evidence enough: the probe stops (each costs a full limit)


def select_sample(prepared: Prepared, verdicts: dict[str, Verdict], size: int, seed: int) -> list[int]:
    """Indices (into ``prepared.candidates``) of up to ``size`` candidates whose verdict is ok:
    one per category in a seeded order of categories, then a second round, and so on."""
    if size <= 0:
        return []
    by_category: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(prepared.candidates):
        v = verdicts.get(c.id)
        if v is not None and v.status == "ok" and v.score is not None:
            by_category[c.category].append(i)
    rng = random.Random(f"verifier-audit-probes:{seed}")  # a str seed: the same in every process
    names = sorted(by_category)
    rng.shuffle(names)
    queues = []
    for name in names:
        members = by_category[name][:]
        rng.shuffle(members)
        queues.append(members)
    return round_robin(queues, size)


def flip_prone(
    prepared: Prepared,
    verdicts: dict[str, Verdict],
    size: int,
    threshold: float,
    *,
    judged: bool = False,
    seed: int = 0,
) -> list[int]:
    """Indices of up to ``size`` candidates, scored without error, most likely to flip
    between calls: first those with a partial score (strictly between 0 and 1: right on
    some of the cases, wrong on others), nearest the threshold first; then, for a grader
    that runs rules,

    * the misjudged candidates of the worst categories (highest misjudged share first), a
      wrong answer paid or a right one refused being where a random check shows;
    * then near-misses, one per category in turn.

    For a ``judged`` verifier (its style says a model may give its verdicts,
    ``VerifierSpec.judged``) a flip is not tied to a near-miss: a judge at temperature > 0
    can waver on any answer. Its candidates are spread instead over the four cells of
    label x verdict -- right answers paid, wrong ones refused, wrong ones paid, right ones
    refused -- one cell after the other in turn, and within a cell one candidate per
    category in turn, the categories in a seeded order (the same for the same ``seed``).
    Deterministic: the candidates' order breaks ties."""
    if size <= 0:
        return []
    ok = [
        i
        for i, c in enumerate(prepared.candidates)
        if (v := verdicts.get(c.id)) is not None and v.status == "ok" and v.score is not None
    ]
    score: dict[int, float] = {}
    for i in ok:
        value = verdicts[prepared.candidates[i].id].score
        assert value is not None  # ``ok`` keeps scored verdicts only
        score[i] = value
    partial = sorted((i for i in ok if 0 < score[i] < 1), key=lambda i: (abs(score[i] - threshold), i))
    rest = (
        _spread(prepared, ok, score, size, threshold, seed)
        if judged
        else _rule_prone(prepared, ok, score, size, threshold)
    )
    out: list[int] = []
    for i in partial + rest:
        if i not in out:
            out.append(i)
            if len(out) == size:
                break
    return out


def _rule_prone(prepared: Prepared, ok: list[int], score: dict[int, float], size: int, threshold: float) -> list[int]:
    """A rule-based grader's flip-prone candidates after the partial scores (``flip_prone``)."""
    by_category: dict[str, list[int]] = defaultdict(list)
    for i in ok:
        by_category[prepared.candidates[i].category].append(i)

    def misjudged(i: int) -> bool:
        return (score[i] >= threshold) is (prepared.candidates[i].label == "incorrect")

    share = {name: sum(map(misjudged, members)) / len(members) for name, members in by_category.items()}
    worst = sorted((name for name in by_category if share[name] > 0), key=lambda name: (-share[name], name))
    wrong = round_robin([[i for i in by_category[name] if misjudged(i)] for name in worst], size)
    near = round_robin(
        [
            [i for i in by_category[name] if prepared.candidates[i].origin == "near_miss"]
            for name in sorted(by_category)
        ],
        size,
    )
    return wrong + near


def _spread(
    prepared: Prepared, ok: list[int], score: dict[int, float], size: int, threshold: float, seed: int
) -> list[int]:
    """A judged verifier's candidates after the partial scores (``flip_prone``): the cells
    right-paid, wrong-refused, wrong-paid, right-refused in turn, each one per category in turn."""
    names = sorted({prepared.candidates[i].category for i in ok})
    random.Random(f"verifier-audit-flips:{seed}").shuffle(names)  # a str seed: the same in every process
    cells = []
    for right, paid in ((True, True), (False, False), (False, True), (True, False)):
        members: dict[str, list[int]] = defaultdict(list)
        for i in ok:
            c = prepared.candidates[i]
            if (c.label == "correct") is right and (score[i] >= threshold) is paid:
                members[c.category].append(i)
        cells.append(round_robin([members[name] for name in names if name in members], size))
    return round_robin(cells, size)


def partners(prepared: Prepared, verdicts: dict[str, Verdict], sample: list[int]) -> list[int]:
    """For each sampled candidate, the candidate its odd threads score: of the same task and
    scored differently when possible, else of the same task, else the next sampled one."""
    by_task: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(prepared.candidates):
        v = verdicts.get(c.id)
        if v is not None and v.status == "ok" and v.score is not None:
            by_task[c.task_id].append(i)
    out = []
    for j, i in enumerate(sample):
        c = prepared.candidates[i]
        mates = [m for m in by_task[c.task_id] if m != i]
        score = verdicts[c.id].score
        differ = [m for m in mates if verdicts[prepared.candidates[m].id].score != score]
        choices = differ or mates
        # Deterministic and spread: the mate at a position fixed by the sample's order.
        out.append(choices[j % len(choices)] if choices else sample[(j + 1) % len(sample)])
    return out


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return False
    return a == b or (math.isnan(a) and math.isnan(b))


def _fmt(score: float | None) -> str:
    return repr(float(score)) if score is not None else "None"


def _well_formed(value: Any, pair: tuple[int, int]) -> bool:
    """The threaded call's result as the worker built it: THREADS [index, ok, score|error]."""
    if not isinstance(value, dict) or not isinstance(value.get("results"), list) or len(value["results"]) != THREADS:
        return False
    for row in value["results"]:
        if not (isinstance(row, (list, tuple)) and len(row) == 3 and row[0] in pair and isinstance(row[1], bool)):
            return False
        if not isinstance(row[2], float if row[1] else str):
            return False
    return True


def _is_failure(error: str) -> bool:
    return error.startswith(("timeout", "crash", "MemoryError"))


class _ProbeJob(VerifierJob):
    """The audit's verifier job; items ``>= len(candidates)`` are threaded probes of
    ``sample[item - len(candidates)]``. Dispatch is in ``_score``, so in isolated domains
    the threaded scoring runs inside the sandboxed call. A module-level class, so that it
    can be sent to a clean worker."""

    def __init__(
        self,
        spec: VerifierSpec,
        prepared: Prepared,
        options: AuditOptions,
        timeout: float,
        sample: list[int],
        mates: list[int],
    ) -> None:
        super().__init__(
            spec,
            prepared.candidates,
            {t.id: t for t in prepared.tasks},
            get_domain(prepared.domain),
            timeout,
            options.memory_mb,
        )
        self.sample, self.mates = sample, mates
        self.n = len(prepared.candidates)

    def _pair(self, j: int) -> tuple[int, int]:
        return self.sample[j], self.mates[j]

    def _score(self, item: int) -> Any:
        if item < self.n:
            return super()._score(item)
        return self._threaded(item - self.n)

    def _threaded(self, j: int) -> list:
        target, partner = self._pair(j)
        order = [target if k % 2 == 0 else partner for k in range(THREADS)]
        for i in set(order):  # the engine's own lazy state, made before the threads start
            self._view(self.tasks[self.items[i][0]])
        barrier = threading.Barrier(THREADS)
        out: list = [None] * THREADS
        score_one = super()._score

        def run(k: int) -> None:
            try:
                barrier.wait(timeout=60)
                out[k] = [order[k], True, float(score_one(order[k]))]
            except BaseException as exc:  # noqa: BLE001 - SystemExit too: the verifier's error
                try:
                    text = f"{type(exc).__name__}: {exc}"
                except BaseException:  # noqa: BLE001 - a hostile __str__
                    text = type(exc).__name__
                out[k] = [order[k], False, text[:300]]

        threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(THREADS)]
        started = []
        try:
            for t in threads:
                t.start()
                started.append(t)
        except RuntimeError as exc:  # cannot start a thread (process limit): abort the rest
            barrier.abort()
            for k in range(len(started), THREADS):
                out[k] = [order[k], False, f"RuntimeError: {exc}"[:300]]
        for t in started:
            t.join()
        return out

    def __call__(self, item: int) -> Any:
        value = super().__call__(item)
        if item < self.n:
            return value
        return {"isolated": self.sandbox is not None, "results": value}

    def after(self, item: int) -> list[str]:
        if item < self.n:
            return super().after(item)
        found: list[str] = []
        for i in sorted(set(self._pair(item - self.n))):
            found += super().after(i)
        return found


def _make_job(
    spec: VerifierSpec, prepared: Prepared, options: AuditOptions, timeout: float, sample: list[int], mates: list[int]
) -> _ProbeJob:
    return _ProbeJob(spec, prepared, options, timeout, sample, mates)


def _run(job, items: list[int], options: AuditOptions, timeout: float):
    """Outcomes by item; stops after MAX_FAILURES timeouts or crashes (stopped_early)."""
    outcomes, failures, stopped = {}, 0, False
    gen = pool.run(
        job,
        items,
        workers=options.workers,
        timeout=timeout,
        memory_mb=options.memory_mb,
        quiet=options.quiet_workers,
        clean=getattr(job, "clean", False),
        isolation=job.isolation_level(options.isolation) if isinstance(job, VerifierJob) else "process",
        tree_memory=isinstance(job, VerifierJob),
        bounded=getattr(job, "bounded", False),
        file_mb=options.file_mb,
        max_processes=options.max_processes,
    )
    try:
        for out in gen:
            outcomes[out.index] = out
            if not out.ok and _is_failure(out.error or ""):
                failures += 1
                if failures >= MAX_FAILURES and len(outcomes) < len(items):
                    stopped = True
                    break
    finally:
        gen.close()  # stops the pool's workers
    return outcomes, stopped


def _determinism(
    prepared: Prepared,
    spec: VerifierSpec,
    verdicts: dict[str, Verdict],
    sample: list[int],
    flips: list[int],
    options: AuditOptions,
) -> tuple[ProbeResult, Nondeterminism]:
    """The sample scored once more, then the flip-prone candidates ``REPEATS`` times each,
    round by round (a probe stopped early has some repeats of every one), in one run of
    fresh workers: one pool start for both probes."""
    order = sample + [i for _ in range(REPEATS) for i in flips]
    job = VerifierJob(
        spec,
        [prepared.candidates[i] for i in order],
        {t.id: t for t in prepared.tasks},
        get_domain(prepared.domain),
        options.timeout,
        options.memory_mb,
    )
    outcomes, stopped = _run(job, list(range(len(order))), options, options.timeout)
    disagreed = errors = 0
    examples = []
    for k, i in enumerate(sample):
        if k not in outcomes:
            continue
        c, out = prepared.candidates[i], outcomes[k]
        first = verdicts[c.id].score
        if out.ok and _same(first, float(out.value)):
            continue
        disagreed += 1
        if out.ok:
            examples.append(f"{c.id}: {_fmt(first)} then {_fmt(out.value)}")
        else:
            errors += 1
            examples.append(f"{c.id}: {_fmt(first)} then error ({out.error})")
    determinism = ProbeResult(
        sampled=len([k for k in range(len(sample)) if k in outcomes]),
        disagreed=disagreed,
        errors=errors,
        examples=examples[:MAX_EXAMPLES],
        stopped_early=stopped,
    )
    return determinism, _flips(prepared, verdicts, order, outcomes, stopped, spec.judged)


def _flips(
    prepared: Prepared, verdicts: dict[str, Verdict], order: list[int], outcomes: dict, stopped: bool, judged: bool
) -> Nondeterminism:
    """Per distinct candidate, its repeats' scores against the audit's: flipped when one
    differs. An errored repeat is no flip (the error rate and the threads probe see those)."""
    scores: dict[int, list[float]] = defaultdict(list)
    failed = 0
    for k, i in enumerate(order):
        out = outcomes.get(k)
        if out is None:
            continue
        if out.ok:
            scores[i].append(float(out.value))
        else:
            failed += 1
    flipped, examples = 0, []
    for i, got in scores.items():
        c = prepared.candidates[i]
        first = verdicts[c.id].score
        other = [x for x in got if not _same(first, x)]
        if other:
            flipped += 1
            examples.append(f"{c.id} ({c.category}): {_fmt(first)} then {_fmt(other[0])} on {len(other)} of {len(got)}")
    n = len(scores)
    return Nondeterminism(
        candidates=n,
        repeats=REPEATS,
        calls=len(outcomes),
        flipped=flipped,
        rate=round(flipped / n, 6) if n else 0.0,
        ci=wilson(flipped, n),
        errors=failed,
        examples=examples[:MAX_EXAMPLES],
        stopped_early=stopped,
        judged=judged,
    )


def _threads(
    prepared: Prepared, spec: VerifierSpec, verdicts: dict[str, Verdict], sample: list[int], options: AuditOptions
) -> tuple[ProbeResult, bool]:
    mates = partners(prepared, verdicts, sample)
    # THREADS calls share one clock: room for all of them at the pace of the first pass (twice
    # over, for contention), never less than one call's limit nor more than two of them (a
    # deadlock must not cost THREADS limits).
    slowest = max(verdicts[prepared.candidates[i].id].seconds for i in sample + mates)
    timeout = min(options.timeout * 2, options.timeout + 2 * THREADS * slowest)
    job = _make_job(spec, prepared, options, timeout, sample, mates)
    n = len(prepared.candidates)
    items = [n + j for j in range(len(sample))]
    outcomes, stopped = _run(job, items, options, timeout)
    disagreed = errors = 0
    examples = []
    isolated = False
    for j, item in enumerate(items):
        if item not in outcomes:
            continue
        out = outcomes[item]
        c = prepared.candidates[sample[j]]
        if out.ok and not _well_formed(out.value, job._pair(j)):
            out = pool.Outcome(item, False, error="malformed probe result (the verifier tampered with it?)")
        if not out.ok:
            disagreed += 1
            errors += 1
            examples.append(f"{c.id}: {_fmt(verdicts[c.id].score)} then error ({out.error}, {THREADS} threads)")
            continue
        isolated = isolated or bool(out.value.get("isolated"))
        wrong = []
        results = out.value["results"]
        for k, (index, ok, value) in enumerate(results):
            other = prepared.candidates[index]
            first = verdicts[other.id].score
            if ok and _same(first, float(value)):
                continue
            got = _fmt(value) if ok else f"error ({value})"
            beside = sorted({prepared.candidates[i].id for i, _, _ in results} - {other.id})
            along = f", alongside {beside[0]}" if beside else ""
            wrong.append((ok, f"{other.id}: {_fmt(first)} then {got} (thread {k + 1} of {THREADS}{along})"))
        if wrong:
            disagreed += 1
            if any(not ok for ok, _ in wrong):
                errors += 1
            if wrong[0][1] not in examples:
                examples.append(wrong[0][1])
    result = ProbeResult(
        sampled=len(outcomes),
        disagreed=disagreed,
        errors=errors,
        examples=examples[:MAX_EXAMPLES],
        stopped_early=stopped,
    )
    return result, isolated


def run_probes(prepared: Prepared, spec: VerifierSpec, verdicts: dict[str, Verdict], options: AuditOptions) -> Checks:
    """The checks of one verifier whose verdicts are in (``verdicts``: candidate id -> the
    audit's verdict). ``options.probe_sample`` 0: only the split counts, no probe runs."""
    tasks = {t.id: t for t in prepared.tasks}
    splits = Counter(tasks[c.task_id].split for c in prepared.candidates if c.id in verdicts)
    checks = Checks(sample=max(0, options.probe_sample), thread_count=THREADS, splits=dict(sorted(splits.items())))
    if options.probe_sample <= 0:
        return checks
    sample = select_sample(prepared, verdicts, options.probe_sample, options.seed)
    if not sample:  # nothing was scored without error: nothing to compare with
        checks.determinism = ProbeResult(sampled=0, disagreed=0, errors=0)
        checks.threads = ProbeResult(sampled=0, disagreed=0, errors=0)
        return checks
    flips = flip_prone(prepared, verdicts, FLIP_CANDIDATES, options.threshold, judged=spec.judged, seed=options.seed)
    checks.determinism, checks.nondeterminism = _determinism(prepared, spec, verdicts, sample, flips, options)
    checks.cross_process = checks.determinism.sampled > 0
    checks.threads, checks.isolated = _threads(prepared, spec, verdicts, sample, options)
    checks.training_like = cross_check(prepared, spec, verdicts, options)  # its own sample (engine/sensing.py)
    return checks
