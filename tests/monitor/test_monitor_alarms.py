"""Training-health alarms on synthetic runs built here (seeded numpy noise).

A healthy run (entropy losing about a third, reward and validation rising together, KL and
length moderate, the format reward saturating early while accuracy keeps climbing) fires
nothing across seeds, lengths and noise levels; each planted pathology fires its alarm, at
the planted step within a tolerance, and only it.
"""

import json
import math

import pytest

np = pytest.importorskip("numpy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pydantic import ValidationError  # noqa: E402
from scaling import LINEAR, growth  # noqa: E402

from verifier_audit.monitor.alarms import (  # noqa: E402
    KINDS,
    Alarm,
    Thresholds,
    check,
    missing_metrics,
    not_checked,
    smooth,
    trend,
)
from verifier_audit.monitor.run import CANONICAL, Run, Series  # noqa: E402

VAL_EVERY = 5


def sigmoid(t, at, width):
    return 1.0 / (1.0 + np.exp(-(t - at) / width))


def healthy_curves(u):
    """Noise-free healthy curves over u = step / n in [0, 1)."""
    return {
        "entropy": 1.2 * (1 - 0.35 * u),
        "reward": 0.2 + 0.4 * u,
        "reward_std": 0.45 - 0.1 * u,
        "frac_reward_zero_std": 0.1 + 0.15 * u,
        "kl": 0.06 * u,
        "length": 300 + 250 * u,
        "val_accuracy": 0.25 + 0.25 * u,
        "reward_fn/accuracy": 0.1 + 0.4 * u,
        "reward_fn/format": 1 - 0.8 * np.exp(-15 * u),
    }


NOISE = {
    "entropy": 0.03,
    "reward": 0.05,
    "reward_std": 0.02,
    "frac_reward_zero_std": 0.03,
    "kl": 0.005,
    "length": 20.0,
    "val_accuracy": 0.015,
    "reward_fn/accuracy": 0.05,
    "reward_fn/format": 0.03,
}
CLIP = {
    "frac_reward_zero_std": (0.0, 1.0),
    "reward_std": (0.0, None),
    "kl": (0.0, None),
    "length": (1.0, None),
    "entropy": (0.0, None),
}


def make_run(n=400, noise=1.0, seed=0, name="run", drop=(), **planted):
    """A run of n steps; ``planted`` maps a metric to f(t, u) replacing its healthy curve."""
    rng = np.random.default_rng(seed)
    t = np.arange(n, dtype=np.float64)
    u = t / n
    curves = healthy_curves(u)
    metrics = {}
    for key, curve in curves.items():
        if key in drop:
            continue
        if key in planted:
            curve = planted[key](t, u)
        steps = t
        if key == "val_accuracy":
            steps, curve = t[::VAL_EVERY], curve[::VAL_EVERY]
        values = curve + rng.normal(0.0, NOISE[key] * noise, len(steps))
        lo, hi = CLIP.get(key, (None, None))
        if lo is not None or hi is not None:
            values = np.clip(values, lo, hi)
        metrics[key] = Series(steps, values)
    return Run(name=name, source="synthetic", metrics=metrics)


def kinds(alarms):
    return sorted(a.kind for a in alarms)


# ---------------------------------------------------------------------------------------
# healthy


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), noise=st.floats(0.0, 1.5), n=st.integers(200, 800))
def test_healthy_run_fires_nothing(seed, noise, n):
    run = make_run(n=n, noise=noise, seed=seed)
    assert check(run) == []
    assert not_checked(run) == {}


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), noise=st.floats(0.0, 1.5), n=st.integers(30, 200))
def test_short_healthy_run_fires_nothing(seed, noise, n):
    assert check(make_run(n=n, noise=noise, seed=seed)) == []


def test_single_spikes_do_not_fire():
    # isolated spikes, ten times the noise, in every metric: the median drops them
    def spiky(base, size):
        def f(t, u):
            y = healthy_curves(u)[base].copy()
            y[::37] += size
            return y

        return f

    run = make_run(
        entropy=spiky("entropy", -1.1),
        kl=spiky("kl", 2.0),
        length=spiky("length", 3000.0),
        frac_reward_zero_std=spiky("frac_reward_zero_std", 0.9),
        reward_std=spiky("reward_std", -0.44),
    )
    assert check(run) == []


def test_short_dip_is_not_persistent():
    # entropy down to 10% for 3% of the run, then back: longer than the smoothing window's
    # half, shorter than the persistence requirement
    run = make_run(entropy=lambda t, u: np.where((t >= 200) & (t < 212), 0.12, 1.2 * (1 - 0.35 * u)))
    assert check(run) == []


# ---------------------------------------------------------------------------------------
# planted pathologies: each fires, near the planted step, and only it


@pytest.mark.parametrize("at", [60, 150, 300])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_entropy_collapse_fires_at_planted_step(at, seed):
    n = 400
    run = make_run(n=n, seed=seed, entropy=lambda t, u: 0.15 + (1.2 - 0.15) * (1 - sigmoid(t, at, 2.0)))
    alarms = check(run)
    assert kinds(alarms) == ["entropy_collapse"]
    a = alarms[0]
    assert abs(a.step - at) <= 0.03 * n, a.message
    ev = a.evidence
    assert ev["initial"] == pytest.approx(1.2, abs=0.05)
    assert ev["final_loss"] == pytest.approx(1 - 0.15 / 1.2, abs=0.05)
    assert ev["at_fraction"] == pytest.approx(at / (n - 1), abs=0.03)
    assert "entropy" in a.message.lower() and f"step {a.step:.10g}" in a.message


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), noise=st.floats(0.0, 1.5), frac=st.floats(0.1, 0.8), n=st.integers(200, 600))
def test_entropy_collapse_located_within_tolerance(seed, noise, frac, n):
    at = frac * n
    run = make_run(n=n, seed=seed, noise=noise, entropy=lambda t, u: 0.1 + 1.1 * (1 - sigmoid(t, at, 1.0)))
    alarms = [a for a in check(run) if a.kind == "entropy_collapse"]
    assert len(alarms) == 1
    assert abs(alarms[0].step - at) <= 0.03 * n


def test_entropy_collapse_only_counts_within_entropy_within():
    run = make_run(entropy=lambda t, u: 0.15 + 1.05 * (1 - sigmoid(t, 300, 2.0)))
    assert kinds(check(run)) == ["entropy_collapse"]
    assert check(run, Thresholds(entropy_within=0.5)) == []
    assert check(run, Thresholds(entropy_loss=0.95)) == []


def test_reward_std_collapse():
    run = make_run(reward_std=lambda t, u: 0.03 + 0.42 * (1 - sigmoid(t, 120, 2.0)))
    alarms = check(run)
    assert kinds(alarms) == ["reward_variance_collapse"]
    a = alarms[0]
    assert a.evidence["trigger"] == "reward_std"
    assert abs(a.step - 120) <= 12
    # late (beyond variance_within of the run) is not early: no alarm
    late = make_run(reward_std=lambda t, u: 0.03 + 0.42 * (1 - sigmoid(t, 320, 2.0)))
    assert check(late) == []


def test_zero_std_groups_rising():
    run = make_run(frac_reward_zero_std=lambda t, u: 0.1 + 0.75 * sigmoid(t, 100, 3.0))
    alarms = check(run)
    assert kinds(alarms) == ["reward_variance_collapse"]
    assert alarms[0].evidence["trigger"] == "frac_reward_zero_std"
    assert abs(alarms[0].step - 100) <= 12


def test_both_variance_triggers_make_one_alarm_at_the_earlier():
    run = make_run(
        frac_reward_zero_std=lambda t, u: 0.1 + 0.75 * sigmoid(t, 150, 3.0),
        reward_std=lambda t, u: 0.03 + 0.42 * (1 - sigmoid(t, 90, 2.0)),
    )
    alarms = check(run)
    assert kinds(alarms) == ["reward_variance_collapse"]
    assert alarms[0].evidence["trigger"] == "reward_std"
    assert alarms[0].evidence["triggers"] == "reward_std,frac_reward_zero_std"
    assert abs(alarms[0].step - 90) <= 12


def test_kl_drift():
    # KL flat low, then climbing from 50% of the run: crosses 0.1 near u = 0.694
    run = make_run(kl=lambda t, u: 0.01 + 2.4 * np.maximum(0.0, u - 0.5) ** 2)
    alarms = check(run)
    assert kinds(alarms) == ["kl_drift"]
    a = alarms[0]
    assert abs(a.step - 0.694 * 400) <= 12
    assert a.evidence["slope_per_100_steps"] > 0.1
    assert a.evidence["level"] > 0.5


def test_kl_high_but_flat_is_not_drift():
    run = make_run(kl=lambda t, u: np.minimum(0.3, 0.3 * u / 0.3))
    assert check(run) == []


@pytest.mark.parametrize("seed", [0, 1])
def test_length_blowup(seed):
    run = make_run(seed=seed, length=lambda t, u: 300 + 900 * sigmoid(t, 200, 2.0))
    alarms = check(run)
    assert kinds(alarms) == ["length_blowup"]
    assert abs(alarms[0].step - 200) <= 12
    assert alarms[0].evidence["final_ratio"] == pytest.approx(4.0, rel=0.1)


@pytest.mark.parametrize("seed", [0, 1])
def test_length_collapse(seed):
    run = make_run(seed=seed, length=lambda t, u: 400 - 280 * sigmoid(t, 250, 2.0))
    alarms = check(run)
    assert kinds(alarms) == ["length_collapse"]
    assert abs(alarms[0].step - 250) <= 12


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_train_val_divergence_val_falls(seed):
    # validation peaks at 40% of the run and then slides while training reward keeps rising
    run = make_run(
        seed=seed, val_accuracy=lambda t, u: 0.25 + 0.25 * np.minimum(u, 0.4) - 0.1 * np.maximum(0.0, u - 0.4)
    )
    alarms = check(run)
    assert kinds(alarms) == ["train_val_divergence"]
    a = alarms[0]
    assert a.evidence["val_norm_rise"] < 0 and a.evidence["train_t"] >= 3
    assert a.evidence["reason"] == "falls"


def test_train_val_divergence_val_stalls():
    run = make_run(val_accuracy=lambda t, u: 0.25 + 0.25 * np.minimum(u, 0.45))
    alarms = check(run)
    assert kinds(alarms) == ["train_val_divergence"]
    assert alarms[0].evidence["reason"] in ("stalls", "lags (the gap widens)")


def test_train_val_not_when_train_is_flat():
    # neither rises: nothing to diverge from
    run = make_run(
        reward=lambda t, u: 0.2 + 0.4 * np.minimum(u, 0.4), val_accuracy=lambda t, u: 0.25 + 0.25 * np.minimum(u, 0.4)
    )
    assert check(run) == []


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reward_fn_divergence(seed):
    # the format term climbs through the run, accuracy never moves
    run = make_run(
        seed=seed, **{"reward_fn/format": lambda t, u: 0.2 + 0.7 * u, "reward_fn/accuracy": lambda t, u: 0.3 + 0.0 * u}
    )
    alarms = check(run)
    assert kinds(alarms) == ["reward_fn_divergence"]
    a = alarms[0]
    assert a.evidence["climbing"] == "format"
    assert a.evidence["held_back"] == "accuracy"
    assert "format" in a.message


def test_reward_fn_falling_other_term():
    run = make_run(**{"reward_fn/format": lambda t, u: 0.2 + 0.7 * u, "reward_fn/accuracy": lambda t, u: 0.5 - 0.2 * u})
    alarms = check(run)
    assert kinds(alarms) == ["reward_fn_divergence"]


def test_reward_fn_two_climbing_is_fine():
    run = make_run(**{"reward_fn/format": lambda t, u: 0.2 + 0.7 * u})
    assert check(run) == []


def test_reward_fn_constant_term_is_left_out():
    # a penalty that never triggers (exactly 0) does not make accuracy "climb alone"
    run = make_run(drop=("reward_fn/format",))
    t = run.metrics["reward"].steps
    run.metrics["reward_fn/length_penalty"] = Series(t, np.zeros_like(t))
    assert check(run) == []


# ---------------------------------------------------------------------------------------
# alarms are well-formed


def test_alarm_fields_are_json_and_one_sentence():
    run = make_run(
        entropy=lambda t, u: 0.15 + 1.05 * (1 - sigmoid(t, 100, 2.0)),
        length=lambda t, u: 300 + 900 * sigmoid(t, 200, 2.0),
        kl=lambda t, u: 0.01 + 2.4 * np.maximum(0.0, u - 0.5) ** 2,
        reward_std=lambda t, u: 0.03 + 0.42 * (1 - sigmoid(t, 120, 2.0)),
        val_accuracy=lambda t, u: 0.25 + 0.25 * np.minimum(u, 0.4) - 0.1 * np.maximum(0.0, u - 0.4),
        **{"reward_fn/format": lambda t, u: 0.2 + 0.7 * u, "reward_fn/accuracy": lambda t, u: 0.3 + 0.0 * u},
    )
    alarms = check(run)
    assert kinds(alarms) == sorted(
        [
            "entropy_collapse",
            "length_blowup",
            "kl_drift",
            "reward_variance_collapse",
            "train_val_divergence",
            "reward_fn_divergence",
        ]
    )
    assert [a.step for a in alarms] == sorted(a.step for a in alarms)
    for a in alarms:
        assert isinstance(a, Alarm) and a.kind in KINDS and a.run == "run"
        assert isinstance(a.step, float)
        json.dumps(a.to_dict(), allow_nan=False)
        for v in a.evidence.values():
            assert isinstance(v, (int, float, str)) and not isinstance(v, bool)
            assert not isinstance(v, float) or math.isfinite(v)
        assert a.message.endswith(".") and a.message.count(". ") == 0, a.message
    hash(alarms[0])  # frozen, hashable despite the evidence dict


# ---------------------------------------------------------------------------------------
# missing metrics, degenerate input


def test_missing_metrics_are_listed_and_their_alarms_skipped():
    run = make_run(drop=("entropy", "kl", "val_accuracy"), length=lambda t, u: 300 + 900 * sigmoid(t, 200, 2.0))
    assert missing_metrics(run) == ["entropy", "kl", "val_accuracy"]
    skipped = not_checked(run)
    assert set(skipped) == {"entropy_collapse", "kl_drift", "train_val_divergence"}
    assert skipped["entropy_collapse"] == "no entropy metric"
    assert "val_accuracy" in skipped["train_val_divergence"]
    assert kinds(check(run)) == ["length_blowup"]


def test_empty_run():
    run = Run(name="empty", source="x")
    assert check(run) == []
    assert missing_metrics(run) == list(CANONICAL)
    assert set(not_checked(run)) == set(KINDS)


def test_reward_variance_runs_on_either_metric():
    run = make_run(drop=("reward_std",), frac_reward_zero_std=lambda t, u: 0.1 + 0.75 * sigmoid(t, 100, 3.0))
    assert "reward_variance_collapse" not in not_checked(run)
    assert kinds(check(run)) == ["reward_variance_collapse"]
    run = make_run(drop=("reward_std", "frac_reward_zero_std"))
    assert "reward_std" in not_checked(run)["reward_variance_collapse"]


def test_too_short_is_reported_not_raised():
    run = make_run(n=6)
    assert check(run) == []
    why = not_checked(run)
    assert "entropy has 6 points" in why["entropy_collapse"]
    assert "reward_fn_divergence" in why


def test_no_overlap_between_reward_and_validation():
    run = make_run()
    run.metrics["val_accuracy"] = Series(np.arange(1000.0, 1100.0, 10.0), np.linspace(0.2, 0.1, 10))
    assert "do not overlap" in not_checked(run)["train_val_divergence"]
    assert check(run) == []


def _degenerate(kind, n, value):
    t = np.arange(n, dtype=np.float64)
    if kind == "constant":
        v = np.full(n, value)
    elif kind == "zeros":
        v = np.zeros(n)
    elif kind == "negative":
        v = -np.abs(value) - t
    else:  # a step
        v = np.where(t < n // 2, value, 0.0)
    return Series(t, v)


@settings(max_examples=80, deadline=None)
@given(
    kind=st.sampled_from(["constant", "zeros", "negative", "step"]),
    n=st.integers(0, 40),
    value=st.floats(-1e6, 1e6, allow_nan=False),
    fns=st.integers(0, 3),
)
def test_degenerate_inputs_never_raise(kind, n, value, fns):
    metrics = {name: _degenerate(kind, n, value) for name in CANONICAL}
    for i in range(fns):
        metrics[f"reward_fn/f{i}"] = _degenerate(kind, n, value)
    run = Run(name="d", source="x", metrics=metrics)
    for a in check(run):
        json.dumps(a.to_dict(), allow_nan=False)
    missing_metrics(run)
    not_checked(run)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_tiny_series_never_raise(n):
    t = np.arange(n, dtype=np.float64)
    run = Run(name="tiny", source="x", metrics={k: Series(t, t + 1.0) for k in CANONICAL})
    for a in check(run, Thresholds(min_points=3, val_min_points=3)):
        json.dumps(a.to_dict(), allow_nan=False)


def test_single_step_runs():
    run = Run(
        name="one",
        source="x",
        metrics={k: Series(np.full(20, 5.0) + np.arange(20) * 0, np.arange(20.0)) for k in CANONICAL},
    )
    assert check(run) == []  # all at one step: a single point after dedup


# ---------------------------------------------------------------------------------------
# thresholds, helpers


def test_thresholds_forbid_unknown_fields_and_validate():
    with pytest.raises(ValidationError):
        Thresholds(entropy_los=0.5)
    with pytest.raises(ValidationError):
        Thresholds(entropy_loss=1.5)
    th = Thresholds(entropy_loss=0.5, kl_level=0.02)
    assert th.entropy_loss == 0.5
    for name, f in Thresholds.model_fields.items():
        assert f.description, name


def test_smooth_removes_spikes_and_keeps_monotone_trend():
    t = np.arange(101, dtype=np.float64)
    y = t.copy()
    y[50] = 1e6
    steps, sm = smooth(Series(t, y), window=0.05)
    assert sm[50] == pytest.approx(50, abs=1.0)
    assert np.allclose(sm[5:45], t[5:45])


def test_smooth_bins_long_series():
    n = 1_000_000
    t = np.arange(n, dtype=np.float64)
    steps, sm = smooth(Series(t, t / n), window=0.05, max_points=2000)
    assert len(sm) == 2000 and steps[0] < steps[-1]
    assert sm[-1] == pytest.approx(1.0, abs=0.05)


def _long_run(n: int) -> Run:
    rng = np.random.default_rng(0)
    t = np.arange(n, dtype=np.float64)
    run = Run(
        name="long",
        source="x",
        metrics={
            k: Series(t, 1.0 + rng.normal(0, 0.01, n))
            for k in [
                "entropy",
                "reward",
                "reward_std",
                "frac_reward_zero_std",
                "kl",
                "length",
                "reward_fn/a",
                "reward_fn/b",
            ]
        },
    )
    run.metrics["val_accuracy"] = Series(t[::1000], 0.5 + rng.normal(0, 0.01, len(t[::1000])))
    return run


def test_long_run_costs_no_more_than_linear():
    # Against the same run at a sixteenth of its length, measured here: no wall-clock limit
    # (the time of a million-row log is benchmarks/bench_monitor.py's figure).
    assert growth(check, _long_run, 300_000) < LINEAR


def test_trend_edge_cases():
    assert trend(np.array([1.0, 2.0]), np.array([1.0, 2.0])) == (0.0, 0.0)
    assert trend(np.full(5, 3.0), np.arange(5.0)) == (0.0, 0.0)
    slope, t = trend(np.arange(10.0), 2 * np.arange(10.0))
    assert slope == pytest.approx(2.0) and t == 1e6
    assert trend(np.arange(10.0), np.zeros(10)) == (0.0, 0.0)
