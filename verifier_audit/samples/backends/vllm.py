"""vLLM offline-engine backend (GPU only): ``LLM.generate`` with one ``SamplingParams`` per sample.

Each sample is an engine request of its own: the prompt's token ids (tokenized here with
the model's Hugging Face tokenizer, exactly as the ``hf`` backend does, so vLLM adds no
second BOS to a chat prompt) and ``SamplingParams(n=1, temperature, top_p, max_tokens,
logprobs=K, seed=backends.request_seed(seed, task, index))``. A per-request seed gives a
sample its own generator in vLLM, so its draws do not depend on the batch; vLLM's kernels
may still (batch composition changes the arithmetic: docs/samples-backends.md). Repeated
prompts cost one prefill with vLLM's prefix cache.

Log-probabilities: the engine is built with ``logprobs_mode="raw_logprobs"`` or
``"processed_logprobs"`` as the run asks (vLLM >= 0.10.2; raw is vLLM's default): raw is
the model's distribution, processed the one sampled from (after temperature and top-p).
vLLM returns the K best and the sampled token; ``convert_output`` keeps the K best by rank
(by value when a server gives no rank) and drops ``-inf`` entries.

vllm is imported lazily: this module imports without it; the registry reports "vllm is not
installed" before anything is constructed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ...errors import InputError
from . import Generation, Prompt, SampleRequest, request_seed

LOGPROB_DIGITS = 6


def _round(x: float) -> float:
    return round(min(float(x), 0.0), LOGPROB_DIGITS) + 0.0


def _value(entry: Any) -> float:
    """A vLLM ``Logprob`` (``.logprob``) or a bare float."""
    return float(getattr(entry, "logprob", entry))


def convert_completion(completion: Any, k: int) -> Generation:
    """One vLLM ``CompletionOutput`` (``text``, ``token_ids``, ``logprobs``: per position a
    mapping token id -> ``Logprob(logprob, rank, decoded_token)``, ``finish_reason``) as a
    ``Generation``."""
    ids = [int(t) for t in completion.token_ids]
    finish = completion.finish_reason
    if finish not in ("stop", "length"):
        raise InputError(f"vLLM finished a sample with finish_reason {finish!r} (expected 'stop' or 'length')")
    positions = completion.logprobs
    if positions is None:
        raise InputError("vLLM returned no logprobs (SamplingParams.logprobs was not set?)")
    positions = list(positions)
    if len(positions) != len(ids):
        raise InputError(f"vLLM returned {len(ids)} tokens but {len(positions)} logprob entries")
    logprobs: list[float] = []
    top: list[dict[int, float]] = []
    for tid, pos in zip(ids, positions):
        entries = {int(t): e for t, e in dict(pos).items()}
        if tid not in entries or not math.isfinite(_value(entries[tid])):
            raise InputError(f"vLLM returned no finite logprob for the sampled token {tid}")
        logprobs.append(_round(_value(entries[tid])))
        if k:
            ranked = [(t, e) for t, e in entries.items() if math.isfinite(_value(e))]
            if all(getattr(e, "rank", None) is not None for _, e in ranked):
                # the sampled token is there even when it is not among the K best: its rank says so
                ranked = sorted((te for te in ranked if te[1].rank <= k), key=lambda te: te[1].rank)
            else:
                ranked = sorted(ranked, key=lambda te: -_value(te[1]))
            top.append({t: _round(_value(e)) for t, e in ranked[:k]})
    return Generation(ids, logprobs, top, finish, text=str(completion.text))


def convert_output(output: Any, k: int) -> list[Generation]:
    """A vLLM ``RequestOutput`` (its ``outputs``, ordered by ``index``) as generations."""
    return [convert_completion(c, k) for c in sorted(output.outputs, key=lambda c: c.index)]


class VLLMBackend:
    name = "vllm"

    def __init__(self, model_path, *, dtype: str | None = None, engine_options: dict | None = None):
        import transformers
        import vllm

        self._vllm = vllm
        self.path = Path(model_path)
        if not self.path.is_dir() or not (self.path / "config.json").is_file():
            raise InputError(
                f"--model {model_path}: not a local Hugging Face model directory (config.json, weights, tokenizer)"
            )
        self.model_dir = self.path
        self.model_id = str(self.path)
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(self.path), local_files_only=True)
        except (OSError, ValueError) as exc:
            raise InputError(f"--model {model_path}: cannot load its tokenizer: {exc}") from None
        self.dtype_name = dtype or "auto"
        self.device = "cuda"
        self.engine_options = dict(engine_options or {})
        self.versions = {"vllm": str(getattr(vllm, "__version__", "?")), "transformers": transformers.__version__}
        try:
            import torch

            self.versions["torch"] = torch.__version__
        except ImportError:  # pragma: no cover - vllm needs torch
            pass
        self._llm = None
        self._mode: str | None = None
        self._max_k = 0

    def encode(self, text: str, *, add_special_tokens: bool) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"])

    def text_of(self, gen: Generation) -> str:
        return gen.text or ""

    def _engine(self, logprobs_kind: str, k: int):
        mode = f"{logprobs_kind}_logprobs"
        if self._llm is not None:
            if mode != self._mode or k > self._max_k:
                raise InputError(
                    f"this vLLM engine was built for {self._mode} and K <= {self._max_k}; "
                    f"a run with {mode}, K={k} needs a new process"
                )
            return self._llm
        options = {
            "model": str(self.path),
            "tokenizer": str(self.path),
            "dtype": self.dtype_name,
            "seed": 0,
            "logprobs_mode": mode,
            "max_logprobs": max(20, k),
            **self.engine_options,
        }
        try:
            self._llm = self._vllm.LLM(**options)
        except TypeError as exc:
            if "logprobs_mode" in str(exc):
                raise InputError(
                    f"vllm {self.versions['vllm']} has no logprobs_mode (raw or processed "
                    "logprobs cannot be chosen): install vllm >= 0.10.2"
                ) from None
            raise
        self._mode, self._max_k = mode, max(20, k)
        return self._llm

    def prepare(
        self, prompt: Prompt, *, temperature: float, top_p: float, top_k_logprobs: int, logprobs_kind: str, seed: int
    ) -> None:
        """Build the engine now (minutes on a big model), so that a refusal comes before the file."""
        self._engine(logprobs_kind, top_k_logprobs)

    def sampling_params(
        self,
        requests: Iterable[SampleRequest],
        *,
        seed: int,
        temperature: float,
        top_p: float,
        max_tokens: int,
        top_k_logprobs: int,
    ) -> list:
        sp = self._vllm.SamplingParams
        return [
            sp(
                n=1,
                temperature=temperature,
                top_p=top_p,
                max_tokens=max_tokens,
                logprobs=top_k_logprobs,
                seed=request_seed(seed, r.task_id, r.sample_index),
            )
            for r in requests
        ]

    def sample(
        self,
        requests: Sequence[SampleRequest],
        *,
        seed: int,
        temperature: float,
        top_p: float,
        max_tokens: int,
        top_k_logprobs: int,
        logprobs_kind: str,
    ) -> list[Generation]:
        llm = self._engine(logprobs_kind, top_k_logprobs)
        prompts = [{"prompt_token_ids": list(r.prompt.token_ids or ())} for r in requests]
        params = self.sampling_params(
            requests,
            seed=seed,
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            top_k_logprobs=top_k_logprobs,
        )
        outputs = llm.generate(prompts, params, use_tqdm=False)
        gens = []
        for out in outputs:
            converted = convert_output(out, top_k_logprobs)
            if len(converted) != 1:
                raise InputError(f"vLLM returned {len(converted)} completions for an n=1 request")
            gens.append(converted[0])
        return gens
