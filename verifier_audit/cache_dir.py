"""Where the candidate caches and the fetched suites live (``VERIFIER_AUDIT_CACHE``, else
the XDG cache folder). A bottom module of its own: the suite reader (below the engine) and
the engine both ask it."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    root = os.environ.get("VERIFIER_AUDIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "verifier-audit"
    )
    return Path(root)
