"""PNG plots are optional: matplotlib comes with the ``plots`` extra. One place says how to
get it and loads it headless, for every command that writes PNGs (compare, monitor), and
draws the chart descriptions of ``report.chart`` -- the same ones the HTML pages draw as
SVG -- on matplotlib axes."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from .chart import BarChart, Line, LinePanel, StackedBars, reduce_points

PNG_HINT = "pip install 'verifier-audit[plots]' (matplotlib)"


def matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend; InputError when it is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError(f"--png-dir needs matplotlib, which is not installed: {PNG_HINT}") from None
    return plt


# --------------------------------------------------------------------------------------
# The matplotlib back end of ``report.chart``: each function draws one description on an
# Axes; the SVG back ends (``monitor.plots``, ``samples.compare.render``) draw the same ones.
# --------------------------------------------------------------------------------------


def line_label(line: Line) -> str:
    return f"{line.label}: {line.name}" if line.name else line.label


def draw_lines(ax, panel: LinePanel, bins: int = 2000) -> None:
    """Curves (reduced to ``bins`` points, a spike's envelope shaded), bands, dashed marks
    with their text, the axes' labels and ticks, and a legend when there is more than one
    thing to tell apart."""
    for b in panel.bands:
        st, lo, _ = reduce_points(b.xs, b.low, bins)
        _, hi, _ = reduce_points(b.xs, b.high, bins)
        ax.fill_between(st, lo, hi, color=b.color, alpha=0.2, linewidth=0, label=b.label)
    for line in panel.lines:
        if not len(line.ys):
            continue
        st, va, env = reduce_points(line.xs, line.ys, bins)
        if env is not None:
            ax.fill_between(st, env[0], env[1], color=line.color, alpha=0.15, linewidth=0)
        marker = "o" if line.dots else None
        ax.plot(st, va, color=line.color, label=line_label(line), marker=marker, markersize=3, linewidth=1.4)
    for m in panel.marks:
        ax.axvline(m.at, color=m.color, linestyle="--", linewidth=1)
        ax.annotate(
            m.label,
            (m.at, 1),
            xycoords=("data", "axes fraction"),
            fontsize=7,
            color=m.color,
            rotation=90,
            va="top",
            ha="right",
        )
    if panel.log2_x:
        ax.set_xscale("log", base=2)
    if panel.x_ticks:
        ax.set_xticks(panel.x_ticks, [str(k) for k in panel.x_ticks])
    if panel.x_range is not None and panel.x_range[1] > panel.x_range[0]:
        ax.set_xlim(*panel.x_range)
    if panel.y_range is not None:
        ax.set_ylim(*panel.y_range)
    _labels(ax, panel.title, panel.x_label, panel.y_label)
    if len([x for x in panel.lines if len(x.ys)]) + len(panel.bands) > 1:
        ax.legend(fontsize=7)


def draw_bars(ax, chart: BarChart) -> None:
    """Grouped horizontal bars, first row on top; an interval as a whisker, an unknown upper
    bound as a dashed line to the edge, a missing value as "n/a"."""
    series = chart.series()
    height = 0.8 / max(1, len(series))
    named: set[str] = set()
    for j, (_label, bars) in enumerate(chart.rows):
        for b in bars:
            y = j + (series.index(b.series) - (len(series) - 1) / 2) * height
            if b.value is None:
                ax.text(0, y, " n/a", va="center", fontsize=7)
                continue
            label = chart.names[b.series] if b.series not in named else None
            named.add(b.series)
            ax.barh(y, b.value, height=height, color=chart.colors[b.series], label=label)
            if b.low is not None and b.high is not None:
                err = [[max(0.0, b.value - b.low)], [max(0.0, b.high - b.value)]]
                ax.errorbar([b.value], [y], xerr=err, color="#222", capsize=3)
            elif b.unbounded:
                ax.annotate(
                    "",
                    xy=(1, y),
                    xycoords=("axes fraction", "data"),
                    xytext=(b.value, y),
                    arrowprops={"arrowstyle": "-", "linestyle": "--", "color": "#222"},
                )
    ax.set_yticks(range(len(chart.rows)), [label for label, _ in chart.rows], fontsize=8)
    ax.invert_yaxis()
    _labels(ax, chart.title, chart.unit)
    if len(series) > 1:
        ax.legend(fontsize=7)


def draw_stacked(ax, chart: StackedBars) -> None:
    """Stacked horizontal bars, first row on top, each row's note after its bar."""
    for j, (_label, counts, note) in enumerate(chart.rows):
        left = 0
        for cat, color in chart.categories.items():
            ax.barh(j, counts[cat], left=left, color=color, label=chart.label(cat) if j == 0 else None)
            left += counts[cat]
        if note:
            ax.text(left, j, f"  {note}", va="center", fontsize=8)
    ax.set_yticks(range(len(chart.rows)), [label for label, _, _ in chart.rows])
    ax.invert_yaxis()
    _labels(ax, chart.title, f"{chart.x_label} ({chart.caption})" if chart.caption else chart.x_label)
    ax.legend(ncol=len(chart.categories), fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35))


def _labels(ax, title: str, x_label: str, y_label: str = "") -> None:
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(x_label, fontsize=8)
    if y_label:
        ax.set_ylabel(y_label, fontsize=8)
    ax.tick_params(labelsize=8)


def save(fig, path: Path, dpi: int) -> Path:
    """Lay out, write (no "Software" stamp, so the bytes depend on the pixels only) and close."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi, metadata={"Software": None})
    pyplot().close(fig)
    return path
