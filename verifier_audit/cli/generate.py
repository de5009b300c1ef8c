"""``verifier-audit generate``: the oracle-confirmed candidates of a suite as JSONL (stdout
or ``--out``), with ``--dropped`` the ones the oracle dropped and why."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..suites import FORMATS
from .options import EXIT_OK, add_suite_options, given_options
from .run import project_config


def add_parser(subparsers) -> argparse.ArgumentParser:
    gen = subparsers.add_parser("generate", help="write the oracle-confirmed candidates as JSONL")
    add_suite_options(gen, FORMATS)
    gen.add_argument("--out", type=Path, help="output file (default: stdout)")
    gen.add_argument("--dropped", action="store_true", help="also write the candidates the oracle dropped, with the reason")
    return gen


def run(args) -> int:
    from ..models import to_json
    from ..plan import audit_options, prepare_group, suite_choice

    config = project_config(args)
    given = given_options(args)
    options, _ = audit_options(given, config, enforce_gate=False)
    prepared = prepare_group(suite_choice(given, config), options)
    out = args.out.open("w", encoding="utf-8") if args.out else sys.stdout
    try:
        for c in prepared.candidates:
            out.write(to_json(c) + "\n")
        if args.dropped:
            for d in prepared.dropped:
                out.write(json.dumps({**d.model_dump(), "dropped": True}, ensure_ascii=True) + "\n")
    finally:
        if args.out:
            out.close()
    print(f"{len(prepared.candidates)} candidates; dropped {sum(prepared.dropped_counts.values())} "
          f"({', '.join(f'{k} {v}' for k, v in prepared.dropped_counts.items()) or 'none'})", file=sys.stderr)
    return EXIT_OK
