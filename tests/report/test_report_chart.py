"""``report.chart``: the chart descriptions both back ends draw, and ``report.png``'s
matplotlib back end for them (the SVG back ends are tested with their pages, in
tests/monitor/test_monitor_charts.py and tests/samples/test_samples_compare.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")

from verifier_audit.report.chart import Bar, BarChart, StackedBars, reduce_points  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=300),
    st.integers(1, 80),
)
def test_reduced_curves_keep_their_extremes_and_order(values, bins):
    steps = np.arange(len(values), dtype=float)
    xs, ys, env = reduce_points(steps, np.asarray(values), bins)
    if len(values) <= bins:
        assert env is None and list(ys) == values
        return
    assert len(xs) == len(ys) <= bins and np.all(np.diff(xs) > 0)
    lo, hi = env
    assert lo.min() == min(values) and hi.max() == max(values)  # a spike stays visible
    assert np.all(lo <= ys + 1e-6 * (1 + abs(ys))) and np.all(ys <= hi + 1e-6 * (1 + abs(ys)))


def test_the_png_back_end_draws_bars_with_their_intervals(tmp_path):
    pytest.importorskip("matplotlib", reason="the PNGs need matplotlib: pip install 'verifier-audit[plots]'")
    from chart_support import axes_summary

    from verifier_audit.report.png import draw_bars, draw_stacked, pyplot, save

    chart = BarChart(
        "t",
        "a title",
        [("one", [Bar("a", 1.0, 0.5, 1.5), Bar("b", None)]), ("two", [Bar("a", 2.0), Bar("b", 0.5, unbounded=True)])],
        "nats",
        {"a": "A", "b": "B"},
        {"a": "#111111", "b": "#222222"},
    )
    stacked = StackedBars("s", "counts", {"x_y": "#333333", "z": "#444444"}, [("row", {"x_y": 3, "z": 1}, "note")])
    fig, (a1, a2) = pyplot().subplots(2, 1)
    draw_bars(a1, chart)
    draw_stacked(a2, stacked)
    bars, parts = axes_summary(a1), axes_summary(a2)
    assert bars["title"] == "a title" and bars["yticks"] == ["one", "two"] and bars["legend"] == ["A", "B"]
    assert [w for w in bars["bars"]] == [1.0, 2.0, 0.5]  # the missing value is "n/a", not a bar of 0
    assert "n/a" in [t.get_text().strip() for t in a1.texts]
    assert a1.get_xlabel() == "nats" and len(a1.containers) == 4  # three bars and one whisker
    assert parts["bars"] == [3, 1] and parts["legend"] == ["x y", "z"] and parts["yticks"] == ["row"]
    assert save(fig, tmp_path / "bars.png", dpi=50).read_bytes()[:4] == b"\x89PNG"
