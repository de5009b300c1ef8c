"""The walls around code the audit does not trust: the verifier under audit (in the engine's
workers) and the candidate programs the code domain runs (in its sandbox).

This is the package's public face; the implementation is in ``_private`` modules, one job
each: ``_levels`` (the one table of isolation levels and what each guarantees), ``_confine``
(rlimits, the uid drop, namespaces and the read-only file-system view), ``_memory`` (the
memory bound of a whole process tree: a cgroup, else a watcher), ``_seccomp`` (the kernel
calls denied), ``_unixsockets`` (the host's socket files covered), ``_walls`` (tripwires on
a sandbox's walls: scratch directories, the loopback listener, the socket covers),
``_evidence`` (what a tripwire quotes), ``_lockdown`` (a worker's walls at each
``--isolation`` level), ``_limits`` (a worker's file size, process and kernel-call
bounds, its environment and working directory), and the canaries' watch: ``_tripwires``
(a fired canary seen in the worker), ``_hostwatch`` (seen by the kernel, fanotify) and
``_witness`` (the init of a worker's PID namespace, which watches from outside the
verifier's process and answers the parent on a pipe the worker never holds).

Only the standard library (and the bottom's ``canary``, ``cache_dir``, ``environment``) is
imported here (tests/security/test_isolation_package.py): the
code sandbox's zygote loads these modules without the rest of ``verifier_audit``, so that
no fork carries pydantic or sympy, and a wall never depends on what it walls in. The
engine and the domains take the walls from here; nothing here imports either.

``confine``, ``memory`` and ``seccomp`` are the mechanisms as namespaces of one function
each, for a process that applies them itself in its own order (the sandbox's zygote).
"""

from __future__ import annotations

from . import _confine as confine
from . import _memory as memory
from . import _seccomp as seccomp
from ._confine import UID_RANGE, cpu_seconds
from ._evidence import printable
from ._hostwatch import HostWatch
from ._levels import LEVELS, SANDBOX_LEVELS, WORKER_LEVELS, Level
from ._limits import FILE_MB, MAX_PROCESSES, WorkerLimits, job_environment, make_workdir, secrets_of
from ._lockdown import (
    Lockdown,
    bound_memory,
    default_level,
    oom_kills,
    resolve_level,
    user_namespaces_available,
    worker_uid,
)
from ._tripwires import Tripwires
from ._unixsockets import HostTables, SocketCovers
from ._walls import LISTENER_PORT, Walls
from ._witness import SPOT, Witness
from ._witness import hand_off as hand_off_to_witness
from ._witness import serve as serve_as_witness

__all__ = [
    "FILE_MB",
    "LEVELS",
    "LISTENER_PORT",
    "MAX_PROCESSES",
    "SANDBOX_LEVELS",
    "SPOT",
    "UID_RANGE",
    "WORKER_LEVELS",
    "HostTables",
    "HostWatch",
    "Level",
    "Lockdown",
    "SocketCovers",
    "Tripwires",
    "Walls",
    "Witness",
    "WorkerLimits",
    "bound_memory",
    "confine",
    "cpu_seconds",
    "default_level",
    "hand_off_to_witness",
    "job_environment",
    "make_workdir",
    "memory",
    "oom_kills",
    "printable",
    "resolve_level",
    "seccomp",
    "secrets_of",
    "serve_as_witness",
    "user_namespaces_available",
    "worker_uid",
]
