"""``verifier-audit logprobs``: a base model's log-probabilities of a samples file's tokens
by teacher forcing (``samples/logprobs.py`` does it; docs/samples-backends.md).

Importing this module imports neither torch nor transformers.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import argtypes
from ..errors import ExitCode
from ..samples.backends import missing_requirements
from .exits import mapped
from .options import add_no_progress


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "logprobs",
        help="score a samples file with a base model by teacher forcing (ref_logprobs, for KL)",
        description="For every sample, the base model's raw log-probability of each sampled token given the "
        "prompt and the tokens before it, written to ref_logprobs (and ref_model). Atomic: the "
        "result replaces --out (default: the samples file) at the end; an interrupted run "
        "resumes from <out>.partial (docs/samples-backends.md).",
    )
    p.add_argument("samples", type=Path, help="a samples file (verifier-audit sample)")
    p.add_argument(
        "--model",
        required=True,
        metavar="PATH",
        help="the base model: a local Hugging Face model directory with the sampler's tokenizer",
    )
    p.add_argument("--out", type=Path, default=None, help="output file (default: the samples file, in place)")
    p.add_argument(
        "--batch-size",
        type=argtypes.positive_int,
        default=8,
        help="samples per forward pass (default 8; memory grows with it x max tokens x vocabulary)",
    )
    p.add_argument("--device", default=None, help="torch device (default: cuda when available, else cpu)")
    p.add_argument(
        "--dtype",
        choices=("float32", "bfloat16", "float16"),
        default=None,
        help="default bfloat16 on CUDA, float32 on CPU (float32 for precise KL)",
    )
    add_no_progress(p)
    return p


@mapped
def run(args) -> int:
    from ..errors import InputError, Interrupted

    problem = missing_requirements("hf")
    if problem:
        raise InputError(problem.replace("sampling needs", "teacher forcing needs"))
    model = Path(args.model)
    if not model.is_dir():
        raise InputError(f"--model {args.model}: no such directory (a local Hugging Face model directory)")
    if not args.samples.is_file():
        raise InputError(f"{args.samples}: no such file")

    from ..samples.logprobs import add_ref_logprobs

    try:
        result = add_ref_logprobs(
            model,
            args.samples,
            out_path=args.out,
            batch_size=args.batch_size,
            device=args.device,
            dtype=args.dtype,
            progress=False if args.no_progress else None,
        )
    except KeyboardInterrupt:
        raise Interrupted("run the same command again to resume") from None
    kept = f", {result.kept} already scored" if result.kept else ""
    print(f"{result.path}: {result.total} samples, {result.computed} scored now{kept}", file=sys.stderr)
    return ExitCode.OK
