"""The plots as PNG files, drawn with matplotlib (optional: ``write_pngs`` says how to
install it)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..report.png import pyplot
from .alarms import Alarm
from .models import MonitorReport
from .plots import ALARM_COLOR, PALETTE, SERIES_COLOR, _reduce
from .run import REWARD_FN_PREFIX, Run


def _file_slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:80] or "run"


def write_pngs(report: MonitorReport, runs: list[Run], fired: dict[str, list[Alarm]], out_dir) -> list[Path]:
    """One PNG per run (<run>.png: the HTML's panels) and, with several runs,
    comparison.png. Raises InputError when matplotlib is missing."""
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

    def plot(ax, run: Run, key: str, color: str, label: str, dots: bool = False) -> None:
        s = run.metrics[key]
        st, va, env = _reduce(s.steps, s.values, 2000)
        if env is not None:
            ax.fill_between(st, env[0], env[1], color=color, alpha=0.15, linewidth=0)
        ax.plot(
            st, va, color=color, label=label, marker="o" if dots or len(s) <= 40 else None, markersize=3, linewidth=1.4
        )

    def marks(ax, alarms: list[Alarm], color: str = ALARM_COLOR) -> None:
        for a in alarms:
            ax.axvline(a.step, color=color, linestyle="--", linewidth=1)
            ax.annotate(
                a.kind.replace("_", " "),
                (a.step, 1),
                xycoords=("data", "axes fraction"),
                fontsize=7,
                color=color,
                rotation=90,
                va="top",
                ha="right",
            )

    for rep in report.runs:
        run = by_name[rep.name]
        alarms = fired.get(rep.name, [])
        panels = []
        if run.has("entropy"):
            panels.append(("entropy (nats)", [("entropy", SERIES_COLOR["entropy"], "entropy")]))
        if run.has("reward") or run.has("val_accuracy"):
            panels.append(
                (
                    "reward and validation",
                    [
                        (k, SERIES_COLOR[k], lbl)
                        for k, lbl in (("reward", "training reward"), ("val_accuracy", "validation"))
                        if run.has(k)
                    ],
                )
            )
        spread = [(k, SERIES_COLOR[k], k) for k in ("reward_std", "frac_reward_zero_std") if run.has(k)]
        if spread:
            panels.append(("group reward spread", spread))
        for key, title in (("kl", "KL to the reference"), ("length", "completion length")):
            if run.has(key):
                panels.append((title, [(key, SERIES_COLOR[key], key)]))
        fns = [f for f in run.reward_functions() if run.has(REWARD_FN_PREFIX + f)]
        if fns:
            panels.append(
                ("reward terms", [(REWARD_FN_PREFIX + f, PALETTE[i % len(PALETTE)], f) for i, f in enumerate(fns)])
            )
        if not panels:
            continue
        cols = 2 if len(panels) > 1 else 1
        nrows = -(-len(panels) // cols)
        fig, axes = plt.subplots(nrows, cols, figsize=(6 * cols, 2.8 * nrows), squeeze=False)
        for ax, (title, series) in zip(axes.flat, panels):
            for key, color, label in series:
                plot(ax, run, key, color, label, dots=key == "val_accuracy")
            if title == "reward and validation" and run.has("reward") and run.has("reward_std"):
                r, sd = run.metrics["reward"], run.metrics["reward_std"]
                common, ir, isd = np.intersect1d(r.steps, sd.steps, assume_unique=True, return_indices=True)
                st, lo, _ = _reduce(common, r.values[ir] - sd.values[isd], 2000)
                _, hi, _ = _reduce(common, r.values[ir] + sd.values[isd], 2000)
                ax.fill_between(st, lo, hi, color=SERIES_COLOR["reward"], alpha=0.15, linewidth=0, label="± group std")
            marks(ax, alarms)
            ax.set_title(title, fontsize=10)
            ax.set_xlabel("step", fontsize=8)
            ax.tick_params(labelsize=8)
            if len(series) > 1 or title == "reward and validation":
                ax.legend(fontsize=7)
        for ax in list(axes.flat)[len(panels) :]:
            ax.set_visible(False)
        fig.suptitle(f"{rep.name}: {len(alarms)} alarm{'s' if len(alarms) != 1 else ''}", fontsize=11)
        fig.tight_layout()
        path = out_dir / f"{unique(_file_slug(rep.name))}.png"
        fig.savefig(path, dpi=100, metadata={"Software": None})
        plt.close(fig)
        written.append(path)
    if len(runs) > 1:
        keys = [k for k in ("entropy", "reward", "kl", "length") if any(r.has(k) for r in runs)]
        if keys:
            fig, axes = plt.subplots(len(keys), 1, figsize=(8, 2.6 * len(keys)), squeeze=False)
            for ax, key in zip(axes[:, 0], keys):
                for i, run in enumerate(runs):
                    if run.has(key):
                        color = PALETTE[i % len(PALETTE)]
                        plot(ax, run, key, color, run.name)
                        marks(ax, fired.get(run.name, []), color)
                ax.set_title(key, fontsize=10)
                ax.tick_params(labelsize=8)
                ax.legend(fontsize=7)
            fig.tight_layout()
            path = out_dir / f"{unique('comparison')}.png"
            fig.savefig(path, dpi=100, metadata={"Software": None})
            plt.close(fig)
            written.append(path)
    return written
