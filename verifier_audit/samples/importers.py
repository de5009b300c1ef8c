"""Read sample files written by other tools into our samples format.

    verifier-audit import rollouts/ --format verl --suite math --model qwen-rl --out rl.jsonl

Formats (docs/samples-import-score.md has the exact shapes and examples):

* ``trl``: completions logged by TRL's GRPOTrainer (``log_completions=True``): the
  ``completions/completions_<step>.parquet`` files (``step``, ``prompt``, ``completion``;
  parquet needs pyarrow), the W&B ``completions`` table exported as JSON
  (``{"columns": [...], "data": [[...], ...]}``) or CSV, or JSONL/JSON rows of the same
  columns; reward-function columns (numbers) become ``source_reward``.
* ``verl``: the JSONL verl's trainer dumps per step with ``trainer.rollout_data_dir`` /
  ``validation_data_dir`` (``<step>.jsonl``: ``input``, ``output``, ``gts``, ``score``,
  ``step`` and the reward's extra keys).
* ``lm-eval``: lm-evaluation-harness ``samples_<task>_<date>.jsonl`` (``--log_samples``):
  ``doc_id``, ``doc``, ``arguments``, ``resps`` (a list of lists of strings: every string
  is one sample), ``filtered_resps``, ``target``.
* ``jsonl``: any JSONL, one sample per line, with ``--field ours=theirs``.

Samples are matched to the suite's tasks by task id when the source has one that the suite
knows, else by prompt text (the task's prompt equal to, or contained in, the source's
prompt after whitespace is collapsed). Every problem names ``file:line``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..domains.suite_files import read_text
from ..errors import InputError
from ..models import Task
from ..report.text import article
from .records import IMPORT_FORMATS, Manifest, Sample, manifest_line, sample_line

# Our fields a --field mapping may name (theirs may be a dotted path: doc.question, resps.0).
OUR_FIELDS = ("task_id", "prompt", "text", "model", "reference", "reward", "step", "finish_reason", "sample_index")

# Where each format keeps each field, first found wins. "text" and one of "task_id"/"prompt"
# are required; the others are optional.
DEFAULTS: dict[str, dict[str, tuple[str, ...]]] = {
    "trl": {
        "task_id": ("task_id",),
        "prompt": ("prompt",),
        "text": ("completion",),
        "reward": ("reward",),
        "step": ("step",),
        "reference": ("solution", "answer", "reference", "ground_truth"),
    },
    "verl": {
        "task_id": ("task_id",),
        "prompt": ("input", "prompt"),
        "text": ("output", "response"),
        "reward": ("score", "reward"),
        "reference": ("gts", "ground_truth"),
        "step": ("step",),
    },
    "lm-eval": {
        "task_id": ("doc.task_id",),
        "prompt": ("doc.problem", "doc.question", "doc.prompt", "doc.input", "doc.query", "doc.text"),
        "text": ("resps",),
        "reference": ("target",),
    },
    "jsonl": {
        "task_id": ("task_id",),
        "prompt": ("prompt",),
        "text": ("text", "completion", "response", "output"),
        "model": ("model",),
        "reference": ("reference",),
        "reward": ("reward", "score"),
        "step": ("step",),
        "finish_reason": ("finish_reason",),
        "sample_index": ("sample_index",),
    },
}
# TRL columns that are not rewards.
_TRL_NOT_REWARD = {"step", "prompt", "completion", "advantage", "advantages", "task_id", "image", "images"}
_MISSING = object()


@dataclass
class RawSample:
    """One completion as read from a foreign file, before it is matched to a task."""

    where: str  # file:line
    text: str
    task_id: str | None = None
    prompt: str | None = None
    model: str | None = None
    reference: str | None = None
    reward: float | None = None
    step: int | None = None
    finish_reason: str | None = None
    sample_index: int | None = None
    other_prompts: list[str] = field(default_factory=list)  # tried in turn when ``prompt`` matches no task


@dataclass
class ImportResult:
    manifest: Manifest
    samples: list[Sample]
    read: int  # completions read
    by_id: int  # matched by task id
    by_prompt: int  # matched by prompt text
    outside_split: int = 0  # matched a task of another split than --split: left out
    files: list[Path] = field(default_factory=list)

    def summary(self) -> str:
        split = f"; {self.outside_split} of tasks outside --split left out" if self.outside_split else ""
        return (
            f"read {self.read} samples from {len(self.files)} file(s); matched {self.by_id + self.by_prompt} to "
            f"{self.manifest.task_count} tasks of suite {self.manifest.suite!r} ({self.by_id} by task id, "
            f"{self.by_prompt} by prompt text){split}; model {self.manifest.model_name!r}"
        )


# --- reading rows -------------------------------------------------------------------------


def parse_mapping(pairs: Sequence[str]) -> dict[str, str]:
    """``["task_id=id", "text=completion"]`` -> {"task_id": "id", "text": "completion"}."""
    mapping: dict[str, str] = {}
    for pair in pairs or ():
        ours, sep, theirs = pair.partition("=")
        ours, theirs = ours.strip(), theirs.strip()
        if not sep or not ours or not theirs:
            raise InputError(f"--field {pair!r}: expected OURS=THEIRS, e.g. --field text=completion")
        if ours not in OUR_FIELDS:
            raise InputError(f"--field {pair!r}: {ours!r} is not a sample field; one of {', '.join(OUR_FIELDS)}")
        mapping[ours] = theirs
    return mapping


def expand_inputs(paths: Sequence, fmt: str) -> list[Path]:
    """Files to read: a folder stands for its files of the format (verl: ``<step>.jsonl`` in
    step order; lm-eval: ``samples_*.jsonl``; trl: ``completions_*`` and any table file)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            if fmt == "lm-eval":
                found = sorted(p.glob("samples_*.jsonl"))
            elif fmt == "trl":
                found = sorted(
                    f for f in p.iterdir() if f.is_file() and f.suffix in (".jsonl", ".json", ".csv", ".parquet")
                )
            else:
                found = sorted(
                    p.glob("*.jsonl"), key=lambda f: (0, int(f.stem), "") if f.stem.isdigit() else (1, 0, f.name)
                )
            if not found:
                raise InputError(f"{p}: a folder with no {fmt} sample files in it")
            out += found
        elif p.is_file():
            out.append(p)
        else:
            raise InputError(f"{p}: no such file or folder")
    if not out:
        raise InputError("no input files")
    return out


def iter_rows(path: Path) -> Iterator[tuple[str, dict]]:
    """(``file:line``, row) for every row of a JSONL, JSON, CSV or parquet file."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        yield from _parquet_rows(path)
        return
    text = read_text(path)  # the suites' decoding: file, line, byte offset and the fix
    if suffix == ".csv":
        yield from _csv_rows(path, text)
        return
    stripped = text.lstrip()
    if suffix == ".json" or (stripped[:1] == "[") or (stripped[:1] == "{" and _one_document(stripped)):
        yield from _json_rows(path, text)
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{path}:{lineno}: invalid JSON ({exc.msg} at column {exc.colno}); each line must be one JSON object"
            ) from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}:{lineno}: expected a JSON object, found {type(obj).__name__}")
        yield f"{path}:{lineno}", obj


def _one_document(text: str) -> bool:
    """A file that is one JSON object over several lines (a W&B table), not JSONL."""
    first = text.split("\n", 1)[0].strip()
    try:
        json.loads(first)
        return False  # the first line is a whole object: JSONL
    except json.JSONDecodeError:
        return True


def _json_rows(path: Path, text: str) -> Iterator[tuple[str, dict]]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg} at column {exc.colno})") from None
    if isinstance(doc, dict) and isinstance(doc.get("columns"), list) and isinstance(doc.get("data"), list):
        columns = [str(c) for c in doc["columns"]]  # a W&B table: {"columns": [...], "data": [[...], ...]}
        for i, row in enumerate(doc["data"]):
            if not isinstance(row, list) or len(row) != len(columns):
                raise InputError(
                    f"{path}: data row {i}: expected a list of {len(columns)} values ({', '.join(columns)})"
                )
            yield f"{path}:row {i}", dict(zip(columns, row))
        return
    if isinstance(doc, dict):
        for key in ("rows", "samples", "data"):
            if isinstance(doc.get(key), list):
                doc = doc[key]
                break
    if not isinstance(doc, list):
        raise InputError(
            f'{path}: expected a JSON list of rows, a W&B table ({{"columns": [...], "data": [...]}}) or JSONL'
        )
    for i, row in enumerate(doc):
        if not isinstance(row, dict):
            raise InputError(f"{path}: row {i}: expected a JSON object, found {type(row).__name__}")
        yield f"{path}:row {i}", row


def _csv_rows(path: Path, text: str) -> Iterator[tuple[str, dict]]:
    reader = csv.DictReader(text.splitlines(keepends=True))
    try:
        for row in reader:
            # Values stay text (a completion "2107" is text); numbers are parsed where a number is wanted.
            yield f"{path}:{reader.line_num}", {k: (v if v != "" else None) for k, v in row.items() if k is not None}
    except csv.Error as exc:
        raise InputError(f"{path}:{reader.line_num}: invalid CSV ({exc})") from None


def _number(v: Any) -> float | None:
    """A finite number, or a string of one (CSV); None otherwise."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            return None
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None


def _parquet_rows(path: Path) -> Iterator[tuple[str, dict]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            f"{path}: reading parquet needs pyarrow (pip install pyarrow), or export the table as JSONL or CSV"
        ) from None
    try:
        rows = pq.read_table(path).to_pylist()
    except Exception as exc:  # noqa: BLE001 - a damaged file is input, whatever pyarrow raises
        raise InputError(f"{path}: not a readable parquet file ({exc})") from None
    for i, row in enumerate(rows):
        yield f"{path}:row {i}", row


# --- fields --------------------------------------------------------------------------------


def lookup(row: Any, dotted: str) -> Any:
    """``row[dotted]``, or a path through dicts and lists (``doc.question``, ``resps.0.0``)."""
    if isinstance(row, dict) and dotted in row:
        return row[dotted]
    cur = row
    for part in dotted.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.lstrip("-").isdigit() and -len(cur) <= int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return _MISSING
    return cur


def _present(row: dict) -> str:
    keys = list(row)
    more = f", ... ({len(keys)} in all)" if len(keys) > 12 else ""
    return ", ".join(keys[:12]) + more or "none"


def _message_text(value: Any, roles: tuple[str, ...]) -> Any:
    """A chat-format value (a list of {"role", "content"} messages) as text: the contents of
    the messages of these roles, joined; anything else is returned as it is."""
    if isinstance(value, dict) and "content" in value:
        value = [value]
    if isinstance(value, list) and value and all(isinstance(m, dict) and "content" in m for m in value):
        picked = [m for m in value if m.get("role") in roles] or value
        parts = [m["content"] if isinstance(m["content"], str) else _content_text(m["content"]) for m in picked]
        return "\n".join(parts)
    return value


def _content_text(content: Any) -> str:
    if isinstance(content, list):  # [{"type": "text", "text": "..."}]
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def _as_str(where: str, ours: str, theirs: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], (str, int, float)):
        return str(value[0])  # verl's gts and lm-eval's target are sometimes one-element lists
    raise InputError(f"{where}: field {theirs!r} ({ours}) is {article(type(value).__name__)}, expected text")


def _as_float(where: str, theirs: str, value: Any) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return float(value)
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: field {theirs!r} (reward) is {value!r}, expected a number") from None
    return x if math.isfinite(x) else None


def _as_int(where: str, ours: str, theirs: str, value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        x = float(value)
        if x != int(x) or isinstance(value, bool):
            raise ValueError
        return int(x)
    except (TypeError, ValueError):
        raise InputError(f"{where}: field {theirs!r} ({ours}) is {value!r}, expected an integer") from None


def _texts(where: str, theirs: str, value: Any) -> list[str]:
    """The completion(s) of one row: a string, a chat message list, or a list of strings
    (lm-eval's ``resps``: a list of lists, one string per sample)."""
    value = _message_text(value, ("assistant",))
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        flat: list = []
        for item in value:
            item = _message_text(item, ("assistant",))
            if isinstance(item, list):
                flat += [_message_text(x, ("assistant",)) for x in item]
            else:
                flat.append(item)
        if flat and all(isinstance(x, str) for x in flat):
            return flat
        if not flat:
            raise InputError(f"{where}: field {theirs!r} (text) is an empty list: no completion")
        bad = next(x for x in flat if not isinstance(x, str))
        hint = (
            " (lm-eval loglikelihood tasks, e.g. multiple choice, record log-likelihoods, not generated text; "
            "only generate_until tasks can be imported)"
            if isinstance(bad, (list, tuple, int, float))
            else ""
        )
        raise InputError(f"{where}: field {theirs!r} (text) holds {type(bad).__name__} values, expected strings{hint}")
    if value is None:
        raise InputError(f"{where}: field {theirs!r} (text) is null: no completion")
    raise InputError(f"{where}: field {theirs!r} (text) is {article(type(value).__name__)}, expected text")


def _pick(row: dict, ours: str, fmt: str, mapping: dict[str, str]) -> tuple[str | None, Any]:
    """(the field's name in the row, its value); (None, _MISSING) when absent. A mapped field
    that is absent is an error for the caller to raise (it knows the line)."""
    if ours in mapping:
        return mapping[ours], lookup(row, mapping[ours])
    for theirs in DEFAULTS[fmt].get(ours, ()):
        value = lookup(row, theirs)
        if value is not _MISSING:
            return theirs, value
    return None, _MISSING


def raw_samples(where: str, row: dict, fmt: str, mapping: dict[str, str]) -> list[RawSample]:
    """The completion(s) of one row (lm-eval rows hold several)."""
    for ours, theirs in mapping.items():
        if lookup(row, theirs) is _MISSING:
            raise InputError(
                f"{where}: no field {theirs!r} (mapped to {ours!r} by --field); fields present: {_present(row)}"
            )
    name, value = _pick(row, "text", fmt, mapping)
    if name is None:
        wanted = " or ".join(repr(t) for t in DEFAULTS[fmt]["text"])
        raise InputError(
            f"{where}: missing field {wanted} (the completion); fields present: {_present(row)}. "
            "Name yours with --field text=COLUMN"
        )
    texts = _texts(where, name, value)

    got: dict[str, Any] = {}
    for ours in ("task_id", "prompt", "model", "reference", "reward", "step", "finish_reason", "sample_index"):
        theirs, v = _pick(row, ours, fmt, mapping)
        if theirs is None or v is None:
            continue
        if ours == "prompt":
            v = _message_text(v, ("user",))
            got[ours] = _as_str(where, ours, theirs, v)
        elif ours == "reward":
            got[ours] = _as_float(where, theirs, v)
        elif ours in ("step", "sample_index"):
            got[ours] = _as_int(where, ours, theirs, v)
        elif ours == "finish_reason":
            got[ours] = _as_str(where, ours, theirs, v)
            if got[ours] not in ("stop", "length"):
                raise InputError(f"{where}: field {theirs!r} (finish_reason) is {v!r}; expected 'stop' or 'length'")
        else:
            got[ours] = _as_str(where, ours, theirs, v)
    if fmt == "trl" and got.get("reward") is None and "reward" not in mapping:
        # TRL names one column per reward function; the trainer sums them (weights 1 by default).
        rewards = [x for k, v in row.items() if k not in _TRL_NOT_REWARD and (x := _number(v)) is not None]
        if rewards:
            got["reward"] = float(sum(rewards))
    others: list[str] = []
    if fmt == "lm-eval" and "prompt" not in mapping:
        args = lookup(
            row, "arguments"
        )  # the prompt as sent: {"gen_args_0": {"arg_0": PROMPT, ...}} or [[PROMPT, {...}]]
        first = (
            next(iter(args.values()), None)
            if isinstance(args, dict)
            else (args[0] if isinstance(args, list) and args else None)
        )
        prompt = (
            lookup(first, "arg_0")
            if isinstance(first, dict)
            else (first[0] if isinstance(first, list) and first else _MISSING)
        )
        if isinstance(prompt, str):
            if got.get("prompt") is None:
                got["prompt"] = prompt
            else:
                others.append(prompt)  # the doc's question first, the whole prompt sent when that matches nothing
    if fmt == "lm-eval" and "reward" not in got:
        metrics = row.get("metrics")  # the harness's own score of the row, e.g. exact_match
        if isinstance(metrics, list) and metrics and isinstance(row.get(metrics[0]), (int, float)):
            got["reward"] = float(row[metrics[0]])
    if got.get("task_id") is None and got.get("prompt") is None:
        wanted = " or ".join(repr(t) for t in DEFAULTS[fmt]["task_id"] + DEFAULTS[fmt]["prompt"])
        raise InputError(
            f"{where}: missing field {wanted}: no task id and no prompt to match the sample to a task; "
            f"fields present: {_present(row)}. Name one with --field task_id=COLUMN or "
            "--field prompt=COLUMN"
        )
    if len(texts) > 1 and got.get("sample_index") is not None:
        raise InputError(f"{where}: a sample_index for a row with {len(texts)} completions")
    return [RawSample(where=where, text=t, other_prompts=others, **got) for t in texts]


def read_raw(paths: Sequence[Path], fmt: str, mapping: dict[str, str]) -> list[RawSample]:
    if fmt not in IMPORT_FORMATS:
        raise InputError(f"--format {fmt!r}: one of {', '.join(IMPORT_FORMATS)}")
    out: list[RawSample] = []
    for path in paths:
        n = len(out)
        for where, row in iter_rows(path):
            out += raw_samples(where, row, fmt, mapping)
        if len(out) == n:
            raise InputError(f"{path}: no samples in it")
    return out


# --- matching --------------------------------------------------------------------------------


def _norm(text: str) -> str:
    return " ".join(text.split())


class TaskMatcher:
    """Finds the task of a sample: by id, else by prompt text. A prompt matches a task when,
    whitespace collapsed, it equals the task's prompt, or contains it (a chat template or an
    instruction around it); of several contained, the one that ends last (the question of a
    few-shot prompt comes after its examples), then the longest."""

    MIN_CONTAINED = 8  # a task prompt shorter than this is matched only by equality

    def __init__(self, tasks: Sequence[Task]):
        self.by_id = {t.id: t for t in tasks}
        self.by_prompt: dict[str, list[Task]] = {}
        for t in tasks:
            self.by_prompt.setdefault(_norm(t.prompt), []).append(t)
        self._cache: dict[str, tuple[Task | None, str]] = {}

    def match(self, raw: RawSample) -> tuple[Task | None, str]:
        """(task, "id" | "prompt") or (None, why not)."""
        if raw.task_id is not None and raw.task_id in self.by_id:
            return self.by_id[raw.task_id], "id"
        if raw.prompt is None:
            return None, f"task id {raw.task_id!r} is not in the suite and there is no prompt"
        why = ""
        for prompt in [raw.prompt] + raw.other_prompts:
            key = _norm(prompt)
            if key not in self._cache:
                self._cache[key] = self._by_prompt(key)
            task, found = self._cache[key]
            if task is not None:
                return task, found
            why = why or found  # the first prompt's reason
        if raw.task_id is not None:
            why = f"task id {raw.task_id!r} is not in the suite, and {why}"
        return None, why

    def _by_prompt(self, key: str) -> tuple[Task | None, str]:
        exact = self.by_prompt.get(key)
        if exact:
            if len(exact) > 1:
                return None, f"its prompt is the prompt of {len(exact)} tasks ({', '.join(t.id for t in exact[:3])})"
            return exact[0], "prompt"
        best: tuple[int, int] | None = None
        found: list[Task] = []
        for prompt, tasks in self.by_prompt.items():
            if len(prompt) < self.MIN_CONTAINED or len(prompt) > len(key):
                continue
            at = key.rfind(prompt)
            if at < 0:
                continue
            rank = (at + len(prompt), len(prompt))
            if best is None or rank > best:
                best, found = rank, tasks
        if not found:
            return None, "no task's prompt is in its prompt"
        if len(found) > 1:
            return None, f"its prompt holds the prompt of {len(found)} tasks ({', '.join(t.id for t in found[:3])})"
        return found[0], "prompt"


# --- the import --------------------------------------------------------------------------------


def default_model_name(paths: Sequence[Path], fmt: str) -> str:
    """lm-eval writes under ``<output_path>/<model name>/``; verl's files are named by step,
    so their folder names the run; TRL's ``completions/`` sits in the trainer's output_dir."""
    p = Path(paths[0])
    if fmt == "lm-eval" or (fmt == "verl" and p.stem.isdigit()):
        return p.resolve().parent.name or p.stem
    if fmt == "trl" and p.resolve().parent.name == "completions":
        return p.resolve().parent.parent.name or p.stem
    return p.stem


def _tasks_hash(tasks: Sequence[Task]) -> str:
    payload = json.dumps([[t.id, t.prompt] for t in tasks], ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def import_samples(
    inputs: Sequence,
    fmt: str,
    tasks: Sequence[Task],
    *,
    suite_name: str,
    suite_hash: str = "",
    mapping: dict[str, str] | None = None,
    model: str | None = None,
    split: str | None = None,
    role: str | None = None,
) -> ImportResult:
    """Read ``inputs`` (files or folders) of format ``fmt`` and match every completion to one of
    ``tasks`` (the whole suite: ``split`` then keeps the samples of that split's tasks). A
    sample that matches no task is an error listing the first few."""
    mapping = dict(mapping or {})
    files = expand_inputs(inputs, fmt)
    raws = read_raw(files, fmt, mapping)
    matcher = TaskMatcher(tasks)
    matched: list[tuple[RawSample, Task, str]] = []
    unmatched: list[tuple[RawSample, str]] = []
    for raw in raws:
        task, how = matcher.match(raw)
        if task is None:
            unmatched.append((raw, how))
        else:
            matched.append((raw, task, how))
    if unmatched:
        shown = "; ".join(
            f"{r.where}: {why}" + (f" (prompt {_clip(r.prompt)})" if r.prompt else "") for r, why in unmatched[:5]
        )
        more = f"; and {len(unmatched) - 5} more" if len(unmatched) > 5 else ""
        raise InputError(
            f"{len(unmatched)} of {len(raws)} samples match no task of suite {suite_name!r}: {shown}{more}. "
            "Check --suite, or name the task id with --field task_id=COLUMN (or the prompt with "
            "--field prompt=COLUMN)"
        )
    outside = 0
    if split is not None:
        kept = [m for m in matched if m[1].split == split]
        outside = len(matched) - len(kept)
        if not kept:
            raise InputError(f"none of the {len(matched)} samples is of a task of split {split!r}")
        matched = kept

    name = model or _common_model(raws) or default_model_name(files, fmt)
    order = {t.id: i for i, t in enumerate(tasks)}
    next_index: Counter = Counter()  # per task: a samples file has one (task id, sample index) pair per sample
    taken: dict[tuple[str, int], str] = {}
    samples: list[Sample] = []
    for raw, task, _ in matched:
        sample_model = model or raw.model or name
        index = raw.sample_index if raw.sample_index is not None else next_index[task.id]
        if (task.id, index) in taken:
            raise InputError(
                f"{raw.where}: sample #{index} of task {task.id!r} again (first at "
                f"{taken[(task.id, index)]}); leave sample_index out to number the samples in order"
            )
        taken[(task.id, index)] = raw.where
        next_index[task.id] = max(next_index[task.id], index + 1)
        samples.append(
            Sample(
                task_id=task.id,
                sample_index=index,
                split=task.split,
                model=sample_model,
                prompt=raw.prompt if raw.prompt is not None else task.prompt,
                text=raw.text,
                finish_reason=raw.finish_reason,
                source_reward=raw.reward,
                source_reference=raw.reference,
                step=raw.step,
                source=raw.where,
            )
        )
    used = sorted({s.task_id for s in samples}, key=order.__getitem__)
    by_id = {t.id: t for t in tasks}
    manifest = Manifest(
        model=", ".join(str(f) for f in files) if len(files) <= 3 else f"{files[0]} ... ({len(files)} files)",
        model_name=name,
        backend=fmt,
        suite=suite_name,
        suite_hash=suite_hash,
        task_count=len(used),
        tasks_hash=_tasks_hash([by_id[t] for t in used]),
        tool_version=__version__,
        source=f"import:{fmt}",
        source_files=[str(f) for f in files],
        role=role,
        field_mapping=mapping,
    )
    return ImportResult(
        manifest=manifest,
        samples=samples,
        read=len(raws),
        by_id=sum(1 for m in matched if m[2] == "id"),
        by_prompt=sum(1 for m in matched if m[2] == "prompt"),
        outside_split=outside,
        files=files,
    )


def _common_model(raws: Sequence[RawSample]) -> str | None:
    names = {r.model for r in raws if r.model}
    return next(iter(names)) if len(names) == 1 else None


def _clip(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")


def write_samples(path, manifest: Manifest, samples: Sequence[Sample]) -> Path:
    """Write a samples file (manifest line, then one line per sample) atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(manifest_line(manifest) + "\n")
        for s in samples:
            fh.write(sample_line(s) + "\n")
    tmp.replace(path)
    return path


def sanitize(name: str) -> str:
    """A model or split name as one dotted-category component: [A-Za-z0-9_-] only."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_") or "unnamed"
