"""The cache under ``cache_dir/fuzz``: keys for pools and distilled lists, and the
distilled list per task as paths relative to the cache folder."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ....models import Task
from ..integrity import cached_intact
from ..schema import Schema
from .constants import Constants
from .distil import FALLBACK_SIZE, MIN_DATABASES
from .pool import POOL_SIZE

FUZZ_VERSION = 3  # 2: every cached database carries its content hash (integrity.record_hash); 3: NOT NULL / UNIQUE of converted databases respected, SQLite copies


def digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps([str(p) for p in parts]).encode()).hexdigest()[:16]


def task_key(seed: int, task: Task, schema: Schema, base: Path) -> str:
    """Of a task's distilled list: everything the distillation's outcome depends on."""
    return digest(FUZZ_VERSION, seed, task.reference, schema.ddl, base.name, POOL_SIZE, FALLBACK_SIZE, MIN_DATABASES)


def pool_key(seed: int, schema: Schema, base: Path, constants: Constants) -> str:
    """Of a schema's pool: a new gold brings new constants, hence a new pool."""
    return digest(FUZZ_VERSION, seed, schema.ddl, base.name, constants.key(), POOL_SIZE)


def read_cache(root: Path, key: str, verified: dict[Path, bool] | None = None) -> list[Path] | None:
    """A task's distilled databases, when every one is there with the bytes it was written
    with (``integrity.cached_intact``; a changed one is removed, with a warning, and the
    task distilled again). ``verified`` memoises the check over one run: pool databases
    are shared by many tasks."""
    try:
        data = json.loads((root / "distilled" / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None
    paths = [root / p for p in data.get("databases", [])]
    verified = {} if verified is None else verified
    for path in paths:
        if path not in verified:
            verified[path] = cached_intact(path, "distilled database")
    return paths if all(verified[p] for p in paths) else None


def write_cache(root: Path, key: str, result: dict) -> None:
    target = root / "distilled" / f"{key}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_suffix(f".{os.getpid()}.tmp")
    temp.write_text(json.dumps({"version": FUZZ_VERSION, **result}, indent=1))
    os.replace(temp, target)
