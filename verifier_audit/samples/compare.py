"""``verifier-audit compare base.jsonl rl.jsonl``: did RL training lift the model's ceiling,
or only concentrate it on what the base model could already sample?

Pipeline: read both samples files (``records``), label every sample's correctness with the
domain oracle (``labels``; a verifier instead with ``by_verifier``), extract each sample's
canonical answer (in the worker pool too: completions are model output), reduce every
sample to a few numbers (correct?, answer, token-entropy bounds, KL terms), then compute
the figures of ``metrics`` per problem, overall and per split, and a verdict. The result is
a pydantic ``CompareReport``; ``render_text``, ``render_html`` and ``write_pngs`` show it.
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


def verifier_labels(items: Sequence[tuple[str, str]], tasks: dict[str, Task], spec: str, *, style: Optional[str] = None,
                    threshold: float = 0.5, workers: int = 2, timeout: float = 10.0,
                    memory_mb: Optional[int] = 4096) -> list[tuple[Optional[str], str]]:
    """Like ``labels.label_texts`` but by the verifier ``spec``: a score >= ``threshold``
    is "correct"; an error (exception, timeout, crash) is undecided (None)."""
    from ..domains import get_domain
    from ..engine import pool
    from ..engine.audit import _VerifierJob
    from ..loading import resolve
    from ..models import Candidate

    vspec = resolve(spec, style)
    results: list[tuple[Optional[str], str]] = [(None, "")] * len(items)
    by_domain: dict[str, list[int]] = {}
    for i, (task_id, _) in enumerate(items):
        task = tasks.get(task_id)
        if task is None:
            results[i] = (None, f"unknown task {task_id!r}")
        else:
            by_domain.setdefault(task.domain, []).append(i)
    for domain_name, indices in by_domain.items():
        domain = get_domain(domain_name)
        cands = [Candidate(id=f"sample-{i}", task_id=items[i][0], text=items[i][1], origin="sampled",
                           category=f"{domain_name}.sampled", label="incorrect") for i in indices]
        timeout_d = timeout if timeout else getattr(domain, "default_timeout", 10.0)
        job = _VerifierJob(vspec, cands, tasks, domain, timeout=timeout_d, memory_mb=memory_mb)
        for out in pool.run(job, range(len(cands)), workers=workers, timeout=timeout_d, memory_mb=memory_mb):
            if out.ok:
                results[indices[out.index]] = ("correct" if out.value >= threshold else "incorrect",
                                               f"score {out.value:g}")
            else:
                results[indices[out.index]] = (None, f"verifier_{out.error_kind}")
    return results


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


def _points(x: Optional[float]) -> str:
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
    parts = [f"pass@1 {_points(d1.value)} points, pass@{k} {_points(dk.value)} points, support shrinkage {s} "
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
    from .labels import label_texts

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


# --------------------------------------------------------------------------------------
# Plain text
# --------------------------------------------------------------------------------------


def _pct(x: Optional[float]) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _ci_pts(f: Figure) -> str:
    if f.low is None or f.high is None:
        return ""
    return f" [{100 * f.low:+.1f}, {100 * f.high:+.1f}]"


def _num(x: Optional[float], fmt: str = ".3f") -> str:
    return "n/a" if x is None else format(x, fmt)


def _ci(f: Figure, fmt: str = ".3f") -> str:
    if f.low is None or f.high is None:
        return _num(f.value, fmt)
    return f"{_num(f.value, fmt)} [{format(f.low, fmt)}, {format(f.high, fmt)}]"


def shown_ks(k_max: int) -> list[int]:
    """Powers of two up to k_max, and k_max itself."""
    ks, k = [], 1
    while k < k_max:
        ks.append(k)
        k *= 2
    return ks + [k_max]


def token_entropy_text(e: ModelEntropy) -> str:
    if e.token_low is None:
        return "tokens: n/a (no top-K logprobs)"
    if e.token_exact:
        return f"tokens: {e.token_low:.3f} (exact, {e.logprobs_kind or 'unknown'} logprobs)"
    hi = "unbounded (give --vocab-size)" if e.token_high is None else f"{e.token_high:.3f}"
    return f"tokens: [{e.token_low:.3f}, {hi}] (top-K bounds, {e.logprobs_kind or 'unknown'} logprobs)"


def render_text(r: CompareReport) -> str:
    out = [f"verifier-audit compare: base {r.base.model} ({r.base.path}) vs RL {r.rl.model} ({r.rl.path})",
           f"{r.problems} problems compared, suite {r.suite}; samples per problem: base {r.base.n_min}"
           f"{'' if r.base.n_min == r.base.n_max else '-' + str(r.base.n_max)}, RL {r.rl.n_min}"
           f"{'' if r.rl.n_min == r.rl.n_max else '-' + str(r.rl.n_max)}; correctness: {r.labels}",
           "",
           f"pass@k (mean over problems; 95% paired bootstrap over problems, {r.n_boot} replicates, seed {r.seed})",
           f"  {'k':>5}  {'base':<22}{'RL':<22}base - RL (points)"]
    p = r.pass_at_k
    for k in shown_ks(r.k_max):
        i = k - 1
        out.append(f"  {k:>5}  {_pct(p.base[i]) + f' [{100 * p.base_low[i]:.1f}, {100 * p.base_high[i]:.1f}]':<22}"
                   f"{_pct(p.rl[i]) + f' [{100 * p.rl_low[i]:.1f}, {100 * p.rl_high[i]:.1f}]':<22}"
                   f"{100 * p.diff[i]:+.1f} [{100 * p.diff_low[i]:+.1f}, {100 * p.diff_high[i]:+.1f}]")
    x = r.crossover
    interval = "" if x.low is None else f"; 95% interval {x.low} to {x.high if x.high is not None else f'> {r.k_max}'}"
    out.append(f"crossover k* (base >= RL): {x.k if x.k is not None else f'none within k <= {r.k_max}'} "
               f"(the base catches up in {100 * x.bootstrap_support:.0f}% of replicates{interval})")
    k = r.compression.k
    out.append(f"pass@{k} base - pass@1 RL: {_points(r.headroom.value)} points{_ci_pts(r.headroom)}")
    c = r.compression
    out.append(f"compression ratio at k={k}: {_ci(c.ratio, '.2f')}"
               + (f" ({c.reason})" if c.reason else "  (pass@1 gain / base's pass@k - pass@1 gap)"))
    s = r.support
    out += ["", f"support (alpha {s.alpha:g}; epsilon = 1 - alpha^(1/n): base {s.epsilon_base:.4f}, RL "
                f"{s.epsilon_rl:.4f}; rule: {s.rule})"]
    for label, sc in (("problems", s.problems), ("answers", s.answers)):
        out.append(f"  {label:<9} preservation {sc.preservation}, shrinkage {sc.shrinkage}, expansion {sc.expansion}, "
                   f"out of support {sc.out_of_support}; SRR {_ci(sc.srr)}, NDR {_ci(sc.ndr)}, SDS {_ci(sc.sds)}, "
                   f"NSCR {_ci(sc.nscr)}")
    out.append("  planner: " + "; ".join(f"epsilon {row.epsilon:g} needs {row.samples}" for row in s.plan)
               + f" samples per problem (confidence {1 - s.alpha:g})")
    out += ["", "entropy (nats; answers: mean over problems; tokens: mean over tokens)"]
    for name, e in (("base", r.entropy.base), ("RL", r.entropy.rl)):
        out.append(f"  {name:<5} answers {_num(e.answer_plugin)} plug-in, {_num(e.answer_miller_madow)} Miller-Madow, "
                   f"unparseable {_pct(e.unparseable_rate)}; {token_entropy_text(e)}")
    out.append("")
    kl = r.kl
    if kl.available:
        out.append(f"KL(RL || base) from {kl.sequences} RL samples, {kl.tokens} tokens: per token k1 "
                   f"{_ci(kl.per_token_k1, '.4f')}, k3 {_ci(kl.per_token_k3, '.4f')}; per sequence k1 "
                   f"{_ci(kl.per_sequence_k1, '.3f')}, k3 {_ci(kl.per_sequence_k3, '.3f')}")
        out += [f"  note: {n}" for n in kl.notes]
    else:
        out.append(f"KL(RL || base): not computed: {kl.reason}")
    if r.splits:
        out += ["", f"by split (delta = RL - base, points; k = {r.compression.k} or the split's fewest samples)",
                f"  {'split':<9}{'problems':>8}  {'pass@1 base/RL':<16}{'delta':>7}  {'pass@k base/RL':<16}{'delta':>7}"
                f"  {'vs train':>8}  {'P/S/E/O':<13}{'NSCR':>7}  {'H_ans base/RL':<14}"]
        for sp in r.splits:
            out.append(
                f"  {sp.split:<9}{sp.problems:>8}  {f'{100 * sp.pass1_base:.1f}/{100 * sp.pass1_rl:.1f}':<16}"
                f"{_points(sp.delta_pass1.value):>7}  {f'{100 * sp.passk_base:.1f}/{100 * sp.passk_rl:.1f}':<16}"
                f"{_points(sp.delta_passk.value):>7}  {_points(sp.delta_pass1_vs_train) if sp.delta_pass1_vs_train is not None else '':>8}"
                f"  {f'{sp.preservation}/{sp.shrinkage}/{sp.expansion}/{sp.out_of_support}':<13}{_num(sp.nscr, '+.3f'):>7}"
                f"  {_num(sp.answer_entropy_base, '.2f')}/{_num(sp.answer_entropy_rl, '.2f')}")
    if r.warnings:
        out += [""] + [f"warning: {w}" for w in r.warnings]
    out += ["", "verdict: " + r.verdict.text]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# HTML: one self-contained page, inline SVG, no JavaScript (the rules of report/html.py,
# whose escaping helpers and style sheet are reused, not copied)
# --------------------------------------------------------------------------------------

COLORS = {"base": "#3b7dd8", "rl": "#d35400"}
SEGMENTS = {"preservation": "#2e8b57", "shrinkage": "#c0392b", "expansion": "#8e44ad", "out_of_support": "#b5b5b5"}
EXTRA_CSS = (
    ".vc-plot text{font:11px system-ui,sans-serif;fill:#333}.vc-axis{stroke:#888}.vc-grid{stroke:#e4e4e4}"
    ".vc-band{stroke:none;opacity:.22}.vc-line{fill:none;stroke-width:2}.vc-base{fill:#3b7dd8;stroke:#3b7dd8}"
    ".vc-rl{fill:#d35400;stroke:#d35400}.vc-line.vc-base,.vc-line.vc-rl{fill:none}.vc-cross{stroke:#555;"
    "stroke-dasharray:4 3}.vc-whisker{stroke:#222;stroke-width:1.2;fill:none}.vc-unbounded{stroke:#222;"
    "stroke-dasharray:2 2}.vc-verdict{font-size:15px;background:#f5f8ff;border-left:4px solid #3b7dd8;padding:8px 12px}"
    ".vc-warn{color:#8a5300}"
    + "".join(f".vc-seg-{k}{{fill:{v}}}" for k, v in SEGMENTS.items())
)


def _h():
    from ..report import html as H

    return H


def _svg_open(plot: str, width: int, height: int, title: str) -> str:
    H = _h()
    return (f'<svg class="vc-plot" data-plot="{plot}" xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" role="img"><title>{H._esc(title, 300)}</title>')


def svg_pass_at_k(r: CompareReport) -> str:
    """Both pass@k curves with their 95% bootstrap bands on a log2 k axis; the crossover
    as a dashed vertical line."""
    H = _h()
    W, Hh, left, right, top, bottom = 800, 360, 56, 190, 16, 44
    pw, ph = W - left - right, Hh - top - bottom
    p = r.pass_at_k
    kmax = max(p.ks)
    span = math.log2(kmax) if kmax > 1 else 1.0

    def x(k: float) -> float:
        return left + pw * (math.log2(k) / span if kmax > 1 else 0.5)

    def y(v: float) -> float:
        return top + ph * (1 - min(max(v, 0.0), 1.0))

    out = [_svg_open("passk", W, Hh, "pass@k with 95% bootstrap bands, log k axis")]
    for t in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<line class="vc-grid" x1="{left}" y1="{y(t):.1f}" x2="{left + pw}" y2="{y(t):.1f}"/>'
                   f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{100 * t:.0f}%</text>')
    for k in shown_ks(kmax):
        out.append(f'<line class="vc-grid" x1="{x(k):.1f}" y1="{top}" x2="{x(k):.1f}" y2="{top + ph}"/>'
                   f'<text x="{x(k):.1f}" y="{top + ph + 16}" text-anchor="middle">{k}</text>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{Hh - 6}" text-anchor="middle">k (samples per problem, log scale)</text>')
    for series, mean, lo, hi in (("base", p.base, p.base_low, p.base_high), ("rl", p.rl, p.rl_low, p.rl_high)):
        pts_hi = [f"{x(k):.1f},{y(v):.1f}" for k, v in zip(p.ks, hi)]
        pts_lo = [f"{x(k):.1f},{y(v):.1f}" for k, v in zip(reversed(p.ks), reversed(lo))]
        out.append(f'<polygon class="vc-band vc-{series}" data-series="{series}" points="{" ".join(pts_hi + pts_lo)}"/>')
        d = "M" + " L".join(f"{x(k):.1f} {y(v):.1f}" for k, v in zip(p.ks, mean))
        out.append(f'<path class="vc-line vc-{series}" data-series="{series}" data-points="{len(p.ks)}" '
                   f'data-pass1="{H._num(mean[0])}" data-passk="{H._num(mean[-1])}" d="{d}"/>')
    if r.crossover.k is not None:
        xc = x(r.crossover.k)
        out.append(f'<line class="vc-cross" data-k="{r.crossover.k}" x1="{xc:.1f}" y1="{top}" x2="{xc:.1f}" '
                   f'y2="{top + ph}"><title>crossover k* = {r.crossover.k}</title></line>')
    out.append(f'<line class="vc-axis" x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}"/>'
               f'<line class="vc-axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}"/>')
    for i, (series, name) in enumerate((("base", r.base.model), ("rl", r.rl.model))):
        ly = top + 14 + 20 * i
        out.append(f'<rect class="vc-{series}" x="{left + pw + 10}" y="{ly - 9}" width="12" height="10"/>'
                   f'<text x="{left + pw + 26}" y="{ly}">{"base" if series == "base" else "RL"}: '
                   f'{H._esc(name if len(name) <= 24 else name[:23] + "…", 40)}<title>{H._esc(name, 300)}</title></text>')
    if r.crossover.k is not None:
        out.append(f'<text x="{left + pw + 10}" y="{top + 60}">k* = {r.crossover.k}</text>')
    out.append("</svg>")
    return "\n".join(out)


def svg_support(r: CompareReport) -> str:
    """Stacked bars of the four support categories, for problems and for answers."""
    H = _h()
    W, label_w, bar_w, row_h, top = 760, 90, 520, 30, 28
    rows = (("problems", r.support.problems), ("answers", r.support.answers))
    Hh = top + row_h * len(rows) + 30
    out = [_svg_open("support", W, Hh, "empirical support: preservation, shrinkage, expansion, out of support")]
    for i, cat in enumerate(M.CATEGORIES):
        lx = label_w + i * 150
        out.append(f'<rect class="vc-seg-{cat}" x="{lx}" y="6" width="12" height="10"/>'
                   f'<text x="{lx + 16}" y="15">{cat.replace("_", " ")}</text>')
    for j, (level, sc) in enumerate(rows):
        y = top + j * row_h
        counts = {c: getattr(sc, c) for c in M.CATEGORIES}
        total = sum(counts.values())
        out.append(f'<text x="{label_w - 8}" y="{y + 16}" text-anchor="end">{level}</text>')
        xpos = float(label_w)
        for cat in M.CATEGORIES:
            w = bar_w * counts[cat] / total if total else 0.0
            out.append(f'<rect class="vc-seg vc-seg-{cat}" data-level="{level}" data-category="{cat}" '
                       f'data-count="{counts[cat]}" x="{xpos:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 8}">'
                       f'<title>{level}: {cat.replace("_", " ")} {counts[cat]}</title></rect>')
            if w >= 22:
                out.append(f'<text x="{xpos + w / 2:.1f}" y="{y + 17}" text-anchor="middle" fill="#fff">{counts[cat]}</text>')
            xpos += w
        nscr = "n/a" if sc.nscr.value is None else f"{sc.nscr.value:+.3f}"
        out.append(f'<text x="{label_w + bar_w + 8}" y="{y + 16}">NSCR {nscr}</text>')
    out.append(f'<text x="{label_w}" y="{Hh - 6}">{H._esc(f"alpha {r.support.alpha:g}, rule {r.support.rule}", 80)}'
               f'</text></svg>')
    return "\n".join(out)


def _svg_hbars(plot: str, title: str, rows: list[tuple[str, list[tuple[str, Optional[float], Optional[float],
               Optional[float], bool]]]], unit: str) -> str:
    """Grouped horizontal bars: rows of (label, [(series, value, low, high, unbounded)]).
    ``low``/``high`` draw a whisker; ``unbounded`` a dashed whisker to the edge."""
    H = _h()
    W, label_w, bar_w, bar_h, gap, top = 760, 190, 470, 12, 10, 24
    values = [v for _, bars in rows for (_, val, lo, hi, _) in bars for v in (val, lo, hi) if v is not None]
    vmax = max([v for v in values if math.isfinite(v)] + [1e-9]) * 1.1
    n_bars = max((len(b) for _, b in rows), default=1)
    row_h = n_bars * (bar_h + 2) + gap
    Hh = top + row_h * len(rows) + 10

    def x(v: float) -> float:
        return label_w + bar_w * min(max(v, 0.0), vmax) / vmax

    out = [_svg_open(plot, W, Hh, title)]
    present = {series for _, bars in rows for (series, *_) in bars}
    for i, (series, name) in enumerate((s, n) for s, n in (("base", "base"), ("rl", "RL")) if s in present):
        out.append(f'<rect class="vc-{series}" x="{label_w + 120 * i}" y="6" width="12" height="10"/>'
                   f'<text x="{label_w + 16 + 120 * i}" y="15">{name}</text>')
    for t in range(5):
        v = vmax * t / 4
        out.append(f'<line class="vc-grid" x1="{x(v):.1f}" y1="{top - 2}" x2="{x(v):.1f}" y2="{Hh - 8}"/>')
    for j, (label, bars) in enumerate(rows):
        y0 = top + j * row_h
        out.append(f'<text x="{label_w - 8}" y="{y0 + bar_h + 2}" text-anchor="end">{H._esc(label, 60)}</text>')
        for i, (series, val, lo, hi, unbounded) in enumerate(bars):
            y = y0 + i * (bar_h + 2)
            if val is None:
                out.append(f'<text x="{label_w + 4}" y="{y + bar_h - 2}" data-series="{series}">n/a</text>')
                continue
            out.append(f'<rect class="vc-bar vc-{series}" data-series="{series}" data-row="{H._esc(label, 60)}" '
                       f'data-value="{H._num(val)}" x="{label_w}" y="{y}" width="{x(val) - label_w:.1f}" '
                       f'height="{bar_h}"><title>{H._esc(label, 60)}, {series}: {val:.4g} {unit}</title></rect>')
            mid = y + bar_h / 2
            if lo is not None and hi is not None:
                out.append(f'<path class="vc-whisker" d="M{x(lo):.1f} {mid:.1f}H{x(hi):.1f}M{x(lo):.1f} {mid - 4:.1f}'
                           f'V{mid + 4:.1f}M{x(hi):.1f} {mid - 4:.1f}V{mid + 4:.1f}"/>')
            elif unbounded:
                out.append(f'<path class="vc-unbounded" d="M{x(val):.1f} {mid:.1f}H{label_w + bar_w:.1f}">'
                           f'<title>upper bound unknown (no vocabulary size)</title></path>')
            out.append(f'<text x="{label_w + bar_w + 6}" y="{y + bar_h - 2}">{val:.3g}</text>')
    out.append("</svg>")
    return "\n".join(out)


def svg_entropy(r: CompareReport) -> str:
    eb, er = r.entropy.base, r.entropy.rl

    def tok(e: ModelEntropy, series: str):
        if e.token_low is None:
            return (series, None, None, None, False)
        if e.token_exact:
            return (series, e.token_low, None, None, False)
        return (series, e.token_low, e.token_low if e.token_high is not None else None, e.token_high, e.token_high is None)

    rows = [("answers, plug-in", [("base", eb.answer_plugin, None, None, False), ("rl", er.answer_plugin, None, None, False)]),
            ("answers, Miller-Madow", [("base", eb.answer_miller_madow, None, None, False),
                                       ("rl", er.answer_miller_madow, None, None, False)]),
            ("tokens (lower bound, range)", [tok(eb, "base"), tok(er, "rl")])]
    return _svg_hbars("entropy", "entropy in nats: answer level (mean over problems) and token level (bounds)", rows, "nats")


def svg_entropy_splits(r: CompareReport) -> str:
    rows = [(s.split, [("base", s.answer_entropy_base, None, None, False), ("rl", s.answer_entropy_rl, None, None, False)])
            for s in r.splits]
    return _svg_hbars("entropy-splits", "answer entropy (Miller-Madow, nats) per split", rows, "nats")


def svg_kl(r: CompareReport) -> str:
    kl = r.kl
    rows = [("all, k3 per token", [("rl", kl.per_token_k3.value, kl.per_token_k3.low, kl.per_token_k3.high, False)]),
            ("all, k1 per token", [("rl", kl.per_token_k1.value, kl.per_token_k1.low, kl.per_token_k1.high, False)])]
    rows += [(f"{s.split}, k3 per token", [("rl", s.kl_k3_per_token, None, None, False)]) for s in r.splits]
    return _svg_hbars("kl", "KL(RL || base) per token, nats", rows, "nats")


def render_html(r: CompareReport) -> str:
    """The page as one string (write it with encoding="utf-8")."""
    H = _h()
    e = H._esc
    p = r.pass_at_k
    title = f"verifier-audit compare: {r.base.model} vs {r.rl.model}"
    rows = []
    for k in shown_ks(r.k_max):
        i = k - 1
        rows.append([f'<td class="n">{k}</td>',
                     f'<td class="n">{H._pct(p.base[i])} {H._ci(p.base_low[i], p.base_high[i])}</td>',
                     f'<td class="n">{H._pct(p.rl[i])} {H._ci(p.rl_low[i], p.rl_high[i])}</td>',
                     f'<td class="n">{100 * p.diff[i]:+.1f} [{100 * p.diff_low[i]:+.1f}, {100 * p.diff_high[i]:+.1f}]</td>'])
    passk_table = H._table(["k", "base", "RL", "base - RL (points)"], rows, "vc-passk")
    x = r.crossover
    figures = H._table(["figure", "value"], [
        ["crossover k*", e(f"{x.k if x.k is not None else 'none within k <= ' + str(r.k_max)} (the base catches up "
                           f"in {100 * x.bootstrap_support:.0f}% of replicates)")],
        [e(f"pass@{r.compression.k} base - pass@1 RL"), e(f"{_points(r.headroom.value)} points{_ci_pts(r.headroom)}")],
        [e(f"compression ratio at k={r.compression.k}"), e(_ci(r.compression.ratio, ".2f")
                                                          + (f" ({r.compression.reason})" if r.compression.reason else ""))],
    ], "vc-figures")
    s = r.support
    sup_rows = [[e(level), *(f'<td class="n">{getattr(sc, c)}</td>' for c in M.CATEGORIES),
                 *(e(_ci(getattr(sc, m))) for m in ("srr", "ndr", "sds", "nscr"))]
                for level, sc in (("problems", s.problems), ("answers", s.answers))]
    sup_table = H._table(["level", "preservation", "shrinkage", "expansion", "out of support", "SRR", "NDR", "SDS",
                          "NSCR"], sup_rows, "vc-support")
    plan = "; ".join(f"epsilon {row.epsilon:g}: {row.samples} samples" for row in s.plan)
    ent_rows = [[e(name), e(_num(en.answer_plugin)), e(_num(en.answer_miller_madow)), e(_pct(en.unparseable_rate)),
                 e(token_entropy_text(en).removeprefix("tokens: "))]
                for name, en in (("base", r.entropy.base), ("RL", r.entropy.rl))]
    ent_table = H._table(["model", "answers, plug-in", "answers, Miller-Madow", "unparseable", "tokens"], ent_rows,
                         "vc-entropy")
    kl = r.kl
    if kl.available:
        kl_html = (H._table(["estimate", "per token", "per sequence"], [
            ["k1 = -log r", e(_ci(kl.per_token_k1, ".4f")), e(_ci(kl.per_sequence_k1, ".3f"))],
            ["k3 = (r - 1) - log r", e(_ci(kl.per_token_k3, ".4f")), e(_ci(kl.per_sequence_k3, ".3f"))]], "vc-kl")
            + f'<p class="va-muted">{kl.sequences} RL samples, {kl.tokens} tokens; r = p_base(x) / p_rl(x)</p>'
            + "".join(f'<p class="vc-warn">{e(n, 1000)}</p>' for n in kl.notes) + svg_kl(r))
    else:
        kl_html = f'<p class="vc-kl-missing">Not computed: {e(kl.reason, 1000)}</p>'
    split_rows = [[e(sp.split), f'<td class="n">{sp.problems}</td>',
                   e(f"{100 * sp.pass1_base:.1f} / {100 * sp.pass1_rl:.1f}"), e(_points(sp.delta_pass1.value) + _ci_pts(sp.delta_pass1)),
                   e(f"{100 * sp.passk_base:.1f} / {100 * sp.passk_rl:.1f}"), e(_points(sp.delta_passk.value) + _ci_pts(sp.delta_passk)),
                   e(_points(sp.delta_pass1_vs_train) if sp.delta_pass1_vs_train is not None else ""),
                   e(f"{sp.preservation}/{sp.shrinkage}/{sp.expansion}/{sp.out_of_support}"), e(_num(sp.nscr, "+.3f")),
                   e(f"{_num(sp.answer_entropy_base, '.2f')} / {_num(sp.answer_entropy_rl, '.2f')}"),
                   e(_num(sp.kl_k3_per_token, ".4f"))] for sp in r.splits]
    split_table = H._table(["split", "problems", "pass@1 base / RL", "delta", f"pass@{r.compression.k} base / RL",
                            "delta", "delta pass@1 vs train", "P/S/E/O", "NSCR", "answer entropy base / RL",
                            "KL k3 / token"], split_rows, "vc-splits")
    limit = 500
    prob_rows = [[f"<code>{e(pr.task_id, 200)}</code>", e(pr.split), e(f"{pr.c_base}/{pr.n_base}"),
                  e(f"{pr.c_rl}/{pr.n_rl}"), e(pr.category.replace("_", " ")),
                  e("; ".join(f"{a}: {c.replace('_', ' ')}" for a, c in pr.answers.items()), 1000),
                  e(_num(pr.entropy_base, ".2f")), e(_num(pr.entropy_rl, ".2f"))] for pr in r.problem_rows[:limit]]
    prob_table = H._table(["task", "split", "base correct", "RL correct", "support", "correct answers",
                           "H base", "H RL"], prob_rows, "vc-problems")
    more = (f'<p class="va-muted">{len(r.problem_rows) - limit} more problems in the JSON.</p>'
            if len(r.problem_rows) > limit else "")
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>{e(title, 300)}</title><style>{H.CSS}{EXTRA_CSS}</style></head><body>",
        "<h1>verifier-audit compare</h1>",
        f'<p class="va-header">verifier-audit {e(r.tool_version, 40)} · base <code>{e(r.base.model, 200)}</code> '
        f'({e(r.base.path, 300)}) vs RL <code>{e(r.rl.model, 200)}</code> ({e(r.rl.path, 300)}) · suite '
        f'<code>{e(r.suite, 200)}</code> · {r.problems} problems · correctness: {e(r.labels, 300)}</p>',
        f'<p class="vc-verdict" id="verdict" data-kind="{e(r.verdict.kind, 60)}">{e(r.verdict.text, 3000)}</p>',
        "".join(f'<p class="vc-warn">warning: {e(w, 1000)}</p>' for w in r.warnings),
        f"<h2>pass@k</h2><p class=\"va-muted\">Mean over problems of the unbiased estimator; bands: 95% paired "
        f"bootstrap over problems ({r.n_boot} replicates, seed {r.seed}).</p>",
        svg_pass_at_k(r), passk_table, figures,
        f"<h2>Empirical support</h2><p class=\"va-muted\">epsilon = 1 - alpha^(1/n): base {s.epsilon_base:.4f}, RL "
        f"{s.epsilon_rl:.4f} (alpha {s.alpha:g}, rule {e(s.rule, 20)}). Planner: {e(plan, 500)}.</p>",
        svg_support(r), sup_table,
        "<h2>Entropy</h2>", svg_entropy(r), ent_table,
        "<h3>Answer entropy per split</h3>", svg_entropy_splits(r),
        "<h2>KL(RL || base)</h2>", kl_html,
        "<h2>By split</h2>", split_table,
        "<h2>Problems</h2>", prob_table, more,
        "</body></html>\n"]
    return "\n".join(parts)


# --------------------------------------------------------------------------------------
# PNG (matplotlib, optional)
# --------------------------------------------------------------------------------------

PNG_HINT = "pip install 'verifier-audit[plots]' (matplotlib)"


def matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def write_pngs(r: CompareReport, out_dir) -> list[Path]:
    """The HTML's plots as PNG files in ``out_dir``: passk.png, support.png, entropy.png
    and, when KL was computed, kl.png. Raises InputError when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError(f"--png-dir needs matplotlib, which is not installed: {PNG_HINT}") from None
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(fig, name: str) -> None:
        path = out_dir / name
        fig.tight_layout()
        fig.savefig(path, dpi=110, metadata={"Software": None})
        plt.close(fig)
        written.append(path)

    p = r.pass_at_k
    fig, ax = plt.subplots(figsize=(7, 4))
    for series, label, mean, lo, hi in (("base", f"base: {r.base.model}", p.base, p.base_low, p.base_high),
                                        ("rl", f"RL: {r.rl.model}", p.rl, p.rl_low, p.rl_high)):
        ax.fill_between(p.ks, lo, hi, color=COLORS[series], alpha=0.2, linewidth=0)
        ax.plot(p.ks, mean, color=COLORS[series], label=label)
    if r.crossover.k is not None:
        ax.axvline(r.crossover.k, color="#555", linestyle="--", linewidth=1, label=f"k* = {r.crossover.k}")
    if max(p.ks) > 1:
        ax.set_xscale("log", base=2)
        ax.set_xticks(shown_ks(max(p.ks)), [str(k) for k in shown_ks(max(p.ks))])
    ax.set_ylim(0, 1)
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k")
    ax.set_title("pass@k with 95% bootstrap bands")
    ax.legend(loc="lower right")
    save(fig, "passk.png")

    fig, ax = plt.subplots(figsize=(7, 2.6))
    levels = (("problems", r.support.problems), ("answers", r.support.answers))
    for j, (level, sc) in enumerate(levels):
        left = 0
        for cat in M.CATEGORIES:
            v = getattr(sc, cat)
            ax.barh(j, v, left=left, color=SEGMENTS[cat], label=cat.replace("_", " ") if j == 0 else None)
            left += v
    ax.set_yticks(range(len(levels)), [lv for lv, _ in levels])
    ax.set_xlabel("count")
    ax.set_title(f"empirical support (alpha {r.support.alpha:g})")
    ax.legend(ncol=4, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35))
    save(fig, "support.png")

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
    names = ["answers plug-in", "answers Miller-Madow", "tokens (lower)"]
    eb, er = r.entropy.base, r.entropy.rl
    for i, (series, en) in enumerate((("base", eb), ("rl", er))):
        vals = [en.answer_plugin, en.answer_miller_madow, en.token_low]
        a1.bar([j + 0.38 * i for j in range(3)], [v or 0.0 for v in vals], width=0.38, color=COLORS[series],
               label="base" if series == "base" else "RL")
        if en.token_low is not None and en.token_high is not None and not en.token_exact:
            a1.errorbar([2 + 0.38 * i], [en.token_low], yerr=[[0], [en.token_high - en.token_low]], color="#222",
                        capsize=3)
    a1.set_xticks([j + 0.19 for j in range(3)], names, fontsize=8)
    a1.set_ylabel("nats")
    a1.set_title("entropy")
    a1.legend()
    for i, series in enumerate(("base", "rl")):
        vals = [(s.answer_entropy_base if series == "base" else s.answer_entropy_rl) or 0.0 for s in r.splits]
        a2.bar([j + 0.38 * i for j in range(len(r.splits))], vals, width=0.38, color=COLORS[series])
    a2.set_xticks([j + 0.19 for j in range(len(r.splits))], [s.split for s in r.splits])
    a2.set_title("answer entropy per split (Miller-Madow)")
    save(fig, "entropy.png")

    if r.kl.available:
        fig, ax = plt.subplots(figsize=(7, 3))
        labels = ["all k1", "all k3"] + [f"{s.split} k3" for s in r.splits]
        vals = [r.kl.per_token_k1.value or 0.0, r.kl.per_token_k3.value or 0.0] + [s.kl_k3_per_token or 0.0 for s in r.splits]
        ax.bar(range(len(vals)), vals, color=COLORS["rl"])
        ax.set_xticks(range(len(vals)), labels, fontsize=8)
        ax.set_ylabel("nats per token")
        ax.set_title("KL(RL || base)")
        save(fig, "kl.png")
    return written


def write_json(r: CompareReport, path) -> None:
    from ..models import to_json

    Path(path).write_text(to_json(r, indent=2) + "\n", encoding="utf-8")


def read_json(path) -> CompareReport:
    return CompareReport.model_validate_json(Path(path).read_text(encoding="utf-8"))


__all__ = ["CompareReport", "Facts", "compute", "run_compare", "render_text", "render_html", "write_pngs",
           "write_json", "read_json", "canonical_answer", "verdict"]
