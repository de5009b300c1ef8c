"""The data that flows through an audit: tasks, candidates, verdicts and the report.

Everything here is a pydantic v2 model so that every file the tool writes (candidates
JSONL, results JSONL, the report JSON) validates on the way back in. The report's JSON
shape is a public contract: bump ``SCHEMA_VERSION`` when a field changes meaning or goes
away (adding a field is a minor bump).
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = (
    "1.10"  # 1.1: mutant_survival; 1.2: checks (determinism, thread and process probes), category error_kinds;
)
# 1.3: error_messages, category measured, checks.unobserved; 1.4: formats (answer formats read);
# 1.5: slices (category x slice), exploitable_tasks, weighted_debt; 1.6: source_findings (verifier-audit scan);
# 1.7: out_of_range (scores outside [0, 1]); 1.8 (issue 31): Example.answer, GateResult.notes, remote;
# 1.9 (issues 33, 34): source_files, SourceFinding.via, SearchFamily.reach_measured,
# checks.nondeterminism (its judged), latency, GateConfig's max_nondeterminism and max_call_seconds;
# 1.10 (issue 36): authority (completions that write outside the paths their task allows)

Domain = str  # "math" | "sql" | "code" | a plugin's name
Split = Literal["train", "heldout", "shifted"]
Origin = Literal["near_miss", "known_bad", "equivalent", "sampled", "search"]
Label = Literal["correct", "incorrect"]
# What a search exploit shows: a wrong answer paid, or a right answer refused.
SearchDirection = Literal["false_acceptance", "false_rejection"]


class Severity(str, Enum):
    low = "low"
    medium = "medium"
    high = "high"
    critical = "critical"


# Weights of the coverage-debt mean: a critical hole counts four times a cosmetic one.
SEVERITY_WEIGHT = {Severity.low: 1.0, Severity.medium: 2.0, Severity.high: 3.0, Severity.critical: 4.0}


class Task(BaseModel):
    """One problem with a known reference answer (math), query (sql) or solution (code)."""

    model_config = ConfigDict(extra="allow")

    id: str
    domain: Domain
    prompt: str
    reference: str
    split: Split = "train"
    metadata: dict[str, Any] = Field(default_factory=dict)
    # Domain fields. sql: path of a DuckDB file the verifier may open, set by the
    # domain at run time to a private copy of the task's fixture.
    database: str | None = None


class Candidate(BaseModel):
    """A completion whose truth is known, to be shown to the verifier under audit."""

    id: str
    task_id: str
    text: str
    origin: Origin
    category: str  # dotted: math.near_miss.sign_flip, math.hedge.two_boxes, ...
    severity: Severity = Severity.medium
    label: Label
    label_source: str = "construction+oracle"
    note: str = ""  # what was done to the reference, for humans reading the report
    # The answer format the text is written in (domains/formats.py): "boxed", "gsm8k", ...
    # None: not known (a domain without formats, a completion that states no answer).
    format: str | None = None
    # Its task's slices, "dimension:value" (engine/slices.py): math "answer:integer",
    # "magnitude:1-999"; sql "query:join"; code "returns:list". The first is the primary one.
    slices: list[str] = Field(default_factory=list)


class DroppedCandidate(BaseModel):
    """A generated candidate whose intended label the oracle did not confirm."""

    id: str
    task_id: str
    category: str
    # equivalent_mutant | outside_contract | not_equivalent | oracle_unknown | oracle_timeout | oracle_error
    reason: str
    text: str = ""


VerdictStatus = Literal["ok", "error"]


class Verdict(BaseModel):
    """What one verifier said about one candidate."""

    verifier: str
    candidate_id: str
    status: VerdictStatus
    score: float | None = None
    accepted: bool | None = None
    error: str | None = None  # "timeout after 10s", "crash: exit code 1", "ValueError: ..."
    security: list[str] = Field(default_factory=list)  # canaries that fired during the call
    seconds: float = 0.0


class Interval(BaseModel):
    low: float
    high: float


class Example(BaseModel):
    candidate_id: str
    task_id: str
    text: str
    reference: str
    note: str = ""
    score: float | None = None
    # The part of ``text`` the domain reads as the final answer, when it can say (1.8):
    # renderers clip an example around it, never through it (report.text.excerpt).
    answer: str = ""


class CategoryResult(BaseModel):
    name: str
    origin: Origin
    severity: Severity
    label: Label
    n: int  # verdicts that are not errors
    accepted: int
    rate: float  # false acceptance for incorrect categories, false rejection for correct ones
    ci: Interval
    errors: int = 0
    error_kinds: dict[str, int] = Field(default_factory=dict)  # timeout | crash | exception type -> count (1.2)
    # False when every call of the category errored (n == 0 < errors): nothing was measured,
    # which the gate counts against the verifier (1.3).
    measured: bool = True
    examples: list[Example] = Field(default_factory=list)  # the misjudged ones, a few


class SliceResult(BaseModel):
    """One category on the candidates of one slice of tasks (schema 1.5): a hole confined to
    a slice (sign flips paid on integer answers only) shows here at full strength."""

    category: str
    slice: str  # "answer:integer"
    label: Label
    n: int
    accepted: int
    rate: float  # false acceptance (incorrect) or false rejection (correct) within the slice
    ci: Interval
    errors: int = 0


class ExploitableTasks(BaseModel):
    """The share of tasks on which at least one wrong candidate of an origin is paid: the
    fraction of training prompts on which a wrong answer can earn reward (schema 1.5)."""

    origin: str  # near_miss | known_bad | search | all
    tasks: int  # tasks with at least one wrong candidate of this origin scored without error
    exploitable: int  # of those, tasks where one of them was accepted
    rate: float
    ci: Interval


class WeightedDebt(BaseModel):
    """The coverage debt reweighted to the user's own mix of task slices (--weights-from)."""

    source: str  # the file the weights came from
    dimension: str  # the slice dimension weighed: "answer", "query", "returns"
    weights: dict[str, float]  # slice -> share of the user's tasks
    # Sum over the slices audited of weight x the slice's coverage debt, renormalised over
    # them; None when the audit has no candidate of any of the user's slices.
    debt: float | None = None
    per_slice: dict[str, float] = Field(default_factory=dict)  # slice -> its coverage debt
    unmatched: dict[str, float] = Field(
        default_factory=dict
    )  # slices of the user's tasks the audit has no candidate of


class SearchFamily(BaseModel):
    """One family of exploits the search found (``<domain>.search.<family>``): the shrunk
    chain of edits, one minimal example, and its reach over the audit's tasks."""

    name: str  # "last_digit", "grow@near_miss"
    category: str  # "math.search.last_digit"; "math.search.rejects.<family>" for false rejection
    # false_acceptance: wrong answers it pays; false_rejection: right answers it refuses
    direction: SearchDirection = "false_acceptance"
    operators: list[str]  # the shrunk chain, in order
    start: str  # what the chain starts from: "reference", or the category of a wrong candidate
    task_id: str
    example: str  # the minimal exploit, clipped
    score: float  # what the verifier gave it
    reach_tasks: int  # tasks the family's edit applies to (and gives a wrong answer, by the oracle)
    reach_misjudged: int  # of those, the tasks misjudged: paid (false acceptance) or refused (false rejection)
    found_after: int  # verifier calls spent when the first exploit of the family was found
    # False: the budget ran out before the reach was measured (reach_tasks is then 0, not a
    # measurement); the search keeps back what the reach of the families it finds needs
    reach_measured: bool = True


class LazyPolicy(BaseModel):
    """An answer-free strategy (always 0, the prompt's last number, ...): its mean reward."""

    name: str
    tasks: int
    mean_reward: float  # mean score over (task, completion) pairs, errors left out
    paid: int  # completions accepted
    calls: int
    errors: int = 0


class SearchSummary(BaseModel):
    """What ``--search CALLS`` did (schema 1.5)."""

    budget: int
    calls: int  # verifier calls spent: exploration, shrinking, reach and lazy policies
    errors: int = 0
    error_kinds: dict[str, int] = Field(default_factory=dict)
    stopped_early: str | None = None  # why the search stopped before its budget, if it did
    first_exploit_after: int | None = None  # calls spent when the first exploit was found
    exploits_found: int = 0  # distinct paid, wrong texts met during exploration
    tasks_searched: int = 0
    families: list[SearchFamily] = Field(default_factory=list)
    lazy_policies: list[LazyPolicy] = Field(default_factory=list)


class OutOfRange(BaseModel):
    """The calls whose score lies outside [0, 1] (schema 1.7), and how each was treated.

    A reward may be scaled so on purpose (-1 for a malformed answer, 2 with a format
    bonus), so they are counted and shown, never a gate reason by themselves. A finite one
    keeps its verdict as the threshold gives it -- above 1 accepted, below 0 rejected, the
    same as clamping it into [0, 1] for any threshold in (0, 1] -- so the rates count them
    as training pays them. NaN and the infinities are no number a trainer can use: error
    verdicts (kind ``ScoreOutOfRange``), counted in the error rate."""

    calls: int = 0  # all of them: above + below + not_finite
    above: int = 0  # finite scores > 1: kept; accepted (>= the threshold)
    below: int = 0  # finite scores < 0: kept; rejected
    not_finite: int = 0  # NaN, inf, -inf: error verdicts
    examples: list[str] = Field(default_factory=list)  # a few "candidate_id: 2.0", in candidate order


class RemoteHealth(BaseModel):
    """The requests of a remote style's calls (a reward server, an LLM judge; schema 1.8).

    A request the client retried and then got an answer for leaves no error verdict: a
    server that fails one request in seven looks healthy by the error rate alone. So each
    request is counted by what it got (frameworks/_client.py ``RequestLog``), and the share
    retried is gated (``max_retry_rate``): the audit leaned on the retries, and training,
    with other retries or none, may get those failures as rewards of 0."""

    calls: int = 0  # the verifier calls (verdicts)
    requests: int = 0  # every request they sent, retries included
    retried: dict[str, int] = Field(default_factory=dict)  # "HTTP 500" -> requests retried after it
    # calls that ended without an answer, by what their last request got ("HTTP 500" after
    # the retries, "timeout", "HTTP 404"); they are error verdicts too
    failed: dict[str, int] = Field(default_factory=dict)
    retry_rate: float = 0.0  # sum(retried) / requests


class SecurityFinding(BaseModel):
    kind: str  # executes_model_output | score_disguised | ...
    candidate_id: str
    task_id: str
    detail: str


class GateResult(BaseModel):
    passed: bool
    enforced: bool = True
    reasons: list[str] = Field(default_factory=list)
    #: what the gate left out of a check, and why, whether it passed or not: the waived
    #: categories of correct answers left out of the gated false rejection (issue 31)
    notes: list[str] = Field(default_factory=list)


class GateConfig(BaseModel):
    max_debt: float = 0.05
    max_category: float = 0.5
    max_false_rejection: float = 0.10
    # Errors hide behaviour: a verifier whose calls error is not measured on them, so too
    # many errors (or a category with no successful call) fail the gate like a hole does.
    max_error_rate: float = 0.05
    # A remote style's requests retried (Report.remote): as many as errors are tolerated.
    max_retry_rate: float = 0.05
    waived_categories: list[str] = Field(default_factory=list)
    # A waiver with an accepted rate: the category may go up to this false acceptance.
    category_limits: dict[str, float] = Field(default_factory=dict)
    # max_category also applies to each slice of a category with at least this many
    # candidates scored (fewer is not evidence enough to fail a gate on).
    min_slice_n: int = 10
    # Share of the repeated candidates whose score changed between calls (checks.nondeterminism):
    # training pays such an answer sometimes, so by default any flip fails.
    max_nondeterminism: float = 0.0
    # The p99 call time of every category at most this (Report.latency); None: not gated.
    max_call_seconds: float | None = None


class TaskSurvival(BaseModel):
    """One task's near-miss mutants: how many the oracle found equivalent (dropped), how
    many were judged, and which of them the verifier accepted (they survive its tests)."""

    task_id: str
    equivalent: int
    judged: int
    survivors: list[str] = Field(default_factory=list)  # "category: what was mutated"


class MutantSurvival(BaseModel):
    """Mutation analysis of the verifier's tests over the near-miss candidates."""

    generated: int  # near-misses generated (judged + equivalent + errors)
    equivalent: int  # dropped: the oracle could not tell them from the reference
    judged: int
    survived: int
    rate_before_filtering: float  # (survived + equivalent) / (judged + equivalent)
    rate_after_filtering: float  # survived / judged
    tasks: list[TaskSurvival] = Field(default_factory=list)  # tasks with a survivor or an equivalent


class ProbeResult(BaseModel):
    """One probe of the verifier on a sample of candidates it had scored without error."""

    sampled: int  # candidates probed
    disagreed: int  # candidates with a probe result unequal to the audit's score (errors included)
    errors: int  # of those, candidates whose probe raised, timed out or crashed
    examples: list[str] = Field(default_factory=list)  # a few "candidate_id: 1.0 then 0.0"
    stopped_early: bool = False  # stopped after repeated timeouts or crashes: fewer sampled


class CrossCheck(ProbeResult):
    """The verdicts on a sample compared with the same verifier's scores in a process
    shaped like a training job's, where none of the audit's signs show (engine/sensing.py;
    schema 1.6). ``disagreed`` counts scores unequal to the audit's on both sides, each
    scored twice; ``errors`` the candidates it could not score there (not counted)."""

    disagreeing: list[tuple[str, str]] = Field(
        default_factory=list
    )  # (candidate id, task id) scored differently, a few
    # Scored differently once but not again (in the same process, or the audit's score not
    # again in a fresh worker): the verifier's own variance, not counted in ``disagreed``.
    unconfirmed: int = 0
    not_run: str | None = None  # why the cross-check did not run or stopped (a domain it cannot run, a crash)


class Nondeterminism(BaseModel):
    """The candidates most likely to flip, each scored again ``repeats`` times in fresh
    workers (engine/probes.py: partial scores, the worst categories' misjudged candidates,
    near-misses; for a ``judged`` verifier, spread over the categories, paid and refused), with the
    determinism sample scored once more: a candidate flipped when any of its scores differs
    from the audit's verdict. ``rate`` = flipped / candidates, ``ci`` its Wilson interval;
    gated by ``max_nondeterminism`` (docs/grader-behaviour.md)."""

    candidates: int  # distinct candidates with at least one repeat scored without error
    repeats: int  # calls per flip-prone candidate (the determinism sample's: one)
    calls: int  # repeat calls made
    flipped: int
    rate: float
    ci: Interval
    errors: int = 0  # repeat calls that raised, timed out or crashed (no flip by themselves)
    examples: list[str] = Field(default_factory=list)  # "candidate_id (category): 0.0 then 1.0 on 3 of 8 repeats"
    stopped_early: bool = False
    # the verifier's style says a model may give its verdicts (a judge, a reward server):
    # the repeats were spread over the categories, paid and refused (Style.judged)
    judged: bool = False


class Checks(BaseModel):
    """Evidence beyond the verdicts (schema 1.2), for the security checklist. The probes run
    on a sample of the candidates the verifier scored without error (engine/probes.py)."""

    sample: int  # sample size asked for (AuditOptions.probe_sample); 0: no probe ran
    # Rescored in fresh worker processes, compared exactly with the audit's scores.
    determinism: ProbeResult | None = None
    # Scored from thread_count threads at once inside one worker (inside the sandbox when
    # the domain isolates verifier calls: isolated), compared with the audit's scores.
    threads: ProbeResult | None = None
    thread_count: int = 4
    isolated: bool = False
    # The determinism rescoring ran in other processes than the verdicts: it is also the
    # cross-process comparison (process safety).
    cross_process: bool = False
    # Re-scored in a process shaped like a training job (its own cwd, argv, environment, uid
    # and PID namespace, no verifier_audit in sys.modules), compared with the audit's scores.
    training_like: CrossCheck | None = None
    splits: dict[str, int] = Field(default_factory=dict)  # candidates audited per task split
    # What the domain's fixture guard could not observe (1.3; sql: a database the verifier
    # holds open that the audit did not hand out, a link out of its work directory...):
    # distinct, sorted, a few. None: not recorded (a report written before 1.3).
    unobserved: list[str] | None = None
    # Flip-prone candidates scored again several times (issue 34); None: no probe ran.
    nondeterminism: Nondeterminism | None = None


class FormatProbe(BaseModel):
    """One answer format probed (engine/formats.py): the references of a sample of tasks,
    written in this format, scored by the verifier."""

    name: str  # gsm8k
    shows: str  # "#### n"
    sampled: int  # references scored (those of the sample that can be written in the format)
    accepted: int
    errors: int = 0  # of those, calls that raised (counted as not accepted), timed out or crashed
    read: bool | None = None  # accepted on most of them; None: unknown (nothing sampled, probe stopped)


class Formats(BaseModel):
    """Which answer formats the verifier reads, and the format its candidates were shown in
    (schema 1.4). When it reads the domain's canonical format (or that is unknown) the
    candidates are shown as generated; else they are rewritten into a format it reads."""

    canonical: str  # the format the generators write (math: boxed)
    probes: list[FormatProbe] = Field(default_factory=list)
    read: list[str] = Field(default_factory=list)  # names of the formats read
    summary: str = ""  # "reads only: `#### n`, `#### n.`"; "reads no known format: ..."
    stopped_early: bool = False  # the probe stopped after a timeout or crash: some formats unknown
    audited_in: str | None = None  # the format the candidates were rewritten into; None: as generated
    tasks_in_scope: int | None = None  # tasks whose reference audited_in can write (of tasks_total)
    tasks_total: int | None = None
    rewritten: int = 0  # candidates shown rewritten into audited_in (the oracle confirmed their label)
    kept: int = 0  # shown as written: already in a format it reads, or wrong and not writable
    left_out: int = 0  # right answers not writable in audited_in, candidates of tasks out of scope
    relabelled: dict[str, int] = Field(default_factory=dict)  # rewritten, label not confirmed: reason -> count
    candidates: dict[str, int] = Field(default_factory=dict)  # audited candidates per format


# What `verifier-audit scan` read in the verifier's source (scan/): a claim read from the
# code, not a measurement. `confirmed` is set from the audit of the same verifier: True when
# the audit saw the hole the code suggests, False when it measured that behaviour and the
# verifier held, None when nothing the audit measures bears on it.
class SourceFinding(BaseModel):
    rule: str  # "exec-model-output"
    title: str  # the rule's one-line title
    severity: Severity
    file: str  # as given on the command line, or the module's origin
    line: int  # 1-based
    col: int  # 1-based, like a compiler's message
    code: str  # the source line, stripped and clipped
    message: str  # what flowed where, in words
    # Audit category prefixes whose misjudgement would confirm the finding behaviourally
    # ("math.hedge" covers math.hedge.two_boxes, ...); empty: no category measures it.
    categories: list[str] = Field(default_factory=list)
    confirmed: bool | None = None
    evidence: str = ""
    # Where the code is, so that confirm() only uses a report of a verifier that runs it:
    # function is the enclosing def ("Grader.__call__", "timeout.decorator.wrapper", "" at
    # module level); scope the top-level functions whose call runs it (the function itself
    # and the module's functions that call it by name).
    function: str = ""
    scope: list[str] = Field(default_factory=list)
    # "low" when the rule matched the shape but could not trace model output into it.
    confidence: Literal["high", "low"] = "high"
    # 1.8 (issue 33): "" for the scanned target's own code; for code the scan reached by
    # following its imports, the target's file and function that led there ("reward.py:score"):
    # a report of that function speaks for it.
    via: str = ""


class CategoryLatency(BaseModel):
    """The call times of one category's candidates, seconds (nearest-rank percentiles)."""

    category: str
    calls: int
    p50: float
    p99: float
    max: float


class SlowCall(BaseModel):
    candidate_id: str
    category: str
    seconds: float
    error: str | None = None  # the call's error kind when it did not return (a timeout)


class Latency(BaseModel):
    """How long the verifier's calls took (issue 34): every verdict's ``seconds``, errors
    included (a timeout is the slowest input there is). Wall times of this run on this
    machine: two runs of the same audit differ here and only here."""

    calls: int
    p50: float
    p99: float
    categories: list[CategoryLatency] = Field(default_factory=list)  # slowest p99 first
    slowest: list[SlowCall] = Field(default_factory=list)  # a few, slowest first
    warning: str | None = None  # set when the p99 of all calls is over WARN_P99_SECONDS


class CategoryAuthority(BaseModel):
    """One category's candidates that write outside the paths their task allows (schema
    1.10): how many, and how many of them the verifier paid."""

    category: str
    origin: Origin
    n: int  # candidates of the category scored without error
    outside: int  # of those, the ones that write outside the allowed paths
    paid: int  # of those, the ones the verifier accepted
    errors: int = 0  # candidates that write outside whose call errored (not judged, not counted above)
    examples: list[str] = Field(default_factory=list)  # a few "candidate_id: path, path", the paid ones first


class Authority(BaseModel):
    """The authority the candidates take that their task never gave (schema 1.10): for a
    domain whose tasks name the paths a completion may change (``Domain.limits_paths``;
    repo: a patch's ``allowed_paths``), the candidates that write outside them, read from
    the completion alone (``Domain.outside_paths``, no run), and whether the verifier paid
    them. Such a completion is wrong whatever its tests say: a grader that pays one pays a
    policy for using authority it was not given. None in a report of any other domain."""

    n: int  # candidates scored without error
    outside: int  # of those, the ones that write outside the allowed paths
    paid: int  # of those, the ones the verifier accepted
    errors: int = 0  # candidates that write outside whose call errored
    categories: list[CategoryAuthority] = Field(default_factory=list)  # those with one writing outside, by name


class Report(BaseModel):
    """The result of auditing one verifier on one suite. Public, versioned JSON."""

    schema_version: str = SCHEMA_VERSION
    tool_version: str
    verifier: str
    style: str
    suite: str
    split: str | None = None
    seed: int
    threshold: float
    n_candidates: int
    coverage_debt: float
    coverage_debt_ci: Interval
    false_acceptance_rate: float
    false_acceptance_ci: Interval
    false_rejection_rate: float
    false_rejection_ci: Interval
    error_rate: float
    errors: int
    error_kinds: dict[str, int] = Field(default_factory=dict)
    # A few distinct messages per error kind, clipped, in the order first seen (1.3): what a
    # user needs to fix a broken import without opening the results file.
    error_messages: dict[str, list[str]] = Field(default_factory=dict)
    categories: list[CategoryResult]
    security_findings: list[SecurityFinding] = Field(default_factory=list)
    dropped: dict[str, int] = Field(default_factory=dict)  # reason -> count
    mutant_survival: MutantSurvival | None = None  # when the suite has near-miss mutants
    gate: GateResult
    settings: dict[str, Any] = Field(default_factory=dict)
    checks: Checks | None = None  # 1.2; None in older reports
    formats: Formats | None = None  # 1.4; None in older reports and when not probed
    slices: list[SliceResult] = Field(default_factory=list)  # 1.5
    exploitable_tasks: list[ExploitableTasks] = Field(default_factory=list)  # 1.5
    weighted_debt: WeightedDebt | None = None  # 1.5; only with --weights-from
    search: SearchSummary | None = None  # 1.5; only with --search
    # 1.6; None: no source to read (a server, a judge, reasoning-gym); []: read, nothing found
    source_findings: list[SourceFinding] | None = None
    # 1.8 (issue 33): the files that scan read, the verifier's own first, then those its imports led to
    source_files: list[str] = Field(default_factory=list)
    out_of_range: OutOfRange = Field(default_factory=OutOfRange)  # 1.7
    remote: RemoteHealth | None = None  # 1.8; a remote style's requests; None for a local one
    latency: Latency | None = None  # issue 34; None in older reports
    # 1.10 (issue 36): writes outside the task's allowed paths; None for a domain without them
    authority: Authority | None = None


def to_json(model: BaseModel, indent: int | None = None) -> str:
    """JSON for any model, safe for hostile text: a lone surrogate (which pydantic's own
    writer refuses) is written as a \\ud800 escape and reads back as the same string."""
    import json

    return json.dumps(model.model_dump(mode="json"), ensure_ascii=True, indent=indent)


class ReportSet(BaseModel):
    """Several verifiers audited on the same candidates (the side-by-side demo run)."""

    schema_version: str = SCHEMA_VERSION
    tool_version: str
    reports: list[Report]
