"""``verifier-audit compare base.jsonl rl.jsonl``: a base model and an RL model on their
samples (``samples/compare/`` computes and renders the figures; docs/compare.md).

Importing this module imports neither numpy nor matplotlib: ``run`` checks for them and
says how to install them.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import argtypes
from ..errors import ExitCode
from .exits import mapped
from .options import add_executor_options


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "compare",
        help="base model vs RL model on their samples: pass@k, support, entropy, KL (compression versus capability)",
        description="Compare a base model's and an RL-trained model's samples of the same tasks: pass@k for every "
        "k <= n with paired bootstrap intervals, the crossover k*, the compression ratio, empirical "
        "support (preservation, shrinkage, expansion), answer and token entropy, KL(rl || base), by "
        "split, and a verdict in plain words. Correctness comes from the domain oracle "
        "(docs/compare.md).",
    )
    p.add_argument("base", type=Path, help="samples file of the base model")
    p.add_argument("rl", type=Path, help="samples file of the RL-trained model")
    p.add_argument(
        "--suite",
        default=None,
        metavar="NAME_OR_FILE",
        help="the tasks the samples were drawn from (default: the base file's manifest says)",
    )
    g = p.add_argument_group("correctness")
    g.add_argument(
        "--by-verifier",
        default=None,
        metavar="SPEC",
        help="label correctness with this verifier instead of the oracle (package.module:function or "
        "path/to/file.py:function)",
    )
    g.add_argument("--style", default=None, help="the verifier's call style (default: from its signature)")
    g.add_argument(
        "--threshold", type=argtypes.rate, default=0.5, help="with --by-verifier: a score >= this is correct (0.5)"
    )
    g.add_argument(
        "--workers", type=argtypes.positive_int, default=None, help="worker processes (default: cores, at most 8)"
    )
    g.add_argument(
        "--oracle-timeout",
        type=argtypes.positive_float,
        default=10.0,
        help="hard limit per oracle (or verifier) call and per answer extraction, seconds (default 10)",
    )
    g.add_argument(
        "--memory-mb",
        type=argtypes.memory_mb,
        default=4096,
        help="address-space limit per worker (default 4096 MiB; 0: none)",
    )
    add_executor_options(g)
    f = p.add_argument_group("figures")
    f.add_argument(
        "--alpha",
        type=argtypes.open_unit,
        default=0.05,
        help="support: epsilon = 1 - alpha^(1/n), confidence 1 - alpha (default 0.05)",
    )
    f.add_argument(
        "--support-rule",
        choices=("frequency", "observed"),
        default="frequency",
        help="frequency: in support when count/n > epsilon (default); observed: seen at least once",
    )
    f.add_argument(
        "--plan-epsilon",
        type=argtypes.open_unit,
        action="append",
        default=None,
        metavar="EPS",
        help="planner: samples per problem needed to resolve EPS (repeatable; default a few values)",
    )
    f.add_argument(
        "--k",
        type=argtypes.positive_int,
        default=None,
        help="k of pass@k_base - pass@1_rl and of the compression ratio (default: the largest common n)",
    )
    f.add_argument(
        "--bootstrap", type=argtypes.positive_int, default=1000, metavar="N", help="bootstrap replicates (default 1000)"
    )
    f.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    f.add_argument(
        "--vocab-size",
        type=argtypes.positive_int,
        default=None,
        help="vocabulary size, for the upper bound of token entropy (default: the model's config.json "
        "when its directory is here)",
    )
    o = p.add_argument_group("output")
    o.add_argument("--json", type=Path, metavar="PATH", help="write the figures as JSON here")
    o.add_argument("--html", type=Path, metavar="PATH", help="write a self-contained HTML page with the plots here")
    o.add_argument("--png-dir", type=Path, metavar="DIR", help="write the plots as PNG files here (needs matplotlib)")
    return p


@mapped
def run(args) -> int:
    from ..audit_files import check_output, write_output
    from ..errors import InputError
    from ..report import png
    from ..samples.compare import pipeline as C
    from ..samples.compare import render as R

    if args.png_dir is not None and not png.matplotlib_available():
        raise InputError(f"--png-dir needs matplotlib, not installed here: {png.PNG_HINT}")
    workers = args.workers or max(1, min(os.cpu_count() or 1, 8))
    for flag, path in (("--json", args.json), ("--html", args.html)):
        if path is not None:
            check_output(flag, path)  # before the samples are labelled
    if args.png_dir is not None:
        check_output("--png-dir", args.png_dir, folder=True)
    from ..plan import check_executor_options

    check_executor_options(args.executor or "local", args.ray_address)
    report = C.run_compare(
        args.base,
        args.rl,
        suite=args.suite,
        by_verifier=args.by_verifier,
        style=args.style,
        threshold=args.threshold,
        alpha=args.alpha,
        rule=args.support_rule,
        n_boot=args.bootstrap,
        seed=args.seed,
        k=args.k,
        vocab_size=args.vocab_size,
        plan_epsilons=tuple(args.plan_epsilon or C.PLAN_EPSILONS),
        workers=workers,
        timeout=args.oracle_timeout,
        memory_mb=args.memory_mb or None,
        executor=args.executor or "local",
        ray_address=args.ray_address,
    )
    sys.stdout.write(R.render_text(report))
    sys.stdout.flush()
    try:
        if args.json is not None:
            C.write_json(report, args.json)
            print(f"wrote {args.json}", file=sys.stderr)
        if args.html is not None:
            write_output("--html", args.html, R.render_html(report))
            print(f"wrote {args.html}", file=sys.stderr)
        if args.png_dir is not None:
            for path in R.write_pngs(report, args.png_dir):
                print(f"wrote {path}", file=sys.stderr)
    except OSError as exc:
        raise InputError(f"cannot write {exc.filename}: {exc.strerror}") from exc
    return ExitCode.OK
