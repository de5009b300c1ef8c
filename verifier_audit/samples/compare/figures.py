"""The pieces of the ``compare`` figures, from the per-sample facts grouped by problem:
support counts with their bootstrap intervals, answer and token entropy per model, KL and
the per-split figures. ``pipeline.compute`` assembles them into the report.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .. import metrics as M
from ..records import SamplesFile
from .facts import Facts
from .models import KL, Figure, ModelEntropy, SplitFigures, SupportCounts

SPLIT_ORDER = ("train", "heldout", "shifted")


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


def _fig(value: float | None, ci: tuple[float | None, float | None] | None = None) -> Figure:
    lo, hi = ci if ci is not None else (None, None)
    clean = lambda x: None if x is None or not math.isfinite(x) else float(x)
    return Figure(value=clean(value), low=clean(lo), high=clean(hi))


def _split_key(split: str) -> tuple[int, str]:
    return (SPLIT_ORDER.index(split) if split in SPLIT_ORDER else len(SPLIT_ORDER), split)


def _model_entropy(problems: list[_Problem], side: str, facts_all: list[Facts], kind: str | None) -> ModelEntropy:
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
    return ModelEntropy(
        answer_plugin=sum(plug) / len(plug) if plug else None,
        answer_miller_madow=sum(mm) / len(mm) if mm else None,
        unparseable_rate=bad / total if total else 0.0,
        problems=len(plug),
        token_low=low,
        token_high=high,
        token_exact=exact,
        tokens=tokens,
        logprobs_kind=kind,
    )


def _kind(f: SamplesFile) -> str | None:
    """raw | processed from the manifest (or the samples, for an imported file); None when
    no logprobs are recorded."""
    sampling = getattr(f.manifest, "sampling", None)
    if sampling is not None:
        return sampling.logprobs_kind
    return next((s.logprobs_kind for s in f.samples if s.logprobs_kind and s.logprobs), None)


def _kl(rl_file: SamplesFile, facts: list[Facts], base_name: str) -> KL:
    kind = _kind(rl_file)
    if kind is None:
        return KL(
            available=False,
            reason="the RL samples file records no logprobs (an imported file?): KL needs the "
            "RL model's raw logprob of each sampled token",
        )
    if kind != "raw":
        return KL(
            available=False,
            reason=(
                "refused: the RL samples record processed logprobs (after temperature and top-p); "
                "KL(rl || base) needs the RL model's raw logprobs, comparable with the base's raw "
                "reference logprobs. Sample again with --logprobs raw"
            ),
        )
    with_ref = [f for f in facts if f.kl_k1 is not None]
    if not with_ref:
        return KL(
            available=False,
            reason=(
                "no reference logprobs in the RL samples file: compute the base model's logprobs of "
                "the RL samples by teacher forcing (verifier-audit logprobs --model BASE rl.jsonl)"
            ),
        )
    notes = []
    if len(with_ref) < len(facts):
        notes.append(f"{len(facts) - len(with_ref)} of {len(facts)} RL samples have no reference logprobs: left out")
    s = getattr(rl_file.manifest, "sampling", None)
    if s is None:
        notes.append(
            "the RL file does not say at which temperature and top-p it was sampled: the figures are "
            "KL(rl || base) only if that was temperature 1 and top-p 1"
        )
    elif s.temperature != 1.0 or s.top_p != 1.0:
        notes.append(
            f"the RL samples were drawn at temperature {s.temperature:g}, top-p {s.top_p:g}, not from the "
            "RL model's raw distribution: the figures estimate E over the sampler of log(p_rl/p_base), "
            "which equals KL(rl || base) only at temperature 1 and top-p 1"
        )
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
    return KL(
        available=True,
        sequences=len(with_ref),
        tokens=tokens,
        per_token_k1=_fig(sum(k1_seq) / tokens if tokens else None, (l1, h1)),
        per_token_k3=_fig(sum(k3_seq) / tokens if tokens else None, (l3, h3)),
        per_sequence_k1=_fig(*_mi(k1_seq)),
        per_sequence_k3=_fig(*_mi(k3_seq)),
        notes=notes,
    )


def _mi(values: list[float]) -> tuple[float | None, tuple[float | None, float | None]]:
    mean, lo, hi = M.mean_interval(values)
    return mean, (lo, hi)


def _support_counts(cats: Sequence[str], counts_matrix, weights) -> SupportCounts:
    import numpy as np

    counts = {c: 0 for c in M.CATEGORIES}
    for c in cats:
        counts[c] += 1
    rates = M.support_rates(counts["preservation"], counts["shrinkage"], counts["expansion"])
    cis = (
        M.support_bootstrap(np.asarray(counts_matrix, dtype=float).reshape(-1, 3), weights)
        if len(counts_matrix)
        else {}
    )
    return SupportCounts(
        preservation=counts["preservation"],
        shrinkage=counts["shrinkage"],
        expansion=counts["expansion"],
        out_of_support=counts["out_of_support"],
        **{name: _fig(getattr(rates, name), cis.get(name)) for name in ("srr", "ndr", "sds", "nscr")},
    )


def _l(a) -> list[float]:
    return [float(x) for x in a]


def _splits(
    problems: list[_Problem],
    k_head: int,
    alpha: float,
    rule: M.SupportRule,
    n_boot: int,
    seed: int,
    prob_cats: list[str],
    with_kl: bool,
) -> list[SplitFigures]:
    import numpy as np

    out: list[SplitFigures] = []
    names = sorted({p.split for p in problems}, key=_split_key)
    for name in names:
        idx = [i for i, p in enumerate(problems) if p.split == name]
        ps = [problems[i] for i in idx]
        k_s = min(k_head, min(min(len(p.base), len(p.rl)) for p in ps))
        curves = M.pass_at_k_curves(
            [len(p.base) for p in ps],
            [p.c_base for p in ps],
            [len(p.rl) for p in ps],
            [p.c_rl for p in ps],
            k_s,
            n_boot=n_boot,
            seed=seed,
        )
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
        out.append(
            SplitFigures(
                split=name,
                problems=len(ps),
                pass1_base=float(curves.base[0]),
                pass1_rl=float(curves.rl[0]),
                passk_base=float(curves.base[k_s - 1]),
                passk_rl=float(curves.rl[k_s - 1]),
                delta_pass1=_fig(float(curves.rl[0] - curves.base[0]), M.percentile_interval(d1)),
                delta_passk=_fig(float(curves.rl[k_s - 1] - curves.base[k_s - 1]), M.percentile_interval(dk)),
                compression=M.compression_ratio(
                    float(curves.base[0]), float(curves.rl[0]), float(curves.base[k_s - 1])
                ),
                preservation=cats.count("preservation"),
                shrinkage=cats.count("shrinkage"),
                expansion=cats.count("expansion"),
                out_of_support=cats.count("out_of_support"),
                nscr=rates.nscr,
                answer_entropy_base=float(np.mean(mm_b)) if mm_b else None,
                answer_entropy_rl=float(np.mean(mm_r)) if mm_r else None,
                kl_k3_per_token=kl_tok,
            )
        )
    train = next((s for s in out if s.split == "train"), None)
    if train is not None:
        for s in out:
            if s is not train and s.delta_pass1.value is not None and train.delta_pass1.value is not None:
                s.delta_pass1_vs_train = s.delta_pass1.value - train.delta_pass1.value
    return out
