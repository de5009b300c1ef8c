"""The samples section as text (the terminal, under each Report) and as Markdown (after
the reports' summary in ``score --markdown``)."""

from __future__ import annotations

from .comparison import BLIND_SPOT
from .section import GroupSummary, Rate, SamplesSection


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.encode("utf-8", "backslashreplace").decode("utf-8").split())
    flat = "".join(ch if ch.isprintable() else "\ufffd" for ch in flat)
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _group_rows(groups: list[GroupSummary]) -> list[list[str]]:
    def r(x: Rate) -> str:
        return f"{100 * x.rate:.1f}% ({x.k}/{x.n}) [{100 * x.ci.low:.1f}, {100 * x.ci.high:.1f}]" if x.n else "-"

    return [
        [
            g.name + (f" ({g.role})" if g.role else ""),
            str(g.samples),
            str(g.correct),
            str(g.incorrect),
            str(g.undecidable),
            str(g.errors),
            r(g.false_acceptance),
            r(g.false_rejection),
        ]
        for g in groups
    ]


_HEADER = ["", "samples", "correct", "incorrect", "undecidable", "errors", "FA [95% CI]", "FR [95% CI]"]


def render_section(section: SamplesSection, *, show: int = 10) -> str:
    def table(rows: list[list[str]], header: list[str]) -> list[str]:
        widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
        fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
        return [fmt.format(*header), fmt.format(*["-" * w for w in widths])] + [fmt.format(*r) for r in rows]

    out = [
        f"Real samples — {section.verifier}: {section.samples} samples, {section.labelled} labelled by the oracle"
        + (
            f", {section.undecidable} undecidable ({', '.join(f'{k} {v}' for k, v in section.undecidable_reasons.items())})"
            if section.undecidable
            else ""
        ),
        "",
    ]
    out += table(_group_rows(section.by_model), ["model"] + _HEADER[1:])
    out.append("")
    out += table(_group_rows(section.by_split), ["split"] + _HEADER[1:])
    out.append("")
    for c in section.comparisons:
        out.append(("BLIND SPOT: " if BLIND_SPOT in c.message else "") + c.message)
    if section.comparisons:
        out.append("")
    out += _authority_lines(section)
    for kind, total, title in (
        ("accepted_but_wrong", section.accepted_but_wrong, "Accepted but wrong"),
        ("rejected_but_right", section.rejected_but_right, "Rejected but right"),
    ):
        rows = [d for d in section.disagreements if d.kind == kind]
        if not total:
            out.append(f"{title}: none.")
            continue
        out.append(f"{title}: {total}" + (f" (first {min(show, len(rows))})" if total > show else ""))
        for d in rows[:show]:
            out.append(
                f"  {d.task_id} #{d.sample_index} [{d.model}, {d.split}] reference {_one_line(d.reference, 30)}"
                f"  ({d.source})"
            )
            out.append(f"      {_one_line(d.text, 100)}")
    return "\n".join(out)


def _authority_lines(section: SamplesSection) -> list[str]:
    from ..authority import figures_line

    if not section.authority_by_model:
        return []
    out = [
        "Authority (tool calls; the task's policy: read < write < delete < admin; shares of readable samples, "
        "Wilson 95%)"
    ]
    for f in section.authority_by_model:
        out.append(f"  {f.name}" + (f" ({f.role})" if f.role else "") + f": {figures_line(f)}")
    for f in section.authority_by_split:
        out.append(f"  {f.name} [{f.split}]: {figures_line(f)}")
    return out + [""]


def _authority_markdown(section: SamplesSection, cell) -> list[str]:
    from ..authority import HIGHEST, pct, tools_text

    if not section.authority_by_model:
        return []
    out = [
        "",
        "**Authority** (tool calls; privilege from the task's policy, read < write < delete < admin; shares of "
        "readable samples; unparseable samples counted apart)",
        "",
        "| model | split | samples | readable | unparseable | "
        + " | ".join(f"highest {lv}" for lv in HIGHEST)
        + " | calls outside the policy [95% CI] | tools |",
        "|---|---|---|---|---|" + "---|" * len(HIGHEST) + "---|---|",
    ]
    for f in [*section.authority_by_model, *section.authority_by_split]:
        out.append(
            f"| `{cell(f.name)}`" + (f" ({f.role})" if f.role else "") + f" | {f.split} | {f.samples} | "
            f"{f.parsed} | {f.unparseable} | "
            + " | ".join(pct(f.highest_share.get(lv, 0.0)) for lv in HIGHEST)
            + f" | {pct(f.violation_rate)} ({f.violating}/{f.parsed}) [{pct(f.violation_ci.low)}, "
            f"{pct(f.violation_ci.high)}] | {cell(tools_text(f), 200)} |"
        )
    return out


def section_markdown(section: SamplesSection, *, show: int = 10) -> str:
    def cell(text: str, width: int = 80) -> str:
        return _one_line(text, width).replace("|", "\\|").replace("`", "'")

    def rows(groups: list[GroupSummary], what: str) -> list[str]:
        lines = [
            f"| {what} | samples | correct | incorrect | undecidable | errors | false acceptance | false rejection |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for g, r in zip(groups, _group_rows(groups)):
            lines.append("| " + " | ".join([f"`{cell(g.name)}`" + (f" ({g.role})" if g.role else "")] + r[1:]) + " |")
        return lines

    out = [
        "",
        f"### Real samples: `{section.verifier}`",
        "",
        f"{section.samples} samples, {section.labelled} labelled by the oracle, {section.undecidable} undecidable.",
        "",
    ]
    out += rows(section.by_model, "model") + [""] + rows(section.by_split, "split") + [""]
    for c in section.comparisons:
        out.append(f"- {'**blind spot**: ' if BLIND_SPOT in c.message else ''}{cell(c.message, 400)}")
    out += _authority_markdown(section, cell)
    for kind, total, title in (
        ("accepted_but_wrong", section.accepted_but_wrong, "Accepted but wrong"),
        ("rejected_but_right", section.rejected_but_right, "Rejected but right"),
    ):
        shown = [d for d in section.disagreements if d.kind == kind][:show]
        out += ["", f"**{title}**: {total}" + (f" (first {len(shown)})" if total > len(shown) else "")]
        if shown:
            out += ["", "| task | model | split | sample | reference | source |", "|---|---|---|---|---|---|"]
            out += [
                f"| `{cell(d.task_id, 40)}` | `{cell(d.model, 40)}` | {d.split} | {cell(d.text)} | "
                f"{cell(d.reference, 30)} | {cell(d.source, 60)} |"
                for d in shown
            ]
    return "\n".join(out) + "\n"
