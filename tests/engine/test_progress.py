import io
import sys

from verifier_audit.engine.progress import Progress


def test_progress_draws_only_when_enabled(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    bar = Progress("auditing x", 10, enabled=True)
    for _ in range(10):
        bar.advance()
    bar.close()
    assert "10/10" in err.getvalue() and err.getvalue().endswith("\n")
    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    bar = Progress("auditing x", 10)  # stderr is not a terminal here: no bar
    bar.advance(10)
    bar.close()
    assert quiet.getvalue() == ""


# The estimator's logic with a synthetic clock: every time below is given, none is measured.

from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.engine.progress import MIN_SAMPLES, WINDOW, EtaEstimator, clock


def _steady(eta: EtaEstimator, n: int, every: float, start: float = 0.0) -> float:
    t = start
    for _ in range(n):
        t += every
        eta.record(t)
    return t


def test_steady_rate_gives_remaining_over_rate():
    eta = EtaEstimator(1000, timeout=10, workers=4)
    t = _steady(eta, 200, 0.01)  # 100 calls a second
    assert abs(eta.estimate(t).seconds - 800 / 100) < 1e-6


def test_too_few_completions_is_unknown_not_zero():
    eta = EtaEstimator(1000, timeout=10, workers=4)
    t = _steady(eta, MIN_SAMPLES - 1, 0.001)
    assert eta.estimate(t).seconds is None
    assert EtaEstimator(0).estimate(5.0).seconds == 0.0  # nothing to do: nothing left


def test_the_slow_tail_is_not_eta_zero():
    # 1000 fast calls in 1 s, then 8 workers each stuck on a call that waits out its 60 s
    # timeout. The mean rate since the start (1000/s) would say 16 left = 0.016 s.
    eta = EtaEstimator(1016, timeout=60, workers=8)
    t = _steady(eta, 1000, 0.001)
    eta.in_flight([t] * 8)
    later = t + 5
    est = eta.estimate(later)
    assert est.stuck == 8
    assert est.seconds >= 60 - 5 - 1e-9  # the stuck calls alone need 55 s more
    # Even without the calls in flight (a caller that does not report them), the rate is
    # measured up to now, so a stall raises the estimate as it lasts.
    blind = EtaEstimator(1016, timeout=60, workers=8)
    t = _steady(blind, 1000, 0.001)
    assert blind.estimate(t + 30).seconds > 16 * 30 / WINDOW


def test_calls_in_flight_for_a_typical_time_are_not_stuck():
    eta = EtaEstimator(1000, timeout=60, workers=4)
    t = _steady(eta, 100, 0.01)  # 100/s over 4 workers: a call takes ~0.04 s
    eta.in_flight([t - 0.03, t - 0.02])
    assert eta.estimate(t).stuck == 0


def test_resumed_items_move_the_bar_not_the_rate():
    eta = EtaEstimator(1000, timeout=10, workers=2)
    eta.skip(900)
    t = _steady(eta, 10, 0.5)  # 2 calls a second
    assert eta.done == 910
    assert abs(eta.estimate(t).seconds - 90 / 2) < 1e-6


def test_batches_count_their_items():
    eta = EtaEstimator(10_000)
    t = 0.0
    for _ in range(10):
        t += 1.0
        eta.record(t, 100)  # sampling advances a batch at a time
    assert abs(eta.estimate(t).seconds - 9000 / 100) < 1e-6


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.floats(0.0, 5.0), min_size=1, max_size=120),
    stall=st.floats(0.0, 600.0),
    more=st.floats(0.0, 600.0),
    ages=st.lists(st.floats(0.0, 120.0), max_size=8),
    timeout=st.floats(0.5, 120.0),
)
def test_the_estimate_is_never_negative_and_a_stall_never_lowers_it(gaps, stall, more, ages, timeout):
    eta = EtaEstimator(len(gaps) + 50, timeout=timeout, workers=8)
    t = 0.0
    for g in gaps:
        t += g
        eta.record(t)
    now = t + stall
    first, later = eta.estimate(now), eta.estimate(now + more)
    if first.seconds is not None:  # nothing in flight reported: waiting longer only raises it
        assert 0 <= first.seconds <= later.seconds
    eta.in_flight([now - a for a in ages])
    est = eta.estimate(now)
    assert est.seconds is None or est.seconds >= 0
    if est.stuck:  # the calls presumed stuck are waited for until their timeout
        assert est.seconds >= timeout - max(ages) - 1e-9


def test_clock_format():
    assert [clock(s) for s in (0, 12.4, 60, 187, 3723)] == ["0s", "12s", "1:00", "3:07", "1:02:03"]


def test_the_bar_says_which_calls_it_waits_for(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    now = [0.0]
    bar = Progress("auditing x", 20, enabled=True, timeout=30, workers=2, now=lambda: now[0])
    for _ in range(18):
        now[0] += 0.01
        bar.advance()
    started = now[0]
    now[0] += 4
    bar.in_flight([started, started])
    line = bar.line(now[0])
    assert "18/20" in line and "eta 26s (2 calls may wait out the 30s timeout)" in line
    assert "eta 26s" in err.getvalue()  # in_flight redrew it with no call completing
