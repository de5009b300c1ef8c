"""The format probe: which answer formats does the verifier read, and which candidates it is
shown in (``domains/formats.py`` says what a format is).

1. **Probe.** The references of a small deterministic sample of tasks (``PROBE_TASKS`` per
   format, among the tasks whose reference the format can write) are written as the
   generators write a correct answer, rewritten into every format, and scored by the
   verifier through the engine's pool: the audit's timeouts, memory limit and sandbox, so a
   hostile verifier is contained here as in the audit. An exception counts as "not
   accepted" (a grader that raises on ``\\boxed{}`` does not read it); the probe stops at the
   first timeout or crash (``probes.MAX_FAILURES``), and what it did not finish is unknown.
   A format is read when the verifier accepts the reference on more than half of its sample.
2. **Choice.** When the verifier reads the canonical format, or that is unknown, nothing
   changes: the candidates are those generated, byte for byte. When it does not but reads
   another, the audit is done in the first one it reads (the domain's order).
3. **Rewrite.** On the tasks whose reference that format can write, every candidate is
   rewritten into it (same seed, same candidates, new texts; the id gains ``@format``) and
   labelled by the oracle again: one whose label the oracle does not confirm is dropped and
   counted. A candidate that cannot be written in the format is shown as written when it is
   already in a format the verifier reads or is a wrong answer (a hostile output is still
   one to reject), and left out when it is a right answer (refusing it would measure the
   format, not the verifier). Candidates of tasks out of scope are left out. The oracle's
   labels of rewritten candidates are cached like the candidates.

Reports carry what was found (``Report.formats``): per format the references accepted,
the formats read in one line ("reads only: `#### n`"), and how many candidates were
rewritten, kept, left out and dropped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from ..audit_files import read_signed, write_signed
from ..domains import get_domain
from ..domains.formats import AnswerFormat
from ..domains.kit import rng_for
from ..loading import VerifierSpec
from ..metrics import accepted
from ..models import Candidate, FormatProbe, Formats, Task
from . import pool
from .oracle_job import OracleJob
from .probes import _is_failure
from .probes import _run as run_until_failure

if TYPE_CHECKING:
    from .options import AuditOptions, Prepared

PROBE_TASKS = 12
# Bump when the formats' rewrites change what they produce, to invalidate cached labels.
FORMATS_VERSION = "1"
UNSTATED = "unstated"  # the count of candidates whose format the domain did not name


def supports_formats(domain) -> bool:
    return bool(domain.answer_formats())


def annotate(domain, candidates: list[Candidate]) -> list[Candidate]:
    """The candidates with the format each is written in (the domain's ``format_of``)."""
    if not supports_formats(domain):
        return candidates
    return [c.model_copy(update={"format": domain.format_of(c.text)}) for c in candidates]


def formats_for(prepared: Prepared, spec: VerifierSpec, options: AuditOptions) -> tuple[Prepared, Formats | None]:
    """The candidates to show this verifier (``prepared`` itself when nothing changes) and
    what the probe found; (prepared, None) for a domain without formats."""
    domain = get_domain(prepared.domain)
    if not supports_formats(domain) or not prepared.candidates:
        return prepared, None
    formats: list[AnswerFormat] = list(domain.answer_formats())
    probes, stopped = probe(prepared, spec, options, domain, formats)
    result = Formats(
        canonical=formats[0].name, probes=probes, read=[p.name for p in probes if p.read], stopped_early=stopped
    )
    target = choose(probes)
    view = prepared
    if target is not None:
        fmt = next(f for f in formats if f.name == target)
        view, counts = rewrite_candidates(prepared, fmt, set(result.read), options, domain)
        result = result.model_copy(update={"audited_in": target, **counts})
    result.summary = summary(result)
    result.candidates = dict(sorted(Counter(c.format or UNSTATED for c in view.candidates).items()))
    return view, result


# ----------------------------------------------------------------------------- the probe


def _probe_tasks(prepared: Prepared, seed: int) -> list[Task]:
    """Tasks that have candidates, in a seeded order (the same for the same seed and tasks)."""
    used = {c.task_id for c in prepared.candidates}
    tasks = sorted((t for t in prepared.tasks if t.id in used), key=lambda t: t.id)
    rng_for(seed, "format_probe").shuffle(tasks)
    return tasks


def probe_candidates(prepared: Prepared, seed: int, domain, formats: list[AnswerFormat]) -> list[Candidate]:
    """Each format's references: up to PROBE_TASKS tasks whose reference it can write. The
    canonical format's come first, so a verifier that hangs costs one timeout, not twelve."""
    tasks = _probe_tasks(prepared, seed)
    written = {t.id: domain.reference_completion(t, rng_for(seed, t.id, "format_probe")) for t in tasks}
    out = []
    for fmt in formats:
        made = 0
        for t in tasks:
            if made >= PROBE_TASKS:
                break
            text = fmt.rewrite(written[t.id])
            if text is None:
                continue
            out.append(
                Candidate(
                    id=f"format-probe/{fmt.name}/{t.id}",
                    task_id=t.id,
                    text=text,
                    origin="equivalent",
                    category=f"format_probe.{fmt.name}",
                    label="correct",
                    label_source="reference",
                    format=fmt.name,
                )
            )
            made += 1
    return out


def probe(
    prepared: Prepared, spec: VerifierSpec, options: AuditOptions, domain, formats: list[AnswerFormat]
) -> tuple[list[FormatProbe], bool]:
    """Per format, the references the verifier accepted; and whether the probe stopped early."""
    from .verifier_job import VerifierJob  # the audit's calling machinery (views, sandbox, guard)

    shown = probe_candidates(prepared, options.seed, domain, formats)
    job = VerifierJob(spec, shown, {t.id: t for t in prepared.tasks}, domain, options.timeout, options.memory_mb)
    outcomes, stopped = run_until_failure(job, list(range(len(shown))), options, options.timeout)
    tally: dict[str, Counter] = {f.name: Counter() for f in formats}
    for i, c in enumerate(shown):
        assert c.format is not None  # probe_candidates names each one's format
        n = tally[c.format]
        n["planned"] += 1
        out = outcomes.get(i)
        if out is None:
            continue
        if out.ok:
            n["sampled"] += 1
            n["accepted"] += bool(accepted(float(out.value), options.threshold))
        elif not _is_failure(out.error or ""):
            n["sampled"] += 1  # raising on a format is not reading it
            n["errors"] += 1
        else:
            n["errors"] += 1  # a timeout or crash tells nothing about the format
    probes = []
    for f in formats:
        n = tally[f.name]
        complete = n["sampled"] == n["planned"] and n["sampled"] > 0
        probes.append(
            FormatProbe(
                name=f.name,
                shows=f.shows,
                sampled=n["sampled"],
                accepted=n["accepted"],
                errors=n["errors"],
                read=2 * n["accepted"] > n["sampled"] if complete else None,
            )
        )
    return probes, stopped


def choose(probes: list[FormatProbe]) -> str | None:
    """The format to rewrite the candidates into; None to show them as generated (the
    verifier reads the canonical format, the first probe, or that is unknown)."""
    if not probes or probes[0].read is not False:
        return None
    return next((p.name for p in probes[1:] if p.read), None)


def _unknown_why(result: Formats) -> str:
    """How many formats the probe could not decide, and why, inline (issue 31: "(12 unknown)"
    said neither): it stopped at a timeout or crash, no reference could be written in them,
    or some of their probes timed out or crashed."""
    unknown = [p for p in result.probes if p.read is None]
    if result.stopped_early:
        return f"{len(unknown)} unknown: the probe stopped at a timeout or crash"
    unwritten = sum(1 for p in unknown if p.sampled == 0 and p.errors == 0)
    failed = len(unknown) - unwritten
    if not failed:
        return f"{unwritten} unknown: no reference of the suite can be written in them"
    if not unwritten:
        return f"{failed} unknown: a probe of theirs timed out or crashed"
    return (
        f"{len(unknown)} unknown: {unwritten} no reference of the suite can be written in, "
        f"{failed} with a probe that timed out or crashed"
    )


def summary(result: Formats) -> str:
    """One line for the reports: which formats the verifier reads."""
    probed = [p for p in result.probes if p.read is not None]
    read = [p for p in result.probes if p.read]
    unknown = "" if len(probed) == len(result.probes) else f" ({_unknown_why(result)})"
    if not probed:
        return "formats read: unknown" + unknown
    if not read and all(p.errors >= p.sampled for p in probed):
        # Every call raised: that says nothing about the formats it reads, and "rejected" would
        # read as a verdict on the answers; the errors are the finding (the Errors line).
        return "formats read: unknown: every call of the probe raised an error (see Errors)" + unknown
    if not read:
        if len(probed) == len(result.probes):
            return "reads no known format: every answer is rejected"
        return "reads none of the formats probed" + unknown
    shown = ", ".join(f"`{p.shows}`" for p in read)
    if len(read) == len(result.probes):
        line = f"reads every format probed ({len(read)})"
    elif read[0].name == result.canonical:
        line = f"reads: {shown}" + unknown
    else:
        line = f"reads only: {shown}" + unknown
    if result.audited_in:
        audited = next(p.shows for p in result.probes if p.name == result.audited_in)
        line += f"; audited in `{audited}`"
    return line


# --------------------------------------------------------------------------- the rewrite


def tasks_in_scope(prepared: Prepared, fmt: AnswerFormat, options: AuditOptions, domain) -> set[str]:
    """The tasks with candidates whose reference ``fmt`` can write (the rewrite's scope)."""
    return {
        t.id
        for t in _probe_tasks(prepared, options.seed)
        if fmt.rewrite(domain.reference_completion(t, rng_for(options.seed, t.id, "format_probe"))) is not None
    }


def rewrite_candidates(
    prepared: Prepared, fmt: AnswerFormat, read: set[str], options: AuditOptions, domain
) -> tuple[Prepared, dict]:
    """The candidates as shown in ``fmt`` (see the module's step 3) and the counts."""
    tasks = {t.id: t for t in prepared.tasks}
    in_scope = tasks_in_scope(prepared, fmt, options, domain)
    shown: list[Candidate] = []
    to_label: list[Candidate] = []
    kept = left_out = 0
    for c in prepared.candidates:
        if c.task_id not in in_scope:
            left_out += 1
            continue
        text = fmt.rewrite(c.text)
        if text is not None:
            new = c.model_copy(
                update={
                    "id": f"{c.id}@{fmt.name}",
                    "text": text,
                    "format": fmt.name,
                    "label_source": f"{c.label_source}+{fmt.name}",
                }
            )
            to_label.append(new)
            shown.append(new)
        elif c.format in read or c.label == "incorrect":
            kept += 1
            shown.append(c)
        else:
            left_out += 1
    labels = _oracle_labels(to_label, tasks, options, domain)
    relabelled: Counter = Counter()
    confirmed = []
    for c in shown:
        if c.id in labels:
            label, reason = labels[c.id]
            if label != c.label:
                relabelled[
                    "oracle_unknown" if label is None else reason if reason.startswith("oracle_") else "label_changed"
                ] += 1
                continue
        confirmed.append(c)
    counts = {
        "tasks_in_scope": len(in_scope),
        "tasks_total": len({c.task_id for c in prepared.candidates}),
        "rewritten": len(to_label) - sum(relabelled.values()),
        "kept": kept,
        "left_out": left_out,
        "relabelled": dict(sorted(relabelled.items())),
    }
    return dataclasses.replace(prepared, candidates=confirmed), counts


def _oracle_labels(
    candidates: list[Candidate], tasks: dict[str, Task], options: AuditOptions, domain
) -> dict[str, tuple[str | None, str]]:
    """id -> (label, reason) from the domain's oracle, in the pool, cached by content."""
    if not candidates:
        return {}
    path = None
    if options.cache_dir is not None:
        path = Path(options.cache_dir) / f"format-labels-{_labels_key(candidates, tasks)}.json"
        body = read_signed(path, "the answer-format label cache")  # labels: signed as the candidate cache
        try:
            if body is not None:
                return {k: (v[0], v[1]) for k, v in json.loads(body).items()}
        except (ValueError, TypeError, IndexError, AttributeError):
            pass  # missing or damaged: label again
    labels: dict[str, tuple[str | None, str]] = {}
    job = OracleJob(domain, candidates, tasks)
    for out in pool.run(
        job,
        range(len(candidates)),
        workers=options.workers,
        timeout=options.oracle_timeout,
        memory_mb=options.memory_mb,
    ):
        labels[candidates[out.index].id] = out.value if out.ok else (None, f"oracle_{out.error_kind}")
    if path is not None:
        write_signed(
            path, json.dumps({k: list(v) for k, v in sorted(labels.items())}, ensure_ascii=True).encode() + b"\n"
        )
    return labels


def _labels_key(candidates: list[Candidate], tasks: dict[str, Task]) -> str:
    digest = hashlib.sha256(FORMATS_VERSION.encode())
    for c in candidates:
        task = tasks[c.task_id]
        for part in (c.id, c.text, c.label, task.reference, json.dumps(task.metadata, sort_keys=True, default=str)):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\x1f")
    return digest.hexdigest()[:20]
