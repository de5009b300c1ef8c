"""Hugging Face transformers backend: our own decoding loop over the model's KV cache.

Why not ``model.generate``: we need, for every sampled token, its log-probability and the
top-K log-probabilities, either under the model's raw distribution or under the
distribution actually sampled from (after temperature and top-p), and random draws keyed
per sample (``seeding``) so that a sample's draws do not depend on its batch.

Per step, for the whole batch at once (no Python loop over rows): raw log-softmax of the
last logits; if ``temperature > 0``, the log-softmax of the logits divided by the
temperature, restricted (when ``top_p < 1``) to the nucleus: the most likely tokens, in a
stable descending sort, until their mass reaches ``top_p``. The token is found by inverse
CDF in vocabulary order: the sample's uniform for this step times the kept mass, searched
in the kept probabilities' cumulative sum (float64). ``temperature == 0`` is greedy. Rows stop
at an end-of-sequence token (``finish_reason`` "stop", the token is kept in ``token_ids``
and out of the text) or at ``max_tokens`` ("length").

Imports only the standard library, torch and transformers (no pydantic), so that
``benchmarks/gpu_sampling.py`` runs where verifier-audit itself is not installed.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence
from pathlib import Path

from ...errors import InputError
from ..seeding import MASK32, sample_key
from . import Generation, Prompt, SampleRequest

LOGPROB_DIGITS = 6  # log-probabilities are written rounded to 1e-6

__all__ = ["HFBackend", "Generation", "Prompt", "SampleRequest"]


def _round(x: float) -> float:
    return round(x, LOGPROB_DIGITS) + 0.0  # + 0.0 turns -0.0 into 0.0


class HFBackend:
    name = "hf"

    def __init__(
        self, model_path, *, device: str | None = None, dtype: str | None = None, stop_token_ids: Iterable[int] = ()
    ):
        import torch
        import transformers

        self._torch = torch
        self.path = Path(model_path)
        self.model_dir = self.path
        self.model_id = str(self.path)
        if not self.path.is_dir():
            raise InputError(
                f"--model {model_path}: no such directory (a local model directory with "
                "config.json, the weights and the tokenizer files)"
            )
        if not (self.path / "config.json").is_file():
            raise InputError(f"--model {model_path}: no config.json there; not a Hugging Face model directory")
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        try:
            self.device = torch.device(device)
        except RuntimeError as exc:
            raise InputError(f"--device {device}: {exc}") from None
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise InputError(
                f"--device {device}: CUDA is not available here (torch {torch.__version__}); use --device cpu"
            )
        if dtype is None:
            dtype = "bfloat16" if self.device.type == "cuda" else "float32"
        self.dtype_name = dtype
        self.torch_dtype = getattr(torch, dtype)
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(str(self.path), local_files_only=True)
        except (OSError, ValueError) as exc:
            raise InputError(f"--model {model_path}: cannot load its tokenizer: {exc}") from None
        self.tokenizer.padding_side = "left"
        self.stop_token_ids = {int(t) for t in stop_token_ids}
        self._model = None
        self._cache_kw = None
        self._keep_kw = False
        self.versions = {"torch": torch.__version__, "transformers": transformers.__version__}
        try:
            import tokenizers

            self.versions["tokenizers"] = tokenizers.__version__
        except ImportError:  # pragma: no cover - transformers needs it for fast tokenizers
            pass

    # -- model -----------------------------------------------------------------------------

    @property
    def model(self):
        if self._model is None:
            self.load()
        return self._model

    def load(self) -> None:
        import transformers
        from transformers.utils import logging as hf_logging

        bar = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()  # "Loading weights" on stderr
        try:
            model = transformers.AutoModelForCausalLM.from_pretrained(
                str(self.path), local_files_only=True, dtype=self.torch_dtype
            )
        except (OSError, ValueError) as exc:
            raise InputError(f"--model {self.path}: cannot load the model: {exc}") from None
        finally:
            if bar:
                hf_logging.enable_progress_bar()
        model.to(self.device)
        model.eval()
        params = inspect.signature(model.forward).parameters
        # transformers renamed ``past_key_values`` to ``cache`` (5.2x); accept both.
        self._cache_kw = "cache" if "cache" in params else "past_key_values"
        self._keep_kw = "logits_to_keep" in params
        self._model = model

    def _new_cache(self):
        from transformers import DynamicCache

        try:
            return DynamicCache(config=self._model.config)
        except TypeError:  # pragma: no cover - older signatures
            return DynamicCache()

    @property
    def pad_id(self) -> int:
        tok = self.tokenizer
        for candidate in (tok.pad_token_id, tok.eos_token_id, 0):
            if candidate is not None:
                return int(candidate)
        return 0  # pragma: no cover

    def eos_ids(self) -> set[int]:
        ids = set(self.stop_token_ids)
        sources = [self.tokenizer.eos_token_id]
        if self._model is not None:
            sources.append(getattr(self._model.generation_config, "eos_token_id", None))
            sources.append(getattr(self._model.config, "eos_token_id", None))
        for s in sources:
            if s is None:
                continue
            ids.update(int(x) for x in (s if isinstance(s, (list, tuple)) else [s]))
        return ids

    # -- text ------------------------------------------------------------------------------

    def encode(self, text: str, *, add_special_tokens: bool) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"])

    def decode(self, token_ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(token_ids), skip_special_tokens=True)

    # -- sampling --------------------------------------------------------------------------

    def _uniforms(self, steps: int, k1, k2):
        """``[rows, steps]``: row i's uniform for every step, ``seeding.uniform`` on tensors
        (int64 holding 32-bit values; products stay below 2**63). Made once per batch: per
        step it would be some twenty small kernels, each a launch on the GPU."""
        torch = self._torch

        def mix(x):
            x = x ^ (x >> 16)
            x = (x * 0x21F0AAAD) & MASK32
            x = x ^ (x >> 15)
            x = (x * 0x735A2D97) & MASK32
            return x ^ (x >> 15)

        s = (torch.arange(steps, dtype=torch.long, device=k1.device) + 0x9E3779B9) & MASK32
        h = mix(k1[:, None] ^ mix(k2[:, None] ^ mix(s)[None, :]))
        return (h.to(torch.float64) + 0.5) / 4294967296.0

    def _uniform(self, step: int, k1, k2):
        """The rows' uniforms for one ``step`` (tests compare it with ``seeding.uniform``)."""
        return self._uniforms(step + 1, k1, k2)[:, step]

    def _choose(self, logits, u, *, temperature, top_p, k, processed):
        """One step for all rows: (token, its logprob, top-K values, top-K ids or None).
        ``u``: the rows' uniforms for this step (unused when ``temperature == 0``)."""
        torch = self._torch
        logits = logits.float()
        raw = torch.log_softmax(logits, dim=-1)
        top_vals = top_ids = None
        if temperature == 0:
            token = raw.argmax(dim=-1)
            if processed:  # the point mass on the argmax
                lp = torch.zeros_like(token, dtype=torch.float32)
                if k:
                    top_vals = torch.full((token.shape[0], k), float("-inf"), device=token.device)
                    top_vals[:, 0] = 0.0
                    top_ids = token[:, None].expand(-1, k)
        else:
            # Sampling distribution, in vocabulary order: log_softmax(logits / T) on the nucleus.
            slp = torch.log_softmax(logits / temperature, dim=-1)
            keep = None
            if top_p < 1.0:  # the nucleus: the most likely tokens up to top_p of the mass
                sorted_lp, order = torch.sort(slp, dim=-1, descending=True, stable=True)
                sorted_p = sorted_lp.exp()
                keep_sorted = (torch.cumsum(sorted_p, dim=-1) - sorted_p) < top_p  # the first always stays
                keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
                slp = slp.masked_fill(~keep, float("-inf"))
            # Inverse CDF in vocabulary order, not in sorted order: near-equal probabilities
            # that the last bits of the logits reorder then move no boundary, so a draw
            # depends on the batch's arithmetic only through the cumulative sums themselves.
            cum = torch.cumsum(slp.exp().to(torch.float64), dim=-1)
            target = u * cum[:, -1]
            token = torch.searchsorted(cum, target[:, None], right=True).clamp(max=cum.shape[-1] - 1).squeeze(-1)
            if processed:
                plp = slp - torch.logsumexp(slp, dim=-1, keepdim=True) if keep is not None else slp
                lp = plp.gather(-1, token[:, None]).squeeze(-1)
                if k:
                    top_vals, top_ids = torch.topk(plp, k, dim=-1)
        if not processed:
            lp = raw.gather(-1, token[:, None]).squeeze(-1)
            if k:
                top_vals, top_ids = torch.topk(raw, k, dim=-1)
        return token, lp, top_vals, top_ids

    def generate(
        self,
        prompts: Sequence[Sequence[int]],
        keys: Sequence[tuple[int, int]],
        *,
        temperature: float,
        top_p: float,
        max_tokens: int,
        top_k_logprobs: int = 0,
        logprobs_kind: str = "raw",
        ignore_eos: bool = False,
    ) -> list[Generation]:
        """Sample one continuation per prompt; ``keys[i]`` is row i's ``seeding.sample_key``."""
        torch = self._torch
        if len(prompts) != len(keys):
            raise ValueError("one key per prompt")
        if not prompts:
            return []
        if any(len(p) == 0 for p in prompts):
            raise InputError("a prompt encodes to no tokens; nothing to condition on")
        if logprobs_kind not in ("raw", "processed"):
            raise ValueError(f"logprobs_kind {logprobs_kind!r}")
        model, dev = self.model, self.device
        vocab = model.get_output_embeddings().weight.shape[0]
        k = max(0, min(int(top_k_logprobs), vocab))
        processed = logprobs_kind == "processed"
        with torch.inference_mode():
            rows, width = len(prompts), max(len(p) for p in prompts)
            ids = torch.full((rows, width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((rows, width + max_tokens), dtype=torch.long)
            for i, p in enumerate(prompts):
                ids[i, width - len(p) :] = torch.tensor(list(p), dtype=torch.long)
                mask[i, width - len(p) :] = 1
            mask[:, width:] = 1
            ids, mask = ids.to(dev), mask.to(dev)
            position = (mask[:, :width].cumsum(-1) - 1).clamp(min=0)
            k1 = torch.tensor([int(a) & MASK32 for a, _ in keys], dtype=torch.long, device=dev)
            k2 = torch.tensor([int(b) & MASK32 for _, b in keys], dtype=torch.long, device=dev)
            eos = sorted(self.eos_ids())
            eos_t = torch.tensor(eos, dtype=torch.long, device=dev) if eos and not ignore_eos else None

            tokens = torch.zeros((rows, max_tokens), dtype=torch.long, device=dev)
            lps = torch.zeros((rows, max_tokens), dtype=torch.float32, device=dev)
            tvals = torch.zeros((rows, max_tokens, k), dtype=torch.float32, device=dev) if k else None
            tids = torch.zeros((rows, max_tokens, k), dtype=torch.long, device=dev) if k else None
            length = torch.full((rows,), max_tokens, dtype=torch.long, device=dev)
            stopped = torch.zeros((rows,), dtype=torch.bool, device=dev)
            check_every = 8 if dev.type == "cuda" else 1  # each check is a device sync

            cache_kw = {self._cache_kw: self._new_cache(), "use_cache": True}
            if self._keep_kw:
                cache_kw["logits_to_keep"] = 1
            out = model(input_ids=ids, attention_mask=mask[:, :width], position_ids=position, **cache_kw)
            cache_kw.pop("logits_to_keep", None)
            logits = out.logits[:, -1, :]
            position = position[:, -1:] + 1
            uniforms = self._uniforms(max_tokens, k1, k2) if temperature > 0 else None
            steps = 0
            for step in range(max_tokens):
                u = uniforms[:, step] if uniforms is not None else None
                token, lp, tv, ti = self._choose(
                    logits, u, temperature=temperature, top_p=top_p, k=k, processed=processed
                )
                tokens[:, step], lps[:, step] = token, lp
                if k:
                    tvals[:, step], tids[:, step] = tv, ti
                steps = step + 1
                if eos_t is not None:
                    hit = torch.isin(token, eos_t) & ~stopped
                    length = torch.where(hit, step + 1, length)
                    stopped |= hit
                    if (step + 1) % check_every == 0 and bool(stopped.all()):
                        break
                if step + 1 == max_tokens:
                    break
                out = model(
                    input_ids=token[:, None],
                    attention_mask=mask[:, : width + step + 1],
                    position_ids=position,
                    **cache_kw,
                )
                logits = out.logits[:, -1, :]
                position = position + 1
            del out, cache_kw
            tokens_l = tokens[:, :steps].tolist()
            lps_l = lps[:, :steps].tolist()
            tvals_l = tvals[:, :steps].tolist() if k else None
            tids_l = tids[:, :steps].tolist() if k else None
            length_l, stopped_l = length.tolist(), stopped.tolist()

        results = []
        for i in range(rows):
            n = min(length_l[i], steps)
            top = []
            if k:
                for vals, tids_row in zip(tvals_l[i][:n], tids_l[i][:n]):
                    entry: dict[int, float] = {}
                    for v, t in zip(vals, tids_row):
                        if v != float("-inf") and t not in entry:
                            entry[t] = _round(v)
                    top.append(entry)
            results.append(
                Generation(
                    token_ids=tokens_l[i][:n],
                    logprobs=[_round(v) for v in lps_l[i][:n]],
                    top_logprobs=top,
                    finish_reason="stop" if stopped_l[i] else "length",
                )
            )
        return results

    def text_of(self, gen: Generation) -> str:
        """The completion's text: the tokens without the stop token, special tokens skipped."""
        if gen.text is not None:
            return gen.text
        ids = gen.token_ids[:-1] if gen.finish_reason == "stop" and gen.token_ids else gen.token_ids
        return self.decode(ids)

    # -- the backend interface (backends.Backend) ---------------------------------------------

    def prepare(
        self, prompt: Prompt, *, temperature: float, top_p: float, top_k_logprobs: int, logprobs_kind: str, seed: int
    ) -> None:
        """Nothing to check: the model loads at the first batch."""

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
        """``generate`` with each request's key ``seeding.sample_key(seed, task id, index)``."""
        if any(r.prompt.token_ids is None for r in requests):
            raise ValueError("the hf backend needs the prompts' token ids")
        return self.generate(
            [r.prompt.token_ids for r in requests],
            [sample_key(seed, r.task_id, r.sample_index) for r in requests],
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            top_k_logprobs=top_k_logprobs,
            logprobs_kind=logprobs_kind,
        )

    # -- teacher forcing ----------------------------------------------------------------------

    def vocab_rows(self) -> int:
        """Rows of the output embedding: token ids must be below this."""
        return int(self.model.get_output_embeddings().weight.shape[0])

    def score(self, prompts: Sequence[Sequence[int]], continuations: Sequence[Sequence[int]]) -> list[list[float]]:
        """Teacher forcing: the model's raw log-probability (log-softmax of the logits in
        float32, temperature 1, no nucleus: what ``generate`` records as ``raw``) of each
        continuation token given its prompt and the continuation tokens before it.

        One forward pass for the batch, rows left-padded as in ``generate`` (position ids
        from the attention mask). Only the last ``max(len(continuation)) + 1`` positions'
        logits are kept when the model supports ``logits_to_keep``; memory is about
        rows x that x vocabulary x 4 bytes, so long completions want a small batch.
        """
        torch = self._torch
        if len(prompts) != len(continuations):
            raise ValueError("one continuation per prompt")
        if any(len(p) == 0 for p in prompts):
            raise InputError("a prompt encodes to no tokens; nothing to condition on")
        out_rows: list[list[float]] = [[] for _ in prompts]
        live = [i for i, c in enumerate(continuations) if len(c)]
        if not live:
            return out_rows
        model, dev = self.model, self.device
        rows_n = self.vocab_rows()
        seqs = [list(prompts[i]) + list(continuations[i]) for i in live]
        for seq in seqs:
            bad = [t for t in seq if not 0 <= int(t) < rows_n]
            if bad:
                raise InputError(
                    f"token id {bad[0]} is outside the model's vocabulary (0..{rows_n - 1}): "
                    "the samples were not made with this model's tokenizer"
                )
        width = max(len(s) for s in seqs)
        longest = max(len(continuations[i]) for i in live)
        with torch.inference_mode():
            ids = torch.full((len(seqs), width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(seqs), width), dtype=torch.long)
            for r, seq in enumerate(seqs):
                ids[r, width - len(seq) :] = torch.tensor(seq, dtype=torch.long)
                mask[r, width - len(seq) :] = 1
            ids, mask = ids.to(dev), mask.to(dev)
            position = (mask.cumsum(-1) - 1).clamp(min=0)
            kw = {"use_cache": False}
            if self._keep_kw:
                kw["logits_to_keep"] = longest + 1
            logits = model(input_ids=ids, attention_mask=mask, position_ids=position, **kw).logits
            logits = logits[:, -(longest + 1) :, :]  # a no-op when logits_to_keep did it
            for r, i in enumerate(live):
                n = len(continuations[i])
                # kept position q predicts the token at q + 1; row r's continuation is its last n tokens
                rows = logits[r, longest - n : longest, :].float()
                target = torch.tensor(list(continuations[i]), dtype=torch.long, device=dev)
                lp = torch.log_softmax(rows, dim=-1).gather(-1, target[:, None]).squeeze(-1)
                out_rows[i] = lp.tolist()
        return out_rows
