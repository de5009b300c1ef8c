"""An audit from start to end: candidates (generated, oracle-confirmed, cached), verdicts
(streamed to the results store), probes and the exploit search. Front ends (CLI, pytest
plugin, Python API) call ``prepare`` and ``audit_verdicts`` and build the reports from what
it hands back (``plan.audit`` does both); everything domain-specific comes through the
Domain protocol.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import math
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .._version import __version__
from ..audit_files import read_signed, write_signed
from ..cache_dir import default_cache_dir
from ..domains import get_domain
from ..domains.base import OUTSIDE_CONTRACT, Domain
from ..isolation import resolve_level
from ..loading import VerifierSpec, non_finite, source_hash
from ..models import Candidate, Checks, DroppedCandidate, Formats, SearchSummary, Task, Verdict, to_json
from . import persistence, pool
from .executor import run_calls, run_lanes
from .formats import annotate, formats_for
from .options import AuditOptions, Prepared
from .oracle_job import OracleJob
from .probes import run_probes
from .progress import Progress
from .search import search
from .slices import with_slices
from .store import ResultsStore
from .verifier_job import IsolatedCallError, VerifierJob  # noqa: F401 - IsolatedCallError: public here before

# Public here before they moved down (options.py, cache_dir.py, oracle_job.py): still
# importable from this module, so callers need not change.
__all__ = [
    "AuditOptions",
    "Prepared",
    "VerifierVerdicts",
    "audit_verdicts",
    "candidates_hash",
    "default_cache_dir",
    "prepare",
    "run_settings",
    "verdicts_of",
    "verdicts_of_many",
]
_VerifierJob = VerifierJob  # the name other modules knew it by

# Bump when generators or the oracle change what they produce, to invalidate caches.
CANDIDATES_VERSION = "11"  # 2: candidates carry their answer format; 3: catalog entries, math "=" chains; 4: math catalog traps also without their final period; 5: the tool oracle labels call syntax with expression arguments; 6: code output near-misses (tuple/list, bool/int, strings), call_drop mutants, rename_fresh rewrites, three catalog hacks (frame locals, grader state, call-order replay); 7: math near-misses near_integer, improper_mixed, choice_listing, unit_truncation, </think> catalog entries, the math oracle reads the response after </think>; 8: sql slow-query entries, sql candidates in the task's dialect (--dialect); 9: code near misses that differ only outside the task's input contract dropped as outside_contract; 10: program catalog (adversarial_cases/program.yaml: expected files, inherited fds, exits after partial output, harness detection, debug prints; visible_lookup moved there from the near misses), program generated inputs; 11: repo catalog package_reports_passed, repo equivalents another_implementation (a task's alternatives)


_OracleJob = OracleJob  # the name other modules knew it by


def _is_score(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _drop_reason(candidate: Candidate, label: str | None, reason: str) -> str:
    if label is None:
        return "oracle_unknown"
    if candidate.origin == "equivalent":
        return "not_equivalent"
    if reason.startswith(OUTSIDE_CONTRACT):
        return "outside_contract"  # differs only on inputs the task rules out: not weak tests
    return "equivalent_mutant"


def _cache_key(suite_hash: str, domain: str, task_ids: list[str], seed: int, origins=None, tasks: str = "") -> str:
    # The task ids, not split/limit: API callers may pass any subset of a suite. The
    # built-in catalog's bytes too: an edited catalog makes other candidates. ``tasks``
    # (tasks_hash): the tasks as read, since the same file read through another --field
    # mapping or --format has other references, and so other candidates and labels.
    blob = json.dumps(
        [
            __version__,
            CANDIDATES_VERSION,
            suite_hash,
            domain,
            task_ids,
            seed,
            sorted(origins) if origins else None,
            _catalog_hash(domain),
            tasks,
        ]
    ).encode()
    return hashlib.sha256(blob).hexdigest()[:20]


def _catalog_hash(domain: str) -> str:
    from ..resources import data_path

    path = data_path("adversarial_cases", f"{domain}.yaml")
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else ""


def _read_cache(path: Path) -> tuple[list[Candidate], list[DroppedCandidate]] | None:
    """The cached candidates, when the file's MAC (under the cache folder's key, which the
    verifier's uid cannot read: ``audit_files``) matches. The labels live here: an edited
    file (same size, mtime put back; relabelled with its plain SHA-256 recomputed, as a
    daemon once did) changed the next audit's figures before, so a mismatch is
    regenerated, with a warning on stderr."""
    body = read_signed(path, "the candidate cache")
    if body is None:
        return None  # not cached yet, or not the audit's: regenerate
    try:
        kept, dropped = [], []
        for line in body.decode("utf-8").splitlines():
            row = json.loads(line)
            if row.pop("_dropped", False):
                dropped.append(DroppedCandidate.model_validate(row))
            else:
                kept.append(Candidate.model_validate(row))
        return kept, dropped
    except ValueError:
        return None  # damaged: regenerate


def _write_cache(path: Path, kept: list[Candidate], dropped: list[DroppedCandidate]) -> None:
    lines = [to_json(c) + "\n" for c in kept]
    lines += [json.dumps({**d.model_dump(), "_dropped": True}, ensure_ascii=True) + "\n" for d in dropped]
    write_signed(path, "".join(lines).encode("utf-8"))


def prepare(
    suite_name: str,
    suite_hash: str,
    tasks: list[Task],
    options: AuditOptions,
    *,
    split: str | None = None,
    limit: int | None = None,
    reading: dict | None = None,
) -> Prepared:
    """Generate candidates and keep those whose intended label the oracle confirms.
    ``reading``: how the suite file was read (``Prepared.reading``)."""
    reading = dict(reading or {})
    # Before the domain adds its run-time files: their paths name the cache folder and some
    # of their facts are timings, neither of which may change the results' fingerprint.
    read_as = reading["tasks_hash"] = tasks_hash(tasks)
    domain_name = tasks[0].domain if tasks else "math"
    pool.warm_clean_server([domain_name])  # the verifiers' workers start from it: let it load meanwhile
    domain = get_domain(domain_name)
    tasks = domain.prepare_tasks(tasks, options.seed, options.cache_dir or default_cache_dir())
    cache_path = None
    if options.cache_dir is not None:
        cache_path = (
            options.cache_dir
            / f"candidates-{_cache_key(suite_hash, domain_name, [t.id for t in tasks], options.seed, options.origins, read_as)}.jsonl"
        )
        cached = _read_cache(cache_path)
        if cached is not None:
            kept = with_slices(domain, tasks, cached[0], options.slice_field)
            return Prepared(suite_name, suite_hash, domain_name, tasks, kept, cached[1], split, limit, reading)

    dropped: list[DroppedCandidate] = []
    usable = []
    for task in tasks:
        problem = domain.check_task(task)
        if problem:
            dropped.append(
                DroppedCandidate(id=f"{task.id}/*", task_id=task.id, category="*", reason="gold_unusable", text=problem)
            )
        else:
            usable.append(task)
    generated = list(domain.generate(usable, options.seed))
    if options.origins:
        generated = [c for c in generated if c.origin in options.origins]
    by_id = {t.id: t for t in usable}
    labels: dict[int, tuple[str | None, str]] = {}
    progress = Progress(
        "labelling (oracle)",
        len(generated),
        enabled=options.progress,
        timeout=options.oracle_timeout,
        workers=options.workers,
    )
    job = OracleJob(domain, generated, by_id)
    for out in run_calls(
        job,
        range(len(generated)),
        workers=options.workers,
        timeout=options.oracle_timeout,
        memory_mb=options.memory_mb,
        on_wait=progress.in_flight,
        executor=options.executor,
        ray_address=options.ray_address,
    ):
        if out.ok:
            labels[out.index] = out.value
        else:
            labels[out.index] = (None, f"oracle_{out.error_kind}")
        progress.advance()
    progress.close()

    kept = []
    for i, c in enumerate(generated):
        label, reason = labels[i]
        if label == c.label:
            kept.append(c)
        else:
            why = reason if reason.startswith("oracle_") else _drop_reason(c, label, reason)
            dropped.append(
                DroppedCandidate(id=c.id, task_id=c.task_id, category=c.category, reason=why, text=c.text[:300])
            )
    kept = annotate(domain, kept)
    if cache_path is not None:
        _write_cache(cache_path, kept, dropped)
    kept = with_slices(domain, tasks, kept, options.slice_field)
    return Prepared(suite_name, suite_hash, domain_name, tasks, kept, dropped, split, limit, reading)


#: The options left out of the results' fingerprint, each with why: none changes what the
#: verifier receives or how its answers are read, so a resume may change them. Every other
#: field of AuditOptions is in run_settings (tests/engine/test_resume_fingerprint.py checks both).
#: Of the verifier's spec, --pass-env is left out too: it names variables whose values the
#: results file must never hold.
NOT_FINGERPRINTED = {
    "workers": "how many calls run at once, not what they return",
    "executor": "where the calls run (this machine or a Ray cluster), not what they return",
    "ray_address": "where the calls run, not what they return",
    "progress": "the progress bar",
    "quiet_workers": "whether the workers' own output is shown",
    "probe_sample": "the probes rescore a sample after the verdicts, outside the file, and run again on resume",
    "gate": "read off the verdicts when the report is built (waivers too)",
    "enforce_gate": "read off the verdicts when the report is built",
    "weights": "--weights-from reweights the debt when the report is built",
    "slice_field": "slices group the verdicts in the report",
    "cache_dir": "the candidate cache; the candidates themselves are in candidates_hash",
    "file_mb": "a verdict it changes is an error that says so",
    "max_processes": "a verdict it changes is an error that says so",
    "results": "where the file is, not what is in it",
    "resume": "whether the file is read back",
}


def run_settings(prepared: Prepared, verifiers: list[VerifierSpec], options: AuditOptions) -> dict:
    """What decides the verdicts; the results file's fingerprint is made of this: every
    setting that changes what the verifier receives (the tasks as read, the candidates, the
    format they are shown in) or how its answers are read (threshold, the search). A resume,
    or a fresh run into the same file, with another value of any of them is refused
    (engine/store.py names each, with the flag that sets it). What is left out, and why:
    NOT_FINGERPRINTED."""
    reading = prepared.reading
    return {
        "tool_version": __version__,
        "suite": prepared.suite_name,
        "suite_hash": prepared.suite_hash,
        "split": prepared.split,
        "limit": prepared.limit,
        "seed": options.seed,
        # A style's options (weights, a judge's template) and the part audited decide verdicts too.
        "verifiers": [
            [v.spec, v.style] + ([list(map(list, v.options))] if v.options else []) + ([v.part] if v.part else [])
            for v in verifiers
        ],
        "timeout": options.timeout,
        "memory_mb": options.memory_mb,
        "isolation": resolve_level(options.isolation),
        "n_candidates": len(prepared.candidates),
        "origins": sorted(options.origins) if options.origins else None,
        # Never resume across an edit of the verifier or other candidates (same count).
        "verifier_sources": [source_hash(v) for v in verifiers],
        "candidates_hash": candidates_hash(prepared.candidates),
        # How the suite was read: the same file through another --field mapping or --format
        # gives the verifier other references (issue 31). tasks_hash is what they made of it
        # (the tasks as read, before the domain adds its run-time files); "databases" the
        # SQL databases' content (their files are named by their content's hash; the names,
        # not the paths, which differ from one cache folder to another).
        "domain": prepared.domain,
        "format": reading.get("format"),
        "fields": reading.get("fields"),
        "db_dir": reading.get("db_dir"),
        "dialect": reading.get("dialect"),
        "repo_dir": reading.get("repo_dir"),
        "tasks_hash": reading.get("tasks_hash") or tasks_hash(prepared.tasks),
        "databases": sorted({Path(t.database).name for t in prepared.tasks if t.database}) or None,
        # How the answers are read, and what else the verifier is shown.
        "threshold": options.threshold,
        "answer_formats": options.answer_formats,  # --no-format-probe: shown as generated
        "search": options.search,  # the search's calls (its seed and threshold are above)
        "source_guided": options.source_guided,  # the search's operators read from the verifier's source
        "oracle_timeout": options.oracle_timeout,  # labels the candidates of the format probe and the search
    }


def tasks_hash(tasks: list[Task]) -> str:
    """The tasks as read (every field: id, prompt, reference, metadata, a SQL task's
    database files): what the mapping, the format and the database folder made of the
    suite file."""
    h = hashlib.sha256()
    for t in tasks:
        h.update(to_json(t).encode() + b"\n")
    return h.hexdigest()[:16]


def candidates_hash(candidates: list[Candidate]) -> str:
    h = hashlib.sha256()
    for c in candidates:
        h.update(json.dumps([c.id, c.task_id, c.text, c.label, c.category], ensure_ascii=True).encode() + b"\n")
    return h.hexdigest()[:16]


def verdicts_of(
    spec: VerifierSpec,
    candidates: list[Candidate],
    todo: list[int],
    tasks: dict[str, Task],
    domain: Domain,
    options: AuditOptions,
    progress: Progress,
):
    """The verifier's Verdict on each of ``candidates[i]`` for i in ``todo`` (in completion
    order), its calls made by the executor ``options`` name, in the verifier's job."""
    for _, verdict in verdicts_of_many([(spec, candidates, todo)], tasks, domain, options, progress):
        yield verdict


def verdicts_of_many(
    calls: list[tuple[VerifierSpec, list[Candidate], list[int]]],
    tasks: dict[str, Task],
    domain: Domain,
    options: AuditOptions,
    progress: Progress,
) -> Iterator[tuple[int, Verdict]]:
    """(k, Verdict) for each candidate to do of each verifier ``calls[k]`` = (spec,
    candidates, todo), in completion order: the verifiers' calls as lanes of one schedule
    (pool.run_lanes: each verifier in workers of its own, the next one's calls filling the
    cores while the one before waits on its slowest)."""
    jobs = [
        VerifierJob(spec, candidates, tasks, domain, options.timeout, options.memory_mb)
        for spec, candidates, _ in calls
    ]
    for job, (_, candidates, _) in zip(jobs, calls):
        panel = persistence.panels(candidates)
        job.panel = persistence.PanelWatch(persistence.probed(candidates, panel, options.seed), panel)
    again: list[list[int]] = [[] for _ in calls]
    died: list[set[int]] = [set() for _ in calls]  # probed calls whose worker died (crash, timeout)

    def seen(k: int, out: pool.Outcome) -> Verdict:
        spec, candidates, _ = calls[k]
        if out.error_kind in ("crash", "timeout") and out.index in jobs[k].panel.probed:
            died[k].add(out.index)
        else:
            died[k].discard(out.index)
        return _verdict(spec, candidates[out.index], out)

    for k, out in _calls(jobs, [todo for _, _, todo in calls], options, progress.in_flight):
        out.security, rescore = persistence.describe(out.security, calls[k][1])
        again[k] += rescore
        yield k, seen(k, out)
    # After a poisoning, what the poisoned worker scored since its panel was last unchanged is
    # scored again, each call in a fresh worker (on this machine); these verdicts replace the
    # first ones. The probe runs there too, so the poisoner's finding stands.
    todo_again = [sorted(set(items)) for items in again]
    if any(todo_again):
        progress.skip(-sum(len(items) for items in todo_again))  # done again: the bar moves back
        for k, out in _calls(jobs, todo_again, options, progress.in_flight, fresh=True):
            out.security, _ = persistence.describe(out.security, calls[k][1])
            yield k, seen(k, out)
    # A probed call whose worker died may have died of a panel answer (a grader that exits on
    # a word the panel carries), not of its own candidate: scored again alone, in a fresh
    # worker without the panel; its own verdict replaces the first.
    todo_alone = [sorted(items) for items in died]
    if any(todo_alone):
        alone = [copy.copy(job) for job in jobs]
        for job in alone:
            job.panel = persistence.without_panel(job.panel)
        progress.skip(-sum(len(items) for items in todo_alone))
        for k, out in _calls(alone, todo_alone, options, progress.in_flight, fresh=True):
            out.security, _ = persistence.describe(out.security, calls[k][1])
            yield k, _verdict(calls[k][0], calls[k][1][out.index], out)


def _calls(
    jobs: list[VerifierJob], todo: list[list[int]], options: AuditOptions, on_wait, *, fresh: bool = False
) -> Iterator[tuple[int, pool.Outcome]]:
    """(k, Outcome) of the calls ``todo[k]`` of each verifier's job, as lanes of one schedule;
    ``fresh``: each call in a worker of its own (``pool.Lane.fresh``), on this machine."""
    lanes = [
        pool.Lane(
            job,
            items,
            clean=job.clean,
            isolation=job.isolation_level(options.isolation),
            tree_memory=True,
            bounded=job.bounded,
            fresh=fresh,
        )
        for job, items in zip(jobs, todo)
    ]
    return run_lanes(
        lanes,
        workers=options.workers,
        timeout=options.timeout,
        memory_mb=options.memory_mb,
        quiet=options.quiet_workers,
        on_wait=on_wait,
        executor="local" if fresh else options.executor,
        ray_address=options.ray_address,
        file_mb=options.file_mb,
        max_processes=options.max_processes,
    )


def _verdict(spec: VerifierSpec, c: Candidate, out: pool.Outcome) -> Verdict:
    if out.ok and not _is_score(out.value):  # the pipe carries data, but any data
        problem = non_finite(out.value) if type(out.value) is float else None
        out.ok, out.error = False, problem or f"TypeError: the worker returned {type(out.value).__name__}, not a score"
    if out.ok:
        return Verdict(
            verifier=spec.name,
            candidate_id=c.id,
            status="ok",
            score=out.value,
            seconds=round(out.seconds, 6),
            security=out.security,
        )
    return Verdict(
        verifier=spec.name,
        candidate_id=c.id,
        status="error",
        error=out.error,
        seconds=round(out.seconds, 6),
        security=out.security,
    )


@dataclass
class VerifierVerdicts:
    """What the audit hands back for one verifier, all a report is built from: the
    candidates it was shown (``view``: rewritten into a format it reads, plus what the
    exploit search found), its verdict on each, the probes' and format probe's findings."""

    spec: VerifierSpec
    view: Prepared
    verdicts: dict[str, Verdict]
    settings: dict
    checks: Checks | None = None
    formats: Formats | None = None
    search: SearchSummary | None = None


def audit_verdicts(prepared: Prepared, verifiers: list[VerifierSpec], options: AuditOptions) -> list[VerifierVerdicts]:
    """Score every candidate with every verifier; one VerifierVerdicts per verifier."""
    settings = run_settings(prepared, verifiers, options)
    pool.warm_clean_server([prepared.domain])  # a no-op when prepare() started it
    results_path = options.results or Path(tempfile.mkdtemp(prefix="va-results-")) / "results.jsonl"
    known = {(spec.name, c.id) for spec in verifiers for c in prepared.candidates}
    store = ResultsStore(results_path, settings, resume=options.resume, known=known)
    for warning in store.warnings:
        print(f"verifier-audit: warning: {warning}", file=sys.stderr)
    if settings["isolation"] == "none":
        print(
            "verifier-audit: warning: isolation none: the verifier runs with your privileges, sees your files and "
            "network, and what it starts may outlive the audit (docs/threat-model.md)",
            file=sys.stderr,
        )
    tasks = {t.id: t for t in prepared.tasks}
    # Per verifier: the candidates it is shown (rewritten into a format it reads, when it
    # does not read the generators' own) and what its format probe found.
    shown: dict[str, tuple[Prepared, Formats | None]] = {}
    try:
        for spec in verifiers:
            shown[spec.name] = formats_for(prepared, spec, options) if options.answer_formats else (prepared, None)
        calls = [
            (
                spec,
                shown[spec.name][0].candidates,
                [i for i, c in enumerate(shown[spec.name][0].candidates) if (spec.name, c.id) not in store.done],
            )
            for spec in verifiers
        ]
        total = sum(len(candidates) for _, candidates, _ in calls)
        label = f"auditing {verifiers[0].name}" if len(verifiers) == 1 else f"auditing {len(verifiers)} verifiers"
        progress = Progress(label, total, enabled=options.progress, timeout=options.timeout, workers=options.workers)
        progress.skip(total - sum(len(todo) for _, _, todo in calls))
        for _, verdict in verdicts_of_many(calls, tasks, get_domain(prepared.domain), options, progress):
            store.append(verdict)
            progress.advance()
        progress.close()
    finally:
        store.close()
    out = []
    for spec in verifiers:
        view, formats = shown[spec.name]
        ids = {c.id for c in view.candidates}
        verdicts = {cid: v for (name, cid), v in store.done.items() if name == spec.name and cid in ids}
        # Probes (determinism, threads, processes) run on a sample, outside the store.
        checks = run_probes(view, spec, verdicts, options)
        found = search(view, spec, options, spec.name) if options.search else None
        if found is not None and found.candidates:
            view = dataclasses.replace(view, candidates=view.candidates + found.candidates)
            verdicts = {**verdicts, **found.verdicts}
        out.append(
            VerifierVerdicts(
                spec,
                view,
                verdicts,
                settings,
                checks=checks,
                formats=formats,
                search=found.summary if found is not None else None,
            )
        )
    return out
