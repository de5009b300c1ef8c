"""``verifier-audit catalog``: the failure categories and catalog entries of every installed
domain (or ``--domain``'s) with their rationale, as text or ``--json``."""

from __future__ import annotations

import argparse
import json

from ..domains import available
from ..errors import ExitCode
from .exits import mapped


def add_parser(subparsers) -> argparse.ArgumentParser:
    cat = subparsers.add_parser(
        "catalog",
        help="list failure categories and catalog entries with their rationale (every installed domain, or --domain's)",
    )
    cat.add_argument(
        "--domain",
        default=None,
        help="only this domain's (default: every installed domain: " + ", ".join(available()) + ")",
    )
    cat.add_argument("--json", action="store_true", help="as JSON")
    return cat


@mapped
def run(args) -> int:
    from ..domains import get_domain

    names = [args.domain] if args.domain else list(available())
    domains = {name: get_domain(name).categories() for name in names}
    if args.json:  # one flat list; each entry names its domain
        print(
            json.dumps(
                [
                    {"domain": name, **c.__dict__, "severity": c.severity.value}
                    for name, cats in domains.items()
                    for c in cats
                ],
                indent=2,
            )
        )
        return ExitCode.OK
    for name, cats in domains.items():
        if len(domains) > 1:
            print(f"== {name} ({len(cats)} categories) ==\n")
        by_origin: dict[str, list] = {}
        for c in cats:
            by_origin.setdefault(c.origin, []).append(c)
        for origin, rows in by_origin.items():
            print(f"{origin} ({len(rows)})")
            for c in rows:
                ref = f"  [{c.reference}]" if c.reference else ""
                print(f"  {c.name:<44} {c.severity.value:<8} {c.description}{ref}")
            print()
    return ExitCode.OK
