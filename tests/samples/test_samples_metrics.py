"""The formulas of ``verifier_audit.samples.metrics``: hand-computed values, brute-force
enumeration and exact expectations (Hypothesis for the properties)."""

from __future__ import annotations

import itertools
import math

import pytest

np = pytest.importorskip("numpy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from verifier_audit.samples import metrics as M  # noqa: E402

FAST = settings(max_examples=150, deadline=None)


# --- pass@k ---------------------------------------------------------------------------------


def test_pass_at_k_hand_values():
    # n=5, c=2: 1 - C(3,k)/C(5,k)
    assert M.pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert M.pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)
    assert M.pass_at_k(5, 2, 3) == pytest.approx(1 - 1 / 10)
    assert M.pass_at_k(5, 2, 4) == 1.0  # n - c < k
    assert M.pass_at_k(10, 3, 2) == pytest.approx(1 - 21 / 45)
    assert M.pass_at_k(10, 0, 10) == 0.0 and M.pass_at_k(10, 10, 1) == 1.0
    row = M.pass_at_k_matrix([5], [2], 5)[0]
    assert row == pytest.approx([0.4, 0.7, 0.9, 1.0, 1.0])
    m = M.pass_at_k_matrix([3, 5], [1, 2], 5)
    assert np.isnan(m[0, 3:]).all() and m[0, :3] == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert M.mean_pass_at_k([5, 5], [2, 0], 2) == pytest.approx([0.2, 0.35])


def test_pass_at_k_rejects_k_outside_1_to_n():
    for args in ((5, 2, 0), (5, 2, 6), (5, 6, 1)):
        with pytest.raises(ValueError):
            M.pass_at_k(*args)
    with pytest.raises(ValueError):
        M.mean_pass_at_k([3, 5], [1, 1], 4)


def test_pass_at_k_is_stable_for_large_n():
    # C(1000, 500) overflows a float; the product form does not need it
    v = M.pass_at_k(1000, 3, 500)
    assert v == pytest.approx(1 - (500 * 499 * 498) / (1000 * 999 * 998))
    assert M.pass_at_k_matrix([1000], [3], 1000)[0, 499] == pytest.approx(v)


@st.composite
def n_c_k(draw, max_n=9):
    n = draw(st.integers(1, max_n))
    return n, draw(st.integers(0, n)), draw(st.integers(1, n))


@FAST
@given(n_c_k())
def test_pass_at_k_equals_enumeration_over_k_subsets(nck):
    n, c, k = nck
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    brute = sum(any(samples[i] for i in s) for s in subsets) / len(subsets)
    assert M.pass_at_k(n, c, k) == pytest.approx(brute, abs=1e-12)
    assert M.pass_at_k_matrix([n], [c], n)[0, k - 1] == pytest.approx(brute, abs=1e-12)


@FAST
@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_at_k_is_monotone_and_a_probability(nc):
    n, c = nc
    row = M.pass_at_k_matrix([n], [c], n)[0]
    assert np.all((row >= 0) & (row <= 1))
    assert np.all(np.diff(row) >= -1e-12)
    assert row[0] == pytest.approx(c / n)  # pass@1 is the fraction correct
    assert row[-1] == (1.0 if c else 0.0)  # pass@n: solved at least once


def test_bootstrap_is_seeded_paired_and_brackets_the_mean():
    base_n, base_c = [8] * 20, [i % 5 for i in range(20)]
    rl_n, rl_c = [8] * 20, [min(8, 2 * (i % 5)) for i in range(20)]
    a = M.pass_at_k_curves(base_n, base_c, rl_n, rl_c, 8, n_boot=300, seed=3)
    b = M.pass_at_k_curves(base_n, base_c, rl_n, rl_c, 8, n_boot=300, seed=3)
    assert np.array_equal(a.base_low, b.base_low) and np.array_equal(a.diff_high, b.diff_high)
    assert np.all(a.base_low <= a.base + 1e-12) and np.all(a.base <= a.base_high + 1e-12)
    assert a.diff == pytest.approx(a.base - a.rl)
    # paired: the replicate differences are the differences of the replicates
    lo, hi = M.percentile_interval(a.base_reps - a.rl_reps)
    assert lo == pytest.approx(a.diff_low) and hi == pytest.approx(a.diff_high)
    c = M.pass_at_k_curves(base_n, base_c, rl_n, rl_c, 8, n_boot=300, seed=4)
    assert not np.array_equal(a.base_low, c.base_low) or not np.array_equal(a.base_high, c.base_high)


def test_crossover_hand_cases():
    assert M.crossover(np.array([0.1, 0.3, 0.6]), np.array([0.5, 0.5, 0.5])) == 3
    assert M.crossover(np.array([0.1, 0.3]), np.array([0.5, 0.5])) is None
    assert M.crossover(np.array([0.5, 0.6]), np.array([0.5, 0.9])) == 1  # equal counts as caught up


def test_crossover_bootstrap_support():
    # the base is far below at k=1 and solves more problems at k=n on every resample
    curves = M.pass_at_k_curves([10] * 30, [1] * 30, [10] * 30, [9] * 15 + [0] * 15, 10, n_boot=200, seed=0)
    x = M.crossover_bootstrap(curves)
    assert x.k is not None and 1 < x.k <= 10 and x.support == 1.0 and x.low <= x.k <= x.high
    never = M.pass_at_k_curves([10] * 5, [0] * 5, [10] * 5, [5] * 5, 10, n_boot=50, seed=0)
    x = M.crossover_bootstrap(never)
    assert (x.k, x.support, x.low, x.high) == (None, 0.0, None, None)


def test_compression_ratio_hand_values():
    assert M.compression_ratio(0.2, 0.5, 0.8) == pytest.approx(0.5)
    assert M.compression_ratio(0.2, 0.9, 0.8) == pytest.approx(7 / 6)  # beyond the base's reach at k
    assert M.compression_ratio(0.4, 0.3, 0.6) == pytest.approx(-0.5)
    assert M.compression_ratio(0.3, 0.5, 0.3) is None  # zero headroom
    curves = M.pass_at_k_curves([4, 4], [1, 4], [4, 4], [4, 4], 4, n_boot=50, seed=0)
    ratio, lo, hi = M.compression_bootstrap(curves, 4)
    # base pass@1 = (0.25 + 1)/2, pass@4 = 1; rl pass@1 = 1
    assert ratio == pytest.approx((1 - 0.625) / (1 - 0.625))
    flat = M.pass_at_k_curves([4], [4], [4], [4], 4, n_boot=20, seed=0)
    assert M.compression_bootstrap(flat, 4) == (None, None, None)


# --- support --------------------------------------------------------------------------------


def test_epsilon_and_planner_hand_values():
    assert M.epsilon(1, 0.05) == pytest.approx(0.95)
    assert M.epsilon(64, 0.05) == pytest.approx(1 - 0.05 ** (1 / 64))
    assert M.epsilon(64, 0.05) == pytest.approx(0.0457297, abs=1e-6)
    assert M.samples_needed(0.01, 0.05) == 299  # ln 0.05 / ln 0.99 = 298.07
    assert M.samples_needed(0.05, 0.05) == 59
    assert M.samples_needed(M.epsilon(64, 0.05), 0.05) == 64
    with pytest.raises(ValueError):
        M.samples_needed(0.0)
    with pytest.raises(ValueError):
        M.epsilon(0)


@FAST
@given(st.floats(1e-4, 0.9), st.floats(1e-4, 0.5))
def test_planner_inverts_epsilon(eps, alpha):
    k = M.samples_needed(eps, alpha)
    assert M.epsilon(k, alpha) <= eps
    if k > 1:
        assert M.epsilon(k - 1, alpha) > eps  # the smallest such k
    # (1 - eps)^k <= alpha: an outcome of probability eps is missed with probability <= alpha
    assert (1 - eps) ** k <= alpha * (1 + 1e-9)


def test_in_support_rules():
    eps16 = M.epsilon(16, 0.05)  # 0.1707
    assert not M.in_support(2, 16) and M.in_support(3, 16)  # 2/16 < eps < 3/16
    assert eps16 == pytest.approx(0.17075, abs=1e-4)
    assert M.in_support(1, 16, rule="observed") and not M.in_support(0, 16, rule="observed")
    assert not M.in_support(0, 0)
    with pytest.raises(ValueError):
        M.in_support(1, 16, rule="vibes")


def test_support_categories_hand_built():
    n = 16
    base = {"1/2": 6, "0.5": 3, "x": 1, "rare": 2}
    rl = {"1/2": 14, "new": 5, "x": 1}
    cats = M.answer_categories(base, n, rl, n)
    assert cats == {
        "1/2": "preservation",
        "0.5": "shrinkage",
        "new": "expansion",
        "x": "out_of_support",
        "rare": "out_of_support",
    }
    observed = M.answer_categories(base, n, rl, n, rule="observed")
    assert observed["x"] == "preservation" and observed["rare"] == "shrinkage"
    assert M.problem_category(6, 16, 14, 16) == "preservation"
    assert M.problem_category(4, 16, 0, 16) == "shrinkage"
    assert M.problem_category(0, 16, 5, 16) == "expansion"
    assert M.problem_category(1, 16, 1, 16) == "out_of_support"
    # different n per model: each gets its own epsilon (3/64 > eps(64) = 0.0457 > 2/64)
    assert M.problem_category(3, 64, 2, 16) == "shrinkage"
    assert M.problem_category(2, 64, 3, 16) == "expansion"


def test_support_rates_hand_values():
    r = M.support_rates(8, 2, 1)
    assert r.srr == pytest.approx(0.8) and r.ndr == pytest.approx(1 / 9)
    assert r.sds == pytest.approx(2 * 0.8 * (1 / 9) / (0.8 + 1 / 9))
    assert r.nscr == pytest.approx((1 - 2) / 11)
    z = M.support_rates(0, 0, 0)
    assert (z.srr, z.ndr, z.sds, z.nscr) == (None, None, None, None)
    only_p = M.support_rates(5, 0, 0)
    assert (only_p.srr, only_p.ndr, only_p.sds, only_p.nscr) == (1.0, 0.0, 0.0, 0.0)


def test_support_bootstrap_intervals():
    counts = np.array([[1, 0, 0]] * 10 + [[0, 1, 0]] * 2, dtype=float)
    w = M.bootstrap_weights(len(counts), 300, 0)
    ci = M.support_bootstrap(counts, w)
    lo, hi = ci["srr"]
    assert lo <= 10 / 12 <= hi and hi <= 1.0
    assert ci["ndr"] == (0.0, 0.0)
    all_p = M.support_bootstrap(np.array([[1, 0, 0]] * 4, dtype=float), M.bootstrap_weights(4, 50, 0))
    assert all_p["srr"] == (1.0, 1.0) and all_p["nscr"] == (0.0, 0.0)


# --- entropy --------------------------------------------------------------------------------


def test_answer_entropy_hand_values():
    assert M.plugin_entropy([2, 2]) == pytest.approx(math.log(2))
    assert M.miller_madow_entropy([2, 2]) == pytest.approx(math.log(2) + 1 / 8)
    assert M.plugin_entropy([5]) == 0.0 and M.miller_madow_entropy([5]) == 0.0
    h, mm, rate = M.answer_entropy(["a", "a", "b", None])
    p = [2 / 3, 1 / 3]
    assert h == pytest.approx(-sum(x * math.log(x) for x in p))
    assert mm == pytest.approx(h + 1 / 6) and rate == pytest.approx(0.25)
    assert M.answer_entropy([None, None]) == (None, None, 1.0)
    assert M.answer_entropy([]) == (None, None, 0.0)


@FAST
@given(st.lists(st.integers(1, 50), min_size=1, max_size=30))
def test_miller_madow_is_plugin_plus_its_bias_correction(counts):
    m, n = len(counts), sum(counts)
    h, mm = M.plugin_entropy(counts), M.miller_madow_entropy(counts)
    assert mm - h == pytest.approx((m - 1) / (2 * n))
    assert mm >= h and (mm == h) == (m == 1)
    assert 0 <= h <= math.log(m) + 1e-12


@st.composite
def distribution_and_k(draw):
    v = draw(st.integers(2, 40))
    weights = draw(st.lists(st.floats(0.0, 1.0), min_size=v, max_size=v).filter(lambda w: sum(w) > 1e-3))
    if draw(st.booleans()):  # peaked distributions too
        weights = [w**6 for w in weights]
        if sum(weights) < 1e-12:
            weights[0] = 1.0
    p = np.asarray(weights) / sum(weights)
    return p, draw(st.integers(0, v))


@settings(max_examples=300, deadline=None)
@given(distribution_and_k())
def test_top_k_entropy_bounds_contain_the_exact_entropy(pk):
    p, k = pk
    v = len(p)
    exact = M.exact_entropy(p)
    top = np.sort(p)[::-1][:k]
    top = top[top > 0]
    row = np.log(top)[None, :] if top.size else np.full((1, 1), -np.inf)
    low, high = M.token_entropy_bounds(row, v, tol=0.0)
    assert low[0] - 1e-9 <= exact <= high[0] + 1e-9
    # the cruder lower bound (the tail as one outcome) is never above ours
    rest = max(0.0, 1 - top.sum())
    crude = -(top * np.log(top)).sum() - (rest * math.log(rest) if rest > 0 else 0.0)
    assert low[0] >= crude - 1e-9
    unknown_v_low, unknown_v_high = M.token_entropy_bounds(row, None, tol=0.0)
    assert unknown_v_low[0] == pytest.approx(low[0]) or rest > 0
    assert unknown_v_low[0] <= exact + 1e-9
    if rest > 1e-12 and top.size < v:
        assert np.isnan(unknown_v_high[0])  # no vocabulary size, no upper bound


def test_entropy_is_exact_when_the_top_k_holds_all_the_mass():
    p = np.array([0.5, 0.25, 0.125, 0.125])
    low, high = M.token_entropy_bounds(np.log(p)[None, :], None)
    assert low[0] == pytest.approx(M.exact_entropy(p)) and high[0] == pytest.approx(low[0])
    # the rounding of recorded logprobs (1e-6) leaves a tail below the tolerance: still exact
    rounded = np.round(np.log(p), 6)
    low, high = M.token_entropy_bounds(rounded[None, :], None)
    assert high[0] == pytest.approx(low[0]) and low[0] == pytest.approx(M.exact_entropy(p), abs=1e-5)


def test_entropy_bounds_hand_values():
    # top-2 = 0.5, 0.2; tail 0.3 -> one token of 0.2 and one of 0.1 at least; V = 10 -> 8 tail tokens
    low, high = M.token_entropy_bounds(np.log([[0.5, 0.2]]), 10)
    h_top = -(0.5 * math.log(0.5) + 0.2 * math.log(0.2))
    assert low[0] == pytest.approx(h_top - 0.2 * math.log(0.2) - 0.1 * math.log(0.1))
    assert high[0] == pytest.approx(h_top + 0.3 * math.log(8 / 0.3))
    rows = M.top_logprobs_matrix([{1: math.log(0.5), 2: math.log(0.2)}, {3: 0.0}, {}])
    assert rows.shape == (3, 2) and rows[1, 1] == -np.inf and np.isneginf(rows[2]).all()
    low, high = M.token_entropy_bounds(rows, 10)
    assert low[1] == 0.0 and high[1] == 0.0  # a certain token
    assert low[2] == 0.0 and high[2] == pytest.approx(math.log(10))  # nothing known: [0, ln V]


# --- KL -------------------------------------------------------------------------------------


def test_kl_hand_values():
    k1, k3 = M.kl_token_estimates([-0.5, -0.1], [-1.0, -0.1])
    assert k1 == pytest.approx([0.5, 0.0])
    assert k3 == pytest.approx([math.exp(-0.5) - 1 + 0.5, 0.0])
    with pytest.raises(ValueError):
        M.kl_token_estimates([-0.5], [-1.0, -2.0])


@FAST
@given(st.lists(st.tuples(st.floats(-30, 0), st.floats(-30, 0)), min_size=1, max_size=20))
def test_k3_is_never_negative(pairs):
    lp, ref = zip(*pairs)
    _, k3 = M.kl_token_estimates(lp, ref)
    assert np.all(k3 >= 0)


@FAST
@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=8), st.randoms(use_true_random=False))
def test_k1_and_k3_are_unbiased_in_exact_expectation(weights, rnd):
    """E_{x ~ rl}[k] = sum_x p_rl(x) k(x) = KL(rl || base), computed exactly over the support."""
    p_rl = np.asarray(weights) / sum(weights)
    other = np.asarray([rnd.uniform(0.01, 1.0) for _ in weights])
    p_base = other / other.sum()
    kl = float((p_rl * np.log(p_rl / p_base)).sum())
    k1, k3 = M.kl_token_estimates(np.log(p_rl), np.log(p_base))
    assert float((p_rl * k1).sum()) == pytest.approx(kl, abs=1e-12)
    assert float((p_rl * k3).sum()) == pytest.approx(kl, abs=1e-12)


def test_kl_small_discrete_example_by_hand():
    p_rl, p_base = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.5, 0.3])
    kl = 0.5 * math.log(0.5 / 0.2) + 0.3 * math.log(0.3 / 0.5) + 0.2 * math.log(0.2 / 0.3)
    _, k3 = M.kl_token_estimates(np.log(p_rl), np.log(p_base))
    assert float((p_rl * k3).sum()) == pytest.approx(kl)
    # 0.5 ln 2.5 + 0.3 ln 0.6 + 0.2 ln(2/3) = 0.458145 - 0.153248 - 0.081093
    assert kl == pytest.approx(0.223805, abs=1e-6)


def test_mean_interval():
    mean, lo, hi = M.mean_interval([1.0, 2.0, 3.0])
    half = 1.959963984540054 * 1.0 / math.sqrt(3)
    assert (mean, lo, hi) == pytest.approx((2.0, 2.0 - half, 2.0 + half))
    assert M.mean_interval([]) == (None, None, None) and M.mean_interval([4.0]) == (4.0, None, None)
