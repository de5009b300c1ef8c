"""``score`` in bounded memory: samples streamed, labelled and audited in blocks (issue 17).

A GRPO run writes millions of rollouts. ``score`` reads its samples files twice, line by
line, then a spill file of the labelled samples once, and never holds more than a block of
them (``block_size`` samples, ``--block-size``, default ``DEFAULT_BLOCK``):

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
"""

from __future__ import annotations

import hashlib
import heapq
import json
import shutil
import sys
import tempfile
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..domains import get_domain
from ..engine import pool
from ..engine.audit import AuditOptions, Prepared, default_cache_dir, run_settings, verdicts_of
from ..engine.formats import (UNSTATED, choose, probe, rewrite_candidates, summary, supports_formats,
                              tasks_in_scope)
from ..engine.probes import run_probes
from ..engine.progress import Progress
from ..engine.search import search
from ..engine.slices import task_slices
from ..engine.store import ResultsStore, ResumeIndex, fingerprint
from ..errors import InputError
from ..loading import VerifierSpec
from ..metrics import _clip, accepted
from ..models import Candidate, Formats, Task, Verdict
from ..report.tally import ReportTally
from ..suites import load_suite
from .authority import GroupedFigures
from .importers import sanitize
from .labels import label_texts, prepare_for_labels
from .records import SampleChecks, iter_sample_lines, iter_samples, parse_sample, read_manifest
from .score import (BLIND_SPOT, Disagreement, GroupSummary, SamplesSection, ScoreResult, _Model, _pairs, _rate,
                    compare)

DEFAULT_BLOCK = 20_000  # samples per block: ~50 MB of candidates, verdicts and views at ~300 B of text each
LABEL_CACHE = 100_000  # (task, text hash) -> label entries kept across blocks (~15 MB)
PARTNERS_PER_SCORE, PARTNER_SCORES = 2, 4  # the probe pool's candidates per task: per distinct score, scores
PROBE_DEFAULT = 24  # AuditOptions.probe_sample's default

OnBlock = Callable[[str, int], None]


class ChangedWhileReading(InputError):
    pass


# ----------------------------------------------------------------------------- 1. validate


@dataclass
class _FileScan:
    path: Path
    role: Optional[str]
    suite: str
    suite_hash: str
    digest: str
    samples: int
    tasks: Counter  # task id -> samples of it
    models: dict[str, None]  # model names, in order of first appearance


def _scan(path: Path, role: Optional[str], on_sample: Optional[Callable[[], None]] = None) -> _FileScan:
    """Pass 1: every line validated (``read_samples``' checks), the file hashed."""
    manifest = read_manifest(path)
    checks = SampleChecks(path, manifest)
    digest = hashlib.sha256()
    tasks: Counter = Counter()
    models: dict[str, None] = {}
    n = 0
    for lineno, s in iter_samples(path, digest=digest):
        checks.check(lineno, s)
        tasks[s.task_id] += 1
        models.setdefault(s.model, None)
        n += 1
        if on_sample is not None:
            on_sample()
    if not n:
        raise InputError(f"{path}: no samples in it")
    return _FileScan(path=path, role=role or manifest.role, suite=manifest.suite, suite_hash=manifest.suite_hash,
                     digest=digest.hexdigest(), samples=n, tasks=tasks, models=models)


def scan_files(rl_or_any: Sequence, base: Sequence = (), on_sample=None) -> list[_FileScan]:
    """Read and validate every samples file, as ``score`` always did, keeping no sample.
    Roles: ``base`` files are "base" and the others "rl" when any ``base`` is given;
    otherwise each file's manifest ``role`` (may be None)."""
    base_paths = {Path(b).resolve() for b in base}
    rest = [p for p in rl_or_any if Path(p).resolve() not in base_paths]  # a --base file listed again is base
    if not base and not rest:
        raise InputError("no samples file given")
    files: list[_FileScan] = []
    scanned: dict[Path, _FileScan] = {}
    twice: Optional[Path] = None
    for path, forced in [(Path(p), "base") for p in base] + [(Path(p), "rl" if base else None) for p in rest]:
        key = path.resolve()
        if key in scanned:  # read once: a second read finds what the first did
            twice = twice or path
            continue
        scanned[key] = _scan(path, forced, on_sample)
        files.append(scanned[key])
    if twice is not None:
        raise InputError(f"{twice}: given twice")
    return files


def _first_unknown(files: list[_FileScan], known: dict, limit: int = 5) -> list[str]:
    """``file:line: 'task'`` of the first samples of tasks not in ``known`` (an error's text:
    the files are read again up to them)."""
    out = []
    for f in files:
        if not any(t not in known for t in f.tasks):
            continue
        for lineno, line in iter_sample_lines(f.path):
            task_id = _fields(f.path, lineno, line)[0]
            if task_id not in known:
                out.append(f"{f.path}:{lineno}: {task_id!r}")
                if len(out) >= limit:
                    return out
    return out


def _fields(path: Path, lineno: int, line: str) -> tuple[str, int, str, str, Optional[str]]:
    """(task id, sample index, model, text, source) of a line pass 1 validated: plain JSON
    when the types are exactly those of a valid sample, else the full validation."""
    try:
        obj = json.loads(line)
        t, i, m, x, src = obj["task_id"], obj["sample_index"], obj["model"], obj["text"], obj.get("source")
        if type(t) is str and type(i) is int and type(m) is str and type(x) is str and (src is None or type(src) is str):
            return t, i, m, x, src
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    s = parse_sample(path, lineno, line)
    return s.task_id, s.sample_index, s.model, s.text, s.source


# ------------------------------------------------------------------------------- 2. label


class _Lru(OrderedDict):
    def __init__(self, capacity: int):
        super().__init__()
        self.capacity = capacity

    def get_recent(self, key):
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def put(self, key, value) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.capacity:
            self.popitem(last=False)


def _text_key(task_id: str, text: str) -> tuple[str, bytes]:
    return task_id, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@dataclass
class _Labelled:
    """What pass 2 leaves: the spill file of labelled samples, and the counts."""

    spill: Path
    samples: int = 0
    candidates: int = 0
    candidates_hash: str = ""
    undecided: Counter = field(default_factory=Counter)
    undecided_by: dict[str, Counter] = field(default_factory=lambda: {"model": Counter(), "split": Counter()})
    categories: set[str] = field(default_factory=set)
    tasks: set[str] = field(default_factory=set)  # tasks with a labelled sample
    models: dict[str, _Model] = field(default_factory=dict)
    authority: Optional[GroupedFigures] = None


def _label(files: list[_FileScan], task_map: dict[str, Task], domain: str, options: AuditOptions, spill: Path,
           block_size: int, name_files: dict[str, set[Path]], on_block: Optional[OnBlock], say) -> _Labelled:
    from . import authority as A

    out = _Labelled(spill=spill)
    models = out.models
    tool_ids = {t for t, task in task_map.items() if A.is_tool_task(task)}
    if tool_ids:
        from ..domains.tool.policy import task_policy

        policies = {t: task_policy(task_map[t]) for t in tool_ids}
        out.authority = GroupedFigures()
        memo = _Lru(LABEL_CACHE)
    total = sum(f.samples for f in files)
    one_block = total <= block_size
    cache = _Lru(max(LABEL_CACHE, 2 * block_size))
    digest = hashlib.sha256()  # as engine.audit.candidates_hash, fed one candidate at a time
    progress = Progress("labelling (oracle)", total, enabled=options.progress, timeout=options.oracle_timeout,
                        workers=options.workers)

    def model_key(f: _FileScan, name: str) -> str:
        key = name if len(name_files[name]) == 1 else f"{name}@{f.path.stem}"
        if key not in models:
            models[key] = _Model(key=key, role=f.role)
        if str(f.path) not in models[key].files:
            models[key].files.append(str(f.path))
        return key

    def rows() -> Iterator[tuple]:
        for fi, f in enumerate(files):
            again = hashlib.sha256()
            for lineno, line in iter_sample_lines(f.path, digest=again):
                task_id, index, model, text, source = _fields(f.path, lineno, line)
                if task_id not in task_map or model not in name_files:
                    raise ChangedWhileReading(f"{f.path}:{lineno}: the file changed while score was reading it; "
                                              "run score again on a file that is not being written")
                yield fi, f, lineno, task_id, index, model_key(f, model), text, source
            if again.hexdigest() != f.digest:
                raise ChangedWhileReading(f"{f.path}: the file changed while score was reading it (its bytes are "
                                          "not those validated); run score again on a file that is not being written")

    def label_block(block: list[tuple]) -> dict:
        distinct = sorted({(r[3], r[6]) for r in block})
        if one_block:
            say(f"labelling {total} samples ({len(distinct)} distinct) with the {domain} oracle")
            return dict(zip(distinct, label_texts(distinct, task_map, workers=options.workers,
                                                  timeout=options.oracle_timeout, memory_mb=options.memory_mb,
                                                  executor=options.executor, ray_address=options.ray_address)))
        labels, todo = {}, []
        for pair in distinct:
            known = cache.get_recent(_text_key(*pair))
            if known is None:
                todo.append(pair)
            else:
                labels[pair] = known
        for pair, result in zip(todo, label_texts(todo, task_map, workers=options.workers,
                                                  timeout=options.oracle_timeout, memory_mb=options.memory_mb,
                                                  executor=options.executor, ray_address=options.ray_address)):
            labels[pair] = result
            cache.put(_text_key(*pair), result)
        return labels

    if not one_block:
        say(f"labelling {total} samples with the {domain} oracle, in blocks of {block_size}")
    with spill.open("w", encoding="utf-8") as fh:
        block: list[tuple] = []
        number = 0

        def flush() -> None:
            nonlocal number
            labels = label_block(block)
            for fi, f, lineno, task_id, index, key, text, source in block:
                out.samples += 1
                split = task_map[task_id].split
                where = source or f"{f.path}:{lineno}"
                if out.authority is not None and task_id in tool_ids:
                    mk = _text_key(task_id, text)
                    a = memo.get_recent(mk)
                    if a is None:
                        a = A.sample_authority(task_map[task_id], text, policies[task_id])
                        memo.put(mk, a)
                    out.authority.add(key, split, models[key].role, task_id, a)
                label, reason = labels[(task_id, text)]
                if label is None:
                    why = reason if reason.startswith("oracle_") else "oracle_unknown"
                    out.undecided[why] += 1
                    out.undecided_by["model"][key] += 1
                    out.undecided_by["split"][split] += 1
                    out.categories.add(f"{domain}.sampled")
                    continue
                cid = f"{fi}:{task_id}#{index}"
                category = f"{domain}.sampled.{sanitize(key)}.{sanitize(split)}.{label}"
                digest.update(json.dumps([cid, task_id, text, label, category], ensure_ascii=True).encode() + b"\n")
                fh.write(json.dumps([cid, task_id, text, label, category, key, index, where], ensure_ascii=True) + "\n")
                out.candidates += 1
                out.categories.add(category)
                out.tasks.add(task_id)
            progress.advance(len(block))
            block.clear()
            if on_block is not None:
                on_block("label", number)
            number += 1

        for row in rows():
            block.append(row)
            if len(block) >= block_size:
                flush()
        if block:
            flush()
    progress.close()
    out.candidates_hash = digest.hexdigest()[:16]
    return out


def _spilled(spill: Path, block_size: int, task_slices_of: dict[str, list[str]]) -> Iterator[list[tuple]]:
    """Blocks of (candidate, model key, sample index, file:line) from the spill file."""
    block = []
    with spill.open(encoding="utf-8") as fh:
        for line in fh:
            cid, task_id, text, label, category, key, index, where = json.loads(line)
            c = Candidate(id=cid, task_id=task_id, text=text, origin="sampled", category=category, label=label,
                          label_source="oracle", note=f"{key} sample #{index} ({where})",
                          slices=task_slices_of.get(task_id, []))
            block.append((c, key, index, where))
            if len(block) >= block_size:
                yield block
                block = []
    if block:
        yield block


# -------------------------------------------------------------------------------- 3. audit


class _ProbePool:
    """The candidates the probes (and the search) may pick from. Every candidate and its
    verdict while there are at most ``cap`` of them: the probes then choose as they always
    did. Past ``cap``, a bounded pool that does not depend on the order or the blocks the
    candidates came in: per category, the ``k`` scored ones of smallest seeded hash of their
    id (a uniform sample of the category); per task, up to PARTNERS_PER_SCORE of each of its
    first PARTNER_SCORES distinct scores (the thread probe's partner is one of the same task
    the verifier scored differently, when there is one). In the candidates' order."""

    def __init__(self, cap: int, k: int, seed: int):
        self.cap, self.k, self.seed = cap, k, seed
        self.full = True
        self.rows: list[tuple[int, Candidate, Verdict]] = []
        self.seq = 0
        self.by_category: dict[str, list] = {}
        self.by_task: dict[str, dict[float, list]] = {}

    def add(self, c: Candidate, v: Verdict) -> None:
        self.seq += 1
        if self.full:
            self.rows.append((self.seq, c, v))
            if len(self.rows) > self.cap:
                self.full = False
                rows, self.rows = self.rows, []
                for row in rows:
                    self._keep(row)
        else:
            self._keep((self.seq, c, v))

    def _keep(self, row: tuple[int, Candidate, Verdict]) -> None:
        seq, c, v = row
        if v.status != "ok" or v.score is None:
            return  # the probes rescore only what was scored
        h = int.from_bytes(hashlib.blake2b(f"{self.seed}:{c.id}".encode("utf-8", "surrogatepass"),
                                           digest_size=8).digest(), "big")
        heap = self.by_category.setdefault(c.category, [])
        heapq.heappush(heap, (-h, seq, c, v))
        if len(heap) > self.k:
            heapq.heappop(heap)  # the largest hash
        scores = self.by_task.setdefault(c.task_id, {})
        if v.score in scores:
            if len(scores[v.score]) < PARTNERS_PER_SCORE:
                scores[v.score].append(row)
        elif len(scores) < PARTNER_SCORES:
            scores[v.score] = [row]

    def view(self, base: Prepared) -> tuple[Prepared, dict[str, Verdict]]:
        if self.full:
            rows = self.rows
        else:
            kept = {seq: (seq, c, v) for heap in self.by_category.values() for _, seq, c, v in heap}
            kept.update((seq, (seq, c, v)) for scores in self.by_task.values() for rs in scores.values()
                        for seq, c, v in rs)
            rows = [kept[s] for s in sorted(kept)]
        return (Prepared(base.suite_name, base.suite_hash, base.domain, base.tasks, [c for _, c, _ in rows], []),
                {c.id: v for _, c, v in rows})


class _SectionTally:
    """``SamplesSection``'s counts, fed (candidate, verdict) in the candidates' order."""

    # per group: [correct, incorrect, errors, false acceptances, incorrect judged, false rejections,
    # correct judged, samples]
    def __init__(self, models: dict[str, _Model], undecided_splits: Counter, tasks: dict[str, Task],
                 threshold: float, max_listed: int):
        self.groups: dict[str, dict[str, list[int]]] = {"model": {k: [0] * 8 for k in models},
                                                        "split": {k: [0] * 8 for k in undecided_splits}}
        self.tasks, self.threshold, self.max_listed = tasks, threshold, max_listed
        self.counts = {"accepted_but_wrong": 0, "rejected_but_right": 0}
        self.listed: dict[str, list[Disagreement]] = {"accepted_but_wrong": [], "rejected_but_right": []}
        self.labelled = 0

    def add(self, c: Candidate, key: str, index: int, where: str, v: Optional[Verdict]) -> None:
        self.labelled += 1
        split = self.tasks[c.task_id].split
        for kind, name in (("model", key), ("split", split)):
            g = self.groups[kind].setdefault(name, [0] * 8)
            g[7] += 1
            g[0 if c.label == "correct" else 1] += 1
            if v is None or v.status != "ok":
                g[2] += 1
                continue
            ok = accepted(v.score, self.threshold)
            if c.label == "incorrect":
                g[4] += 1
                g[3] += bool(ok)
            else:
                g[6] += 1
                g[5] += not ok
        if v is None or v.status != "ok":
            return
        ok = accepted(v.score, self.threshold)
        if ok == (c.label == "incorrect"):
            kind = "accepted_but_wrong" if ok else "rejected_but_right"
            self.counts[kind] += 1
            if len(self.listed[kind]) < self.max_listed:
                self.listed[kind].append(Disagreement(
                    kind=kind, model=key, task_id=c.task_id, sample_index=index, split=split,
                    text=_clip(c.text, 300), reference=_clip(self.tasks[c.task_id].reference, 120), score=v.score,
                    source=where))

    def section(self, spec: VerifierSpec, models: dict[str, _Model], labelled: _Labelled, files: list[_FileScan],
                ) -> SamplesSection:
        undecided, undecided_by = labelled.undecided, labelled.undecided_by

        def summaries(kind: str) -> list[GroupSummary]:
            out = []
            for name, g in self.groups[kind].items():
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
            verifier=spec.spec, files=[str(f.path) for f in files], threshold=self.threshold,
            samples=labelled.samples, labelled=self.labelled, undecidable=sum(undecided.values()),
            undecidable_reasons=dict(sorted(undecided.items())), by_model=by_model, by_split=by_split,
            comparisons=comparisons, blind_spot=[c.message for c in comparisons if BLIND_SPOT in c.message],
            accepted_but_wrong=self.counts["accepted_but_wrong"], rejected_but_right=self.counts["rejected_but_right"],
            disagreements=self.listed["accepted_but_wrong"] + self.listed["rejected_but_right"],
        )


@dataclass
class _Shown:
    """How one verifier is shown its candidates: the format probe's finding and, when the
    candidates are rewritten into another format, that format and the rewrite's counts."""

    formats: Optional[Formats] = None
    fmt: object = None
    read: set[str] = field(default_factory=set)
    counts: Counter = field(default_factory=Counter)
    relabelled: Counter = field(default_factory=Counter)
    shown_formats: Counter = field(default_factory=Counter)

    def view(self, block: Prepared, options: AuditOptions, domain) -> Prepared:
        if self.fmt is None:
            view = block
        else:
            view, counts = rewrite_candidates(block, self.fmt, self.read, options, domain)
            for k in ("rewritten", "kept", "left_out"):
                self.counts[k] += counts[k]
            self.relabelled.update(counts["relabelled"])
        if self.formats is not None:
            self.shown_formats.update(c.format or UNSTATED for c in view.candidates)
        return view

    def result(self) -> Optional[Formats]:
        """As ``formats_for`` gives it, summed over the blocks."""
        if self.formats is None:
            return None
        result = self.formats
        if self.fmt is not None:
            result = result.model_copy(update={**{k: self.counts[k] for k in ("rewritten", "kept", "left_out")},
                                               "relabelled": dict(sorted(self.relabelled.items()))})
        result.summary = summary(result)
        result.candidates = dict(sorted(self.shown_formats.items()))
        return result


def _shown(stub: Prepared, spec: VerifierSpec, options: AuditOptions, domain) -> _Shown:
    """The format probe of ``formats_for``, on the tasks that have candidates (all it reads)."""
    if not options.answer_formats or not supports_formats(domain) or not stub.candidates:
        return _Shown()
    formats = list(domain.answer_formats())
    probes, stopped = probe(stub, spec, options, domain, formats)
    result = Formats(canonical=formats[0].name, probes=probes, read=[p.name for p in probes if p.read],
                     stopped_early=stopped)
    target = choose(probes)
    shown = _Shown(formats=result, read=set(result.read))
    if target is not None:
        shown.fmt = next(f for f in formats if f.name == target)
        shown.formats = result.model_copy(update={
            "audited_in": target, "tasks_in_scope": len(tasks_in_scope(stub, shown.fmt, options, domain)),
            "tasks_total": len({c.task_id for c in stub.candidates})})
    return shown


class _Known:
    """The (verifier, candidate id) pairs of this run, told from their shape (the run's
    verifiers, files and tasks with candidates) without a set of every id."""

    def __init__(self, names: set[str], files: int, tasks: set[str]):
        self.names, self.files, self.tasks = names, files, tasks

    def __contains__(self, key) -> bool:
        name, cid = key
        fi, colon, rest = cid.partition(":")
        task_id, hash_, index = rest.rpartition("#")
        return (name in self.names and colon == ":" and fi.isdigit() and int(fi) < self.files and hash_ == "#"
                and index.isdigit() and task_id in self.tasks)


def score_stream(
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
    block_size: int = DEFAULT_BLOCK,
    on_block: Optional[OnBlock] = None,
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
            raise InputError("the samples files name different suites (" + ", ".join(
                f"{f.path}: {f.suite!r}" for f in scans) + "); score them separately or pass --suite")
        suite = suites[0]
    the_suite = load_suite(suite, fmt=suite_format)
    for f in scans:
        if f.suite_hash and f.suite_hash != the_suite.content_hash:
            say(f"warning: {f.path} was made against another version of suite {suite!r} "
                f"(hash {f.suite_hash}, now {the_suite.content_hash})")
    by_id = {t.id: t for t in the_suite.tasks}
    n_unknown = sum(n for f in scans for t, n in f.tasks.items() if t not in by_id)
    if n_unknown:
        shown = "; ".join(_first_unknown(scans, by_id))
        raise InputError(f"{n_unknown} samples are of tasks not in suite {the_suite.name!r}: {shown}"
                         f"{'; ...' if n_unknown > 5 else ''}. Pass the suite they were made on with --suite")

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
        labelled = _label(scans, task_map, domain, options, work / "labelled.jsonl", block_size, name_files,
                          on_block, say)
        if not labelled.candidates:
            raise InputError(f"the oracle could not decide any of the {labelled.samples} samples "
                             f"({', '.join(f'{k} {v}' for k, v in sorted(labelled.undecided.items()))}); "
                             "nothing to score")
        return _audit(the_suite, scans, tasks, domain, labelled, specs, options, timeout, max_listed, block_size,
                      on_block, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _audit(the_suite, scans: list[_FileScan], tasks: list[Task], domain_name: str, labelled: _Labelled,
           specs: list[VerifierSpec], options: AuditOptions, timeout: Optional[float], max_listed: int,
           block_size: int, on_block: Optional[OnBlock], work: Path) -> ScoreResult:
    digest = hashlib.sha256("\0".join([the_suite.content_hash] + [f.digest for f in scans]).encode()).hexdigest()[:16]
    domain = get_domain(domain_name)
    task_map = {t.id: t for t in tasks}
    # ``Prepared`` without its candidates: they come block by block
    stub = Prepared(the_suite.name, digest, domain_name, tasks, [], [])
    options.timeout = timeout or getattr(domain, "default_timeout", 10.0)
    settings = {**run_settings(stub, specs, options), "n_candidates": labelled.candidates,
                "candidates_hash": labelled.candidates_hash}
    if options.results is None:
        options.results = default_cache_dir() / f"results-samples-{fingerprint(settings)}.jsonl"
    dropped = dict(sorted(labelled.undecided.items()))

    pool.warm_clean_server([domain_name])
    index = ResumeIndex(work) if options.resume else None
    try:
        store = ResultsStore(options.results, settings, resume=options.resume,
                             known=_Known({s.name for s in specs}, len(scans), labelled.tasks), done=index,
                             remember=False)
    except BaseException:
        if index is not None:
            index.close()
        raise
    for warning in store.warnings:
        print(f"verifier-audit: warning: {warning}", file=sys.stderr)
    if settings["isolation"] == "none":
        print("verifier-audit: warning: isolation none: the verifier runs with your privileges, sees your files and "
              "network, and what it starts may outlive the audit (docs/threat-model.md)", file=sys.stderr)
    # The tasks that have candidates, one stand-in candidate each: all the format probe reads.
    used = [t for t in tasks if t.id in labelled.tasks]
    probe_stub = Prepared(the_suite.name, digest, domain_name, tasks,
                          [Candidate(id=f"stub/{t.id}", task_id=t.id, text="", origin="sampled",
                                     category=f"{domain_name}.sampled", label="correct") for t in used], [])
    models = labelled.models
    tallies = {s.name: ReportTally(task_map, options.threshold) for s in specs}
    sections = {s.name: _SectionTally(models, labelled.undecided_by["split"], task_map, options.threshold, max_listed)
                for s in specs}
    # the search, when asked for, starts from the probes' pool: a sample of each category at least
    keep = max(options.probe_sample, PROBE_DEFAULT if options.search else 0)
    pools = {s.name: _ProbePool(block_size, keep, options.seed) for s in specs}
    slices_of = {t.id: task_slices(domain, t, options.slice_field) for t in tasks}
    label = f"auditing {specs[0].name}" if len(specs) == 1 else f"auditing {len(specs)} verifiers"
    try:
        shown = {s.name: _shown(probe_stub, s, options, domain) for s in specs}
        progress = Progress(label, labelled.candidates * len(specs), enabled=options.progress,
                            timeout=options.timeout, workers=options.workers)
        for number, rows in enumerate(_spilled(labelled.spill, block_size, slices_of)):
            block = Prepared(the_suite.name, digest, domain_name, tasks, [r[0] for r in rows], [])
            for spec in specs:
                view = shown[spec.name].view(block, options, domain)
                progress.skip(len(block.candidates) - len(view.candidates))
                got: dict[str, Verdict] = {}
                todo = []
                for i, c in enumerate(view.candidates):
                    if index is not None and (spec.name, c.id) in index:
                        got[c.id] = index[(spec.name, c.id)]
                    else:
                        todo.append(i)
                progress.skip(len(view.candidates) - len(todo))
                for verdict in verdicts_of(spec, view.candidates, todo, task_map, domain, options, progress):
                    store.append(verdict)
                    got[verdict.candidate_id] = verdict
                    progress.advance()
                tally, probe_pool = tallies[spec.name], pools[spec.name]
                for c in view.candidates:
                    tally.add(c, got[c.id])
                    if options.probe_sample > 0 or options.search:
                        probe_pool.add(c, got[c.id])
                section = sections[spec.name]
                for c, key, sample_index, where in rows:  # looked up by the sample's own id, as before
                    section.add(c, key, sample_index, where, got.get(c.id))
            if on_block is not None:
                on_block("audit", number)
        progress.close()
    finally:
        store.close()
        if index is not None:
            unused = index.unused()
            index.close()
            if unused:
                print(f"verifier-audit: warning: {options.results}: {unused} verified line(s) name candidates this "
                      "scoring does not have; they were ignored", file=sys.stderr)

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
        reports.append(tally.report(spec, options, settings, suite=the_suite.name, split=None, dropped=dropped,
                                    checks=checks, formats=shown[spec.name].result(),
                                    search=found.summary if found is not None else None))
        section = sections[spec.name].section(spec, models, labelled, scans)
        section.authority_by_model, section.authority_by_split = figures
        out_sections.append(section)
    prepared = Prepared(the_suite.name, digest, domain_name, tasks, [], [])
    return ScoreResult(reports=reports, sections=out_sections, prepared=prepared, results_path=options.results,
                       categories=set(labelled.categories))

