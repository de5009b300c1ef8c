"""``verifier-audit sample``: sample a model on a suite's tasks and write a samples file
(``samples/sample.py`` does it; docs/samples.md).

Importing this module imports neither torch nor transformers: ``run`` checks what the
chosen backend needs (``samples.backends.REGISTRY``) and says how to install it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import argtypes
from ..errors import ExitCode
from ..samples.backends import AVAILABLE, REGISTRY, missing_requirements
from .exits import mapped
from .options import add_no_progress


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "sample",
        help="sample a model on a suite's tasks and write a samples file (resumable)",
        description="Sample a local model on a suite's tasks; write JSONL: a manifest line, then one sample "
        "per line with token ids and logprobs. Run the same command again to resume an "
        "interrupted run (docs/samples.md).",
    )
    p.add_argument(
        "--model",
        required=True,
        metavar="PATH",
        help="local Hugging Face model directory (openai: or the model's name on the server)",
    )
    p.add_argument("--suite", default="math", help="built-in suite name or a JSONL file (default: math)")
    p.add_argument("--split", choices=("train", "heldout", "shifted"), help="sample one split only")
    p.add_argument("--limit", type=argtypes.positive_int, help="the first N tasks only")
    p.add_argument("--n", type=argtypes.positive_int, default=64, help="samples per task (default 64)")
    p.add_argument("--temperature", type=argtypes.temperature, default=0.6, help="default 0.6; 0 is greedy")
    p.add_argument("--top-p", type=argtypes.top_p, default=0.95, help="nucleus mass (default 0.95)")
    p.add_argument(
        "--max-tokens", type=argtypes.positive_int, default=512, help="tokens per sample at most (default 512)"
    )
    p.add_argument(
        "--batch-size",
        type=argtypes.positive_int,
        default=16,
        help="samples per batch: hf's rows per forward pass; vllm's and openai's requests handed over "
        "at once; the unit of resume (default 16)",
    )
    p.add_argument(
        "--top-k-logprobs",
        type=argtypes.nonnegative_int,
        default=5,
        help="top-K logprobs recorded per token (default 5; 0: none)",
    )
    p.add_argument(
        "--logprobs",
        choices=("raw", "processed"),
        default="raw",
        help="raw: the model's distribution; processed: after temperature and top-p (default raw)",
    )
    p.add_argument(
        "--template",
        choices=("plain", "chat"),
        default="plain",
        help="plain: the prompt as is; chat: the tokenizer's chat template (default plain)",
    )
    p.add_argument("--seed", type=int, default=0, help="default 0: same seed, same samples")
    p.add_argument(
        "--backend",
        default="hf",
        metavar="NAME",
        help="sampling backend: " + "; ".join(f"{s.name}: {s.summary}" for s in REGISTRY.values()) + " (default hf)",
    )
    p.add_argument("--device", default=None, help="hf: torch device (default: cuda when available, else cpu)")
    p.add_argument(
        "--dtype",
        choices=("auto", "float32", "bfloat16", "float16"),
        default=None,
        help="hf: default bfloat16 on CUDA, float32 on CPU; vllm: default auto",
    )
    p.add_argument("--out", type=Path, default=Path("samples.jsonl"), help="output file (default samples.jsonl)")
    p.add_argument("--no-resume", action="store_true", help="start over, overwriting --out")
    add_no_progress(p)
    o = p.add_argument_group("openai backend (docs/samples-backends.md)")
    o.add_argument("--base-url", metavar="URL", help="the server, e.g. http://localhost:8000/v1")
    o.add_argument("--api-key", metavar="KEY", default=None, help="bearer token (default: $OPENAI_API_KEY)")
    o.add_argument(
        "--served-model",
        metavar="NAME",
        help="the model's name on the server when --model is the local directory (default: --model)",
    )
    o.add_argument(
        "--samples-per-request",
        type=argtypes.positive_int,
        default=1,
        help="samples of one task per request (n); >1 keeps draws per sample on vLLM V1 only (default 1)",
    )
    o.add_argument(
        "--no-server-seed",
        dest="server_seed",
        action="store_false",
        help="do not send seed (for servers that refuse it): not reproducible",
    )
    o.add_argument(
        "--prompts-per-request",
        type=argtypes.positive_int,
        default=16,
        help="prompts per request with --no-server-seed (default 16)",
    )
    o.add_argument(
        "--concurrency",
        type=argtypes.positive_int,
        default=32,
        help="requests of a batch in flight at once (default 32)",
    )
    o.add_argument(
        "--request-timeout", type=argtypes.positive_float, default=600.0, help="seconds per request (default 600)"
    )
    o.add_argument(
        "--retries",
        type=argtypes.nonnegative_int,
        default=5,
        help="retries of a request on 429, 5xx or a connection error (default 5)",
    )
    return p


OPENAI_OPTIONS = (
    "base_url",
    "api_key",
    "served_model",
    "samples_per_request",
    "prompts_per_request",
    "server_seed",
    "concurrency",
    "request_timeout",
    "retries",
)


@mapped
def run(args) -> int:
    from ..errors import InputError, Interrupted

    if args.backend not in REGISTRY:
        raise InputError(f"--backend {args.backend!r}: unknown; available: {', '.join(AVAILABLE)}")
    problem = missing_requirements(args.backend)
    if problem:
        raise InputError(problem)
    model = Path(args.model)
    if args.backend == "openai":
        if not args.base_url:
            raise InputError("--backend openai needs --base-url (e.g. http://localhost:8000/v1)")
    elif not model.exists():
        raise InputError(f"--model {args.model}: no such directory")
    elif not model.is_dir():
        raise InputError(f"--model {args.model}: not a directory (a local Hugging Face model directory)")
    options = {"device": args.device, "dtype": None if args.dtype == "auto" and args.backend == "hf" else args.dtype}
    options.update({k: getattr(args, k, None) for k in OPENAI_OPTIONS})
    if options["api_key"] is None:
        options["api_key"] = os.environ.get("OPENAI_API_KEY") or None

    from ..samples.sample import sample_suite
    from ..suites import load_suite, select

    try:
        suite = load_suite(args.suite)
        tasks = select(suite, args.split, args.limit)
        result = sample_suite(
            args.model if args.backend == "openai" else model,
            tasks,
            out_path=args.out,
            n=args.n,
            temperature=args.temperature,
            top_p=args.top_p,
            max_tokens=args.max_tokens,
            batch_size=args.batch_size,
            top_k_logprobs=args.top_k_logprobs,
            logprobs_kind=args.logprobs,
            template=args.template,
            seed=args.seed,
            backend=args.backend,
            resume=not args.no_resume,
            progress=False if args.no_progress else None,
            suite_name=suite.name,
            suite_hash=suite.content_hash,
            backend_options=options,
        )
    except KeyboardInterrupt:
        raise Interrupted(f"run the same command again to resume {args.out}") from None
    kept = f" ({result.kept} kept from an earlier run)" if result.kept else ""
    print(f"{result.path}: {result.total} samples{kept}, {result.written} sampled now", file=sys.stderr)
    return ExitCode.OK
