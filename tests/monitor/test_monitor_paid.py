"""``paid_wrong_rising``: the Cochran-Armitage trend over the live watch's windows fires on a
planted rise near where it starts, not on a flat share (whatever its level), and only on a
run that has the watch's counts, so every other log's alarms and "not checked" are as before."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.monitor.alarms import check, not_checked
from verifier_audit.monitor.paid import cochran_armitage, trend_z
from verifier_audit.monitor.run import Run, Series

counts = st.lists(st.tuples(st.integers(0, 30), st.integers(1, 30)), min_size=2, max_size=15).map(
    lambda rows: [(min(k, n), n) for k, n in rows]
)


@settings(max_examples=200, deadline=None)
@given(rows=counts)
def test_the_trend_statistic_turns_with_the_order_and_ignores_a_constant_share(rows):
    k = np.array([r[0] for r in rows])
    n = np.array([r[1] for r in rows])
    z = cochran_armitage(k, n)
    assert abs(z + cochran_armitage(k[::-1], n[::-1])) < 1e-9  # reversed windows: the opposite trend
    assert cochran_armitage(np.zeros_like(n), n) == 0 == cochran_armitage(n, n)  # none or all paid: no test
    assert abs(cochran_armitage(2 * k, 2 * n)) >= abs(z) - 1e-9  # twice the evidence, at least as strong
    # every window's statistic at once equals the one computed window by window
    for span in (3, 5):
        each = [
            cochran_armitage(k[max(0, t + 1 - span) : t + 1], n[max(0, t + 1 - span) : t + 1]) for t in range(len(n))
        ]
        assert np.allclose(trend_z(k, n, span, block=4), each, atol=1e-9)


def _run(paid, labelled=8):
    steps = np.arange(1, len(paid) + 1, dtype=float)
    return Run(
        name="r",
        source="watch.jsonl",
        metrics={
            "watch/labelled": Series(steps, np.full(len(paid), labelled, dtype=float)),
            "watch/paid_wrong": Series(steps, np.asarray(paid, dtype=float)),
        },
    )


def test_a_planted_rise_fires_near_where_it_starts():
    rng = np.random.default_rng(0)
    for opens in (5, 20, 40):
        share = np.where(np.arange(1, 61) >= opens, 0.6, 0.05)
        (alarm,) = check(_run(rng.binomial(8, share)))
        assert alarm.kind == "paid_wrong_rising" and opens <= alarm.step <= opens + 5, (opens, alarm.step)
        assert alarm.evidence["z"] >= 4 and alarm.evidence["share"] > alarm.evidence["first_share"]


def test_a_flat_share_rarely_fires_at_any_level():
    """200 flat runs of 60 windows of 8 (the test runs at every window, on the latest 20):
    no alarm at shares 0.05 and 0.3 (seeded; at z >= 3 instead of 4 it was 4 and 10 of 200,
    and 23 and 50 of 200 runs of 300 windows: why the default is 4)."""
    rng = np.random.default_rng(1)
    for level in (0.05, 0.3):
        fired = sum(bool(check(_run(rng.binomial(8, level, size=60)))) for _ in range(200))
        assert fired <= 2, (level, fired)


def test_only_a_run_with_the_watchs_counts_is_checked():
    steps = np.arange(1.0, 31.0)
    plain = Run(name="p", source="log.jsonl", metrics={"reward": Series(steps, steps / 30)})
    assert "paid_wrong_rising" not in not_checked(plain)
    short = _run([0, 8])
    assert "2 points" in not_checked(short)["paid_wrong_rising"] and check(short) == []


def test_the_page_plots_the_share_with_its_wilson_band():
    from verifier_audit.monitor.plots import run_panels

    run = _run([0, 0, 8, 8])
    (panel,) = [p for p in run_panels(run, check(run)) if p.plot == "paid_wrong"]
    assert list(panel.lines[0].ys) == [0, 0, 1, 1] and panel.marks
    assert panel.bands[0].low[2] > 0.6 and panel.bands[0].high[0] < 0.4
