"""The samples file: JSONL, a manifest on the first line, then one sample per line.

    {"manifest": {"format": "verifier-audit-samples", "format_version": 1, "model": ..., ...}}
    {"task_id": "math-0001", "sample_index": 0, "prompt": ..., "text": ..., "token_ids": [...], ...}

Reading validates every line and names ``file:line`` in every error. See docs/samples.md.

Files made by ``verifier-audit import`` (samples another tool wrote: TRL, verl,
lm-eval-harness, generic JSONL; docs/samples-import-score.md) have the same shape with less
in them: the manifest's ``source`` is ``import:<format>`` and it has no sampling parameters,
seed, template or model fingerprint; their samples have no token ids or logprobs (empty
lists, no ``logprobs_kind``) and may carry what the source recorded (``source_reward``,
``source_reference``, ``step``) and where (``source``: ``file:line``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from ..errors import InputError

FORMAT = "verifier-audit-samples"
FORMAT_VERSION = 1

LogprobsKind = Literal["raw", "processed"]
FinishReason = Literal["stop", "length"]
Role = Literal["base", "rl"]
SAMPLED = "sampled"  # Manifest.source of files written by ``verifier-audit sample``
IMPORT_FORMATS = ("trl", "verl", "lm-eval", "jsonl")
# Fields that ``sample`` never writes; left out of its manifest line so its bytes stay as they were.
_IMPORT_ONLY = ("source", "source_files", "role", "field_mapping")


class SamplingParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n: int = Field(ge=1)
    temperature: float = Field(ge=0)
    top_p: float = Field(gt=0, le=1)
    max_tokens: int = Field(ge=1)
    top_k_logprobs: int = Field(ge=0)
    logprobs_kind: LogprobsKind = "raw"
    batch_size: int = Field(ge=1)  # part of what makes the bytes reproducible (docs/samples.md)


class Manifest(BaseModel):
    """What produced the samples: enough to reproduce them, and to refuse to mix runs.

    ``source`` "sampled" (``verifier-audit sample``): every field is required.
    ``source`` "import:<format>": the sampling fields (fingerprint, seed, sampling, template,
    tasks hash) are unknown and may be None."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["verifier-audit-samples"] = FORMAT
    format_version: int = FORMAT_VERSION
    model: str  # the model directory, resolved (imports: the file(s) read)
    model_name: str  # its last path component (imports: --model or derived)
    model_fingerprint: str | None = None  # sha256 of config.json and the weight files' names and sizes
    backend: str = ""
    backend_versions: dict[str, str] = Field(default_factory=dict)  # torch, transformers, ...
    device: str = ""
    dtype: str = ""
    seed: int | None = None
    sampling: SamplingParams | None = None
    template: str | None = None  # "plain" | "chat"
    template_text: str | None = None
    suite: str
    suite_hash: str = ""
    task_count: int
    tasks_hash: str | None = None  # sha256 of the selected tasks' ids and prompts, in order
    tool_version: str
    # Imports (and optional elsewhere):
    source: str = SAMPLED  # "sampled" | "import:trl" | "import:verl" | "import:lm-eval" | "import:jsonl"
    source_files: list[str] = Field(default_factory=list)  # the files an import read
    role: Role | None = None  # "base" or "rl": how ``score`` compares models
    field_mapping: dict[str, str] = Field(default_factory=dict)  # --field of an import

    @field_validator("source")
    @classmethod
    def _known_source(cls, v: str) -> str:
        if v != SAMPLED and v not in {f"import:{f}" for f in IMPORT_FORMATS}:
            allowed = ", ".join([SAMPLED] + [f"import:{f}" for f in IMPORT_FORMATS])
            raise ValueError(f"unknown source {v!r}; one of {allowed}")
        return v

    @model_validator(mode="after")
    def _sampled_is_complete(self) -> Manifest:
        if self.source == SAMPLED:
            missing = [
                k
                for k in ("model_fingerprint", "seed", "sampling", "template", "template_text", "tasks_hash")
                if getattr(self, k) is None
            ]
            if missing:
                raise ValueError(
                    f"a sampled file's manifest needs {', '.join(missing)} "
                    "(only imported files, source import:<format>, may leave them out)"
                )
        return self

    @property
    def imported(self) -> bool:
        return self.source != SAMPLED


class Sample(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_id: str
    sample_index: int = Field(ge=0)
    split: str = "train"
    model: str
    prompt: str  # as given to the model, after the template
    text: str  # the completion, without the stop token
    # The sampled tokens, the stop token included when finish_reason is "stop"; [] in imports.
    token_ids: list[int] = Field(default_factory=list)
    logprobs: list[float] = Field(default_factory=list)  # of each sampled token, under logprobs_kind; [] in imports
    top_logprobs: list[dict[int, float]] = Field(default_factory=list)  # per token, K best; [] when K = 0
    logprobs_kind: LogprobsKind | None = None  # always set by ``sample``; None in imports
    finish_reason: FinishReason | None = None  # always set by ``sample``; None when an import does not know
    # The same tokens scored by a reference (base) model by teacher forcing
    # (``verifier-audit logprobs``): its raw logprob of each sampled token, for KL estimates.
    ref_logprobs: list[float] | None = None
    ref_model: str | None = None
    # Imports: what the source recorded, for reference (never used as a label).
    source_reward: float | None = None  # the reward/score the training tool gave it
    source_reference: str | None = None  # the reference the source recorded (verl gts, lm-eval target)
    step: int | None = None  # the training step (TRL, verl)
    source: str | None = None  # "file:line" it was read from

    @field_validator("logprobs")
    @classmethod
    def _finite_nonpositive(cls, v: list[float]) -> list[float]:
        for i, x in enumerate(v):
            if not (x <= 0.0 and x > float("-inf")):
                raise ValueError(f"logprob {i} is {x}: must be finite and <= 0")
        return v

    @model_validator(mode="after")
    def _lengths(self) -> Sample:
        if len(self.logprobs) != len(self.token_ids):
            raise ValueError(f"{len(self.token_ids)} token_ids but {len(self.logprobs)} logprobs")
        if self.ref_logprobs is not None and len(self.ref_logprobs) != len(self.token_ids):
            raise ValueError(f"{len(self.token_ids)} token_ids but {len(self.ref_logprobs)} ref_logprobs")
        if self.top_logprobs and len(self.top_logprobs) != len(self.token_ids):
            raise ValueError(f"{len(self.token_ids)} token_ids but {len(self.top_logprobs)} top_logprobs entries")
        return self


def dumps(obj: BaseModel) -> str:
    """One line of the file (no newline): compact, ASCII, keys in field order."""
    return json.dumps(obj.model_dump(mode="json"), ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def sample_line(sample: Sample) -> str:
    """One sample line (no newline) as an import writes it: fields that are None left out."""
    return json.dumps(
        sample.model_dump(mode="json", exclude_none=True), ensure_ascii=True, separators=(",", ":"), allow_nan=False
    )


def manifest_line(manifest: Manifest) -> str:
    data = manifest.model_dump(mode="json", exclude_none=manifest.imported)  # an import: what it does not know left out
    if not manifest.imported:  # ``sample``'s manifest line, exactly as before imports existed
        for key in _IMPORT_ONLY:
            if key == "source" or not data[key]:
                data.pop(key)
    return json.dumps({"manifest": data}, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}" for e in exc.errors())


def parse_manifest(path: Path, line: str) -> Manifest:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}:1: invalid JSON ({exc.msg} at column {exc.colno}); "
            "the first line of a samples file is its manifest"
        ) from None
    if not isinstance(obj, dict) or "manifest" not in obj:
        raise InputError(f'{path}:1: not a samples file: the first line must be {{"manifest": ...}}')
    try:
        return Manifest.model_validate(obj["manifest"])
    except ValidationError as exc:
        raise InputError(f"{path}:1: invalid manifest ({_problems(exc)})") from None


def parse_sample(path: Path, lineno: int, line: str) -> Sample:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{lineno}: invalid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise InputError(f"{path}:{lineno}: expected a JSON object, found {type(obj).__name__}")
    try:
        return Sample.model_validate(obj)
    except ValidationError as exc:
        raise InputError(f"{path}:{lineno}: invalid sample ({_problems(exc)})") from None


def iter_sample_lines(path, *, digest=None) -> Iterator[tuple[int, str]]:
    """(line number, decoded text) of every sample line, not parsed; the manifest line is
    checked, not yielded. ``digest`` (a hashlib object): fed every byte of the file, in order,
    as it is read (``score`` hashes the file in the same pass that reads it)."""
    path = Path(path)
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    with fh:
        first = True
        for lineno, raw in enumerate(fh, 1):
            if not raw.endswith(b"\n"):
                raise InputError(
                    f"{path}:{lineno}: incomplete last line (the run was interrupted); "
                    "run the same `verifier-audit sample` command again to resume it"
                )
            if digest is not None:
                digest.update(raw)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(f"{path}:{lineno}: not UTF-8") from None
            if first:
                parse_manifest(path, line)
                first = False
                continue
            if not line.strip():
                continue
            yield lineno, line
        if first:
            raise InputError(f"{path}: empty; a samples file starts with its manifest line")


def iter_samples(path, *, digest=None) -> Iterator[tuple[int, Sample]]:
    """(line number, sample) for every sample line; the manifest is checked, not yielded."""
    path = Path(path)
    for lineno, line in iter_sample_lines(path, digest=digest):
        yield lineno, parse_sample(path, lineno, line)


def read_manifest(path) -> Manifest:
    path = Path(path)
    try:
        with path.open("rb") as fh:
            first = fh.readline()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    if not first.endswith(b"\n"):
        raise InputError(f"{path}:1: missing or incomplete manifest line")
    return parse_manifest(path, first.decode("utf-8", errors="replace"))


class SamplesFile(BaseModel):
    manifest: Manifest
    samples: list[Sample]


class SampleChecks:
    """What ``read_samples`` checks of each sample beyond its own line, one sample at a time
    (``score`` streams files through it): no duplicate (task, sample index), and consistency
    with the manifest (logprobs kind, n, finish reason). The sample indices seen are kept as
    one bit each per task (a set past ``_BITMAP_LIMIT``), not one entry per sample; the line
    of a duplicate's first occurrence is found again by reading the file when one is met."""

    _BITMAP_LIMIT = 1 << 22

    def __init__(self, path: Path, manifest: Manifest):
        self.path, self.manifest = Path(path), manifest
        self._bits: dict[str, bytearray] = {}
        self._far: dict[str, set[int]] = {}

    def _seen(self, task_id: str, index: int) -> bool:
        """Whether (task, index) was seen before; records it."""
        if index >= self._BITMAP_LIMIT:
            far = self._far.setdefault(task_id, set())
            if index in far:
                return True
            far.add(index)
            return False
        bits = self._bits.get(task_id)
        if bits is None:
            bits = self._bits[task_id] = bytearray()
        byte, bit = divmod(index, 8)
        if byte >= len(bits):
            bits.extend(bytes(max(byte + 1 - len(bits), len(bits))))
        if bits[byte] >> bit & 1:
            return True
        bits[byte] |= 1 << bit
        return False

    def _first_line(self, task_id: str, index: int) -> int:
        for lineno, s in iter_samples(self.path):
            if s.task_id == task_id and s.sample_index == index:
                return lineno
        return 0  # not reached: the file holds it

    def check(self, lineno: int, s: Sample) -> None:
        path, manifest = self.path, self.manifest
        if self._seen(s.task_id, s.sample_index):
            raise InputError(
                f"{path}:{lineno}: duplicate sample {s.task_id!r} #{s.sample_index} "
                f"(first on line {self._first_line(s.task_id, s.sample_index)})"
            )
        if manifest.sampling is not None:
            if s.sample_index >= manifest.sampling.n:
                raise InputError(
                    f"{path}:{lineno}: sample_index {s.sample_index} but the manifest says n={manifest.sampling.n}"
                )
            if s.logprobs_kind != manifest.sampling.logprobs_kind:
                raise InputError(
                    f"{path}:{lineno}: logprobs_kind {s.logprobs_kind!r} but the manifest says "
                    f"{manifest.sampling.logprobs_kind!r}"
                )
        if not manifest.imported and s.finish_reason is None:
            raise InputError(f"{path}:{lineno}: invalid sample (finish_reason: Field required)")


def read_samples(path, *, check_complete: bool = False) -> SamplesFile:
    """The whole file, validated: every line, no duplicate (task, sample index), samples
    consistent with the manifest (logprobs kind, n). ``check_complete``: every task of the
    manifest has its n samples (files written by ``sample``; an import has no n)."""
    path = Path(path)
    manifest = read_manifest(path)
    checks = SampleChecks(path, manifest)
    samples = []
    for lineno, s in iter_samples(path):
        checks.check(lineno, s)
        samples.append(s)
    if check_complete and manifest.sampling is not None:  # an import has no n to be complete against
        tasks = {s.task_id for s in samples}
        expected = manifest.task_count * manifest.sampling.n
        if len(samples) != expected or len(tasks) != manifest.task_count:
            raise InputError(
                f"{path}: incomplete: {len(samples)} of {expected} samples "
                f"({manifest.task_count} tasks x n={manifest.sampling.n}); resume the run"
            )
    return SamplesFile(manifest=manifest, samples=samples)


def manifest_differences(old: Manifest, new: Manifest) -> list[str]:
    """Human-readable differences, field by field (sampling parameters one by one)."""
    a, b = old.model_dump(mode="json"), new.model_dump(mode="json")
    out = []
    for key in b:
        if key == "sampling" and isinstance(a.get(key), dict) and isinstance(b[key], dict):
            for sk in b[key]:
                if a[key].get(sk) != b[key][sk]:
                    out.append(f"{sk}: file {a[key].get(sk)!r}, now {b[key][sk]!r}")
        elif a.get(key) != b[key]:
            va, vb = a.get(key), b[key]
            if isinstance(va, str) and len(va) > 60:
                va = va[:57] + "..."
            if isinstance(vb, str) and len(vb) > 60:
                vb = vb[:57] + "..."
            out.append(f"{key}: file {va!r}, now {vb!r}")
    return out
