"""``score`` in bounded memory: samples streamed, labelled and audited in blocks (issue 17).

A GRPO run writes millions of rollouts. ``score`` reads its samples files twice, line by
line, then a spill file of the labelled samples once, and never holds more than a block of
them (``block_size`` samples, ``--block-size``, default ``DEFAULT_BLOCK``), in three passes:

1. **Validate.** Every line of every file, as ``read_samples`` does (``file:line`` in every
   error, duplicates, manifest consistency), before any oracle or verifier call, while the
   file is hashed; what is kept is per file: its digest, the models it names and how many
   samples each task has. A duplicate (task, sample index) is found with one bit per index
   (``records.SampleChecks``).
2. **Label.** Block by block, the oracle labels each distinct (task, text) of the block
   that a bounded cache of recent labels does not already hold (``LABEL_CACHE``, keyed by a
   hash of the text): the same labels as one call over the whole input (the oracle decides
   each text alone); only a text repeated further apart than the cache holds is labelled
   twice. Each labelled sample is
   written to a spill file on disk (a temporary folder), the undecidable ones counted; the
   candidates' hash and count (the results file's fingerprint) are summed on the way. The
   file's bytes are hashed again and must not have changed since step 1.
3. **Audit.** Block by block from the spill file: each verifier scores the block's
   candidates in the worker pool (or Ray), every verdict is appended to the results file as
   ``run`` does, and folded into the Report's tally (``report/tally.py``: counts per
   category and slice, first examples) and the samples section's (counts per model and
   split, the first ``max_listed`` disagreements of each kind). ``--resume`` reads the
   results file back into a SQLite index on disk (``store.ResumeIndex``), not a dict; a
   line is accepted by its signature and the shape of its id (a verifier, file and task of
   this run: ``_Known``) instead of against a set of every id, and verified lines that no
   candidate asks for are counted and warned about at the end.

What a run that fits in one block gets is exactly what the in-memory ``score`` gave (one
oracle call over the distinct texts, probes sampled from every candidate): the report is
byte for byte the same. Past one block, two things are drawn from bounded samples instead
of from every candidate, and the documentation says so (docs/samples-import-score.md):

* the determinism and thread probes (``probe_sample`` candidates, and each one's partner)
  are chosen among, per category, the ``probe_sample`` scored candidates of smallest seeded
  hash and, per task, a few candidates of each of a few distinct scores (``_ProbePool``):
  the same for the same input and seed, whatever the block size; the probes differ from the
  one-block choice only in which candidates they rescore;
* the exploit search (``search = N`` in the configuration; rare on samples) starts from
  that same pool.

Memory then grows with the number of models, splits, categories, tasks and security
findings, not with the number of samples; disk use (spill file, resume index) does.

The passes are ``files`` (1), ``label`` (2) and ``audit`` (3; with ``shown``, ``tally`` and
``probe_pool``); ``score_stream`` runs them in order.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ...engine.audit import AuditOptions
from ...errors import InputError
from ...loading import VerifierSpec
from ...suites import load_suite
from ..labels import prepare_for_labels
from .audit import audit_blocks
from .files import first_unknown, scan_files
from .label import OnBlock, label_samples
from .section import ScoreResult

DEFAULT_BLOCK = 20_000  # samples per block: ~50 MB of candidates, verdicts and views at ~300 B of text each


def score_stream(
    files: Sequence,
    specs: list[VerifierSpec],
    options: AuditOptions,
    *,
    base: Sequence = (),
    suite: str | None = None,
    suite_format: str = "jsonl",
    timeout: float | None = None,
    max_listed: int = 50,
    log=None,
    block_size: int = DEFAULT_BLOCK,
    on_block: OnBlock | None = None,
) -> ScoreResult:
    """``score_samples`` (its docstring), streamed: see the module's docstring.
    ``on_block(phase, number)``: called after each block of each pass ("label", "audit")."""
    if block_size < 1:
        raise InputError(f"block size {block_size}: must be at least 1")
    say = log or (lambda message: None)
    scans = scan_files(files, base)
    suites = sorted({f.suite for f in scans})
    if suite is None:
        if len(suites) > 1:
            raise InputError(
                "the samples files name different suites ("
                + ", ".join(f"{f.path}: {f.suite!r}" for f in scans)
                + "); score them separately or pass --suite"
            )
        suite = suites[0]
    the_suite = load_suite(suite, fmt=suite_format)
    for f in scans:
        if f.suite_hash and f.suite_hash != the_suite.content_hash:
            say(
                f"warning: {f.path} was made against another version of suite {suite!r} "
                f"(hash {f.suite_hash}, now {the_suite.content_hash})"
            )
    by_id = {t.id: t for t in the_suite.tasks}
    n_unknown = sum(n for f in scans for t, n in f.tasks.items() if t not in by_id)
    if n_unknown:
        shown = "; ".join(first_unknown(scans, by_id))
        raise InputError(
            f"{n_unknown} samples are of tasks not in suite {the_suite.name!r}: {shown}"
            f"{'; ...' if n_unknown > 5 else ''}. Pass the suite they were made on with --suite"
        )

    # Model names: a name two files share gets the file's stem, so the two stay apart.
    name_files: dict[str, set[Path]] = {}
    for f in scans:
        for name in f.models:
            name_files.setdefault(name, set()).add(f.path)
    position = {t: i for i, t in enumerate(by_id)}
    used_ids = sorted({t for f in scans for t in f.tasks}, key=position.__getitem__)
    tasks = prepare_for_labels([by_id[t] for t in used_ids], options.seed)
    domains = {t.domain for t in tasks}
    if len(domains) > 1:
        raise InputError(f"suite {the_suite.name!r} mixes domains ({', '.join(sorted(domains))}); score one at a time")
    domain = tasks[0].domain
    task_map = {t.id: t for t in tasks}
    work = Path(tempfile.mkdtemp(prefix="va-score-"))
    try:
        labelled = label_samples(
            scans, task_map, domain, options, work / "labelled.jsonl", block_size, name_files, on_block, say
        )
        if not labelled.candidates:
            raise InputError(
                f"the oracle could not decide any of the {labelled.samples} samples "
                f"({', '.join(f'{k} {v}' for k, v in sorted(labelled.undecided.items()))}); "
                "nothing to score"
            )
        return audit_blocks(
            the_suite, scans, tasks, domain, labelled, specs, options, timeout, max_listed, block_size, on_block, work
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def score_samples(
    files: Sequence,
    specs: list[VerifierSpec],
    options: AuditOptions,
    *,
    base: Sequence = (),
    suite: str | None = None,
    suite_format: str = "jsonl",
    timeout: float | None = None,
    max_listed: int = 50,
    log=None,
    block_size: int | None = None,
    on_block=None,
) -> ScoreResult:
    """Label the samples of ``files`` (and ``base``) with the oracle and audit ``specs`` on
    them. ``options``: as for ``run`` (workers, timeouts, threshold, gate, results, resume);
    ``timeout`` None: the domain's default per-call timeout. The files are streamed in
    blocks of ``block_size`` samples (None: ``DEFAULT_BLOCK``), in memory bounded by the
    block, not by the number of samples (this module's docstring says how, and what differs
    past one block); ``on_block(phase, number)`` is called after each block."""
    return score_stream(
        files,
        specs,
        options,
        base=base,
        suite=suite,
        suite_format=suite_format,
        timeout=timeout,
        max_listed=max_listed,
        log=log,
        block_size=DEFAULT_BLOCK if block_size is None else block_size,
        on_block=on_block,
    )
