"""The isolation levels: one table, weakest first, with what each guarantees.

Two kinds of process run code the audit does not trust, and each is walled at a level of
this table. A *worker* runs the verifier under audit (``--isolation``, ``Lockdown``): its
levels are ``none``, ``process`` and ``namespaces``. A *sandbox run* is one execution of a
candidate program in the code domain's sandbox (a fork of a warm zygote): its levels are
``process``, ``rlimits`` and ``namespaces``. A name means the same wall for both where both
use it, and the levels are cumulative in the table's order: what a level guarantees, every
level after it (that the same kind of process uses) guarantees too. The levels used to be
listed twice, with two different sets of names, in the engine and in the code sandbox;
both lists are now read from here, so a new level (or a new kind of process, a program
run on stdin/stdout) is one row.

docs/threat-model.md says what each wall stops and which test shows it; the code
sandbox's ``levels()`` has one row per attack its runs are tested against.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """One isolation level: its name, and what it guarantees to a verifier's worker
    (``worker``) and to a sandbox run (``sandbox``); None where that kind of process has
    no such level."""

    name: str
    worker: str | None
    sandbox: str | None


LEVELS: tuple[Level, ...] = (
    Level(
        "none",
        worker="a plain process in its own process group, killed with its group on a timeout; explicit only, "
        "and warned about: the verifier runs with the audit's privileges, and a daemon it starts outlives "
        "the audit",
        sandbox=None,
    ),
    Level(
        "process",
        worker="PID 2 of a PID namespace of its own whose init reaps orphans (else a guard kills its group): "
        "nothing it starts outlives it; its whole process tree bounded in memory (a cgroup, else a watcher)",
        sandbox="its own process with a scrubbed environment, a private working directory and only stdio and "
        "the result pipe open; the result crosses as exact builtin types, compared in the parent; a "
        "timeout kills its whole tree",
    ),
    Level(
        "rlimits",
        worker=None,
        sandbox="also resource limits (address space, CPU, file size, open files, processes), an unprivileged "
        "uid of its own (root only), the process tree's memory bounded (a cgroup, else a watcher), "
        "the keyring calls denied (seccomp)",
    ),
    Level(
        "namespaces",
        worker="also mount, network and IPC namespaces: every mount read-only but its working directory, a "
        "private /tmp, no network but its own loopback, the host's Unix sockets covered by tripwires, "
        "no capabilities, an unprivileged uid, no_new_privs and the keyring calls denied",
        sandbox="also PID, mount, network and IPC namespaces: every mount read-only, private scratch /tmp, "
        "/var/tmp and /dev/shm swept for escape markers, no network but a tripwire loopback, the "
        "host's Unix sockets covered, the home directory hidden",
    ),
)

WORKER_LEVELS: tuple[str, ...] = tuple(level.name for level in LEVELS if level.worker is not None)
SANDBOX_LEVELS: tuple[str, ...] = tuple(level.name for level in LEVELS if level.sandbox is not None)
