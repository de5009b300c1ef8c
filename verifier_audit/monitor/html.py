"""The HTML page: one file, no JavaScript, a Content-Security-Policy, every string escaped
(report/_html.py's escaping, head and tables), with the SVG plots of ``plots.py``."""

from __future__ import annotations

import re

from .alarms import Alarm
from .models import MonitorReport
from .plots import _h, comparison_plots, run_plots
from .run import Run
from .verdict import _g, _step, law

EXTRA_CSS = (
    ".vm-plot text{font:11px system-ui,sans-serif;fill:#333}.vm-axis{stroke:#888}.vm-grid{stroke:#ececec}"
    ".vm-line{fill:none;stroke-width:1.6}.vm-band{stroke:none;opacity:.18}.vm-env{stroke:none;opacity:.15}"
    ".vm-dot{stroke:none}.vm-alarm{stroke:#b02a1a;stroke-width:1.4;stroke-dasharray:5 3}"
    ".vm-alarm-label{fill:#b02a1a!important;font-size:10px!important}.vm-fit{fill:none;stroke:#222;stroke-width:1.4;"
    "stroke-dasharray:6 3}.vm-ceiling{stroke:#222;stroke-dasharray:2 3}"
    ".vm-verdict{font-size:15px;padding:8px 12px;border-left:4px solid #1e7b34;background:#f3faf4}"
    ".vm-verdict.vm-alarmed{border-left-color:#b02a1a;background:#fdf3f2}.vm-plots{display:flex;flex-wrap:wrap;gap:6px}"
    ".vm-note{color:#8a5300}.vm-legend{font-size:10px!important}"
)


def _slug(i: int, name: str) -> str:
    return f"run{i}-" + re.sub(r"[^A-Za-z0-9_-]+", "-", name)[:60]


def render_html(report: MonitorReport, runs: list[Run], fired: dict[str, list[Alarm]]) -> str:
    """The page as one string (write it with encoding="utf-8")."""
    H = _h()
    e = H.esc
    by_name = {r.name: r for r in runs}
    title = "verifier-audit monitor: " + ", ".join(r.name for r in report.runs)
    rows = []
    for i, r in enumerate(report.runs):
        alarms = "<br>".join(f"{e(a.kind.replace('_', ' '), 60)} @ {e(_step(a.step), 20)}" for a in r.alarms)
        rows.append(
            [
                f'<a href="#{_slug(i, r.name)}">{e(r.name, 200)}</a>',
                f'<span class="{"va-fail" if r.alarms else "va-pass"}">{len(r.alarms)}</span>'
                + (f"<br>{alarms}" if alarms else ""),
                e(f"{_g(r.fit.ceiling)} / {_g(r.fit.gap)}" if r.fit else "-", 60),
                e(r.verdict, 2000),
            ]
        )
    parts = [
        *H.page_head(title, EXTRA_CSS),
        "<h1>verifier-audit monitor: training health</h1>",
        f'<p class="va-header">verifier-audit {e(report.tool_version, 40)} · {len(report.runs)} '
        f"run{'s' if len(report.runs) != 1 else ''} · {report.alarms} alarm{'s' if report.alarms != 1 else ''}"
        + (f" · thresholds from <code>{e(report.config, 300)}</code>" if report.config else "")
        + "</p>",
        "<h2>Summary</h2>",
        H.table(["run", "alarms", "fit ceiling / distance", "verdict"], rows, "vm-summary"),
    ]
    if len(runs) > 1:
        parts += ["<h2>Side by side</h2>", '<div class="vm-plots">', *comparison_plots(runs, fired), "</div>"]
    for i, r in enumerate(report.runs):
        run = by_name[r.name]
        parts.append(
            f'<section class="vm-run" id="{_slug(i, r.name)}" data-run="{e(r.name, 200)}" '
            f'data-alarms="{len(r.alarms)}">'
        )
        parts.append(f"<h2>{e(r.name, 200)}</h2>")
        parts.append(
            f'<p class="va-muted">{e(r.format, 40)} · <code>{e(r.source, 500)}</code> · steps '
            f"{e(_step(r.first_step), 20)}–{e(_step(r.last_step), 20)}</p>"
        )
        parts.append(f'<p class="vm-verdict{" vm-alarmed" if r.alarms else ""}">{e(r.verdict, 3000)}</p>')
        parts.append('<div class="vm-plots">' + "\n".join(run_plots(run, fired.get(r.name, []), r.fit)) + "</div>")
        if r.alarms:
            parts.append(
                "<h3>Alarms</h3>"
                + H.table(
                    ["step", "kind", "what the numbers say"],
                    [
                        [
                            f'<td class="n">{e(_step(a.step), 20)}</td>',
                            f"<code>{e(a.kind, 60)}</code>",
                            e(a.message, 2000),
                        ]
                        for a in r.alarms
                    ],
                    "vm-alarms",
                )
            )
        if r.fit is not None:
            f = r.fit
            parts.append(
                f'<h3>Entropy–reward fit</h3><p class="vm-fit-text">{e(law(f.a, f.b), 100)} '
                f"(R² {f.r2:.2f}, {f.n} points; Cui et al. 2025). Predicted ceiling "
                f"at H = 0: <b>{e(_g(f.ceiling), 20)}</b>; last reward {e(_g(f.last_reward), 20)}; distance "
                f"{e(_g(f.gap), 20)}.</p>"
            )
        parts.append(
            "<h3>Metrics</h3>"
            + H.table(
                ["metric", "in the log", "points", "steps", "start → end"],
                [
                    [
                        f"<code>{e(m.name, 100)}</code>",
                        f"<code>{e(m.logged_as, 300)}</code>",
                        f'<td class="n">{m.points}</td>',
                        e(f"{_step(m.first_step)}–{_step(m.last_step)}", 60),
                        e(f"{_g(m.start)} → {_g(m.end)}", 60),
                    ]
                    for m in r.metrics
                ],
                "vm-metrics",
            )
        )
        if r.missing or r.not_checked:
            parts.append(
                "<p>"
                + (f"Missing: {e(', '.join(r.missing), 500)}. " if r.missing else "")
                + "".join(f"<br>Not checked: {e(k, 60)} ({e(why, 300)})" for k, why in r.not_checked.items())
                + "</p>"
            )
        for n in r.notes:
            parts.append(f'<p class="vm-note">note: {e(n, 1000)}</p>')
        parts.append("</section>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
