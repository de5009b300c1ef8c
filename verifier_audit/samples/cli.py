"""``verifier-audit sample``: the subcommand's parser and runner.

Wired into ``verifier_audit/cli.py`` with ``add_parser(sub)`` in ``build_parser`` and
``"sample": run`` in ``main``'s handler table. Importing this module imports neither torch
nor transformers: ``run`` checks for them and says how to install them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .backends import AVAILABLE, PLANNED

EXIT_OK, EXIT_INPUT = 0, 2
INSTALL_HINT = "pip install 'verifier-audit[samples]'"


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text}")
    return value


def _nonnegative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _temperature(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0 (0 is greedy), got {text}")
    return value


def _top_p(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return value


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "sample", help="sample a model on a suite's tasks and write a samples file (resumable)",
        description="Sample a local model on a suite's tasks; write JSONL: a manifest line, then one sample "
                    "per line with token ids and logprobs. Run the same command again to resume an "
                    "interrupted run (docs/samples.md).")
    p.add_argument("--model", required=True, metavar="PATH", help="local Hugging Face model directory")
    p.add_argument("--suite", default="math", help="built-in suite name or a JSONL file (default: math)")
    p.add_argument("--split", choices=("train", "heldout", "shifted"), help="sample one split only")
    p.add_argument("--limit", type=_positive_int, help="the first N tasks only")
    p.add_argument("--n", type=_positive_int, default=64, help="samples per task (default 64)")
    p.add_argument("--temperature", type=_temperature, default=0.6, help="default 0.6; 0 is greedy")
    p.add_argument("--top-p", type=_top_p, default=0.95, help="nucleus mass (default 0.95)")
    p.add_argument("--max-tokens", type=_positive_int, default=512, help="tokens per sample at most (default 512)")
    p.add_argument("--batch-size", type=_positive_int, default=16, help="rows per forward pass (default 16)")
    p.add_argument("--top-k-logprobs", type=_nonnegative_int, default=5,
                   help="top-K logprobs recorded per token (default 5; 0: none)")
    p.add_argument("--logprobs", choices=("raw", "processed"), default="raw",
                   help="raw: the model's distribution; processed: after temperature and top-p (default raw)")
    p.add_argument("--template", choices=("plain", "chat"), default="plain",
                   help="plain: the prompt as is; chat: the tokenizer's chat template (default plain)")
    p.add_argument("--seed", type=int, default=0, help="default 0: same seed, same samples")
    p.add_argument("--backend", default="hf", metavar="NAME",
                   help=f"sampling backend: {', '.join(AVAILABLE)} (planned: {', '.join(PLANNED)})")
    p.add_argument("--device", default=None, help="torch device (default: cuda when available, else cpu)")
    p.add_argument("--out", type=Path, default=Path("samples.jsonl"), help="output file (default samples.jsonl)")
    p.add_argument("--no-resume", action="store_true", help="start over, overwriting --out")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _error(message: str) -> int:
    print(f"verifier-audit: error: {message}", file=sys.stderr)
    return EXIT_INPUT


def run(args) -> int:
    from ..errors import InputError

    if args.backend not in AVAILABLE:
        if args.backend in PLANNED:
            return _error(f"--backend {args.backend}: planned but not available yet; use --backend hf")
        return _error(f"--backend {args.backend!r}: unknown; available: {', '.join(AVAILABLE)} "
                      f"(planned: {', '.join(PLANNED)})")
    missing = []
    for module in ("torch", "transformers"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        return _error(f"sampling needs {' and '.join(missing)}, not installed here: {INSTALL_HINT}")
    model = Path(args.model)
    if not model.exists():
        return _error(f"--model {args.model}: no such directory")
    if not model.is_dir():
        return _error(f"--model {args.model}: not a directory (a local Hugging Face model directory)")

    from ..suites import load_suite, select
    from .sample import sample_suite

    try:
        suite = load_suite(args.suite)
        tasks = select(suite, args.split, args.limit)
        result = sample_suite(
            model, tasks, out_path=args.out, n=args.n, temperature=args.temperature, top_p=args.top_p,
            max_tokens=args.max_tokens, batch_size=args.batch_size, top_k_logprobs=args.top_k_logprobs,
            logprobs_kind=args.logprobs, template=args.template, seed=args.seed, backend=args.backend,
            resume=not args.no_resume, progress=False if args.no_progress else None,
            suite_name=suite.name, suite_hash=suite.content_hash, device=args.device,
        )
    except InputError as exc:
        return _error(str(exc))
    except KeyboardInterrupt:
        print(f"\nverifier-audit: interrupted; run the same command again to resume {args.out}", file=sys.stderr)
        return 130
    kept = f" ({result.kept} kept from an earlier run)" if result.kept else ""
    print(f"{result.path}: {result.total} samples{kept}, {result.written} sampled now", file=sys.stderr)
    return EXIT_OK
