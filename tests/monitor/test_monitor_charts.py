"""Each monitor plot is described once (``plots.run_panels``, ``plots.comparison_panels``) and
both back ends draw that description: the HTML's SVG and the PNG files show the same panels,
titles, series (with their values) and alarm marks. Before, the PNGs were drawn by a second,
hand-kept copy whose titles, labels and panels had drifted from the HTML's."""

from __future__ import annotations

import re

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("matplotlib", reason="the PNGs need matplotlib: pip install 'verifier-audit[plots]'")

from chart_support import record_figures  # noqa: E402

from verifier_audit.monitor import plots  # noqa: E402
from verifier_audit.monitor import png as monitor_png  # noqa: E402
from verifier_audit.monitor import report as Rp  # noqa: E402
from verifier_audit.monitor.run import Run, Series  # noqa: E402
from verifier_audit.report import _html as H  # noqa: E402


def _run(name: str, n: int = 120, collapse_at: int | None = None) -> Run:
    t = np.arange(n, dtype=float)
    u = t / n
    entropy = 1.2 - 0.3 * u if collapse_at is None else np.where(t < collapse_at, 1.2, 0.1)
    curves = {
        "entropy": entropy,
        "reward": 0.2 + 0.3 * u,
        "reward_std": 0.4 - 0.05 * u,
        "kl": 0.05 * u,
        "length": 300 + 100 * u,
        "reward_fn/format": 0.1 + 0.8 * u,
        "reward_fn/accuracy": 0.3 - 0.05 * u,
    }
    metrics = {k: Series(t, v) for k, v in curves.items()}
    metrics["val_accuracy"] = Series(t[::20], 0.3 + 0.2 * u[::20])
    return Run(name=name, source="synthetic", metrics=metrics)


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """Two runs, their alarms and what the PNG writer drew for them (once: drawing is the cost)."""
    runs = [_run("steady"), _run("collapsed", collapse_at=50)]
    report, fired = Rp.build_report(runs)
    with pytest.MonkeyPatch.context() as mp:
        seen = record_figures(mp, monitor_png)
        monitor_png.write_pngs(report, runs, fired, tmp_path_factory.mktemp("png"))
    return runs, fired, seen


def _svg_of(svgs: list[str], plot: str) -> str:
    (svg,) = [s for s in svgs if f'data-plot="{plot}"' in s]
    return svg


def _same_description(panels, svgs: list[str], axes: list[dict]) -> None:
    assert [a["title"] for a in axes] == [p.title for p in panels]
    for panel, ax in zip(panels, axes):
        svg = _svg_of(svgs, panel.plot)
        assert f"<title>{H.esc(panel.title, 300)}</title>" in svg
        assert list(ax["curves"]) == [line.label for line in panel.lines]
        for line in panel.lines:
            assert f'data-series="{line.series}" data-points="{len(line.ys)}"' in svg
            assert np.array_equal(ax["curves"][line.label], line.ys)  # short series: not reduced
        svg_marks = [float(s) for s in re.findall(r'class="vm-alarm"[^>]*data-step="([^"]+)"', svg)]
        assert svg_marks == ax["marks"] == [float(m.at) for m in panel.marks]


def test_each_run_png_draws_the_html_panels(drawn):
    rs, fired, seen = drawn
    assert "entropy_collapse" in {a.kind for a in fired["collapsed"]}
    for run in rs:
        panels = plots.run_panels(run, fired.get(run.name, []))
        assert [p.plot for p in panels] == ["entropy", "reward", "spread", "kl", "length", "reward_fns"]
        _same_description(panels, plots.run_plots(run, fired.get(run.name, []), None), seen[f"{run.name}.png"])


def test_the_comparison_png_draws_the_html_comparison(drawn):
    rs, fired, seen = drawn
    panels = plots.comparison_panels(rs, fired)
    assert [p.plot for p in panels] == ["entropy", "reward", "reward_std", "kl", "length", "val_accuracy"]
    _same_description(panels, plots.comparison_plots(rs, fired), seen["comparison.png"])
