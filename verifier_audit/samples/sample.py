"""Sample a model on tasks and write a samples file, resumably.

The work is a fixed plan: every (task, sample index) pair in order (task by task, index
0..n-1), cut into consecutive batches of ``batch_size``. Each batch's lines are written
in plan order with one write and a flush once the batch is done. On restart the file is
read back: its manifest must equal this run's, complete lines are kept, an incomplete
last line (the write a kill interrupted) is cut off, and every batch that still misses a
pair is sampled again *whole*, with the same composition as before, and only its missing
lines are written. Since a sample's random draws are keyed by (seed, task id, sample
index) and its batch is the same, kill + resume writes the same bytes as an uninterrupted
run (same machine and library versions; docs/samples.md says what may differ elsewhere).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from .._version import __version__
from ..errors import InputError
from ..models import Task
from .records import (
    Manifest,
    SamplingParams,
    manifest_differences,
    manifest_line,
    parse_manifest,
    parse_sample,
)
from .templates import render, template_text

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf")


@dataclass
class SampleRun:
    path: Path
    total: int  # samples in the plan
    kept: int  # found in the file from an earlier run
    written: int  # sampled by this run
    dropped_torn_line: bool = False


def model_fingerprint(path) -> str:
    """sha256 of config.json and of the weight files' names and sizes: cheap (no hashing of
    gigabytes), and it changes when the checkpoint is replaced by another of another size."""
    path = Path(path)
    h = hashlib.sha256()
    config = path / "config.json"
    h.update(config.read_bytes() if config.is_file() else b"")
    for f in sorted(path.iterdir()) if path.is_dir() else []:
        if f.is_file() and f.name.endswith(WEIGHT_SUFFIXES):
            h.update(f"{f.name}\0{f.stat().st_size}\0".encode())
    return h.hexdigest()[:16]


def tasks_hash(tasks: Sequence[Task]) -> str:
    payload = json.dumps([[t.id, t.prompt] for t in tasks], ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _sample_line(task: Task, index: int, model_name: str, prompt: str, text: str, gen, kind: str) -> str:
    row = {
        "task_id": task.id,
        "sample_index": index,
        "split": task.split,
        "model": model_name,
        "prompt": prompt,
        "text": text,
        "token_ids": gen.token_ids,
        "logprobs": gen.logprobs,
        "top_logprobs": gen.top_logprobs,
        "logprobs_kind": kind,
        "finish_reason": gen.finish_reason,
    }
    return json.dumps(row, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def _scan(out: Path, manifest: Manifest, wanted: set[tuple[str, int]]):
    """(pairs already there, byte length of the part to keep, torn last line dropped?)."""
    done: dict[tuple[str, int], int] = {}
    with out.open("rb") as fh:
        first = fh.readline()
        if not first.endswith(b"\n"):  # killed before the manifest was written whole
            return {}, 0, bool(first)
        old = parse_manifest(out, first.decode("utf-8", errors="replace"))
        diffs = manifest_differences(old, manifest)
        if diffs:
            raise InputError(
                f"{out}: written by a different run ({'; '.join(diffs)}). Use another --out, "
                "or --no-resume to overwrite it"
            )
        keep = len(first)
        lineno = 1
        for raw in fh:
            lineno += 1
            if not raw.endswith(b"\n"):
                return done, keep, True
            line = raw.decode("utf-8", errors="replace")
            if line.strip():
                s = parse_sample(out, lineno, line)
                key = (s.task_id, s.sample_index)
                if key not in wanted:
                    raise InputError(
                        f"{out}:{lineno}: sample {s.task_id!r} #{s.sample_index} is not part of "
                        "this run's tasks and n; use another --out, or --no-resume to overwrite it"
                    )
                if key in done:
                    raise InputError(
                        f"{out}:{lineno}: duplicate sample {s.task_id!r} #{s.sample_index} (first on line {done[key]})"
                    )
                done[key] = lineno
            keep += len(raw)
    return done, keep, False


def sample_suite(
    model_path,
    tasks: Sequence[Task],
    *,
    out_path,
    n: int = 64,
    temperature: float = 0.6,
    top_p: float = 0.95,
    max_tokens: int = 512,
    batch_size: int = 16,
    top_k_logprobs: int = 5,
    logprobs_kind: str = "raw",
    template: str = "plain",
    seed: int = 0,
    backend: str | object = "hf",
    resume: bool = True,
    progress: bool | None = None,
    suite_name: str = "",
    suite_hash: str = "",
    device: str | None = None,
    dtype: str | None = None,
    backend_options: dict | None = None,
) -> SampleRun:
    """Sample ``n`` completions of every task and write them to ``out_path``.

    ``backend``: a name in ``backends.REGISTRY`` (``"hf"``, ``"vllm"``, ``"openai"``) or a
    backend object already made (tests and benchmarks reuse one loaded model);
    ``backend_options``: the named backend's own options (``base_url`` for ``openai``, ...;
    those it does not take are ignored). ``progress``: None shows a bar on stderr when it
    is a terminal.
    """
    from ..engine.progress import Progress
    from .backends import Prompt, SampleRequest, make_backend

    try:
        params = SamplingParams(
            n=n,
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            top_k_logprobs=top_k_logprobs,
            logprobs_kind=logprobs_kind,
            batch_size=batch_size,
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InputError(f"invalid sampling parameters: {problems}") from None
    tasks = list(tasks)
    if not tasks:
        raise InputError("no tasks to sample")
    ids = [t.id for t in tasks]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise InputError(f"duplicate task id {dup!r}: sample pairs are keyed by task id")

    if isinstance(backend, str):
        options = {k: v for k, v in (backend_options or {}).items() if v is not None}
        options.setdefault("device", device)
        options.setdefault("dtype", dtype)
        be = make_backend(backend, model_path, **options)
    else:
        be = backend
    tokenizer = be.tokenizer
    if template == "chat" and tokenizer is None:
        raise InputError(
            f"--template chat: the {be.name} backend has no local tokenizer to apply the chat "
            "template with; give --model the local model directory (or use --template plain)"
        )
    prompts: list[Prompt] = []
    for t in tasks:
        text, special = render(template, tokenizer, t.prompt)
        ids = tuple(be.encode(text, add_special_tokens=special)) if tokenizer is not None else None
        if ids == () or (ids is None and not text):
            raise InputError(f"task {t.id!r}: its prompt encodes to no tokens")
        prompts.append(Prompt(text=text, token_ids=ids, add_special_tokens=special))
    local_dir = getattr(be, "model_dir", None)
    if local_dir is not None:
        model_dir = Path(local_dir).resolve()
        model, model_name, fingerprint = str(model_dir), model_dir.name, model_fingerprint(model_dir)
    else:  # a model known only by its name on a server
        model = str(be.model_id)
        model_name, fingerprint = model.rstrip("/").rsplit("/", 1)[-1] or model, ""
    be.prepare(
        prompts[0],
        temperature=temperature,
        top_p=top_p,
        top_k_logprobs=top_k_logprobs,
        logprobs_kind=logprobs_kind,
        seed=seed,
    )
    manifest = Manifest(
        model=model,
        model_name=model_name,
        model_fingerprint=fingerprint,
        backend=be.name,
        backend_versions=dict(be.versions),
        device=str(be.device),
        dtype=be.dtype_name,
        seed=seed,
        sampling=params,
        template=template,
        template_text=template_text(template, be.tokenizer),
        suite=suite_name,
        suite_hash=suite_hash,
        task_count=len(tasks),
        tasks_hash=tasks_hash(tasks),
        tool_version=__version__,
    )

    out = Path(out_path)
    plan = [(ti, s) for ti in range(len(tasks)) for s in range(n)]
    wanted = {(tasks[ti].id, s) for ti, s in plan}
    done: dict = {}
    torn = False
    if resume and out.is_file() and out.stat().st_size > 0:
        done, keep, torn = _scan(out, manifest, wanted)
        if keep == 0:
            out.write_text(manifest_line(manifest) + "\n", encoding="utf-8")
        elif keep < out.stat().st_size:
            with out.open("r+b") as fh:
                fh.truncate(keep)
        if torn:
            print(f"{out}: dropped an incomplete last line (an interrupted write)", file=sys.stderr)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(manifest_line(manifest) + "\n", encoding="utf-8")

    missing = len(plan) - len(done)
    bar = Progress("sampling", missing, enabled=progress)
    try:
        with out.open("ab") as fh:
            for start in range(0, len(plan), batch_size):
                batch = plan[start : start + batch_size]
                todo = [(ti, s) for ti, s in batch if (tasks[ti].id, s) not in done]
                if not todo:
                    continue
                gens = be.sample(
                    [SampleRequest(prompts[ti], tasks[ti].id, s) for ti, s in batch],
                    seed=seed,
                    temperature=temperature,
                    top_p=top_p,
                    max_tokens=max_tokens,
                    top_k_logprobs=top_k_logprobs,
                    logprobs_kind=logprobs_kind,
                )
                if len(gens) != len(batch):
                    raise RuntimeError(f"backend {be.name} returned {len(gens)} generations for {len(batch)} requests")
                lines = []
                for (ti, s), gen in zip(batch, gens):
                    if (tasks[ti].id, s) in done:
                        continue
                    lines.append(
                        _sample_line(
                            tasks[ti], s, manifest.model_name, prompts[ti].text, be.text_of(gen), gen, logprobs_kind
                        )
                        + "\n"
                    )
                fh.write("".join(lines).encode("utf-8"))
                fh.flush()
                bar.advance(len(todo))
    finally:
        bar.close()
    return SampleRun(path=out, total=len(plan), kept=len(done), written=missing, dropped_torn_line=torn)
