"""Compare two results files verdict by verdict (a change that claims "same verdicts").

    python benchmarks/compare_verdicts.py BEFORE.jsonl AFTER.jsonl

Prints how many (verifier, candidate) verdicts each holds and every one whose status or
score differs; exits 1 when any does. The results files are those an audit writes
(``--results``, or the path it prints on stderr).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def verdicts(path: Path) -> dict[tuple[str, str], tuple]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]  # line 1: the header
    return {(r["verifier"], r["candidate_id"]): (r["status"], r["score"], (r.get("error") or "")[:80]) for r in rows}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    before, after = verdicts(Path(argv[0])), verdicts(Path(argv[1]))
    print(f"{len(before)} verdicts before, {len(after)} after")
    differ = [
        k for k in sorted(before.keys() | after.keys()) if before.get(k, (None,))[:2] != after.get(k, (None,))[:2]
    ]
    for key in differ:
        print(f"  {key[0]} {key[1]}: {before.get(key)} -> {after.get(key)}")
    print(f"{len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
