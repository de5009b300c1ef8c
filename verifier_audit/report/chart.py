"""What a chart shows, said once: the data, the axes' labels, the series with their colours
and the marks, computed by the pipeline that owns the chart (``monitor.plots``,
``samples.compare.render``) and drawn by two thin back ends -- an SVG string for the
self-contained HTML pages (standard library only, so HTML works without the ``plots``
extra) and matplotlib for the PNG files (``report.png``). Neither back end decides what is
plotted; both read these descriptions, so the HTML and the PNG of a chart cannot drift apart.

Three shapes cover every chart drawn in both forms: a line panel (curves over x, bands, dashed
vertical marks), grouped horizontal bars (a value per series per row, optional interval) and
stacked horizontal bars (counts per category per row). The standard library only (numpy
when ``reduce_points`` is called), like ``report._html``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Values = Sequence[float] | Any  # a sequence of numbers or a numpy array


@dataclass(frozen=True)
class Line:
    """One curve. ``name`` is what the label stands for, when the back end may shorten it
    (a model's name after "base"); ``dots`` draws the points too (sparse series)."""

    series: str
    label: str
    xs: Values
    ys: Values
    color: str
    dots: bool = False
    name: str = ""


@dataclass(frozen=True)
class Band:
    """A shaded interval around a curve (a bootstrap band, a group's spread)."""

    series: str
    label: str
    xs: Values
    low: Values
    high: Values
    color: str


@dataclass(frozen=True)
class Mark:
    """A dashed vertical line at ``at`` (an alarm's step, a crossover k) with its text;
    ``who`` is the run it belongs to, when a chart shows several."""

    kind: str
    at: float
    color: str
    label: str
    who: str = ""


@dataclass
class LinePanel:
    """Curves over one x axis. ``x_ticks`` fixes the ticks (else the back end picks them);
    ``log2_x`` draws x on a log-2 scale; ``y_range`` fixes y (else the data's range)."""

    plot: str
    title: str
    lines: list[Line]
    bands: list[Band] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    x_label: str = "step"
    y_label: str = ""
    x_range: tuple[float, float] | None = None
    x_ticks: list[int] | None = None
    log2_x: bool = False
    y_range: tuple[float, float] | None = None
    run: str = ""


@dataclass(frozen=True)
class Bar:
    """One series' value in a row; ``low``/``high`` an interval (a whisker), ``unbounded``
    an interval whose upper end is unknown (drawn to the edge)."""

    series: str
    value: float | None
    low: float | None = None
    high: float | None = None
    unbounded: bool = False


@dataclass
class BarChart:
    """Grouped horizontal bars: ``rows`` of (label, bars), ``names`` the series' legend
    words, ``colors`` their colours."""

    plot: str
    title: str
    rows: list[tuple[str, list[Bar]]]
    unit: str
    names: dict[str, str]
    colors: dict[str, str]

    def series(self) -> list[str]:
        """The series present, in legend order."""
        present = {b.series for _, bars in self.rows for b in bars}
        return [s for s in self.names if s in present]


@dataclass
class StackedBars:
    """Stacked horizontal bars: ``rows`` of (label, counts per category, note at the end);
    ``categories`` in stacking order with their colours; ``caption`` under the bars."""

    plot: str
    title: str
    categories: dict[str, str]
    rows: list[tuple[str, dict[str, int], str]]
    caption: str = ""
    x_label: str = "count"

    @staticmethod
    def label(category: str) -> str:
        """A category's legend words (``out_of_support`` -> "out of support")."""
        return category.replace("_", " ")


def reduce_points(steps: Values, values: Values, bins: int) -> tuple[Any, Any, tuple | None]:
    """At most ``bins`` points: equal-count bins (mean step, mean value) with the bins'
    min and max as an envelope, so a spike stays visible. Short series pass unchanged.
    Each back end reduces to its own resolution (SVG 600 points, PNG 2,000)."""
    import numpy as np

    steps, values = np.asarray(steps), np.asarray(values)
    n = len(values)
    if n <= bins:
        return steps, values, None
    size = -(-n // bins)
    pad = (-n) % size
    s = np.concatenate([steps, np.full(pad, np.nan)]).reshape(-1, size)
    v = np.concatenate([values, np.full(pad, np.nan)]).reshape(-1, size)
    return np.nanmean(s, axis=1), np.nanmean(v, axis=1), (np.nanmin(v, axis=1), np.nanmax(v, axis=1))
