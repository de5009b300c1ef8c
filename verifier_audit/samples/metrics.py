"""Compression versus capability: the figures of ``verifier-audit compare``, as pure functions.

Everything here takes counts, frequencies or log-probabilities and returns numbers; nothing
reads files or labels samples (``compare.py`` does). Each function states its formula and
where it comes from; ``docs/compare.md`` explains how to read them.

Conventions: a *problem* is a task; ``n`` is the number of samples a model drew for it and
``c`` how many of them were correct. Entropies are in nats. Bootstrap intervals are
percentile intervals of a paired bootstrap over problems (the same resampled problems for
both models), seeded, so the same inputs give the same intervals.

Sources:

* pass@k: Chen et al. 2021, "Evaluating Large Language Models Trained on Code" (the
  unbiased estimator and its numerically stable product form).
* Crossover, "the base catches up": Yue et al. 2025, "Does Reinforcement Learning Really
  Incentivize Reasoning Capacity in LLMs Beyond the Base Model?".
* Empirical support, epsilon = 1 - alpha^(1/k), preservation / shrinkage / expansion /
  out of support, SRR, NDR, SDS, NSCR: Wu et al. 2025, "The Invisible Leash: Why RLVR May
  or May Not Escape Its Origin".
* Miller-Madow: Miller 1955, "Note on the bias of information estimates".
* KL estimators k1 and k3: J. Schulman, "Approximating KL divergence" (2020 note).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

SupportRule = Literal["frequency", "observed"]
Category = Literal["preservation", "shrinkage", "expansion", "out_of_support"]
CATEGORIES: tuple[Category, ...] = ("preservation", "shrinkage", "expansion", "out_of_support")

# --------------------------------------------------------------------------------------
# pass@k
# --------------------------------------------------------------------------------------


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one problem (Chen et al. 2021):

        pass@k = 1 - C(n-c, k) / C(n, k) = 1 - prod_{i=n-c+1}^{n} (1 - k/i),   and 1 when n-c < k.

    The product form never builds a binomial coefficient, so it is exact to rounding for
    any n. Defined for 1 <= k <= n only.
    """
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if not 1 <= k <= n:
        raise ValueError(f"pass@k needs 1 <= k <= n, got k={k}, n={n}")
    if n - c < k:
        return 1.0
    i = np.arange(n - c + 1, n + 1, dtype=np.float64)
    return float(1.0 - np.prod(1.0 - k / i))


def pass_at_k_matrix(ns: Sequence[int], cs: Sequence[int], k_max: int) -> np.ndarray:
    """pass@k for every problem (rows) and every k = 1..k_max (columns).

    The same estimator as ``pass_at_k``, computed for all k at once by the recurrence on
    the complement ratio  C(n-c, k) / C(n, k) = prod_{j=0}^{k-1} (n-c-j) / (n-j):  each
    factor lies in [0, 1], so the running product only decreases and cannot overflow, and
    a whole row costs O(k_max). Entries with k > n are NaN (pass@k is undefined there).
    """
    ns_a = np.asarray(ns, dtype=np.int64)
    cs_a = np.asarray(cs, dtype=np.int64)
    if ns_a.shape != cs_a.shape:
        raise ValueError("ns and cs differ in length")
    if np.any(cs_a < 0) or np.any(cs_a > ns_a):
        raise ValueError("need 0 <= c <= n for every problem")
    if k_max < 1:
        raise ValueError(f"k_max must be >= 1, got {k_max}")
    j = np.arange(k_max, dtype=np.float64)[None, :]  # j = k - 1
    n = ns_a[:, None].astype(np.float64)
    wrong = (ns_a - cs_a)[:, None].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.clip(wrong - j, 0.0, None) / (n - j)
    factor[np.broadcast_to(j >= n, factor.shape)] = 1.0  # placeholders, replaced by NaN below
    out = 1.0 - np.cumprod(factor, axis=1)
    out[np.broadcast_to(j >= n, out.shape)] = np.nan
    return out


def mean_pass_at_k(ns: Sequence[int], cs: Sequence[int], k_max: int) -> np.ndarray:
    """pass@k averaged over problems, k = 1..k_max (every problem needs n >= k_max)."""
    m = pass_at_k_matrix(ns, cs, k_max)
    if np.isnan(m).any():
        raise ValueError(f"k_max={k_max} exceeds some problem's n={min(ns)}")
    return m.mean(axis=0)


def bootstrap_weights(n_problems: int, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, n_problems) resampling counts: replicate b draws problems with
    replacement; row b says how many times each problem was drawn. One matrix serves both
    models, which makes the bootstrap paired."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_problems, np.full(n_problems, 1.0 / n_problems), size=n_boot).astype(np.float64)


def bootstrap_means(per_problem: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Replicate means (n_boot, columns) of a (problems, columns) matrix."""
    return weights @ per_problem / weights.sum(axis=1, keepdims=True)


def percentile_interval(replicates: np.ndarray, level: float = 0.95, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval (Efron): the (1-level)/2 and (1+level)/2 quantiles."""
    lo, hi = np.nanquantile(replicates, [(1 - level) / 2, (1 + level) / 2], axis=axis)
    return lo, hi


@dataclass
class PassAtKCurves:
    """Mean pass@k of both models and of base - rl for k = 1..K, with paired bootstrap
    intervals; ``base_reps``/``rl_reps`` keep the replicates for derived figures."""

    ks: np.ndarray
    base: np.ndarray
    rl: np.ndarray
    base_low: np.ndarray
    base_high: np.ndarray
    rl_low: np.ndarray
    rl_high: np.ndarray
    diff: np.ndarray  # base - rl
    diff_low: np.ndarray
    diff_high: np.ndarray
    base_reps: np.ndarray  # (n_boot, K)
    rl_reps: np.ndarray


def pass_at_k_curves(
    base_n: Sequence[int],
    base_c: Sequence[int],
    rl_n: Sequence[int],
    rl_c: Sequence[int],
    k_max: int,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> PassAtKCurves:
    """Both curves on the same problems (row i of each is problem i), bootstrapped in pairs."""
    mb = pass_at_k_matrix(base_n, base_c, k_max)
    mr = pass_at_k_matrix(rl_n, rl_c, k_max)
    if np.isnan(mb).any() or np.isnan(mr).any():
        raise ValueError(f"k_max={k_max} exceeds some problem's number of samples")
    w = bootstrap_weights(mb.shape[0], n_boot, seed)
    rb, rr = bootstrap_means(mb, w), bootstrap_means(mr, w)
    bl, bh = percentile_interval(rb, level)
    rl_lo, rl_hi = percentile_interval(rr, level)
    dl, dh = percentile_interval(rb - rr, level)
    base, rl = mb.mean(axis=0), mr.mean(axis=0)
    return PassAtKCurves(np.arange(1, k_max + 1), base, rl, bl, bh, rl_lo, rl_hi, base - rl, dl, dh, rb, rr)


def crossover(base: np.ndarray, rl: np.ndarray, tol: float = 1e-12) -> int | None:
    """k* = the smallest k with pass@k(base) >= pass@k(rl) (arrays indexed by k-1); None
    when the base never catches up within the curves. Yue et al. report k* in the tens to
    hundreds for RLVR models on math."""
    hit = np.nonzero(np.asarray(base) >= np.asarray(rl) - tol)[0]
    return int(hit[0]) + 1 if hit.size else None


@dataclass
class CrossoverBootstrap:
    k: int | None  # on the point estimates
    support: float  # fraction of replicates in which the base catches up at some k <= K
    low: int | None  # percentile interval of k* over replicates (no crossover = beyond K)
    high: int | None  # None: beyond K, i.e. more than (1-level)/2 of replicates never cross


def crossover_bootstrap(curves: PassAtKCurves, level: float = 0.95, tol: float = 1e-12) -> CrossoverBootstrap:
    """k* in every bootstrap replicate: how often the base catches up, and where."""
    ok = curves.base_reps >= curves.rl_reps - tol  # (n_boot, K)
    any_ok = ok.any(axis=1)
    first = np.where(any_ok, ok.argmax(axis=1) + 1, np.inf)  # inf: no crossover within K
    lo = np.quantile(first, (1 - level) / 2, method="lower")
    hi = np.quantile(first, (1 + level) / 2, method="higher")
    return CrossoverBootstrap(
        crossover(curves.base, curves.rl, tol),
        float(any_ok.mean()),
        int(lo) if np.isfinite(lo) else None,
        int(hi) if np.isfinite(hi) else None,
    )


def compression_ratio(pass1_base: float, pass1_rl: float, passk_base: float, min_gap: float = 1e-9) -> float | None:
    """Compression ratio at k = (pass@1_rl - pass@1_base) / (pass@k_base - pass@1_base).

    The denominator is the base model's headroom: what it reaches with k tries beyond its
    first. 1 means RL turned all of that headroom into pass@1 (full compression of the
    base's search into one sample); above 1, RL's pass@1 exceeds what the base reaches with
    k tries; 0, no gain; negative, pass@1 fell. None when the headroom is zero (below
    ``min_gap``): the base is as good at k tries as at one, and the ratio is undefined.
    """
    gap = passk_base - pass1_base
    if gap <= min_gap:
        return None
    return (pass1_rl - pass1_base) / gap


def compression_bootstrap(
    curves: PassAtKCurves, k: int, level: float = 0.95, min_gap: float = 1e-9
) -> tuple[float | None, float | None, float | None]:
    """(ratio, low, high) at k; replicates with zero headroom are left out of the interval."""
    point = compression_ratio(float(curves.base[0]), float(curves.rl[0]), float(curves.base[k - 1]), min_gap)
    gap = curves.base_reps[:, k - 1] - curves.base_reps[:, 0]
    keep = gap > min_gap
    if point is None or not keep.any():
        return point, None, None
    reps = (curves.rl_reps[keep, 0] - curves.base_reps[keep, 0]) / gap[keep]
    lo, hi = percentile_interval(reps, level)
    return point, float(lo), float(hi)


# --------------------------------------------------------------------------------------
# Empirical support (Wu et al. 2025)
# --------------------------------------------------------------------------------------


def epsilon(k: int, alpha: float = 0.05) -> float:
    """epsilon = 1 - alpha^(1/k): an outcome of probability above epsilon shows up at least
    once in k independent samples with probability at least 1 - alpha, since
    (1 - epsilon)^k = alpha. Computed as -expm1(ln(alpha)/k) (no cancellation for large k)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return -math.expm1(math.log(alpha) / k)


def samples_needed(eps: float, alpha: float = 0.05) -> int:
    """The planner: the smallest k with 1 - alpha^(1/k) <= eps, i.e.
    k = ceil(ln(alpha) / ln(1 - eps)): how many samples per problem resolve probabilities
    down to eps with confidence 1 - alpha."""
    if not 0 < eps < 1:
        raise ValueError(f"epsilon must be in (0, 1), got {eps}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    k = max(1, math.ceil(math.log(alpha) / math.log1p(-eps)))
    # guard the ceiling against rounding in the last bit
    while k > 1 and epsilon(k - 1, alpha) <= eps:
        k -= 1
    while epsilon(k, alpha) > eps:
        k += 1
    return k


def in_support(count: int, n: int, alpha: float = 0.05, rule: SupportRule = "frequency") -> bool:
    """Whether an outcome seen ``count`` times in ``n`` samples is in the empirical support.

    ``frequency`` (default): its estimated probability count/n is above epsilon(n, alpha),
    the definition "probability above epsilon" with the plug-in estimate. ``observed``: it
    was seen at least once; then epsilon is the resolution of the measurement (an outcome
    never seen has probability <= epsilon with confidence 1 - alpha).
    """
    if n <= 0:
        return False
    if rule == "observed":
        return count > 0
    if rule == "frequency":
        return count / n > epsilon(n, alpha)
    raise ValueError(f"unknown support rule {rule!r}")


def category(base_in: bool, rl_in: bool) -> Category:
    """Preservation P (in both), shrinkage S (base only), expansion E (rl only), out of
    support O (neither)."""
    if base_in and rl_in:
        return "preservation"
    if base_in:
        return "shrinkage"
    if rl_in:
        return "expansion"
    return "out_of_support"


def answer_categories(
    base_counts: Mapping[str, int],
    n_base: int,
    rl_counts: Mapping[str, int],
    n_rl: int,
    alpha: float = 0.05,
    rule: SupportRule = "frequency",
) -> dict[str, Category]:
    """Category of every distinct correct answer either model produced for one problem
    (counts: how many of the model's samples gave that correct answer)."""
    out: dict[str, Category] = {}
    for ans in sorted(set(base_counts) | set(rl_counts)):
        out[ans] = category(
            in_support(base_counts.get(ans, 0), n_base, alpha, rule),
            in_support(rl_counts.get(ans, 0), n_rl, alpha, rule),
        )
    return out


def problem_category(
    c_base: int, n_base: int, c_rl: int, n_rl: int, alpha: float = 0.05, rule: SupportRule = "frequency"
) -> Category:
    """A problem is in a model's support when its probability of a correct sample (c/n)
    is: the problem-level reading of the same definition."""
    return category(in_support(c_base, n_base, alpha, rule), in_support(c_rl, n_rl, alpha, rule))


@dataclass
class SupportRates:
    srr: float | None  # support retention rate P / (P + S)
    ndr: float | None  # net discovery rate E / (P + E)
    sds: float | None  # support dynamic score: harmonic mean of SRR and NDR
    nscr: float | None  # net support change rate (E - S) / (P + E + S)


def support_rates(p: float, s: float, e: float) -> SupportRates:
    """Wu et al. 2025: SRR = P/(P+S), NDR = E/(P+E), SDS = 2*SRR*NDR/(SRR+NDR),
    NSCR = (E-S)/(P+E+S). A rate with a zero denominator is None; SDS is 0 when both
    rates are 0. They report SRR 0.93-0.99, NDR <= 0.04, NSCR -0.01 to -0.06."""
    srr = p / (p + s) if p + s > 0 else None
    ndr = e / (p + e) if p + e > 0 else None
    if srr is None or ndr is None:
        sds = None
    else:
        sds = 0.0 if srr + ndr == 0 else 2 * srr * ndr / (srr + ndr)
    nscr = (e - s) / (p + e + s) if p + e + s > 0 else None
    return SupportRates(srr, ndr, sds, nscr)


def support_bootstrap(
    counts: np.ndarray, weights: np.ndarray, level: float = 0.95
) -> dict[str, tuple[float | None, float | None]]:
    """Intervals of SRR, NDR, SDS and NSCR by resampling problems. ``counts``: (problems, 3)
    columns P, S, E per problem (0/1 at problem level, answer counts at answer level)."""
    tot = weights @ counts  # (n_boot, 3)
    p, s, e = tot[:, 0], tot[:, 1], tot[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        srr = np.where(p + s > 0, p / (p + s), np.nan)
        ndr = np.where(p + e > 0, e / (p + e), np.nan)
        sds = np.where(srr + ndr > 0, 2 * srr * ndr / (srr + ndr), np.where(np.isnan(srr + ndr), np.nan, 0.0))
        nscr = np.where(p + e + s > 0, (e - s) / (p + e + s), np.nan)
    out: dict[str, tuple[float | None, float | None]] = {}
    for name, reps in (("srr", srr), ("ndr", ndr), ("sds", sds), ("nscr", nscr)):
        reps = reps[~np.isnan(reps)]
        if reps.size == 0:
            out[name] = (None, None)
        else:
            lo, hi = percentile_interval(reps, level)
            out[name] = (float(lo), float(hi))
    return out


# --------------------------------------------------------------------------------------
# Entropy
# --------------------------------------------------------------------------------------


def plugin_entropy(counts: Sequence[int]) -> float:
    """Plug-in (maximum likelihood) entropy of observed counts, nats:
    H = -sum (c_i/N) ln(c_i/N). Biased low by about (m-1)/(2N)."""
    c = np.asarray([x for x in counts if x > 0], dtype=np.float64)
    if c.size == 0:
        raise ValueError("no observations")
    p = c / c.sum()
    return float(-(p * np.log(p)).sum())


def miller_madow_entropy(counts: Sequence[int]) -> float:
    """Miller-Madow: the plug-in entropy plus (m - 1) / (2N), m = number of outcomes seen,
    N = number of observations: the first-order correction of the plug-in's bias."""
    m = sum(1 for x in counts if x > 0)
    n = sum(counts)
    return plugin_entropy(counts) + (m - 1) / (2 * n)


def answer_entropy(answers: Sequence[str | None]) -> tuple[float | None, float | None, float]:
    """(plug-in, Miller-Madow, unparseable rate) of one problem's answers; None answers
    are unparseable and left out of the distribution; entropies are None when every
    answer is unparseable."""
    if not answers:
        return None, None, 0.0
    counts: dict[str, int] = {}
    bad = 0
    for a in answers:
        if a is None:
            bad += 1
        else:
            counts[a] = counts.get(a, 0) + 1
    rate = bad / len(answers)
    if not counts:
        return None, None, rate
    values = list(counts.values())
    return plugin_entropy(values), miller_madow_entropy(values), rate


def top_logprobs_matrix(rows: Sequence[Mapping[int, float]]) -> np.ndarray:
    """(tokens, K) log-probabilities from per-token top-K dicts; missing entries -inf."""
    width = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), max(width, 1)), -np.inf)
    for i, r in enumerate(rows):
        if r:
            out[i, : len(r)] = list(r.values())
    return out


def token_entropy_bounds(
    top: np.ndarray, vocab_size: int | None = None, tol: float = 1e-5
) -> tuple[np.ndarray, np.ndarray]:
    """Per-token bounds (low, high) on the entropy of the distribution the top-K came from.

    Known: the K largest probabilities p_1 >= ... >= p_K (a row of ``top``, log-space,
    -inf where absent) and so the tail mass R = 1 - sum p_i, spread over the other tokens,
    each of probability at most p_K. H = H_top + H_tail with H_top = -sum p_i ln p_i.

    * Lower bound: entropy is concave, so over {0 <= q_j <= p_K, sum q_j = R} its minimum
      is at a vertex: m = floor(R / p_K) tokens at p_K and one at r = R - m p_K:
      H_tail >= -m p_K ln p_K - r ln r. This is at least -R ln R (the tail as one
      outcome), the cruder bound, and equal to it when R <= p_K.
    * Upper bound: for N = V - K tail tokens, H_tail <= R ln(N / R) (the tail spread
      evenly; maximum entropy at fixed mass). It needs the vocabulary size V: without it
      the tail could be spread over arbitrarily many tokens and ``high`` is NaN.
    * Exact: when the recorded entries carry all the mass (R <= ``tol``, the rounding of
      recorded logprobs, or no token outside them), low = high = H_top. That is the "full
      distribution recorded" case: a file whose top-K covers the vocabulary (K = V) or,
      under processed logprobs, a nucleus smaller than K.
    """
    top = np.atleast_2d(np.asarray(top, dtype=np.float64))
    p = np.exp(top)  # exp(-inf) = 0
    present = np.isfinite(top)
    with np.errstate(divide="ignore", invalid="ignore"):
        h_top = -np.where(present, p * top, 0.0).sum(axis=1)
    k_row = present.sum(axis=1)
    rest = np.clip(1.0 - p.sum(axis=1), 0.0, 1.0)
    if vocab_size is not None:
        n_tail = vocab_size - k_row
        rest = np.where(n_tail <= 0, 0.0, rest)
    rest = np.where(rest <= tol, 0.0, rest)
    p_min = np.where(k_row > 0, np.where(present, p, np.inf).min(axis=1), 1.0)
    p_min = np.where(p_min > 0, p_min, 1.0)
    m = np.floor(rest / p_min)
    r = np.clip(rest - m * p_min, 0.0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        tail_low = -m * p_min * np.log(p_min) - np.where(r > 0, r * np.log(r), 0.0)
    low = h_top + tail_low
    if vocab_size is None:
        high = np.where(rest == 0, h_top, np.nan)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            tail_high = np.where(
                rest > 0, rest * (np.log(np.maximum(n_tail, 1)) - np.log(np.where(rest > 0, rest, 1.0))), 0.0
            )
        high = np.maximum(h_top + tail_high, low)
    return low, high


def exact_entropy(probs: Sequence[float]) -> float:
    """-sum p ln p of a full distribution (0 ln 0 = 0)."""
    p = np.asarray(probs, dtype=np.float64)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


# --------------------------------------------------------------------------------------
# KL(rl || base)
# --------------------------------------------------------------------------------------


def kl_token_estimates(logprobs: Sequence[float], ref_logprobs: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Per-token k1 and k3 estimates of KL(rl || base) at tokens x sampled from rl:

        log r = ln p_base(x) - ln p_rl(x),   k1 = -log r,   k3 = (r - 1) - log r.

    E_{x ~ rl}[k1] = E[k3] = KL(rl || base) (k3 because E_{x~rl}[r] = 1 when the base
    gives positive probability wherever rl does); k3 >= 0 always (e^t >= 1 + t) and has
    lower variance than k1 (Schulman's note). Summed over a sequence's tokens either is an
    unbiased estimate of the sequence-level KL, by the chain rule: each token's term is
    unbiased for the KL of the next-token distributions given the prefix sampled so far.
    """
    lp = np.asarray(logprobs, dtype=np.float64)
    ref = np.asarray(ref_logprobs, dtype=np.float64)
    if lp.shape != ref.shape:
        raise ValueError(f"{lp.size} logprobs but {ref.size} reference logprobs")
    log_r = ref - lp
    k1 = -log_r
    k3 = np.expm1(log_r) - log_r
    return k1, np.maximum(k3, 0.0)  # exact arithmetic gives >= 0; clip rounding below 0


def mean_interval(
    values: Sequence[float], z: float = 1.959963984540054
) -> tuple[float | None, float | None, float | None]:
    """(mean, low, high): the normal-approximation interval mean +- z * sd / sqrt(n)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return None, None, None
    mean = float(v.mean())
    if v.size < 2:
        return mean, None, None
    half = z * float(v.std(ddof=1)) / math.sqrt(v.size)
    return mean, mean - half, mean + half
