"""What every suite generator script shares: write the JSONL file, or check that it is
up to date (``--check``, for CI and reviewers: exit 1 when the file on disk differs)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path


def jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def write_or_check(
    description: str,
    default_out: Path,
    script: str,
    render: Callable[[], str],
    argv=None,
    summary: Callable[[], str] | None = None,
) -> int:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=default_out)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file on disk differs")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date; run {script}", file=sys.stderr)
            return 1
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {len(text.splitlines())} lines to {args.out}")
    if summary is not None:
        print(summary())
    return 0
