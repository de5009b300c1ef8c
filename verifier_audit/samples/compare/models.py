"""The ``compare`` report model: what ``--json`` writes and ``render`` shows.

Plain pydantic models and nothing else, so that reading a saved report (``read_json``)
needs neither numpy nor the oracles.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..authority import CompareAuthority

FORMAT = "verifier-audit-compare"
FORMAT_VERSION = 1


class Figure(BaseModel):
    """A number with its 95% interval (None where it is undefined)."""

    value: float | None = None
    low: float | None = None
    high: float | None = None


class ModelInfo(BaseModel):
    path: str
    model: str
    samples: int
    problems: int  # problems in the file
    n_min: int  # samples per problem, least and most
    n_max: int
    logprobs_kind: str | None = None  # None: the file records no logprobs (an imported file)
    temperature: float | None = None  # None: unknown (an imported file)
    top_p: float | None = None
    undecided: int = 0  # samples whose correctness the oracle (or verifier) could not decide


class PassAtK(BaseModel):
    ks: list[int]
    base: list[float]
    base_low: list[float]
    base_high: list[float]
    rl: list[float]
    rl_low: list[float]
    rl_high: list[float]
    diff: list[float]  # base - rl
    diff_low: list[float]
    diff_high: list[float]


class Crossover(BaseModel):
    k: int | None  # smallest k with pass@k(base) >= pass@k(rl); None: not within k_max
    bootstrap_support: float  # fraction of replicates in which the base catches up within k_max
    low: int | None = None  # 95% interval of k* over replicates; high None: beyond k_max
    high: int | None = None


class Compression(BaseModel):
    k: int
    ratio: Figure  # (pass@1_rl - pass@1_base) / (pass@k_base - pass@1_base)
    reason: str = ""  # why the ratio is undefined, when it is


class SupportCounts(BaseModel):
    preservation: int = 0
    shrinkage: int = 0
    expansion: int = 0
    out_of_support: int = 0
    srr: Figure = Field(default_factory=Figure)
    ndr: Figure = Field(default_factory=Figure)
    sds: Figure = Field(default_factory=Figure)
    nscr: Figure = Field(default_factory=Figure)


class PlanRow(BaseModel):
    epsilon: float
    samples: int


class Support(BaseModel):
    alpha: float
    rule: str
    epsilon_base: float  # at the base's (least) number of samples per problem
    epsilon_rl: float
    problems: SupportCounts
    answers: SupportCounts
    plan: list[PlanRow]


class ModelEntropy(BaseModel):
    answer_plugin: float | None = None  # mean over problems with a parseable answer, nats
    answer_miller_madow: float | None = None
    unparseable_rate: float = 0.0  # of all samples
    problems: int = 0  # problems with at least one parseable answer
    token_low: float | None = None  # token-weighted mean of per-token bounds, nats
    token_high: float | None = None  # None: unbounded (no vocabulary size) or no top-K
    token_exact: bool = False
    tokens: int = 0
    logprobs_kind: str | None = "raw"


class Entropy(BaseModel):
    base: ModelEntropy
    rl: ModelEntropy
    vocab_size: int | None = None
    vocab_source: str = ""


class KL(BaseModel):
    available: bool
    reason: str = ""  # why not, when not
    sequences: int = 0
    tokens: int = 0
    per_token_k1: Figure = Field(default_factory=Figure)
    per_token_k3: Figure = Field(default_factory=Figure)
    per_sequence_k1: Figure = Field(default_factory=Figure)
    per_sequence_k3: Figure = Field(default_factory=Figure)
    notes: list[str] = Field(default_factory=list)


class SplitFigures(BaseModel):
    split: str
    problems: int
    pass1_base: float
    pass1_rl: float
    passk_base: float
    passk_rl: float
    delta_pass1: Figure  # rl - base
    delta_passk: Figure
    delta_pass1_vs_train: float | None = None  # this split's delta_pass1 minus train's
    compression: float | None = None
    preservation: int = 0
    shrinkage: int = 0
    expansion: int = 0
    out_of_support: int = 0
    nscr: float | None = None
    answer_entropy_base: float | None = None  # Miller-Madow, mean over problems
    answer_entropy_rl: float | None = None
    kl_k3_per_token: float | None = None
    # tool-call samples only (samples/authority.py): share of readable samples with a call
    # outside the task's policy, and its change rl - base with a 95% paired bootstrap interval
    authority_base: float | None = None
    authority_rl: float | None = None
    delta_authority: Figure | None = None


class ProblemRow(BaseModel):
    task_id: str
    split: str
    n_base: int
    c_base: int
    n_rl: int
    c_rl: int
    category: str
    answers: dict[str, str] = Field(default_factory=dict)  # correct answer -> its category
    entropy_base: float | None = None  # Miller-Madow, nats
    entropy_rl: float | None = None


class Verdict(BaseModel):
    kind: (
        str  # search_compression | capability_expansion | mixed | regression | narrowing | broadening | no_clear_change
    )
    text: str
    authority: str | None = None  # tool-call samples: increase | decrease | no_change (samples/authority.py)


class CompareReport(BaseModel):
    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    tool_version: str
    base: ModelInfo
    rl: ModelInfo
    labels: str  # "oracle" or "verifier SPEC (threshold T)"
    suite: str
    problems: int  # compared: in both files, decidable
    k_max: int
    n_boot: int
    seed: int
    pass_at_k: PassAtK
    crossover: Crossover
    headroom: Figure  # pass@k_max(base) - pass@1(rl)
    compression: Compression
    support: Support
    entropy: Entropy
    kl: KL
    splits: list[SplitFigures]
    verdict: Verdict
    warnings: list[str] = Field(default_factory=list)
    problem_rows: list[ProblemRow] = Field(default_factory=list)
    authority: CompareAuthority | None = None  # tool-call samples only (docs/samples-authority.md)
