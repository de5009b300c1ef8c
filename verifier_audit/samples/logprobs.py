"""Teacher forcing: a base model's log-probabilities of sampled tokens (``Sample.ref_logprobs``).

    verifier-audit logprobs --model BASE rl_samples.jsonl [--out PATH]

For every sample, the base model reads the prompt (tokenized as the sampler did: with the
tokenizer's special tokens under the ``plain`` template, without under ``chat``) followed
by the sampled tokens, in one forward pass, and the raw log-probability (log-softmax of the
logits, temperature 1, no nucleus) of each sampled token given everything before it is
written to ``ref_logprobs``, with the base model's name in ``ref_model``. With the samples'
own raw ``logprobs`` these give KL(sampler || base) estimates (``compare``).

Checks before any forward pass: every sample has token ids (samples from a server that did
not return them cannot be scored); the base tokenizer is the sampler's: the same vocabulary
when the sampler's model directory (the manifest's ``model``) is here, and in any case the
sampled ids decode, with the base tokenizer, to the recorded texts (more than half of them
disagreeing is an error, a few a warning: servers detokenize incrementally and can differ
in spacing); every id is inside the base model's vocabulary.

The output is written to ``<out>.partial`` batch by batch (a valid samples file, a prefix of
the result) and renamed onto ``--out`` (default: the input file itself) at the end, so the
result appears atomically and an interrupted run resumes from the partial file. Samples
that already carry ``ref_logprobs`` from the same ``ref_model`` are kept as they are.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .records import Sample, iter_samples, parse_sample, read_manifest

LOGPROB_DIGITS = 6
MISMATCH_LIMIT = 0.5  # more than this fraction of texts that do not round-trip: another tokenizer


@dataclass
class LogprobsRun:
    path: Path
    total: int  # samples in the file
    computed: int  # scored by this run
    kept: int  # already scored by this base model (in the input or in a partial file)
    resumed: int = 0  # of ``kept``, from a partial file of an interrupted run


def _line(sample: Sample) -> bytes:
    """A sample line as ``sample`` writes them (fields in the model's order, None ones left
    out), with the ref fields set."""
    return json.dumps(
        sample.model_dump(mode="json", exclude_none=True), ensure_ascii=True, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def _round(x: float) -> float:
    return round(x, LOGPROB_DIGITS) + 0.0


def _load_lines(path: Path) -> tuple[bytes, list[tuple[int, bytes, Sample]]]:
    """The manifest line and every sample as (line number, raw line, parsed)."""
    parsed = list(iter_samples(path))  # validates the manifest and every line, refuses a torn last one
    raw_lines = path.read_bytes().split(b"\n")
    return raw_lines[0] + b"\n", [(lineno, raw_lines[lineno - 1] + b"\n", s) for lineno, s in parsed]


def check_tokenizer(base, manifest, rows, path: Path) -> None:
    """Refuse a base model whose tokenizer is not the sampler's (module docstring)."""
    sampler_dir = Path(manifest.model)
    if sampler_dir.is_dir() and sampler_dir.resolve() != Path(base.path).resolve():
        try:
            import transformers

            theirs = transformers.AutoTokenizer.from_pretrained(str(sampler_dir), local_files_only=True)
        except (OSError, ValueError):
            theirs = None
        if theirs is not None:
            mine, other = base.tokenizer.get_vocab(), theirs.get_vocab()
            if mine != other:
                only = sorted(set(other) - set(mine))[:3] or sorted(set(mine) - set(other))[:3]
                moved = [t for t in sorted(set(mine) & set(other)) if mine[t] != other[t]][:3]
                raise InputError(
                    f"--model {base.path}: its tokenizer is not the one that made {path} ({sampler_dir}): "
                    f"vocabularies of {len(mine)} and {len(other)} entries"
                    + (f"; e.g. {only!r} only in one" if only else "")
                    + (f"; {moved!r} with other ids" if moved else "")
                    + ". Teacher forcing needs the same token ids: use a base model with the same tokenizer"
                )
    bad = []
    for lineno, _, s in rows:
        ids = s.token_ids[:-1] if s.finish_reason == "stop" else s.token_ids
        if base.decode(ids) != s.text:
            bad.append(lineno)
    if bad and len(bad) > MISMATCH_LIMIT * len(rows):
        raise InputError(
            f"--model {base.path}: its tokenizer decodes the sampled token ids to other texts than "
            f"{path} records in {len(bad)} of {len(rows)} samples (first: line {bad[0]}): not the "
            "sampler's tokenizer"
        )
    if bad:
        print(
            f"verifier-audit: warning: {len(bad)} of {len(rows)} samples' token ids decode to a text other "
            f"than the recorded one with {base.path}'s tokenizer (first: {path}:{bad[0]}); detokenizers can "
            "differ in spacing, the logprobs are computed from the ids",
            file=sys.stderr,
        )


def _resume(partial: Path, first: bytes, rows, ref_name: str) -> int:
    """How many leading samples the partial file already holds (it is cut to them)."""
    if not partial.is_file():
        return 0
    data = partial.read_bytes()
    if not data.startswith(first):
        partial.unlink()
        return 0
    keep, count = len(first), 0
    for raw in data[len(first) :].split(b"\n")[:-1]:  # the piece after the last newline is torn
        if count >= len(rows):
            break
        try:
            s = parse_sample(partial, count + 2, raw.decode("utf-8"))
        except (InputError, UnicodeDecodeError):
            break
        want = rows[count][2]
        if (
            (s.task_id, s.sample_index) != (want.task_id, want.sample_index)
            or s.ref_model != ref_name
            or s.token_ids != want.token_ids
            or s.ref_logprobs is None
        ):
            break
        keep += len(raw) + 1
        count += 1
    with partial.open("r+b") as fh:
        fh.truncate(keep)
    return count


def add_ref_logprobs(
    model_path,
    samples_path,
    *,
    out_path=None,
    batch_size: int = 8,
    device: str | None = None,
    dtype: str | None = None,
    progress: bool | None = None,
    backend=None,
) -> LogprobsRun:
    """Score every sample of ``samples_path`` with the base model at ``model_path`` by teacher
    forcing and write the file with ``ref_logprobs`` and ``ref_model`` to ``out_path``
    (default: in place). ``backend``: an ``HFBackend`` already loaded (tests)."""
    from ..engine.progress import Progress

    path = Path(samples_path)
    out = Path(out_path) if out_path is not None else path
    if batch_size < 1:
        raise InputError(f"--batch-size {batch_size}: must be >= 1")
    manifest = read_manifest(path)
    first, rows = _load_lines(path)
    empty = [(lineno, s) for lineno, _, s in rows if not s.token_ids]
    if empty:
        lineno, s = empty[0]
        why = (
            f"an imported file ({manifest.source}) has no token ids"
            if getattr(manifest, "imported", False)
            else "their sampler did not return token ids"
        )
        raise InputError(
            f"{path}:{lineno}: sample {s.task_id!r} #{s.sample_index} has no token_ids "
            f"({len(empty)} of {len(rows)} samples have none: {why}); teacher forcing needs the "
            "sampled token ids. Sample with a backend that records them (hf, vllm, or a vLLM "
            "server)"
        )
    if backend is None:
        from .backends.hf import HFBackend

        backend = HFBackend(model_path, device=device, dtype=dtype)
    base = backend
    ref_name = Path(base.path).resolve().name
    check_tokenizer(base, manifest, rows, path)
    add_special = manifest.template != "chat"  # as templates.render tokenizes: a chat template has its own

    partial = out.with_name(out.name + ".partial")
    resumed = _resume(partial, first, rows, ref_name)
    if resumed == 0:
        out.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(first)
    if resumed:
        print(f"{partial}: resuming after {resumed} samples scored by an interrupted run", file=sys.stderr)
    todo = {
        i
        for i in range(resumed, len(rows))
        if not (rows[i][2].ref_model == ref_name and rows[i][2].ref_logprobs is not None)
    }
    others = sorted({rows[i][2].ref_model for i in todo if rows[i][2].ref_logprobs is not None} - {None})
    if others:
        print(f"verifier-audit: replacing the ref_logprobs of {', '.join(others)} with {ref_name}'s", file=sys.stderr)
    computed, prompt_cache = 0, {}
    bar = Progress("teacher forcing", len(todo), enabled=progress)
    try:
        with partial.open("ab") as fh:
            for start in range(resumed, len(rows), batch_size):
                chunk = list(range(start, min(start + batch_size, len(rows))))
                need = [i for i in chunk if i in todo]
                scores: dict[int, list[float]] = {}
                if need:
                    prompts = []
                    for i in need:
                        text = rows[i][2].prompt
                        if text not in prompt_cache:
                            prompt_cache[text] = base.encode(text, add_special_tokens=add_special)
                            if not prompt_cache[text]:
                                raise InputError(f"{path}:{rows[i][0]}: the prompt encodes to no tokens")
                        prompts.append(prompt_cache[text])
                    values = base.score(prompts, [rows[i][2].token_ids for i in need])
                    for i, v in zip(need, values):
                        if any(not (x > float("-inf")) for x in v):
                            raise InputError(
                                f"{path}:{rows[i][0]}: the base model gives a sampled token "
                                "probability 0 (logprob -inf)"
                            )
                        scores[i] = [_round(min(x, 0.0)) for x in v]
                parts = []
                for i in chunk:
                    lineno, raw, s = rows[i]
                    if i in scores:
                        scored = s.model_copy(update={"ref_logprobs": scores[i], "ref_model": ref_name})
                        parts.append(_line(scored) + b"\n")
                    else:
                        parts.append(raw)
                fh.write(b"".join(parts))
                fh.flush()
                computed += len(need)
                bar.advance(len(need))
            fh.flush()
            os.fsync(fh.fileno())
    finally:
        bar.close()
    os.replace(partial, out)
    return LogprobsRun(path=out, total=len(rows), computed=computed, kept=len(rows) - computed, resumed=resumed)
