"""The plots as PNG files, drawn with matplotlib (optional: ``write_pngs`` says how to
install it) from the same descriptions as the HTML's SVG (``plots.run_panels``,
``plots.comparison_panels``), by ``report.png``'s back end."""

from __future__ import annotations

import re
from pathlib import Path

from ..report.png import draw_lines, pyplot, save
from .alarms import Alarm
from .models import MonitorReport
from .plots import comparison_panels, run_panels
from .run import Run


def _file_slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:80] or "run"


def write_pngs(report: MonitorReport, runs: list[Run], fired: dict[str, list[Alarm]], out_dir) -> list[Path]:
    """One PNG per run (<run>.png: the HTML's panels, two columns) and, with several runs,
    comparison.png (one panel per metric). Raises InputError when matplotlib is missing."""
    plt = pyplot()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    by_name = {r.name: r for r in runs}
    used: set[str] = set()

    def unique(stem: str) -> str:
        name, k = stem, 2
        while name in used:
            name, k = f"{stem}-{k}", k + 1
        used.add(name)
        return name

    for rep in report.runs:
        alarms = fired.get(rep.name, [])
        panels = run_panels(by_name[rep.name], alarms)
        if not panels:
            continue
        cols = 2 if len(panels) > 1 else 1
        nrows = -(-len(panels) // cols)
        fig, axes = plt.subplots(nrows, cols, figsize=(6 * cols, 2.8 * nrows), squeeze=False)
        for ax, panel in zip(axes.flat, panels):
            draw_lines(ax, panel)
        for ax in list(axes.flat)[len(panels) :]:
            ax.set_visible(False)
        fig.suptitle(f"{rep.name}: {len(alarms)} alarm{'s' if len(alarms) != 1 else ''}", fontsize=11)
        written.append(save(fig, out_dir / f"{unique(_file_slug(rep.name))}.png", dpi=100))
    if len(runs) > 1:
        panels = comparison_panels(runs, fired)
        if panels:
            fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.6 * len(panels)), squeeze=False)
            for ax, panel in zip(axes[:, 0], panels):
                draw_lines(ax, panel)
            written.append(save(fig, out_dir / f"{unique('comparison')}.png", dpi=100))
    return written
