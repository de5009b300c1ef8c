"""What a PNG writer drew, read back from its matplotlib figures (not from pixels): each
writer saves through ``report.png.save``, which a test replaces, in the writer's module, with
one that summarises the figure and closes it unsaved (rasterising is the slow part, and the
files themselves are checked by the writers' own tests)."""

from __future__ import annotations

from pathlib import Path


def axes_summary(ax) -> dict:
    """Title, curves (label and y data, matplotlib's own helper lines left out), dashed
    vertical marks, bars (widths), y tick labels and legend texts of one Axes."""
    curves = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    return {
        "title": ax.get_title(),
        "curves": {line.get_label(): list(line.get_ydata()) for line in curves},
        "marks": [float(line.get_xdata()[0]) for line in ax.get_lines() if line.get_linestyle() == "--"],
        "bars": [float(p.get_width()) for p in ax.patches],
        "yticks": [t.get_text() for t in ax.get_yticklabels()],
        "legend": [t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else [],
    }


def record_figures(monkeypatch, module) -> dict[str, list[dict]]:
    """{file name: [axes summary, ...]} of every figure ``module`` would save from now on."""
    from verifier_audit.report.png import pyplot

    seen: dict[str, list[dict]] = {}

    def keep(fig, path: Path, dpi: int) -> Path:
        seen[Path(path).name] = [axes_summary(ax) for ax in fig.axes if ax.get_visible()]
        pyplot().close(fig)
        return Path(path)

    monkeypatch.setattr(module, "save", keep)
    return seen
