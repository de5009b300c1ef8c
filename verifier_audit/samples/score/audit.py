"""Pass 3 of ``score``: the spilled candidates audited block by block by each verifier
(results file, resume index, format view, tallies of the Report and of the samples
section, probe pool), then the probes, the search and the reports."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from ...domains import get_domain
from ...engine import pool
from ...engine.audit import AuditOptions, Prepared, default_cache_dir, run_settings, verdicts_of_many
from ...engine.probes import run_probes
from ...engine.progress import Progress
from ...engine.search import search
from ...engine.slices import task_slices
from ...engine.store import ResultsStore, ResumeIndex, fingerprint
from ...loading import VerifierSpec
from ...models import Candidate, Task, Verdict
from ...report.tally import ReportTally
from .files import FileScan
from .label import Labelled, OnBlock, spilled_blocks
from .probe_pool import ProbePool
from .section import ScoreResult
from .shown import how_shown
from .tally import SectionTally

PROBE_DEFAULT = 24  # AuditOptions.probe_sample's default


class _Known:
    """The (verifier, candidate id) pairs of this run, told from their shape (the run's
    verifiers, files and tasks with candidates) without a set of every id."""

    def __init__(self, names: set[str], files: int, tasks: set[str]):
        self.names, self.files, self.tasks = names, files, tasks

    def __contains__(self, key) -> bool:
        name, cid = key
        fi, colon, rest = cid.partition(":")
        task_id, hash_, index = rest.rpartition("#")
        return (
            name in self.names
            and colon == ":"
            and fi.isdigit()
            and int(fi) < self.files
            and hash_ == "#"
            and index.isdigit()
            and task_id in self.tasks
        )


def audit_blocks(
    the_suite,
    scans: list[FileScan],
    tasks: list[Task],
    domain_name: str,
    labelled: Labelled,
    specs: list[VerifierSpec],
    options: AuditOptions,
    timeout: float | None,
    max_listed: int,
    block_size: int,
    on_block: OnBlock | None,
    work: Path,
) -> ScoreResult:
    digest = hashlib.sha256("\0".join([the_suite.content_hash] + [f.digest for f in scans]).encode()).hexdigest()[:16]
    domain = get_domain(domain_name)
    task_map = {t.id: t for t in tasks}
    # ``Prepared`` without its candidates: they come block by block
    stub = Prepared(the_suite.name, digest, domain_name, tasks, [], [])
    options.timeout = timeout or domain.default_timeout
    settings = {
        **run_settings(stub, specs, options),
        "n_candidates": labelled.candidates,
        "candidates_hash": labelled.candidates_hash,
    }
    if options.results is None:
        options.results = default_cache_dir() / f"results-samples-{fingerprint(settings)}.jsonl"
    dropped = dict(sorted(labelled.undecided.items()))

    pool.warm_clean_server([domain_name])
    index = ResumeIndex(work) if options.resume else None
    try:
        store = ResultsStore(
            options.results,
            settings,
            resume=options.resume,
            known=_Known({s.name for s in specs}, len(scans), labelled.tasks),
            done=index,
            remember=False,
        )
    except BaseException:
        if index is not None:
            index.close()
        raise
    for warning in store.warnings:
        print(f"verifier-audit: warning: {warning}", file=sys.stderr)
    if settings["isolation"] == "none":
        print(
            "verifier-audit: warning: isolation none: the verifier runs with your privileges, sees your files and "
            "network, and what it starts may outlive the audit (docs/threat-model.md)",
            file=sys.stderr,
        )
    # The tasks that have candidates, one stand-in candidate each: all the format probe reads.
    used = [t for t in tasks if t.id in labelled.tasks]
    probe_stub = Prepared(
        the_suite.name,
        digest,
        domain_name,
        tasks,
        [
            Candidate(
                id=f"stub/{t.id}",
                task_id=t.id,
                text="",
                origin="sampled",
                category=f"{domain_name}.sampled",
                label="correct",
            )
            for t in used
        ],
        [],
    )
    models = labelled.models
    tallies = {s.name: ReportTally(task_map, options.threshold) for s in specs}
    sections = {
        s.name: SectionTally(models, labelled.undecided_by["split"], task_map, options.threshold, max_listed)
        for s in specs
    }
    # the search, when asked for, starts from the probes' pool: a sample of each category at least
    keep = max(options.probe_sample, PROBE_DEFAULT if options.search else 0)
    pools = {s.name: ProbePool(block_size, keep, options.seed) for s in specs}
    slices_of = {t.id: task_slices(domain, t, options.slice_field) for t in tasks}
    label = f"auditing {specs[0].name}" if len(specs) == 1 else f"auditing {len(specs)} verifiers"
    try:
        shown = {s.name: how_shown(probe_stub, s, options, domain) for s in specs}
        progress = Progress(
            label,
            labelled.candidates * len(specs),
            enabled=options.progress,
            timeout=options.timeout,
            workers=options.workers,
        )
        for number, rows in enumerate(spilled_blocks(labelled.spill, block_size, slices_of)):
            block = Prepared(the_suite.name, digest, domain_name, tasks, [r[0] for r in rows], [])
            views = [shown[spec.name].view(block, options, domain) for spec in specs]
            got: list[dict[str, Verdict]] = [{} for _ in specs]
            calls = []
            for k, (spec, view) in enumerate(zip(specs, views)):
                progress.skip(len(block.candidates) - len(view.candidates))
                todo = []
                for i, c in enumerate(view.candidates):
                    if index is not None and (spec.name, c.id) in index:
                        got[k][c.id] = index[(spec.name, c.id)]
                    else:
                        todo.append(i)
                progress.skip(len(view.candidates) - len(todo))
                calls.append((spec, view.candidates, todo))
            # The block's verifiers as lanes of one schedule (pool.run_lanes).
            for k, verdict in verdicts_of_many(calls, task_map, domain, options, progress):
                store.append(verdict)
                got[k][verdict.candidate_id] = verdict
                progress.advance()
            for spec, view, got_of in zip(specs, views, got):
                tally, probe_pool = tallies[spec.name], pools[spec.name]
                of_sample: dict[str, Verdict] = {}  # by the id of the sample each shown candidate stands for
                for c in view.candidates:
                    tally.add(c, got_of[c.id])
                    if options.probe_sample > 0 or options.search:
                        probe_pool.add(c, got_of[c.id])
                    of_sample[shown[spec.name].sample_id(c)] = got_of[c.id]
                section = sections[spec.name]
                for c, key, sample_index, where in rows:  # a sample left out of the view has no verdict
                    section.add(c, key, sample_index, where, of_sample.get(c.id))
            if on_block is not None:
                on_block("audit", number)
        progress.close()
    finally:
        store.close()
        if index is not None:
            unused = index.unused()
            index.close()
            if unused:
                print(
                    f"verifier-audit: warning: {options.results}: {unused} verified line(s) name candidates this "
                    "scoring does not have; they were ignored",
                    file=sys.stderr,
                )

    reports = []
    out_sections = []
    figures = labelled.authority.result() if labelled.authority is not None else ([], [])
    for spec in specs:
        tally = tallies[spec.name]
        pool_view, pool_verdicts = pools[spec.name].view(stub)
        checks = run_probes(pool_view, spec, pool_verdicts, options)
        checks = checks.model_copy(update={"splits": dict(sorted(tally.splits.items()))})
        found = search(pool_view, spec, options, spec.name) if options.search else None
        if found is not None and found.candidates:
            matched = set()
            for c in found.candidates:
                if c.id in found.verdicts:
                    tally.add(c, found.verdicts[c.id])
                    matched.add(c.id)
            for cid, v in found.verdicts.items():
                if cid not in matched:
                    tally.add_verdict(v)
        reports.append(
            tally.report(
                spec,
                options,
                settings,
                suite=the_suite.name,
                split=None,
                dropped=dropped,
                checks=checks,
                formats=shown[spec.name].result(),
                search=found.summary if found is not None else None,
            )
        )
        section = sections[spec.name].section(spec, models, labelled, scans)
        section.authority_by_model, section.authority_by_split = figures
        out_sections.append(section)
    prepared = Prepared(the_suite.name, digest, domain_name, tasks, [], [])
    return ScoreResult(
        reports=reports,
        sections=out_sections,
        prepared=prepared,
        results_path=options.results,
        categories=set(labelled.categories),
    )
