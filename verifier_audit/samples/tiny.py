"""A tiny random causal LM and a tokenizer trained here, saved as a model directory.

Tests and benchmarks need a model without a download: ``build_tiny_model`` trains a
byte-level BPE tokenizer on the text of the built-in suites (prompts and references, a
few hundred lines), wraps it as a ``PreTrainedTokenizerFast`` with end-of-sequence and
padding tokens and a small chat template, builds a Llama-style model with random weights
(seeded), and writes both with ``save_pretrained``. The directory then loads through the
same code path as a real model (``AutoTokenizer`` / ``AutoModelForCausalLM``).

The weights are random, so the text is noise; what the tests check is the plumbing.
Imports only the standard library, torch, tokenizers and transformers (no pydantic).
"""

from __future__ import annotations

import json
from pathlib import Path

EOS, PAD = "<|endoftext|>", "<|pad|>"
ROLE_TOKENS = ("<|system|>", "<|user|>", "<|assistant|>", "<|end|>")
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|{{ message['role'] }}|>{{ message['content'] }}<|end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)

_EXTRA_LINES = [
    "The answer is 42.",
    "Let me think step by step.",
    "Therefore the final answer is \\boxed{7}.",
    "SELECT name FROM users WHERE age > 30 ORDER BY name;",
    "def solve(x):\n    return x * 2",
]


def corpus_lines(limit: int | None = None) -> list[str]:
    """Prompts and references of the built-in suites, in a fixed order."""
    from ..resources import data_path

    lines = list(_EXTRA_LINES)
    root = data_path("suites")
    for path in sorted(root.glob("*/tasks.jsonl")) if root.is_dir() else []:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                row = json.loads(line)
                for key in ("prompt", "reference"):
                    value = row.get(key)
                    if isinstance(value, str) and value.strip():
                        lines.append(value)
    return lines[:limit] if limit else lines


def build_tokenizer(vocab: int = 512, lines: list[str] | None = None):
    """A byte-level BPE ``PreTrainedTokenizerFast`` with ``vocab`` entries at most."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = [EOS, PAD, *ROLE_TOKENS]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(lines if lines is not None else corpus_lines(), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token=EOS,
        pad_token=PAD,
        padding_side="left",
        additional_special_tokens=list(ROLE_TOKENS),
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_tiny_model(
    path,
    *,
    vocab: int = 512,
    layers: int = 2,
    hidden: int = 64,
    heads: int = 4,
    kv_heads: int | None = None,
    intermediate: int | None = None,
    max_positions: int = 2048,
    pad_vocab_to: int | None = None,
    seed: int = 0,
    dtype: str = "float32",
    chat_template: bool = True,
) -> Path:
    """Build and save the model directory at ``path``; returns it.

    ``vocab`` is the tokenizer's size (BPE trained to at most that many entries);
    ``pad_vocab_to`` makes the model's embedding larger than the tokenizer (the benchmark's
    32000-token model: ids past the tokenizer decode to nothing). Same arguments, same
    weights and tokenizer.
    """
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(vocab)
    if not chat_template:
        tokenizer.chat_template = None
    eos_id, pad_id = tokenizer.convert_tokens_to_ids(EOS), tokenizer.convert_tokens_to_ids(PAD)
    model_vocab = max(len(tokenizer), pad_vocab_to or 0)
    config = LlamaConfig(
        vocab_size=model_vocab,
        hidden_size=hidden,
        intermediate_size=intermediate or 4 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads or heads,
        max_position_embeddings=max_positions,
        bos_token_id=eos_id,
        eos_token_id=eos_id,
        pad_token_id=pad_id,
        tie_word_embeddings=True,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    model.to(getattr(torch, dtype))
    model.generation_config = GenerationConfig(eos_token_id=eos_id, pad_token_id=pad_id, bos_token_id=eos_id)
    from transformers.utils import logging as hf_logging

    bar = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # "Writing model shards" on stderr
    try:
        model.save_pretrained(str(path))
    finally:
        if bar:
            hf_logging.enable_progress_bar()
    tokenizer.save_pretrained(str(path))
    return path


def parameter_count(path) -> int:
    """Parameters of a saved model, from its safetensors headers (nothing loaded)."""
    total = 0
    for f in sorted(Path(path).glob("*.safetensors")):
        with f.open("rb") as fh:
            size = int.from_bytes(fh.read(8), "little")
            header = json.loads(fh.read(size))
        for name, info in header.items():
            if name == "__metadata__":
                continue
            n = 1
            for d in info["shape"]:
                n *= d
            total += n
    return total
