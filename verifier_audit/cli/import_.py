"""``verifier-audit import FILE... --format F --suite S --out OUT``: samples written by TRL,
verl, lm-eval-harness or any JSONL, converted into a samples file for ``score`` and
``compare`` (``samples/importers.py`` reads them; docs/samples-import-score.md).

The module is ``import_`` because ``import`` is a keyword. Exit 0: written; 2: usage or
input error (the message names the file and the line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import ExitCode
from .exits import mapped


def add_parser(subparsers) -> argparse.ArgumentParser:
    from ..samples.records import IMPORT_FORMATS
    from ..suites import FORMATS

    im = subparsers.add_parser(
        "import",
        help="convert samples written by TRL, verl, lm-eval-harness or any JSONL into a samples file",
        description="Read another tool's samples, match each to a task of the suite (by task id, else by prompt "
        "text) and write a samples file for score and compare (docs/samples-import-score.md).",
    )
    im.add_argument(
        "inputs",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="files or folders (verl: a rollout_data_dir; lm-eval: the model's output folder)",
    )
    im.add_argument("--format", required=True, choices=IMPORT_FORMATS, help="what wrote the files")
    im.add_argument(
        "--field",
        action="append",
        default=[],
        metavar="OURS=THEIRS",
        help="where a field is (dotted paths allowed): task_id, prompt, text, model, reference, reward, "
        "step, finish_reason, sample_index; e.g. --field task_id=id --field text=completion",
    )
    im.add_argument(
        "--model", default=None, metavar="NAME", help="model name (default: from the rows, else the file or folder)"
    )
    im.add_argument(
        "--role",
        choices=("base", "rl"),
        default=None,
        help="record the model as a base or an RL policy (score compares RL with base)",
    )
    im.add_argument("--suite", required=True, help="built-in suite name or a JSONL file: the tasks the samples answer")
    im.add_argument("--suite-format", default="jsonl", choices=FORMATS, help="format of a suite file (default jsonl)")
    im.add_argument(
        "--split", choices=("train", "heldout", "shifted"), help="keep only the samples of this split's tasks"
    )
    im.add_argument("--out", type=Path, required=True, help="the samples file to write")
    return im


@mapped
def run(args) -> int:
    from ..errors import InputError
    from ..samples.importers import import_samples, parse_mapping, write_samples
    from ..samples.records import read_manifest
    from ..suites import load_suite

    mapping = parse_mapping(args.field)
    suite = load_suite(args.suite, fmt=args.suite_format)
    result = import_samples(
        args.inputs,
        args.format,
        suite.tasks,
        suite_name=suite.name,
        suite_hash=suite.content_hash,
        mapping=mapping,
        model=args.model,
        split=args.split,
        role=args.role,
    )
    if args.out.is_file() and args.out.stat().st_size:
        try:
            sampled = not read_manifest(args.out).imported
        except InputError:
            sampled = False
        if sampled:  # hours of sampling: never replaced by an import
            raise InputError(f"--out {args.out}: a file written by `verifier-audit sample`; use another --out")
    write_samples(args.out, result.manifest, result.samples)
    print(f"{result.summary()}; wrote {args.out}", file=sys.stderr)
    return ExitCode.OK
