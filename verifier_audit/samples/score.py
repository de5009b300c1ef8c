"""Score real model samples: false acceptance and false rejection of a verifier on what a
model actually wrote.

    verifier-audit score rl.jsonl --base base.jsonl --verifier rewards.py:accuracy

Each sample is labelled by the domain's oracle (``labels.label_texts``, in the worker pool;
the samples it cannot decide are counted apart) and becomes a ``Candidate`` of origin
"sampled" whose label is the oracle's, in the category
``<domain>.sampled.<model>.<split>.<correct|incorrect>``. Those candidates go through the
engine's machinery (sandboxing, timeouts, results store, probes, security findings), so the
Report is the one ``run`` writes, with a category per model, split and truth. The samples
are streamed in blocks, in memory that does not grow with their number
(``samples/stream.py``: how, and what a run of more than one block samples instead of
taking whole). ``SamplesSection`` adds what is particular to samples: the rates per model
and per split, the disagreeing samples, and the comparison of models (an RL policy against
its base: "the policy may have learned the verifier's blind spot").
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Optional, Sequence

from pydantic import BaseModel, Field

from .. import __version__
from ..engine.audit import AuditOptions, Prepared
from ..loading import VerifierSpec
from ..metrics import wilson
from ..models import Interval, Report
from .authority import AuthorityFigures

BLIND_SPOT = "the policy may have learned the verifier's blind spot"
ALPHA = 0.05


class Rate(BaseModel):
    k: int  # false acceptances (of n incorrect samples) or false rejections (of n correct ones)
    n: int
    rate: float
    ci: Interval


class GroupSummary(BaseModel):
    """The samples of one model, or of one split (all models together)."""

    name: str
    role: Optional[str] = None  # models: "base" | "rl" | None
    files: list[str] = Field(default_factory=list)
    samples: int
    correct: int  # by the oracle
    incorrect: int
    undecidable: int  # the oracle could not decide: not scored
    errors: int  # verifier calls that failed (counted apart, as in run)
    false_acceptance: Rate
    false_rejection: Rate


class Disagreement(BaseModel):
    kind: Literal["accepted_but_wrong", "rejected_but_right"]
    model: str
    task_id: str
    sample_index: int
    split: str
    text: str  # clipped
    reference: str
    score: Optional[float] = None
    source: str = ""  # file:line


class Comparison(BaseModel):
    """Two models' false acceptance on their own samples: higher first."""

    higher: str
    lower: str
    higher_role: Optional[str] = None
    lower_role: Optional[str] = None
    higher_fa: Rate
    lower_fa: Rate
    z: float  # two-proportion z statistic (pooled)
    p_value: float  # two-sided
    intervals_disjoint: bool  # the Wilson 95% intervals do not overlap
    significant: bool  # p < 0.05 or disjoint intervals
    message: str


class SamplesSection(BaseModel):
    verifier: str
    files: list[str]
    threshold: float
    samples: int
    labelled: int
    undecidable: int
    undecidable_reasons: dict[str, int] = Field(default_factory=dict)
    by_model: list[GroupSummary]
    by_split: list[GroupSummary]
    comparisons: list[Comparison] = Field(default_factory=list)
    blind_spot: list[str] = Field(default_factory=list)  # the comparisons that say BLIND_SPOT
    accepted_but_wrong: int
    rejected_but_right: int
    disagreements: list[Disagreement] = Field(default_factory=list)  # at most max_listed of each kind
    # tool-call samples only (samples/authority.py, docs/samples-authority.md): the tools and
    # privilege levels each model used and its calls outside the task's policy, over all its
    # samples (the oracle's undecidable ones too), per model and per model and split
    authority_by_model: list[AuthorityFigures] = Field(default_factory=list)
    authority_by_split: list[AuthorityFigures] = Field(default_factory=list)


@dataclass
class ScoreResult:
    reports: list[Report]
    sections: list[SamplesSection]
    prepared: Prepared  # the suite, domain and tasks; its candidates are not kept (samples/stream.py)
    results_path: Optional[Path] = None
    categories: set[str] = field(default_factory=set)  # of the labelled samples and of the undecidable ones

    def to_json(self) -> str:
        """A report set (``verifier-audit diff`` reads it) with the samples sections beside it."""
        payload = {
            "schema_version": self.reports[0].schema_version if self.reports else "",
            "tool_version": __version__,
            "reports": [r.model_dump(mode="json") for r in self.reports],
            "samples": [s.model_dump(mode="json") for s in self.sections],
        }
        return json.dumps(payload, ensure_ascii=True, indent=2) + "\n"


@dataclass
class _Model:
    key: str  # unique: the model name, or name@file when two files share one
    role: Optional[str]
    files: list[str] = field(default_factory=list)


def _two_proportion(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """(z, two-sided p) of the pooled two-proportion z-test; (0, 1) when it is undefined."""
    if not n1 or not n2:
        return 0.0, 1.0
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0, 1.0
    z = (k1 / n1 - k2 / n2) / se
    return z, math.erfc(abs(z) / math.sqrt(2))


def _rate(k: int, n: int) -> Rate:
    return Rate(k=k, n=n, rate=round(k / n, 6) if n else 0.0, ci=wilson(k, n))


def fmt_rate(r: Rate) -> str:
    return f"{100 * r.rate:.1f}% ({r.k}/{r.n}) [{100 * r.ci.low:.1f}%, {100 * r.ci.high:.1f}%]"


def compare(a: str, ra: Rate, role_a: Optional[str], b: str, rb: Rate, role_b: Optional[str]) -> Optional[Comparison]:
    """``a`` against ``b`` when ``a``'s false acceptance is the higher; None otherwise."""
    if not ra.n or not rb.n or ra.k * rb.n <= rb.k * ra.n:
        return None
    z, p = _two_proportion(ra.k, ra.n, rb.k, rb.n)
    disjoint = ra.ci.low > rb.ci.high
    significant = p < ALPHA or disjoint
    stats = f"two-proportion z = {z:.2f}, p = {p:.3g}; 95% intervals {'disjoint' if disjoint else 'overlap'}"
    if role_a == "rl" and role_b == "base":
        if significant:
            message = (f"{a} (RL) is falsely accepted on {fmt_rate(ra)} of its wrong samples vs {fmt_rate(rb)} for its "
                       f"base {b} ({stats}): {BLIND_SPOT}.")
        else:
            message = (f"{a} (RL) false acceptance {fmt_rate(ra)} vs {fmt_rate(rb)} for its base {b}: higher, but not "
                       f"significantly ({stats}).")
    elif role_a == "base" and role_b == "rl":
        message = (f"the base {a} is falsely accepted more than the RL policy {b}: {fmt_rate(ra)} vs {fmt_rate(rb)} "
                   f"({stats}{'' if significant else '; not significant'}).")
    elif significant:
        message = (f"{a} false acceptance {fmt_rate(ra)} is significantly higher than {b}'s {fmt_rate(rb)} ({stats}): "
                   f"if {a} was trained against this verifier, {BLIND_SPOT}.")
    else:
        message = f"{a} false acceptance {fmt_rate(ra)} vs {b}'s {fmt_rate(rb)}: not significantly different ({stats})."
    return Comparison(higher=a, lower=b, higher_role=role_a, lower_role=role_b, higher_fa=ra, lower_fa=rb,
                      z=round(z, 6), p_value=p, intervals_disjoint=disjoint, significant=significant, message=message)


def _pairs(models: list[_Model]) -> list[tuple[_Model, _Model]]:
    """The pairs to compare: every RL model with every base model when roles say which is
    which; otherwise every pair of models."""
    rl = [m for m in models if m.role == "rl"]
    base = [m for m in models if m.role == "base"]
    if rl and base:
        return [(r, b) for r in rl for b in base]
    return [(models[i], models[j]) for i in range(len(models)) for j in range(i + 1, len(models))]


def score_samples(
    files: Sequence,
    specs: list[VerifierSpec],
    options: AuditOptions,
    *,
    base: Sequence = (),
    suite: Optional[str] = None,
    suite_format: str = "jsonl",
    timeout: Optional[float] = None,
    max_listed: int = 50,
    log=None,
    block_size: Optional[int] = None,
    on_block=None,
) -> ScoreResult:
    """Label the samples of ``files`` (and ``base``) with the oracle and audit ``specs`` on
    them. ``options``: as for ``run`` (workers, timeouts, threshold, gate, results, resume);
    ``timeout`` None: the domain's default per-call timeout. The files are streamed in
    blocks of ``block_size`` samples (None: ``stream.DEFAULT_BLOCK``), in memory bounded by
    the block, not by the number of samples (samples/stream.py says how, and what differs
    past one block); ``on_block(phase, number)`` is called after each block."""
    from .stream import DEFAULT_BLOCK, score_stream

    return score_stream(files, specs, options, base=base, suite=suite, suite_format=suite_format, timeout=timeout,
                        max_listed=max_listed, log=log, block_size=DEFAULT_BLOCK if block_size is None else block_size,
                        on_block=on_block)


# --- rendering ------------------------------------------------------------------------------------

def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.encode("utf-8", "backslashreplace").decode("utf-8").split())
    flat = "".join(ch if ch.isprintable() else "\ufffd" for ch in flat)
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _group_rows(groups: list[GroupSummary]) -> list[list[str]]:
    def r(x: Rate) -> str:
        return f"{100 * x.rate:.1f}% ({x.k}/{x.n}) [{100 * x.ci.low:.1f}, {100 * x.ci.high:.1f}]" if x.n else "-"
    return [[g.name + (f" ({g.role})" if g.role else ""), str(g.samples), str(g.correct), str(g.incorrect),
             str(g.undecidable), str(g.errors), r(g.false_acceptance), r(g.false_rejection)] for g in groups]


_HEADER = ["", "samples", "correct", "incorrect", "undecidable", "errors", "FA [95% CI]", "FR [95% CI]"]


def render_section(section: SamplesSection, *, show: int = 10) -> str:
    def table(rows: list[list[str]], header: list[str]) -> list[str]:
        widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
        fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
        return [fmt.format(*header), fmt.format(*["-" * w for w in widths])] + [fmt.format(*r) for r in rows]

    out = [f"Real samples — {section.verifier}: {section.samples} samples, {section.labelled} labelled by the oracle"
           + (f", {section.undecidable} undecidable ({', '.join(f'{k} {v}' for k, v in section.undecidable_reasons.items())})"
              if section.undecidable else ""), ""]
    out += table(_group_rows(section.by_model), ["model"] + _HEADER[1:])
    out.append("")
    out += table(_group_rows(section.by_split), ["split"] + _HEADER[1:])
    out.append("")
    for c in section.comparisons:
        out.append(("BLIND SPOT: " if BLIND_SPOT in c.message else "") + c.message)
    if section.comparisons:
        out.append("")
    out += _authority_lines(section)
    for kind, total, title in (("accepted_but_wrong", section.accepted_but_wrong, "Accepted but wrong"),
                               ("rejected_but_right", section.rejected_but_right, "Rejected but right")):
        rows = [d for d in section.disagreements if d.kind == kind]
        if not total:
            out.append(f"{title}: none.")
            continue
        out.append(f"{title}: {total}" + (f" (first {min(show, len(rows))})" if total > show else ""))
        for d in rows[:show]:
            out.append(f"  {d.task_id} #{d.sample_index} [{d.model}, {d.split}] reference {_one_line(d.reference, 30)}"
                       f"  ({d.source})")
            out.append(f"      {_one_line(d.text, 100)}")
    return "\n".join(out)


def _authority_lines(section: SamplesSection) -> list[str]:
    from .authority import figures_line

    if not section.authority_by_model:
        return []
    out = ["Authority (tool calls; the task's policy: read < write < delete < admin; shares of readable samples, "
           "Wilson 95%)"]
    for f in section.authority_by_model:
        out.append(f"  {f.name}" + (f" ({f.role})" if f.role else "") + f": {figures_line(f)}")
    for f in section.authority_by_split:
        out.append(f"  {f.name} [{f.split}]: {figures_line(f)}")
    return out + [""]


def _authority_markdown(section: SamplesSection, cell) -> list[str]:
    from .authority import HIGHEST, pct, tools_text

    if not section.authority_by_model:
        return []
    out = ["", "**Authority** (tool calls; privilege from the task's policy, read < write < delete < admin; shares of "
               "readable samples; unparseable samples counted apart)", "",
           "| model | split | samples | readable | unparseable | " + " | ".join(f"highest {lv}" for lv in HIGHEST)
           + " | calls outside the policy [95% CI] | tools |",
           "|---|---|---|---|---|" + "---|" * len(HIGHEST) + "---|---|"]
    for f in [*section.authority_by_model, *section.authority_by_split]:
        out.append(f"| `{cell(f.name)}`" + (f" ({f.role})" if f.role else "") + f" | {f.split} | {f.samples} | "
                   f"{f.parsed} | {f.unparseable} | "
                   + " | ".join(pct(f.highest_share.get(lv, 0.0)) for lv in HIGHEST)
                   + f" | {pct(f.violation_rate)} ({f.violating}/{f.parsed}) [{pct(f.violation_ci.low)}, "
                     f"{pct(f.violation_ci.high)}] | {cell(tools_text(f), 200)} |")
    return out


def section_markdown(section: SamplesSection, *, show: int = 10) -> str:
    def cell(text: str, width: int = 80) -> str:
        return _one_line(text, width).replace("|", "\\|").replace("`", "'")

    def rows(groups: list[GroupSummary], what: str) -> list[str]:
        lines = [f"| {what} | samples | correct | incorrect | undecidable | errors | false acceptance | false rejection |",
                 "|---|---|---|---|---|---|---|---|"]
        for g, r in zip(groups, _group_rows(groups)):
            lines.append("| " + " | ".join([f"`{cell(g.name)}`" + (f" ({g.role})" if g.role else "")] + r[1:]) + " |")
        return lines

    out = ["", f"### Real samples: `{section.verifier}`", "",
           f"{section.samples} samples, {section.labelled} labelled by the oracle, {section.undecidable} undecidable.", ""]
    out += rows(section.by_model, "model") + [""] + rows(section.by_split, "split") + [""]
    for c in section.comparisons:
        out.append(f"- {'**blind spot**: ' if BLIND_SPOT in c.message else ''}{cell(c.message, 400)}")
    out += _authority_markdown(section, cell)
    for kind, total, title in (("accepted_but_wrong", section.accepted_but_wrong, "Accepted but wrong"),
                               ("rejected_but_right", section.rejected_but_right, "Rejected but right")):
        shown = [d for d in section.disagreements if d.kind == kind][:show]
        out += ["", f"**{title}**: {total}" + (f" (first {len(shown)})" if total > len(shown) else "")]
        if shown:
            out += ["", "| task | model | split | sample | reference | source |", "|---|---|---|---|---|---|"]
            out += [f"| `{cell(d.task_id, 40)}` | `{cell(d.model, 40)}` | {d.split} | {cell(d.text)} | "
                    f"{cell(d.reference, 30)} | {cell(d.source, 60)} |" for d in shown]
    return "\n".join(out) + "\n"
