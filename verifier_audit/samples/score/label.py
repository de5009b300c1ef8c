"""Pass 2 of ``score``: the samples labelled by the domain's oracle block by block (a
bounded cache of recent labels saves labelling a repeated text twice), the tool-call
authority of each sample, and every labelled sample written to a spill file on disk as a
candidate-to-be; ``spilled_blocks`` reads them back, block by block, as candidates."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ...engine.audit import AuditOptions
from ...engine.progress import Progress
from ...models import Candidate, Task
from ..authority import GroupedFigures
from ..importers import sanitize
from ..labels import label_texts
from ..records import iter_sample_lines
from .files import ChangedWhileReading, FileScan, line_fields
from .section import SampledModel

LABEL_CACHE = 100_000  # (task, text hash) -> label entries kept across blocks (~15 MB)

OnBlock = Callable[[str, int], None]


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
class Labelled:
    """What pass 2 leaves: the spill file of labelled samples, and the counts."""

    spill: Path
    samples: int = 0
    candidates: int = 0
    candidates_hash: str = ""
    undecided: Counter = field(default_factory=Counter)
    undecided_by: dict[str, Counter] = field(default_factory=lambda: {"model": Counter(), "split": Counter()})
    categories: set[str] = field(default_factory=set)
    tasks: set[str] = field(default_factory=set)  # tasks with a labelled sample
    models: dict[str, SampledModel] = field(default_factory=dict)
    authority: GroupedFigures | None = None


def label_samples(
    files: list[FileScan],
    task_map: dict[str, Task],
    domain: str,
    options: AuditOptions,
    spill: Path,
    block_size: int,
    name_files: dict[str, set[Path]],
    on_block: OnBlock | None,
    say,
) -> Labelled:
    from .. import authority as A

    out = Labelled(spill=spill)
    models = out.models
    # task id -> the reader of its samples' authority (its domain's call_authority), for
    # the tasks whose completions are tool calls
    readers = {t: read for t, task in task_map.items() if (read := A.authority_reader(task)) is not None}
    tool_ids = set(readers)
    if tool_ids:
        out.authority = GroupedFigures()
        memo = _Lru(LABEL_CACHE)
    total = sum(f.samples for f in files)
    one_block = total <= block_size
    cache = _Lru(max(LABEL_CACHE, 2 * block_size))
    digest = hashlib.sha256()  # as engine.audit.candidates_hash, fed one candidate at a time
    progress = Progress(
        "labelling (oracle)", total, enabled=options.progress, timeout=options.oracle_timeout, workers=options.workers
    )

    def model_key(f: FileScan, name: str) -> str:
        key = name if len(name_files[name]) == 1 else f"{name}@{f.path.stem}"
        if key not in models:
            models[key] = SampledModel(key=key, role=f.role)
        if str(f.path) not in models[key].files:
            models[key].files.append(str(f.path))
        return key

    def rows() -> Iterator[tuple]:
        for fi, f in enumerate(files):
            again = hashlib.sha256()
            for lineno, line in iter_sample_lines(f.path, digest=again):
                task_id, index, model, text, source = line_fields(f.path, lineno, line)
                if task_id not in task_map or model not in name_files:
                    raise ChangedWhileReading(
                        f"{f.path}:{lineno}: the file changed while score was reading it; "
                        "run score again on a file that is not being written"
                    )
                yield fi, f, lineno, task_id, index, model_key(f, model), text, source
            if again.hexdigest() != f.digest:
                raise ChangedWhileReading(
                    f"{f.path}: the file changed while score was reading it (its bytes are "
                    "not those validated); run score again on a file that is not being written"
                )

    def label_block(block: list[tuple]) -> dict:
        distinct = sorted({(r[3], r[6]) for r in block})
        if one_block:
            say(f"labelling {total} samples ({len(distinct)} distinct) with the {domain} oracle")
            return dict(
                zip(
                    distinct,
                    label_texts(
                        distinct,
                        task_map,
                        workers=options.workers,
                        timeout=options.oracle_timeout,
                        memory_mb=options.memory_mb,
                        executor=options.executor,
                        ray_address=options.ray_address,
                    ),
                )
            )
        labels, todo = {}, []
        for pair in distinct:
            known = cache.get_recent(_text_key(*pair))
            if known is None:
                todo.append(pair)
            else:
                labels[pair] = known
        for pair, result in zip(
            todo,
            label_texts(
                todo,
                task_map,
                workers=options.workers,
                timeout=options.oracle_timeout,
                memory_mb=options.memory_mb,
                executor=options.executor,
                ray_address=options.ray_address,
            ),
        ):
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
                        a = A.sample_authority(task_map[task_id], text, readers[task_id])
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


def spilled_blocks(spill: Path, block_size: int, task_slices_of: dict[str, list[str]]) -> Iterator[list[tuple]]:
    """Blocks of (candidate, model key, sample index, file:line) from the spill file."""
    block = []
    with spill.open(encoding="utf-8") as fh:
        for line in fh:
            cid, task_id, text, label, category, key, index, where = json.loads(line)
            c = Candidate(
                id=cid,
                task_id=task_id,
                text=text,
                origin="sampled",
                category=category,
                label=label,
                label_source="oracle",
                note=f"{key} sample #{index} ({where})",
                slices=task_slices_of.get(task_id, []),
            )
            block.append((c, key, index, where))
            if len(block) >= block_size:
                yield block
                block = []
    if block:
        yield block
