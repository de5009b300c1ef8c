"""What ``verifier-audit monitor`` prints: per run its metrics, alarms and fit, then the runs
side by side."""

from __future__ import annotations

from .models import MonitorReport
from .verdict import _g, _step, law


def render_text(report: MonitorReport) -> str:
    lines = []
    for r in report.runs:
        lines.append(
            f"run {r.name}  ({r.format or 'log'}: {r.source}; steps {_step(r.first_step)}–{_step(r.last_step)})"
        )
        if r.metrics:
            lines.append("  metrics:")
            w = max(len(m.name) for m in r.metrics)
            for m in r.metrics:
                shown = "" if m.logged_as == m.name else f"  (as {m.logged_as})"
                lines.append(
                    f"    {m.name:<{w}}  {_g(m.start):>8} → {_g(m.end):<8} {m.points} points, steps "
                    f"{_step(m.first_step)}–{_step(m.last_step)}{shown}"
                )
        if r.missing:
            lines.append(f"  missing: {', '.join(r.missing)}")
        for kind, why in r.not_checked.items():
            lines.append(f"  not checked: {kind} ({why})")
        for n in r.notes:
            lines.append(f"  note: {n}")
        if r.alarms:
            lines.append(f"  alarms ({len(r.alarms)}):")
            for a in r.alarms:
                lines.append(f"    step {_step(a.step)}  {a.kind}: {a.message}")
        else:
            lines.append("  alarms: none")
        if r.fit is not None:
            f = r.fit
            lines.append(
                f"  entropy–reward fit: {law(f.a, f.b)}  (R² {f.r2:.2f}, {f.n} points); "
                f"ceiling -a + b = {_g(f.ceiling)}, last reward {_g(f.last_reward)}, distance {_g(f.gap)}"
            )
        else:
            lines.append(
                "  entropy–reward fit: not possible (needs entropy and reward at 5 shared steps or more, "
                "and entropy that moves)"
            )
        lines.append(f"  verdict: {r.verdict}")
        lines.append("")
    if len(report.runs) > 1:
        lines.append("side by side:")
        rows = [("run", "alarms", "entropy", "reward", "kl (end)", "fit ceiling / distance")]
        for r in report.runs:
            by = {m.name: m for m in r.metrics}

            def mv(n):
                return f"{_g(by[n].start)} → {_g(by[n].end)}" if n in by else "-"  # noqa: B023 (called now)

            rows.append(
                (
                    r.name,
                    ", ".join(f"{a.kind}@{_step(a.step)}" for a in r.alarms) or "none",
                    mv("entropy"),
                    mv("reward"),
                    _g(by["kl"].end) if "kl" in by else "-",
                    f"{_g(r.fit.ceiling)} / {_g(r.fit.gap)}" if r.fit else "-",
                )
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        lines.append("")
    n = report.alarms
    lines.append(
        f"{n} alarm{'s' if n != 1 else ''} in {len(report.runs)} run{'s' if len(report.runs) != 1 else ''}"
        f" (exit {report.exit_code})"
    )
    return "\n".join(lines) + "\n"
