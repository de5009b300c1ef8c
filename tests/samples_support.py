"""What the samples tests share: why they skip without torch, the reference sampling run
(and its spelling on the command line), and small helpers. Imports neither torch nor
transformers, so a test file can import it before its ``importorskip``."""

from __future__ import annotations

import argparse
from pathlib import Path

REASON = "the samples tests need torch and transformers: pip install 'verifier-audit[samples]'"

# The reference run: 3 tasks x n=3 in batches of 4, so batches straddle tasks.
RUN = {"n": 3, "temperature": 0.8, "top_p": 0.9, "max_tokens": 12, "batch_size": 4, "top_k_logprobs": 3, "seed": 7}
CLI_ARGS = [
    "--suite",
    "math",
    "--limit",
    "3",
    "--n",
    "3",
    "--temperature",
    "0.8",
    "--top-p",
    "0.9",
    "--max-tokens",
    "12",
    "--batch-size",
    "4",
    "--top-k-logprobs",
    "3",
    "--seed",
    "7",
    "--no-progress",
]


def write(tmp_path: Path, data: bytes, name: str = "samples.jsonl") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def parse(cli_module, command: str, *argv: str) -> argparse.Namespace:
    """``argv`` parsed by ``command``'s subparser, as ``verifier-audit`` would."""
    ap = argparse.ArgumentParser()
    cli_module.add_parser(ap.add_subparsers(dest="command"))
    return ap.parse_args([command, *argv])
