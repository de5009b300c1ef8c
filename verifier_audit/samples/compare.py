"""``verifier-audit compare base.jsonl rl.jsonl``: did RL training lift the model's ceiling,
or only concentrate it on what the base model could already sample?

Pipeline: read both samples files (``records``), label every sample's correctness with the
domain oracle (``labels``; a verifier instead with ``by_verifier``), extract each sample's
canonical answer (in the worker pool too: completions are model output), reduce every
sample to a few numbers (correct?, answer, token-entropy bounds, KL terms), then compute
the figures of ``metrics`` per problem, overall and per split, and a verdict. The result is
a pydantic ``CompareReport``; ``compare_render`` shows it (text, HTML, PNG).
``docs/compare.md`` documents every figure.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, Field

from ..errors import InputError
from ..models import Task
from . import metrics as M
from .records import Sample, SamplesFile, read_samples

FORMAT = "verifier-audit-compare"
FORMAT_VERSION = 1
SPLIT_ORDER = ("train", "heldout", "shifted")
FEW_PROBLEMS = 30  # below this the verdict says the figures are indicative only
PLAN_EPSILONS = (0.1, 0.05, 0.02, 0.01, 0.005, 0.001)

# --------------------------------------------------------------------------------------
# The report model (the --json output)
# --------------------------------------------------------------------------------------


class Figure(BaseModel):
    """A number with its 95% interval (None where it is undefined)."""

    value: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None


class ModelInfo(BaseModel):
    path: str
    model: str
    samples: int
    problems: int  # problems in the file
    n_min: int  # samples per problem, least and most
    n_max: int
    logprobs_kind: Optional[str] = None  # None: the file records no logprobs (an imported file)
    temperature: Optional[float] = None  # None: unknown (an imported file)
    top_p: Optional[float] = None
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
    k: Optional[int]  # smallest k with pass@k(base) >= pass@k(rl); None: not within k_max
    bootstrap_support: float  # fraction of replicates in which the base catches up within k_max
    low: Optional[int] = None  # 95% interval of k* over replicates; high None: beyond k_max
    high: Optional[int] = None


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
    answer_plugin: Optional[float] = None  # mean over problems with a parseable answer, nats
    answer_miller_madow: Optional[float] = None
    unparseable_rate: float = 0.0  # of all samples
    problems: int = 0  # problems with at least one parseable answer
    token_low: Optional[float] = None  # token-weighted mean of per-token bounds, nats
    token_high: Optional[float] = None  # None: unbounded (no vocabulary size) or no top-K
    token_exact: bool = False
    tokens: int = 0
    logprobs_kind: Optional[str] = "raw"


class Entropy(BaseModel):
    base: ModelEntropy
    rl: ModelEntropy
    vocab_size: Optional[int] = None
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
    delta_pass1_vs_train: Optional[float] = None  # this split's delta_pass1 minus train's
    compression: Optional[float] = None
    preservation: int = 0
    shrinkage: int = 0
    expansion: int = 0
    out_of_support: int = 0
    nscr: Optional[float] = None
    answer_entropy_base: Optional[float] = None  # Miller-Madow, mean over problems
    answer_entropy_rl: Optional[float] = None
    kl_k3_per_token: Optional[float] = None


class ProblemRow(BaseModel):
    task_id: str
    split: str
    n_base: int
    c_base: int
    n_rl: int
    c_rl: int
    category: str
    answers: dict[str, str] = Field(default_factory=dict)  # correct answer -> its category
    entropy_base: Optional[float] = None  # Miller-Madow, nats
    entropy_rl: Optional[float] = None


class Verdict(BaseModel):
    kind: str  # search_compression | capability_expansion | mixed | regression | narrowing | broadening | no_clear_change
    text: str


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


# --------------------------------------------------------------------------------------
# Per-sample facts
# --------------------------------------------------------------------------------------


@dataclass
class Facts:
    """What the figures need of one sample."""

    task_id: str
    split: str
    correct: Optional[bool]  # None: undecided
    answer: Optional[str]  # canonical answer; None: unparseable
    tokens: int = 0
    ent_low: Optional[float] = None  # sums over the sample's tokens
    ent_high: Optional[float] = None  # NaN inside: unbounded
    kl_k1: Optional[float] = None  # sums over tokens
    kl_k3: Optional[float] = None


def token_entropy_sums(sample: Sample, vocab_size: Optional[int]) -> tuple[int, Optional[float], Optional[float]]:
    """(tokens, sum of lower bounds, sum of upper bounds) over a sample's tokens; None
    without top-K logprobs."""
    if not sample.top_logprobs:
        return len(sample.token_ids), None, None
    low, high = M.token_entropy_bounds(M.top_logprobs_matrix(sample.top_logprobs), vocab_size)
    return len(sample.token_ids), float(low.sum()), float(high.sum())


def kl_sums(sample: Sample) -> tuple[Optional[float], Optional[float]]:
    if sample.ref_logprobs is None or sample.logprobs_kind != "raw" or not sample.logprobs:
        return None, None
    k1, k3 = M.kl_token_estimates(sample.logprobs, sample.ref_logprobs)
    return float(k1.sum()), float(k3.sum())


# --------------------------------------------------------------------------------------
# Canonical answers (run in the worker pool)
# --------------------------------------------------------------------------------------


def canonical_answer(text: str, task: Task) -> Optional[str]:
    """The domain's canonical answer of a completion, None when there is none.

    math: the single final answer (``extract.extract_answers``; several different answers
    are none), parsed and written back as canonical LaTeX (``render.to_latex``): ``1/2``,
    ``\\frac12`` and ``\\dfrac{1}{2}`` are one answer; ``0.5`` is another (a decimal keeps
    its form). sql: the extracted statements, whitespace collapsed. code: the extracted
    program, normalised by ``ast.unparse`` (comments and layout do not count).
    """
    if task.domain == "math":
        from ..domains.math.answer import ParseError
        from ..domains.math.extract import extract_answers
        from ..domains.math.latex import parse_answer
        from ..domains.math.render import to_latex

        found = extract_answers(text)
        if not found.answers or found.conflict:
            return None
        try:
            return to_latex(parse_answer(found.answers[-1]))
        except ParseError:
            return None
        except Exception:  # noqa: BLE001 - an odd value the renderer cannot write: keep the text
            return " ".join(found.answers[-1].split())
    if task.domain == "sql":
        from ..domains.sql.extract import extract_sql

        stmts = extract_sql(text)
        return "; ".join(" ".join(s.split()) for s in stmts) if stmts else None
    if task.domain == "code":
        from ..domains.code.cases import entry_point
        from ..domains.code.extract import extract_code

        code = extract_code(text, entry_point(task))
        if code is None:
            return None
        try:
            return ast.unparse(ast.parse(code))
        except (SyntaxError, ValueError, RecursionError):
            return code.strip()
    return " ".join(text.split()) or None


class _AnswerJob:
    def __init__(self, items: Sequence[tuple[str, str]], tasks: dict[str, Task]):
        self.items, self.tasks = items, tasks

    def setup(self) -> None:
        pass

    def __call__(self, index: int) -> Optional[str]:
        task_id, text = self.items[index]
        task = self.tasks.get(task_id)
        return None if task is None else canonical_answer(text, task)


def canonical_answers(items: Sequence[tuple[str, str]], tasks: dict[str, Task], *, workers: int = 2,
                      timeout: float = 10.0, memory_mb: Optional[int] = 4096) -> list[Optional[str]]:
    """``canonical_answer`` of every (task id, text), in order; a call that times out or
    crashes is an unparseable answer."""
    from ..engine import pool

    out: list[Optional[str]] = [None] * len(items)
    job = _AnswerJob(items, tasks)
    for res in pool.run(job, range(len(items)), workers=workers, timeout=timeout, memory_mb=memory_mb):
        if res.ok:
            out[res.index] = res.value
    return out


# --------------------------------------------------------------------------------------
# The figures
# --------------------------------------------------------------------------------------


@dataclass
class _Problem:
    task_id: str
    split: str
    base: list[Facts]
    rl: list[Facts]

    @staticmethod
    def _correct(facts: list[Facts]) -> int:
        return sum(1 for f in facts if f.correct)

    @property
    def c_base(self) -> int:
        return self._correct(self.base)

    @property
    def c_rl(self) -> int:
        return self._correct(self.rl)


def _support_key(f: Facts) -> str:
    return f.answer if f.answer is not None else "correct"


def _correct_counts(facts: list[Facts]) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in facts:
        if f.correct:
            key = _support_key(f)
            out[key] = out.get(key, 0) + 1
    return out


def _fig(value: Optional[float], ci: Optional[tuple[Optional[float], Optional[float]]] = None) -> Figure:
    lo, hi = ci if ci is not None else (None, None)
    clean = (lambda x: None if x is None or not math.isfinite(x) else float(x))
    return Figure(value=clean(value), low=clean(lo), high=clean(hi))


def _split_key(split: str) -> tuple[int, str]:
    return (SPLIT_ORDER.index(split) if split in SPLIT_ORDER else len(SPLIT_ORDER), split)


def _model_entropy(problems: list[_Problem], side: str, facts_all: list[Facts], kind: Optional[str]) -> ModelEntropy:
    plug, mm = [], []
    for p in problems:
        h, h_mm, _ = M.answer_entropy([f.answer for f in getattr(p, side)])
        if h is not None:
            plug.append(h)
            mm.append(h_mm)
    total = len(facts_all)
    bad = sum(1 for f in facts_all if f.answer is None)
    with_top = [f for f in facts_all if f.ent_low is not None and f.tokens > 0]
    tokens = sum(f.tokens for f in with_top)
    low = high = None
    exact = False
    if tokens:
        low = sum(f.ent_low for f in with_top) / tokens
        highs = [f.ent_high for f in with_top]
        if all(h is not None and math.isfinite(h) for h in highs):
            high = sum(highs) / tokens
            exact = abs(high - low) <= 1e-9 * max(1.0, abs(low))
    return ModelEntropy(answer_plugin=sum(plug) / len(plug) if plug else None,
                        answer_miller_madow=sum(mm) / len(mm) if mm else None,
                        unparseable_rate=bad / total if total else 0.0, problems=len(plug),
                        token_low=low, token_high=high, token_exact=exact, tokens=tokens, logprobs_kind=kind)


def _kind(f: SamplesFile) -> Optional[str]:
    """raw | processed from the manifest (or the samples, for an imported file); None when
    no logprobs are recorded."""
    sampling = getattr(f.manifest, "sampling", None)
    if sampling is not None:
        return sampling.logprobs_kind
    return next((s.logprobs_kind for s in f.samples if s.logprobs_kind and s.logprobs), None)


def _kl(rl_file: SamplesFile, facts: list[Facts], base_name: str) -> KL:
    kind = _kind(rl_file)
    if kind is None:
        return KL(available=False, reason="the RL samples file records no logprobs (an imported file?): KL needs the "
                                          "RL model's raw logprob of each sampled token")
    if kind != "raw":
        return KL(available=False,
                  reason=("refused: the RL samples record processed logprobs (after temperature and top-p); "
                          "KL(rl || base) needs the RL model's raw logprobs, comparable with the base's raw "
                          "reference logprobs. Sample again with --logprobs raw"))
    with_ref = [f for f in facts if f.kl_k1 is not None]
    if not with_ref:
        return KL(available=False,
                  reason=("no reference logprobs in the RL samples file: compute the base model's logprobs of "
                          "the RL samples by teacher forcing (verifier-audit logprobs --model BASE rl.jsonl)"))
    notes = []
    if len(with_ref) < len(facts):
        notes.append(f"{len(facts) - len(with_ref)} of {len(facts)} RL samples have no reference logprobs: left out")
    s = getattr(rl_file.manifest, "sampling", None)
    if s is None:
        notes.append("the RL file does not say at which temperature and top-p it was sampled: the figures are "
                     "KL(rl || base) only if that was temperature 1 and top-p 1")
    elif s.temperature != 1.0 or s.top_p != 1.0:
        notes.append(f"the RL samples were drawn at temperature {s.temperature:g}, top-p {s.top_p:g}, not from the "
                     "RL model's raw distribution: the figures estimate E over the sampler of log(p_rl/p_base), "
                     "which equals KL(rl || base) only at temperature 1 and top-p 1")
    refs = {smp.ref_model for smp in rl_file.samples if smp.ref_model}
    if refs and refs != {base_name}:
        notes.append(f"reference logprobs come from {', '.join(sorted(refs))}, the base file's model is {base_name}")
    tokens = sum(f.tokens for f in with_ref)
    k1_seq = [f.kl_k1 for f in with_ref]
    k3_seq = [f.kl_k3 for f in with_ref]
    # per-token means: ratio of sums; intervals from per-sequence means (sequences independent)
    k1_tok = [f.kl_k1 / f.tokens for f in with_ref if f.tokens]
    k3_tok = [f.kl_k3 / f.tokens for f in with_ref if f.tokens]
    _, l1, h1 = M.mean_interval(k1_tok)
    _, l3, h3 = M.mean_interval(k3_tok)
    return KL(available=True, sequences=len(with_ref), tokens=tokens,
              per_token_k1=_fig(sum(k1_seq) / tokens if tokens else None, (l1, h1)),
              per_token_k3=_fig(sum(k3_seq) / tokens if tokens else None, (l3, h3)),
              per_sequence_k1=_fig(*_mi(k1_seq)), per_sequence_k3=_fig(*_mi(k3_seq)), notes=notes)


def _mi(values: list[float]) -> tuple[Optional[float], tuple[Optional[float], Optional[float]]]:
    mean, lo, hi = M.mean_interval(values)
    return mean, (lo, hi)


def _support_counts(cats: Sequence[str], counts_matrix, weights) -> SupportCounts:
    import numpy as np

    counts = {c: 0 for c in M.CATEGORIES}
    for c in cats:
        counts[c] += 1
    rates = M.support_rates(counts["preservation"], counts["shrinkage"], counts["expansion"])
    cis = M.support_bootstrap(np.asarray(counts_matrix, dtype=float).reshape(-1, 3), weights) if len(counts_matrix) else {}
    return SupportCounts(
        preservation=counts["preservation"], shrinkage=counts["shrinkage"], expansion=counts["expansion"],
        out_of_support=counts["out_of_support"],
        **{name: _fig(getattr(rates, name), cis.get(name)) for name in ("srr", "ndr", "sds", "nscr")})


def compute(base_file: SamplesFile, rl_file: SamplesFile, base_facts: list[Facts], rl_facts: list[Facts], *,
            base_path: str = "base", rl_path: str = "rl", labels: str = "oracle", suite: str = "",
            alpha: float = 0.05, rule: M.SupportRule = "frequency", n_boot: int = 1000, seed: int = 0,
            k: Optional[int] = None, vocab_size: Optional[int] = None, vocab_source: str = "",
            plan_epsilons: Sequence[float] = PLAN_EPSILONS, warnings: Optional[list[str]] = None) -> CompareReport:
    """Every figure from the per-sample facts (same order as the files' samples)."""

    from .. import __version__

    warnings = list(warnings or [])
    by_base: dict[str, list[Facts]] = {}
    by_rl: dict[str, list[Facts]] = {}
    for f in base_facts:
        by_base.setdefault(f.task_id, []).append(f)
    for f in rl_facts:
        by_rl.setdefault(f.task_id, []).append(f)
    only_base = sorted(set(by_base) - set(by_rl))
    only_rl = sorted(set(by_rl) - set(by_base))
    if only_base or only_rl:
        warnings.append(f"{len(only_base)} problems only in the base file and {len(only_rl)} only in the RL file "
                        f"are left out (first: {', '.join((only_base + only_rl)[:3])})")
    problems: list[_Problem] = []
    dropped = []
    for tid in sorted(set(by_base) & set(by_rl), key=lambda t: (_split_key(by_base[t][0].split), t)):
        b, r = by_base[tid], by_rl[tid]
        if all(f.correct is None for f in b) and all(f.correct is None for f in r):
            dropped.append(tid)
            continue
        problems.append(_Problem(tid, b[0].split, b, r))
    if dropped:
        warnings.append(f"{len(dropped)} problems have no decidable sample (unknown task or unusable reference) and "
                        f"are left out: {', '.join(dropped[:5])}{' ...' if len(dropped) > 5 else ''}")
    if not problems:
        raise InputError(f"{base_path} and {rl_path}: no problem in common with a decidable sample; nothing to compare")

    und_b = sum(1 for f in base_facts if f.correct is None)
    und_r = sum(1 for f in rl_facts if f.correct is None)
    if und_b or und_r:
        warnings.append(f"undecided samples count as incorrect: {und_b} base, {und_r} RL")

    nb = [len(p.base) for p in problems]
    nr = [len(p.rl) for p in problems]
    cb = [p.c_base for p in problems]
    cr = [p.c_rl for p in problems]
    k_max = min(min(nb), min(nr))
    if min(nb) != max(nb) or min(nr) != max(nr) or min(nb) != min(nr):
        warnings.append(f"samples per problem differ (base {min(nb)}-{max(nb)}, RL {min(nr)}-{max(nr)}): pass@k is "
                        f"shown for k <= {k_max}")
    k_head = k_max if k is None else k
    if not 1 <= k_head <= k_max:
        raise InputError(f"--k {k}: must be between 1 and {k_max} (the fewest samples of any problem)")

    curves = M.pass_at_k_curves(nb, cb, nr, cr, k_max, n_boot=n_boot, seed=seed)
    weights = M.bootstrap_weights(len(problems), n_boot, seed)  # the same resampling as the curves
    xb = M.crossover_bootstrap(curves)
    head_reps = curves.base_reps[:, k_head - 1] - curves.rl_reps[:, 0]
    headroom = _fig(float(curves.base[k_head - 1] - curves.rl[0]), M.percentile_interval(head_reps))
    ratio, rlo, rhi = M.compression_bootstrap(curves, k_head)
    comp = Compression(k=k_head, ratio=_fig(ratio, (rlo, rhi)),
                       reason="" if ratio is not None else
                       f"the base's pass@{k_head} equals its pass@1 (no headroom to compress)")

    # support
    prob_cats, prob_rows, ans_cats, ans_rows, rows = [], [], [], [], []
    for p in problems:
        pc = M.problem_category(p.c_base, len(p.base), p.c_rl, len(p.rl), alpha, rule)
        prob_cats.append(pc)
        prob_rows.append([pc == "preservation", pc == "shrinkage", pc == "expansion"])
        acats = M.answer_categories(_correct_counts(p.base), len(p.base), _correct_counts(p.rl), len(p.rl), alpha, rule)
        ans_cats += list(acats.values())
        vals = list(acats.values())
        ans_rows.append([vals.count("preservation"), vals.count("shrinkage"), vals.count("expansion")])
        eb = M.answer_entropy([f.answer for f in p.base])[1]
        er = M.answer_entropy([f.answer for f in p.rl])[1]
        rows.append(ProblemRow(task_id=p.task_id, split=p.split, n_base=len(p.base), c_base=p.c_base,
                               n_rl=len(p.rl), c_rl=p.c_rl, category=pc, answers=dict(acats),
                               entropy_base=eb, entropy_rl=er))
    support = Support(alpha=alpha, rule=rule, epsilon_base=M.epsilon(min(nb), alpha), epsilon_rl=M.epsilon(min(nr), alpha),
                      problems=_support_counts(prob_cats, prob_rows, weights),
                      answers=_support_counts(ans_cats, ans_rows, weights),
                      plan=[PlanRow(epsilon=e, samples=M.samples_needed(e, alpha)) for e in plan_epsilons])

    used_b = [f for p in problems for f in p.base]
    used_r = [f for p in problems for f in p.rl]
    entropy = Entropy(base=_model_entropy(problems, "base", used_b, _kind(base_file)),
                      rl=_model_entropy(problems, "rl", used_r, _kind(rl_file)),
                      vocab_size=vocab_size, vocab_source=vocab_source)
    kl = _kl(rl_file, used_r, base_file.manifest.model_name)

    splits = _splits(problems, k_head, alpha, rule, n_boot, seed, prob_cats, kl.available)

    pass_at_k = PassAtK(ks=[int(x) for x in curves.ks], base=_l(curves.base), base_low=_l(curves.base_low),
                        base_high=_l(curves.base_high), rl=_l(curves.rl), rl_low=_l(curves.rl_low),
                        rl_high=_l(curves.rl_high), diff=_l(curves.diff), diff_low=_l(curves.diff_low),
                        diff_high=_l(curves.diff_high))
    d1_reps = curves.rl_reps[:, 0] - curves.base_reps[:, 0]
    dk_reps = curves.rl_reps[:, k_head - 1] - curves.base_reps[:, k_head - 1]
    d1 = _fig(float(curves.rl[0] - curves.base[0]), M.percentile_interval(d1_reps))
    dk = _fig(float(curves.rl[k_head - 1] - curves.base[k_head - 1]), M.percentile_interval(dk_reps))

    def info(path: str, f: SamplesFile, facts: list[Facts], undecided: int) -> ModelInfo:
        per: dict[str, int] = {}
        for x in facts:
            per[x.task_id] = per.get(x.task_id, 0) + 1
        s = getattr(f.manifest, "sampling", None)
        return ModelInfo(path=path, model=f.manifest.model_name, samples=len(facts), problems=len(per),
                         n_min=min(per.values(), default=0), n_max=max(per.values(), default=0),
                         logprobs_kind=_kind(f), temperature=None if s is None else s.temperature,
                         top_p=None if s is None else s.top_p, undecided=undecided)

    report = CompareReport(
        tool_version=__version__, base=info(base_path, base_file, base_facts, und_b),
        rl=info(rl_path, rl_file, rl_facts, und_r), labels=labels, suite=suite, problems=len(problems),
        k_max=k_max, n_boot=n_boot, seed=seed, pass_at_k=pass_at_k, crossover=Crossover(
            k=xb.k, bootstrap_support=xb.support, low=xb.low, high=xb.high),
        headroom=headroom, compression=comp, support=support, entropy=entropy, kl=kl, splits=splits,
        verdict=Verdict(kind="", text=""), warnings=warnings, problem_rows=rows)
    report.verdict = verdict(report, d1, dk)
    return report


def _l(a) -> list[float]:
    return [float(x) for x in a]


def _splits(problems: list[_Problem], k_head: int, alpha: float, rule: M.SupportRule, n_boot: int, seed: int,
            prob_cats: list[str], with_kl: bool) -> list[SplitFigures]:
    import numpy as np

    out: list[SplitFigures] = []
    names = sorted({p.split for p in problems}, key=_split_key)
    for name in names:
        idx = [i for i, p in enumerate(problems) if p.split == name]
        ps = [problems[i] for i in idx]
        k_s = min(k_head, min(min(len(p.base), len(p.rl)) for p in ps))
        curves = M.pass_at_k_curves([len(p.base) for p in ps], [p.c_base for p in ps], [len(p.rl) for p in ps],
                                    [p.c_rl for p in ps], k_s, n_boot=n_boot, seed=seed)
        d1 = curves.rl_reps[:, 0] - curves.base_reps[:, 0]
        dk = curves.rl_reps[:, k_s - 1] - curves.base_reps[:, k_s - 1]
        cats = [prob_cats[i] for i in idx]
        rates = M.support_rates(cats.count("preservation"), cats.count("shrinkage"), cats.count("expansion"))
        mm_b = [h for h in (M.answer_entropy([f.answer for f in p.base])[1] for p in ps) if h is not None]
        mm_r = [h for h in (M.answer_entropy([f.answer for f in p.rl])[1] for p in ps) if h is not None]
        kl_tok = None
        if with_kl:
            fr = [f for p in ps for f in p.rl if f.kl_k3 is not None]
            toks = sum(f.tokens for f in fr)
            kl_tok = sum(f.kl_k3 for f in fr) / toks if toks else None
            kl_tok = kl_tok if kl_tok is not None and math.isfinite(kl_tok) else None
        out.append(SplitFigures(
            split=name, problems=len(ps), pass1_base=float(curves.base[0]), pass1_rl=float(curves.rl[0]),
            passk_base=float(curves.base[k_s - 1]), passk_rl=float(curves.rl[k_s - 1]),
            delta_pass1=_fig(float(curves.rl[0] - curves.base[0]), M.percentile_interval(d1)),
            delta_passk=_fig(float(curves.rl[k_s - 1] - curves.base[k_s - 1]), M.percentile_interval(dk)),
            compression=M.compression_ratio(float(curves.base[0]), float(curves.rl[0]), float(curves.base[k_s - 1])),
            preservation=cats.count("preservation"), shrinkage=cats.count("shrinkage"),
            expansion=cats.count("expansion"), out_of_support=cats.count("out_of_support"), nscr=rates.nscr,
            answer_entropy_base=float(np.mean(mm_b)) if mm_b else None,
            answer_entropy_rl=float(np.mean(mm_r)) if mm_r else None, kl_k3_per_token=kl_tok))
    train = next((s for s in out if s.split == "train"), None)
    if train is not None:
        for s in out:
            if s is not train and s.delta_pass1.value is not None and train.delta_pass1.value is not None:
                s.delta_pass1_vs_train = s.delta_pass1.value - train.delta_pass1.value
    return out


# --------------------------------------------------------------------------------------
# The verdict
# --------------------------------------------------------------------------------------

PHRASES = {
    "search_compression": "mostly search compression",
    "capability_expansion": "capability expansion",
    "mixed": "mixed: sharper pass@1 with some new reach",
    "regression": "a regression",
    "narrowing": "narrower reach without a pass@1 gain",
    "broadening": "broader reach without a pass@1 gain",
    "no_clear_change": "no clear change",
}


def signed_points(x: Optional[float]) -> str:
    return "n/a" if x is None else f"{100 * x:+.1f}"


def _direction(f: Figure) -> int:
    """+1 when the whole 95% interval is above 0, -1 when below, 0 otherwise."""
    if f.low is not None and f.low > 0:
        return 1
    if f.high is not None and f.high < 0:
        return -1
    return 0


def verdict(r: CompareReport, d1: Figure, dk: Figure) -> Verdict:
    """The verdict paragraph. Rules (docs/compare.md, "Reading the verdict"):

    sharper = the 95% interval of pass@1(rl) - pass@1(base) is above 0 (duller: below);
    ceiling = the interval of pass@K(rl) - pass@K(base), K = the headroom k, above 0
    (raised), below 0 (lowered), else unchanged; S and E = shrinkage and expansion problems.

    * duller -> regression;
    * sharper, ceiling not raised, S >= E -> search compression;
    * sharper, ceiling raised, E > S -> capability expansion;
    * sharper otherwise -> mixed;
    * neither sharper nor duller: ceiling lowered -> narrowing, raised -> broadening,
      else no clear change.
    """
    k = r.compression.k
    s, e = r.support.problems.shrinkage, r.support.problems.expansion
    sharp, ceiling = _direction(d1), _direction(dk)
    if sharp < 0:
        kind = "regression"
    elif sharp > 0:
        if ceiling <= 0 and s >= e:
            kind = "search_compression"
        elif ceiling > 0 and e > s:
            kind = "capability_expansion"
        else:
            kind = "mixed"
    else:
        kind = {-1: "narrowing", 1: "broadening", 0: "no_clear_change"}[ceiling]
    parts = [f"pass@1 {signed_points(d1.value)} points, pass@{k} {signed_points(dk.value)} points, support shrinkage {s} "
             f"problem{'s' if s != 1 else ''} vs expansion {e}: {PHRASES[kind]}."]
    xb = r.crossover
    if xb.k is not None:
        parts.append(f"The base model catches up at k = {xb.k} (in {100 * xb.bootstrap_support:.0f}% of bootstrap "
                     f"replicates it does within k <= {r.k_max}).")
    else:
        parts.append(f"The base model does not catch up within k <= {r.k_max} (it does in "
                     f"{100 * xb.bootstrap_support:.0f}% of bootstrap replicates).")
    ratio = r.compression.ratio.value
    if ratio is None:
        parts.append(f"The compression ratio is undefined: {r.compression.reason}.")
    elif ratio > 1:
        parts.append(f"RL's pass@1 exceeds the base's pass@{k} (compression ratio {ratio:.2f}).")
    elif ratio >= 0:
        parts.append(f"RL turned {100 * ratio:.0f}% of the base's pass@1-to-pass@{k} headroom into pass@1 "
                     f"(compression ratio {ratio:.2f}).")
    else:
        parts.append(f"The compression ratio is {ratio:.2f}: RL's pass@1 is below the base's.")
    eb, er = r.entropy.base, r.entropy.rl
    if eb.answer_miller_madow is not None and er.answer_miller_madow is not None:
        a0, a1 = eb.answer_miller_madow, er.answer_miller_madow
        token_rose = (eb.token_high is not None and er.token_low is not None and er.token_low > eb.token_high)
        if a1 < a0 and token_rose:
            parts.append(f"Answer entropy fell ({a0:.2f} to {a1:.2f} nats) while token entropy rose: local "
                         "stochasticity without global exploration.")
        elif a1 < a0:
            parts.append(f"Answer entropy fell from {a0:.2f} to {a1:.2f} nats: the RL model concentrates on fewer "
                         "final answers.")
        elif a1 > a0:
            parts.append(f"Answer entropy rose from {a0:.2f} to {a1:.2f} nats.")
    if r.problems < FEW_PROBLEMS:
        parts.append(f"Only {r.problems} problems: treat these figures as indicative.")
    if r.labels != "oracle":
        parts.append(f"Correctness here is the {r.labels}'s, not the oracle's.")
    return Verdict(kind=kind, text=" ".join(parts))


# --------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------


def vocab_from_manifest(f: SamplesFile) -> Optional[int]:
    """The model's vocabulary size from its config.json, when the manifest's model
    directory exists here (the embedding size: an upper bound on the token ids)."""
    cfg = Path(f.manifest.model) / "config.json"
    try:
        data = json.loads(cfg.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    v = data.get("vocab_size") or (data.get("text_config") or {}).get("vocab_size")
    return int(v) if isinstance(v, int) and v > 0 else None


def load_tasks(suite_arg: Optional[str], base: SamplesFile, rl: SamplesFile, task_ids: set[str],
               warnings: list[str]) -> tuple[str, dict[str, Task]]:
    from ..suites import load_suite
    from .labels import prepare_for_labels

    name = suite_arg or base.manifest.suite
    if suite_arg is None and rl.manifest.suite != base.manifest.suite:
        warnings.append(f"the files name different suites ({base.manifest.suite!r}, {rl.manifest.suite!r}); "
                        f"using the base's; pass --suite to choose")
    try:
        suite = load_suite(name)
    except InputError as exc:
        if suite_arg is None:
            raise InputError(f"the samples' suite {name!r} cannot be loaded ({exc}); pass --suite NAME_OR_FILE") from None
        raise
    if suite_arg is None and base.manifest.suite_hash and suite.content_hash != base.manifest.suite_hash:
        warnings.append(f"suite {name!r} has changed since the base samples were drawn (hash differs)")
    chosen = [t for t in suite.tasks if t.id in task_ids]
    missing = task_ids - {t.id for t in chosen}
    if missing:
        warnings.append(f"{len(missing)} problems of the samples are not in suite {suite.name!r}: "
                        f"{', '.join(sorted(missing)[:5])}{' ...' if len(missing) > 5 else ''}")
    if not chosen:
        raise InputError(f"no task of the samples is in suite {suite.name!r}; pass the suite they were drawn from "
                         "with --suite")
    prepared = prepare_for_labels(chosen)
    return suite.name, {t.id: t for t in prepared}


def run_compare(base_path, rl_path, *, suite: Optional[str] = None, by_verifier: Optional[str] = None,
                style: Optional[str] = None, threshold: float = 0.5, alpha: float = 0.05,
                rule: M.SupportRule = "frequency", n_boot: int = 1000, seed: int = 0, k: Optional[int] = None,
                vocab_size: Optional[int] = None, plan_epsilons: Sequence[float] = PLAN_EPSILONS, workers: int = 2,
                timeout: float = 10.0, memory_mb: Optional[int] = 4096) -> CompareReport:
    """Read, label, reduce, compute: the whole ``compare`` command without its output."""
    from .labels import label_texts, verifier_labels

    base_path, rl_path = Path(base_path), Path(rl_path)
    base, rl = read_samples(base_path), read_samples(rl_path)
    for path, f in ((base_path, base), (rl_path, rl)):
        if not f.samples:
            raise InputError(f"{path}: no samples")
    warnings: list[str] = []
    ids = {s.task_id for s in base.samples} | {s.task_id for s in rl.samples}
    suite_name, tasks = load_tasks(suite, base, rl, ids, warnings)

    items = [(s.task_id, s.text) for s in base.samples] + [(s.task_id, s.text) for s in rl.samples]
    if by_verifier:
        labelled = verifier_labels(items, tasks, by_verifier, style=style, threshold=threshold, workers=workers,
                                   timeout=timeout, memory_mb=memory_mb)
        labels = f"verifier {by_verifier} (threshold {threshold:g})"
    else:
        labelled = label_texts(items, tasks, workers=workers, timeout=timeout, memory_mb=memory_mb)
        labels = "oracle"
    answers = canonical_answers(items, tasks, workers=workers, timeout=timeout, memory_mb=memory_mb)

    vocab_source = ""
    if vocab_size is not None:
        vocab_source = "--vocab-size"
    else:
        vocab_size = vocab_from_manifest(rl) or vocab_from_manifest(base)
        if vocab_size is not None:
            vocab_source = "the model's config.json"
    facts: list[Facts] = []
    for i, s in enumerate([*base.samples, *rl.samples]):
        label = labelled[i][0]
        tokens, lo, hi = token_entropy_sums(s, vocab_size)
        k1, k3 = kl_sums(s)
        facts.append(Facts(task_id=s.task_id, split=tasks[s.task_id].split if s.task_id in tasks else s.split,
                           correct=None if label is None else label == "correct", answer=answers[i], tokens=tokens,
                           ent_low=lo, ent_high=hi, kl_k1=k1, kl_k3=k3))
    nb = len(base.samples)
    return compute(base, rl, facts[:nb], facts[nb:], base_path=str(base_path), rl_path=str(rl_path), labels=labels,
                   suite=suite_name, alpha=alpha, rule=rule, n_boot=n_boot, seed=seed, k=k, vocab_size=vocab_size,
                   vocab_source=vocab_source, plan_epsilons=plan_epsilons, warnings=warnings)


def write_json(r: CompareReport, path) -> None:
    from ..models import to_json

    Path(path).write_text(to_json(r, indent=2) + "\n", encoding="utf-8")


def read_json(path) -> CompareReport:
    return CompareReport.model_validate_json(Path(path).read_text(encoding="utf-8"))


__all__ = ["CompareReport", "Facts", "compute", "run_compare", "write_json", "read_json", "canonical_answer", "verdict"]
