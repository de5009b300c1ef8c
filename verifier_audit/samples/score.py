"""Score real model samples: false acceptance and false rejection of a verifier on what a
model actually wrote.

    verifier-audit score rl.jsonl --base base.jsonl --verifier rewards.py:accuracy

Each sample is labelled by the domain's oracle (``labels.label_texts``, in the worker pool;
the samples it cannot decide are counted apart) and becomes a ``Candidate`` of origin
"sampled" whose label is the oracle's, in the category
``<domain>.sampled.<model>.<split>.<correct|incorrect>``. Those candidates go through the
engine's own ``audit`` (sandboxing, timeouts, results store, probes, security findings,
reports), so the Report is the one ``run`` writes, with a category per model, split and
truth. ``SamplesSection`` adds what is particular to samples: the rates per model and per
split, the disagreeing samples, and the comparison of models (an RL policy against its base:
"the policy may have learned the verifier's blind spot").
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Optional, Sequence

from pydantic import BaseModel, Field

from .. import __version__
from ..domains import get_domain
from ..engine.audit import (
    AuditOptions,
    Prepared,
    audit,
    default_cache_dir,
    run_settings,
)
from ..engine.slices import with_slices
from ..engine.store import fingerprint, read_verified
from ..errors import InputError
from ..loading import VerifierSpec
from ..metrics import _clip, accepted, wilson
from ..models import Candidate, DroppedCandidate, Interval, Report, Verdict
from ..suites import load_suite
from .authority import AuthorityFigures
from .importers import sanitize
from .labels import label_texts, prepare_for_labels
from .records import Sample, read_samples

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
    prepared: Prepared
    results_path: Optional[Path] = None

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
class _File:
    path: Path
    role: Optional[str]
    samples: list[Sample]
    lines: list[int]  # line number of each sample
    suite: str
    suite_hash: str
    digest: str


@dataclass
class _Model:
    key: str  # unique: the model name, or name@file when two files share one
    role: Optional[str]
    files: list[str] = field(default_factory=list)


def _line_numbers(path: Path) -> list[int]:
    out = []
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if lineno > 1 and raw.strip():
                out.append(lineno)
    return out


def load_files(rl_or_any: Sequence, base: Sequence = ()) -> list[_File]:
    """Read and validate every samples file. Roles: ``base`` files are "base" and the others
    "rl" when any ``base`` is given; otherwise each file's manifest ``role`` (may be None)."""
    base_paths = {Path(b).resolve() for b in base}
    rest = [p for p in rl_or_any if Path(p).resolve() not in base_paths]  # a --base file listed again is base
    if not base and not rest:
        raise InputError("no samples file given")
    files = []
    for path, forced in [(Path(p), "base") for p in base] + [(Path(p), "rl" if base else None) for p in rest]:
        data = read_samples(path)
        if not data.samples:
            raise InputError(f"{path}: no samples in it")
        files.append(_File(path=path, role=forced or data.manifest.role, samples=data.samples,
                           lines=_line_numbers(path), suite=data.manifest.suite, suite_hash=data.manifest.suite_hash,
                           digest=hashlib.sha256(path.read_bytes()).hexdigest()))
    seen: dict[Path, int] = {}
    for f in files:
        key = f.path.resolve()
        if key in seen:
            raise InputError(f"{f.path}: given twice")
        seen[key] = 1
    return files


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
) -> ScoreResult:
    """Label the samples of ``files`` (and ``base``) with the oracle and audit ``specs`` on
    them. ``options``: as for ``run`` (workers, timeouts, threshold, gate, results, resume);
    ``timeout`` None: the domain's default per-call timeout."""
    say = log or (lambda message: None)
    loaded = load_files(files, base)
    suites = sorted({f.suite for f in loaded})
    if suite is None:
        if len(suites) > 1:
            raise InputError("the samples files name different suites (" + ", ".join(
                f"{f.path}: {f.suite!r}" for f in loaded) + "); score them separately or pass --suite")
        suite = suites[0]
    the_suite = load_suite(suite, fmt=suite_format)
    for f in loaded:
        if f.suite_hash and f.suite_hash != the_suite.content_hash:
            say(f"warning: {f.path} was made against another version of suite {suite!r} "
                f"(hash {f.suite_hash}, now {the_suite.content_hash})")
    by_id = {t.id: t for t in the_suite.tasks}
    unknown = [(f, i) for f in loaded for i, s in enumerate(f.samples) if s.task_id not in by_id]
    if unknown:
        shown = "; ".join(f"{f.path}:{f.lines[i]}: {f.samples[i].task_id!r}" for f, i in unknown[:5])
        raise InputError(f"{len(unknown)} samples are of tasks not in suite {the_suite.name!r}: {shown}"
                         f"{'; ...' if len(unknown) > 5 else ''}. Pass the suite they were made on with --suite")

    # Model names: a name two files share gets the file's stem, so the two stay apart.
    name_files: dict[str, set[Path]] = {}
    for f in loaded:
        for s in f.samples:
            name_files.setdefault(s.model, set()).add(f.path)
    models: dict[str, _Model] = {}

    def model_key(f: _File, s: Sample) -> str:
        key = s.model if len(name_files[s.model]) == 1 else f"{s.model}@{f.path.stem}"
        if key not in models:
            models[key] = _Model(key=key, role=f.role)
        if str(f.path) not in models[key].files:
            models[key].files.append(str(f.path))
        return key

    position = {t: i for i, t in enumerate(by_id)}
    used_ids = sorted({s.task_id for f in loaded for s in f.samples}, key=position.__getitem__)
    tasks = prepare_for_labels([by_id[t] for t in used_ids], options.seed)
    domains = {t.domain for t in tasks}
    if len(domains) > 1:
        raise InputError(f"suite {the_suite.name!r} mixes domains ({', '.join(sorted(domains))}); score one at a time")
    domain = tasks[0].domain
    task_map = {t.id: t for t in tasks}

    # The oracle labels each distinct (task, text) once.
    rows = [(fi, f, i, s, model_key(f, s)) for fi, f in enumerate(loaded) for i, s in enumerate(f.samples)]
    distinct = sorted({(s.task_id, s.text) for _, _, _, s, _ in rows})
    say(f"labelling {len(rows)} samples ({len(distinct)} distinct) with the {domain} oracle")
    labels = dict(zip(distinct, label_texts(distinct, task_map, workers=options.workers,
                                            timeout=options.oracle_timeout, memory_mb=options.memory_mb)))

    candidates: list[Candidate] = []
    dropped: list[DroppedCandidate] = []
    info: dict[str, tuple[str, Sample, str]] = {}  # candidate id -> (model, sample, file:line)
    undecided: Counter = Counter()
    undecided_by: dict[str, Counter] = {"model": Counter(), "split": Counter()}
    for fi, f, i, s, key in rows:
        cid = f"{fi}:{s.task_id}#{s.sample_index}"
        split = task_map[s.task_id].split
        label, reason = labels[(s.task_id, s.text)]
        where = s.source or f"{f.path}:{f.lines[i]}"
        if label is None:
            why = reason if reason.startswith("oracle_") else "oracle_unknown"
            undecided[why] += 1
            undecided_by["model"][key] += 1
            undecided_by["split"][split] += 1
            dropped.append(DroppedCandidate(id=cid, task_id=s.task_id, category=f"{domain}.sampled", reason=why,
                                            text=s.text[:300]))
            continue
        candidates.append(Candidate(
            id=cid, task_id=s.task_id, text=s.text, origin="sampled",
            category=f"{domain}.sampled.{sanitize(key)}.{sanitize(split)}.{label}",
            label=label, label_source="oracle", note=f"{key} sample #{s.sample_index} ({where})",
        ))
        info[cid] = (key, s, where)
    if not candidates:
        raise InputError(f"the oracle could not decide any of the {len(rows)} samples "
                         f"({', '.join(f'{k} {v}' for k, v in sorted(undecided.items()))}); nothing to score")

    digest = hashlib.sha256("\0".join([the_suite.content_hash] + [f.digest for f in loaded]).encode()).hexdigest()[:16]
    candidates = with_slices(get_domain(domain), tasks, candidates, options.slice_field)
    prepared = Prepared(the_suite.name, digest, domain, tasks, candidates, dropped)
    options.timeout = timeout or getattr(get_domain(domain), "default_timeout", 10.0)
    if options.results is None:
        options.results = default_cache_dir() / f"results-samples-{fingerprint(run_settings(prepared, specs, options))}.jsonl"
    reports = audit(prepared, specs, options)
    verdicts = _read_verdicts(options.results)

    by_model, by_split = _authority(rows, task_map, models)
    sections = []
    for spec, report in zip(specs, reports):
        mine = {cid: v for (name, cid), v in verdicts.items() if name == spec.name}
        section = _section(spec, report, prepared, info, mine, models, undecided, undecided_by, loaded,
                           options.threshold, len(rows), max_listed)
        section.authority_by_model, section.authority_by_split = by_model, by_split
        sections.append(section)
    return ScoreResult(reports=reports, sections=sections, prepared=prepared, results_path=options.results)


def _authority(rows, task_map: dict, models: dict[str, _Model]) -> tuple[list[AuthorityFigures], list[AuthorityFigures]]:
    """The authority figures of the samples of tool tasks (empty for other domains): from
    the texts and the tasks' policies alone, so the oracle's undecidable samples count too."""
    from . import authority as A

    tool_ids = {t for t, task in task_map.items() if A.is_tool_task(task)}
    if not tool_ids:
        return [], []
    from ..domains.tool.policy import task_policy

    policies = {t: task_policy(task_map[t]) for t in tool_ids}
    memo: dict[tuple[str, str], A.SampleAuthority] = {}
    out = []
    for _, _, _, s, key in rows:
        if s.task_id not in tool_ids:
            continue
        pair = (s.task_id, s.text)
        if pair not in memo:
            memo[pair] = A.sample_authority(task_map[s.task_id], s.text, policies[s.task_id])
        out.append((key, task_map[s.task_id].split, models[key].role, s.task_id, memo[pair]))
    return A.grouped_figures(out)


def _read_verdicts(path: Path) -> dict[tuple[str, str], Verdict]:
    """The verdicts of the results store, those whose signature holds (engine/store.py)."""
    return read_verified(path)


def _section(spec: VerifierSpec, report: Report, prepared: Prepared, info, verdicts: dict[str, Verdict],
             models: dict[str, _Model], undecided: Counter, undecided_by: dict[str, Counter], loaded: list[_File],
             threshold: float, total: int, max_listed: int) -> SamplesSection:
    tasks = {t.id: t for t in prepared.tasks}
    # per group: [correct, incorrect, errors, false acceptances, incorrect judged, false rejections, correct judged, samples]
    groups: dict[str, dict[str, list[int]]] = {"model": {k: [0] * 8 for k in models},
                                               "split": {k: [0] * 8 for k in undecided_by["split"]}}
    wrong_accepted: list[Disagreement] = []
    right_rejected: list[Disagreement] = []
    for c in prepared.candidates:
        key, s, where = info[c.id]
        split = tasks[c.task_id].split
        v = verdicts.get(c.id)
        for kind, name in (("model", key), ("split", split)):
            g = groups[kind].setdefault(name, [0] * 8)
            g[7] += 1
            g[0 if c.label == "correct" else 1] += 1
            if v is None or v.status != "ok":
                g[2] += 1
                continue
            ok = accepted(v.score, threshold)
            if c.label == "incorrect":
                g[4] += 1
                g[3] += bool(ok)
            else:
                g[6] += 1
                g[5] += not ok
        if v is None or v.status != "ok":
            continue
        ok = accepted(v.score, threshold)
        if ok == (c.label == "incorrect"):
            d = Disagreement(kind="accepted_but_wrong" if ok else "rejected_but_right", model=key, task_id=c.task_id,
                             sample_index=s.sample_index, split=split, text=_clip(c.text, 300),
                             reference=_clip(tasks[c.task_id].reference, 120), score=v.score, source=where)
            (wrong_accepted if ok else right_rejected).append(d)

    def summaries(kind: str) -> list[GroupSummary]:
        out = []
        for name, g in groups[kind].items():
            m = models.get(name) if kind == "model" else None
            out.append(GroupSummary(
                name=name, role=m.role if m else None, files=list(m.files) if m else [],
                samples=g[7] + undecided_by[kind][name], correct=g[0], incorrect=g[1],
                undecidable=undecided_by[kind][name], errors=g[2],
                false_acceptance=_rate(g[3], g[4]), false_rejection=_rate(g[5], g[6])))
        return out

    by_model = summaries("model")
    order = {"train": 0, "heldout": 1, "shifted": 2}
    by_split = sorted(summaries("split"), key=lambda g: (order.get(g.name, 9), g.name))
    rates = {g.name: g.false_acceptance for g in by_model}
    comparisons = []
    for a, b in _pairs(list(models.values())):
        for hi, lo in ((a, b), (b, a)):
            c = compare(hi.key, rates[hi.key], hi.role, lo.key, rates[lo.key], lo.role)
            if c is not None:
                comparisons.append(c)
    return SamplesSection(
        verifier=spec.spec, files=[str(f.path) for f in loaded], threshold=threshold, samples=total,
        labelled=len(prepared.candidates), undecidable=sum(undecided.values()),
        undecidable_reasons=dict(sorted(undecided.items())), by_model=by_model, by_split=by_split,
        comparisons=comparisons, blind_spot=[c.message for c in comparisons if BLIND_SPOT in c.message],
        accepted_but_wrong=len(wrong_accepted), rejected_but_right=len(right_rejected),
        disagreements=wrong_accepted[:max_listed] + right_rejected[:max_listed],
    )


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
