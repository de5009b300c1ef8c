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
env_name = _checked(str, lambda v: re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v) is not None,
                    "an environment variable's name (letters, digits, _)")


def add_limit_options(group) -> None:
    """What bounds a worker besides memory and time, and what of the environment it gets
    (isolation/_limits.py, environment.py): the same flags wherever a verifier runs."""
    group.add_argument("--file-mb", type=file_mb, default=None,
                       help="largest file a worker may write, MiB (default 1024; 0: no limit); a write past it is "
                            "the call's error, 'file size limit reached'")
    group.add_argument("--max-processes", type=max_processes, default=None,
                       help="processes and threads a verifier's worker may hold together (default 1024; 0: no "
                            "limit): a pids cgroup per worker where one can be made, else RLIMIT_NPROC of its own uid")
    group.add_argument("--pass-env", action="append", type=env_name, default=None, metavar="NAME",
                       help="pass this environment variable to the verifier's workers (repeatable; a judge's API "
                            "key); they get only PATH, locale, thread counts and the like otherwise; its value is "
                            "masked (***) in results and reports (docs/threat-model.md)")


# --isolation: a worker's levels, weakest first (the one table: isolation/_levels.py).
ISOLATION_LEVELS = WORKER_LEVELS
ISOLATION_HELP = ("how each worker that runs the verifier is isolated: namespaces (read-only file system but its "
                  "work dir, private /tmp, no network, no capabilities, memory bound per process tree), process "
                  "(own PID namespace: nothing it starts outlives it), none (warned: runs with your privileges); "
                  "default: the strongest this machine gives (docs/threat-model.md)")


def add_isolation_option(group) -> None:
    """The same --isolation (and --inspect-timeout, the bound of the verifier's import when
    its signature is read at that level) on every subcommand that runs a verifier."""
    group.add_argument("--isolation", choices=ISOLATION_LEVELS, default=None, help=ISOLATION_HELP)
    group.add_argument("--inspect-timeout", type=positive_float, default=None, metavar="SECONDS",
                       help="time the verifier's import may take when its signature is read, behind the same walls "
                            "as its calls (default 30)")


# --executor: where the oracle's and the verifier's calls run (engine/executor.py).
EXECUTORS = ("local", "ray")


def add_executor_options(group) -> None:
    """The same --executor and --ray-address on every subcommand that runs the calls."""
    group.add_argument("--executor", choices=EXECUTORS, default=None,
                       help="where the oracle's and the verifier's calls run: local (this machine's worker pool; "
                            "default) or ray (the same pool, timeouts and isolation on every node of a Ray cluster, "
                            "using all its CPUs; needs pip install 'verifier-audit[ray]'; docs/ray.md)")
    group.add_argument("--ray-address", default=None, metavar="ADDRESS",
                       help="with --executor ray: the cluster to connect to, auto or HOST:PORT (default: RAY_ADDRESS, "
                            "else a cluster started on this machine, else a new local one)")
