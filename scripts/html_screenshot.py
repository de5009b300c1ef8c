"""Retake the screenshot of the HTML report in docs/html-report.md
(docs/images/html-report.png): the default math audit (the demo of the reference
verifiers), rendered by headless Chromium through tests/browser.py at 1280 pixels wide.

    python scripts/html_screenshot.py [--limit 5] [--height 1500] [--out docs/images/html-report.png]

It runs the real command, `verifier-audit run --limit N --html PAGE`, in a temporary
folder with a cache of its own, so the picture is what a new user's first run shows. The
window's height crops the page to its cards (the rest is collapsed below them); keep the
PNG under 300 KB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import screenshot


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--limit", type=int, default=5, help="tasks of the math suite audited (default 5)")
    p.add_argument("--height", type=int, default=1500, help="window height in pixels (default 1500)")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "html-report.png")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="va-shot-") as tmp:
        page = Path(tmp) / "report.html"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "VERIFIER_AUDIT_CACHE": str(Path(tmp) / "cache")}
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "verifier_audit",
                "run",
                "--limit",
                str(args.limit),
                "--no-progress",
                "--html",
                str(page),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if r.returncode != 0 or not page.is_file():
            sys.stderr.write(r.stdout[-2000:] + r.stderr[-3000:])
            return r.returncode or 1
        args.out.parent.mkdir(parents=True, exist_ok=True)
        screenshot(page, args.out, (1280, args.height), timeout=120)
    print(f"{args.out}: {args.out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
