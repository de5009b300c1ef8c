"""Intervals and the coverage debt."""

from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.metrics import coverage_debt, gate, wilson
from verifier_audit.models import CategoryResult, GateConfig, Interval


@given(st.integers(0, 500), st.integers(1, 500))
def test_wilson_contains_the_rate_and_stays_in_unit_interval(k, n):
    k = min(k, n)
    ci = wilson(k, n)
    assert 0.0 <= ci.low <= k / n <= ci.high <= 1.0


def test_wilson_known_value():
    ci = wilson(0, 10)  # the textbook "0 of 10" upper bound is about 0.278
    assert ci.low == 0.0 and abs(ci.high - 0.2775) < 1e-3


def cat(name, severity, n, wrong, label="incorrect"):
    return CategoryResult(
        name=name,
        origin="near_miss" if label == "incorrect" else "equivalent",
        severity=severity,
        label=label,
        n=n,
        accepted=wrong,
        rate=wrong / n,
        ci=Interval(low=0, high=1),
    )


def test_debt_weighs_categories_not_candidates():
    # 1000 easy candidates all caught cannot drown a critical hole of 10.
    debt, ci = coverage_debt([cat("easy", "low", 1000, 0), cat("exploit", "critical", 10, 10)])
    assert abs(debt - 4 / 5) < 1e-9
    assert ci.low < debt < ci.high


def test_correct_categories_do_not_count_in_debt():
    debt, _ = coverage_debt([cat("a", "medium", 10, 0), cat("eq", "medium", 10, 10, label="correct")])
    assert debt == 0.0


def test_gate_reasons():
    cats = [cat("open", "low", 10, 10)] + [cat(f"closed{i}", "high", 10, 0) for i in range(20)]
    debt, _ = coverage_debt(cats)
    g = gate(debt, cats, 0.0, 0, GateConfig())
    assert not g.passed and len(g.reasons) == 1 and "category open" in g.reasons[0]
    assert gate(debt, cats, 0.0, 0, GateConfig(waived_categories=["open"])).passed
    assert "security" in gate(0.0, [], 0.0, 1, GateConfig()).reasons[0]
    assert "false rejection" in gate(0.0, [], 0.2, 0, GateConfig()).reasons[0]
