"""Command-line value types shared by every subcommand: numbers with the range they must
fall in, refused by argparse with the range in the message ("must be in [0, 1], got 1.5")."""

from __future__ import annotations

import argparse
import re

from .isolation import WORKER_LEVELS

MAX_WORKERS = 256  # a bound on forks, not on cores
MIN_MEMORY_MB = 64  # the smallest worker memory limit; 0 is no limit
MAX_SECONDS = 86_400
MIN_PROCESSES = 16  # a worker's own processes (its PID namespace's init, the worker) and a few threads


def _checked(cast, ok, what: str):
    def parse(text: str):
        value = cast(text)
        if not ok(value):  # written so that NaN fails every range
            raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
        return value

    parse.__name__ = cast.__name__  # argparse names the type in "invalid int value"
    return parse


positive_int = _checked(int, lambda v: v >= 1, ">= 1")
nonnegative_int = _checked(int, lambda v: v >= 0, ">= 0")
# Every use is a duration. A day at most: wait() takes milliseconds in a C int, so a
# timeout of inf or of 25 days raises OverflowError inside the worker pool.
positive_float = _checked(float, lambda v: 0 < v <= MAX_SECONDS, f"> 0 and at most {MAX_SECONDS} (a day)")
# These ranges are also those of [tool.verifier_audit] (config.py); a test holds them together.
workers = _checked(int, lambda v: 1 <= v <= MAX_WORKERS, f"in [1, {MAX_WORKERS}]")
memory_mb = _checked(int, lambda v: v == 0 or v >= MIN_MEMORY_MB, f"0 (no limit) or >= {MIN_MEMORY_MB}")
rate = _checked(float, lambda v: 0 <= v <= 1, "in [0, 1]")
open_unit = _checked(float, lambda v: 0 < v < 1, "in (0, 1)")
top_p = _checked(float, lambda v: 0 < v <= 1, "in (0, 1]")
temperature = _checked(float, lambda v: v >= 0, ">= 0 (0 is greedy)")
file_mb = _checked(int, lambda v: v >= 0, ">= 0 (0: no limit)")
max_processes = _checked(int, lambda v: v == 0 or v >= MIN_PROCESSES, f"0 (no limit) or >= {MIN_PROCESSES}")
env_name = _checked(
    str,
    lambda v: re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v) is not None,
    "an environment variable's name (letters, digits, _)",
)


# --isolation: a worker's levels, weakest first (the one table: isolation/_levels.py).
ISOLATION_LEVELS = WORKER_LEVELS

# --executor: where the oracle's and the verifier's calls run (engine/executor.py).
EXECUTORS = ("local", "ray")
