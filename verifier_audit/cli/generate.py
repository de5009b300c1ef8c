"""``verifier-audit generate``: the oracle-confirmed candidates of a suite as JSONL (stdout
or ``--out``), with ``--dropped`` the ones the oracle dropped and why."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..errors import ExitCode
from ..settings import GENERATE
from ..suites import FORMATS
from .exits import mapped
from .options import add_suite_options, given_options
from .run import project_config


def add_parser(subparsers) -> argparse.ArgumentParser:
    gen = subparsers.add_parser("generate", help="write the oracle-confirmed candidates as JSONL")
    add_suite_options(gen, FORMATS, GENERATE)
    gen.add_argument("--out", type=Path, help="output file (default: stdout)")
    gen.add_argument(
        "--dropped", action="store_true", help="also write the candidates the oracle dropped, with the reason"
    )
    return gen


@mapped
def run(args) -> int:
    from ..audit_files import check_output, write_output
    from ..models import to_json
    from ..plan import audit_options, prepare_group, suite_choice

    config = project_config(args)
    given = given_options(args)
    options, _ = audit_options(given, config, enforce_gate=False)
    if args.out:
        check_output("--out", args.out)  # before the candidates are made and labelled
    prepared = prepare_group(suite_choice(given, config), options)
    lines = [to_json(c) + "\n" for c in prepared.candidates]
    if args.dropped:
        lines += [json.dumps({**d.model_dump(), "dropped": True}, ensure_ascii=True) + "\n" for d in prepared.dropped]
    if args.out:
        # The labels are the answers to the audit: 0600, so a verifier run as another uid
        # (the namespaces level) cannot read them; said when one that runs as you could.
        write_output("--out", args.out, "".join(lines), mode=0o600)
        for why in labels_exposed(args.out, config, options.isolation):
            print(
                f"verifier-audit: warning: --out {args.out}: {why}; it holds every candidate's label (written "
                "0600): keep it outside the verifier's project",
                file=sys.stderr,
            )
    else:
        sys.stdout.write("".join(lines))
    print(
        f"{len(prepared.candidates)} candidates; dropped {sum(prepared.dropped_counts.values())} "
        f"({', '.join(f'{k} {v}' for k, v in prepared.dropped_counts.items()) or 'none'})",
        file=sys.stderr,
    )
    return ExitCode.OK


def labels_exposed(out: Path, config, isolation) -> list[str]:
    """Why a verifier could read the labels file ``out``: it is inside the folder of a
    verifier file the configuration names, or of the project (``pyproject.toml``: a
    module spec imports from there), where a verifier that globs ``*.jsonl`` beside itself
    finds it; or the isolation level runs verifiers with your uid (``process``, ``none``:
    mode 0600 does not stop them). Empty: none of these."""
    from ..isolation import resolve_level

    reasons = []
    try:
        level = resolve_level(isolation)
    except ValueError:
        level = "process"
    if level in ("process", "none"):
        reasons.append(f"at --isolation {level} a verifier runs with your uid and can read it")
    where = Path(os.path.realpath(out)).parent
    folders = []
    if config is not None:
        if config.path is not None:
            folders.append(("the project", Path(config.path).resolve().parent))
        for entry in config.verifiers:
            target = config.resolve_spec(entry.spec).rpartition(":")[0]
            if target.endswith(".py"):
                folders.append((f"the verifier file {target}", Path(target).resolve().parent))
    for what, folder in folders:
        if where == folder or folder in where.parents:
            reasons.append(f"it is inside the folder of {what} ({folder})")
            break
    return reasons
