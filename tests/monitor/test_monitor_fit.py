"""The entropy-reward fit R = -a exp(H) + b (Cui et al. 2025) on synthetic runs."""

import dataclasses
import json
import math

import pytest

np = pytest.importorskip("numpy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from verifier_audit.monitor.fit import FIT_MIN_POINTS, EntropyRewardFit, fit_entropy_reward  # noqa: E402
from verifier_audit.monitor.run import Run, Series  # noqa: E402


def law_run(a, b, *, n=400, h0=1.5, h_end=0.05, tau=0.25, noise_r=0.05, noise_h=0.02, seed=0, r_steps=None):
    """Entropy decaying from h0 towards h_end; reward on the law, with noise on both. The
    reward noise is ``noise_r`` of the reward's total movement."""
    rng = np.random.default_rng(seed)
    t = np.arange(n, dtype=np.float64)
    h = h_end + (h0 - h_end) * np.exp(-t / (tau * n))
    r = -a * np.exp(h) + b
    spread = a * (math.exp(h0) - math.exp(h_end))
    ent = Series(t, h + rng.normal(0, noise_h, n))
    rt = t if r_steps is None else r_steps
    rv = -a * np.exp(np.interp(rt, t, h)) + b
    rew = Series(rt, rv + rng.normal(0, noise_r * spread, len(rt)))
    return Run(name="law", source="synthetic", metrics={"entropy": ent, "reward": rew}), h, r


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    a=st.floats(0.02, 3.0),
    b=st.floats(-2.0, 5.0),
    h0=st.floats(0.5, 2.5),
    seed=st.integers(0, 2**32 - 1),
    noise=st.floats(0.0, 0.08),
    n=st.integers(150, 1500),
)
def test_fit_recovers_a_and_b(a, b, h0, seed, noise, n):
    run, h, r = law_run(a, b, n=n, h0=h0, noise_r=noise, seed=seed)
    fit = fit_entropy_reward(run)
    assert fit is not None and fit.n == n
    spread = a * (math.exp(h0) - 1.0)
    assert fit.a == pytest.approx(a, rel=0.1)
    # b is an intercept at exp(H) = 0, outside the data: judge it on the reward's scale
    assert abs(fit.b - b) <= 0.1 * spread + 0.1 * a
    assert fit.ceiling == pytest.approx(fit.b - fit.a)
    assert abs(fit.ceiling - (b - a)) <= 0.1 * spread + 0.1 * a
    assert fit.r2 > 0.9


def test_fit_exact_without_noise():
    run, h, r = law_run(0.4, 1.3, noise_r=0.0, noise_h=0.0)
    fit = fit_entropy_reward(run)
    # exact up to the smoothing's truncated windows at both ends (an even window's median
    # averages two points, and H and R are averaged separately)
    assert fit.a == pytest.approx(0.4, rel=1e-3)
    assert fit.b == pytest.approx(1.3, rel=1e-3)
    assert fit.r2 == pytest.approx(1.0, abs=1e-6)
    assert fit.ceiling == pytest.approx(0.9, rel=1e-3)
    # gap: ceiling minus the last (smoothed) reward = a (exp(H_end) - 1) on a flat tail
    assert fit.gap == pytest.approx(0.4 * (math.exp(h[-1]) - 1.0), rel=0.02)
    assert fit.gap > 0


def test_gap_is_near_zero_when_entropy_is_spent():
    run, h, r = law_run(0.5, 1.0, h_end=0.0, tau=0.05, noise_r=0.01, noise_h=0.005)
    fit = fit_entropy_reward(run)
    assert abs(fit.gap) < 0.02


def test_fit_pairs_by_interpolation_when_steps_differ():
    # entropy at every step, reward every 7 steps from step 3: few shared steps
    n = 400
    run, h, r = law_run(0.3, 1.0, n=n, noise_r=0.01, r_steps=np.arange(3.0, n, 7.0))
    fit = fit_entropy_reward(run)
    assert fit is not None
    assert fit.a == pytest.approx(0.3, rel=0.1)
    assert fit.b == pytest.approx(1.0, abs=0.05)


def test_fit_on_a_long_log():
    run, h, r = law_run(0.3, 1.0, n=500_000, noise_r=0.05)
    fit = fit_entropy_reward(run)
    assert fit.n == 500_000
    assert fit.a == pytest.approx(0.3, rel=0.05) and fit.r2 > 0.99


def test_fit_is_json_able():
    run, _, _ = law_run(0.3, 1.0)
    fit = fit_entropy_reward(run)
    assert isinstance(fit, EntropyRewardFit)
    assert json.loads(json.dumps(fit.to_dict(), allow_nan=False)) == dataclasses.asdict(fit)
    assert isinstance(fit.n, int)


# ---------------------------------------------------------------------------------------
# None, never an exception


def _series(n, f=lambda t: t):
    t = np.arange(n, dtype=np.float64)
    return Series(t, f(t))


def test_missing_metric_gives_none():
    run, _, _ = law_run(0.3, 1.0)
    assert fit_entropy_reward(Run("x", "x", {"entropy": run.metrics["entropy"]})) is None
    assert fit_entropy_reward(Run("x", "x", {"reward": run.metrics["reward"]})) is None
    assert fit_entropy_reward(Run("x", "x")) is None
    assert fit_entropy_reward(Run("x", "x", {"entropy": _series(0), "reward": _series(0)})) is None


@pytest.mark.parametrize("n", [0, 1, 2, FIT_MIN_POINTS - 1])
def test_too_short_gives_none(n):
    run = Run("x", "x", {"entropy": _series(n, lambda t: 1.0 - 0.1 * t), "reward": _series(n, lambda t: 0.1 * t)})
    assert fit_entropy_reward(run) is None


def test_minimum_points_fit():
    n = FIT_MIN_POINTS
    run = Run(
        "x",
        "x",
        {
            "entropy": _series(n, lambda t: 1.0 - 0.1 * t),
            "reward": _series(n, lambda t: -0.5 * np.exp(1.0 - 0.1 * t) + 2.0),
        },
    )
    fit = fit_entropy_reward(run)
    assert fit.a == pytest.approx(0.5, rel=1e-2) and fit.b == pytest.approx(2.0, rel=1e-2)


def test_constant_entropy_gives_none_constant_reward_fits_flat():
    n = 50
    run = Run("x", "x", {"entropy": _series(n, lambda t: 0 * t + 1.0), "reward": _series(n)})
    assert fit_entropy_reward(run) is None
    run = Run("x", "x", {"entropy": _series(n, lambda t: 2.0 - 0.01 * t), "reward": _series(n, lambda t: 0 * t + 0.7)})
    fit = fit_entropy_reward(run)
    assert fit.a == pytest.approx(0.0, abs=1e-12) and fit.b == pytest.approx(0.7)
    assert fit.r2 == 0.0 and fit.gap == pytest.approx(0.0, abs=1e-12)


def test_disjoint_steps_give_none():
    t = np.arange(20.0)
    run = Run("x", "x", {"entropy": Series(t, 1 - 0.01 * t), "reward": Series(t + 100, t)})
    assert fit_entropy_reward(run) is None


def test_overflowing_entropy_gives_none():
    run = Run("x", "x", {"entropy": _series(20, lambda t: 700.0 + t), "reward": _series(20)})
    assert fit_entropy_reward(run) is None


@settings(max_examples=80, deadline=None)
@given(
    h=st.lists(st.floats(-50, 50, allow_nan=False), max_size=30),
    r=st.lists(st.floats(-1e6, 1e6, allow_nan=False), max_size=30),
    shift=st.integers(-10, 10),
)
def test_arbitrary_inputs_never_raise(h, r, shift):
    run = Run(
        "x",
        "x",
        {
            "entropy": Series(np.arange(len(h), dtype=float), np.array(h, dtype=float)),
            "reward": Series(np.arange(len(r), dtype=float) + shift, np.array(r, dtype=float)),
        },
    )
    fit = fit_entropy_reward(run)
    if fit is not None:
        json.dumps(fit.to_dict(), allow_nan=False)
        assert fit.n >= FIT_MIN_POINTS
