"""Reading a verifier's signature (its call style, the members of a composite reward)
behind exactly the walls of a verifier call.

To read a signature the verifier must be imported, and its import-time code is the
verifier's code: untrusted. It used to run in a plain child interpreter of the audit --
as root with every capability, in the host's PID, network and IPC namespaces, with the
audit's environment, no memory bound and two minutes -- and from there a module-level
block wrote to ``/root`` and the cache, read a 0600 secret, reached host sockets, left a
SysV segment and a ``setsid`` daemon behind, and poked the audit's memory through
``/proc/PID/mem``. Now the import runs as a job of the engine's own worker pool
(``pool.run_lanes``, ``clean=True``): a worker forked from the clean server, locked down
by ``worker_main`` at the audit's isolation level before anything of the verifier runs
(at ``namespaces``: an unprivileged uid, no capabilities, a PID namespace whose end takes
every daemon with it, read-only mounts but its work directory, only its own loopback,
its own IPC namespace, its tree bounded in memory), in a session of its own without a
terminal, and bounded in time (``DEFAULT_TIMEOUT``, ``--inspect-timeout``). The answer
crosses the pool's JSON protocol and is checked (``loading._answers``); a daemon that
holds a pipe cannot stall the audit, which never waits for a pipe's end.

Batching is today's: the specs of one module (or file) are one lane with one call, which
imports the module once and reads every spec of it; different modules are different
lanes, whose workers are separate processes, so one module's import-time code never sees
another's. Lanes run side by side, up to one per core.

``loading`` (a layer below) defines what is asked and how the answers are read; this
module is the transport, handed to it as ``inspect`` (and named as its default by the
package root, so that nothing resolves a spec less confined).
"""

from __future__ import annotations

import os

from ..errors import InputError
from ..isolation import resolve_level
from ..loading import Inspector, VerifierSpec, inspect_group
from ..loading import resolve_many as _resolve_many
from . import pool
from .clean_server import light_clean_server
from .verifier_job import source_dirs

#: Seconds the verifier's import may take (``--inspect-timeout``): the default math audit's
#: reference verifiers need about 1 s (sympy), a verifier that imports torch or
#: transformers a few seconds more (cold disk caches: ten). Past half a minute, an import
#: waits for something; a worker that imports it would wait as long for every start.
DEFAULT_TIMEOUT = 30.0


class InspectJob:
    """One module's specs, read in a worker: one call (item 0) imports the module once and
    answers every spec of it, in the audit's working directory (where a relative import
    path means what it means to the user), as the verifier's own worker would."""

    def __init__(self, requests: list[dict]):
        self.requests = requests
        self.cwd = os.getcwd()

    def setup(self) -> None:
        """Nothing: the import is the call, so that the call's time limit bounds it."""

    @property
    def env_names(self) -> tuple[str, ...]:
        """What the worker gets of the audit's environment beyond the allow-list: what its
        verifiers' workers will get (isolation/_limits.job_environment)."""
        return tuple(dict.fromkeys(n for r in self.requests for n in r.get("env_names", ())))

    def readable_paths(self) -> list[str]:
        """The verifier's own file's directory (made traversable for the worker's uid)."""
        return sorted({d for r in self.requests for d in source_dirs(r["spec"])})

    def __call__(self, item: int) -> list[dict]:
        os.chdir(self.cwd)  # the worker goes back to its own directory after the call
        return inspect_group(self.requests)


def inspect_groups(
    groups: list[list[dict]],
    *,
    isolation: str | None = None,
    timeout: float | None = None,
    memory_mb: int | None = 4096,
) -> list:
    """The raw answers of each group (``loading.Inspector``), each read by a worker of its
    own at ``isolation`` (None: the default level), within ``timeout`` seconds (None:
    ``DEFAULT_TIMEOUT``) and ``memory_mb`` MiB (None: unbounded). Where the worker's walls
    cannot be set up, every group gets that message: the spec is then a load error (exit
    2), as a worker's would be; ``--isolation process`` (or ``none``) runs without them."""
    level = _level(isolation)
    limit = DEFAULT_TIMEOUT if timeout is None else timeout
    lanes = [pool.Lane(InspectJob(requests), [0], clean=True, isolation=level, tree_memory=True) for requests in groups]
    answers: list = ["sent no answer"] * len(groups)
    try:
        with light_clean_server():
            for k, out in pool.run_lanes(
                lanes,
                workers=min(len(groups), os.cpu_count() or 1),
                timeout=limit,
                memory_mb=memory_mb,
                chunk=1,
                spare=0,
                setup_timeout=limit,
            ):
                answers[k] = out.value if out.ok else _failure(out, limit)
    except pool.PoolError as exc:
        return [f"cannot be inspected: {exc}"] * len(groups)
    return answers


def _failure(out: pool.Outcome, limit: float) -> str:
    if out.error_kind == "timeout":
        return f"importing it did not finish within {limit:g} s (--inspect-timeout SECONDS allows more)"
    if out.error_kind == "crash":
        return f"the process that imports it died ({out.error})"
    return f"inspecting it failed: {out.error}"


def _level(isolation: str | None) -> str:
    try:
        return resolve_level(isolation)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def confined(isolation: str | None = None, timeout: float | None = None, memory_mb: int | None = 4096) -> Inspector:
    """An inspector for ``loading.resolve(..., inspect=...)`` at these settings."""
    _level(isolation)  # a level this machine cannot give fails before anything starts

    def inspect(groups: list[list[dict]]) -> list:
        return inspect_groups(groups, isolation=isolation, timeout=timeout, memory_mb=memory_mb)

    return inspect


def resolve_many(
    requests: list[tuple],
    *,
    isolation: str | None = None,
    timeout: float | None = None,
    memory_mb: int | None = 4096,
    pass_env: tuple[str, ...] = (),
) -> list[VerifierSpec]:
    """``loading.resolve_many``, the verifiers read at the audit's isolation level."""
    return _resolve_many(requests, inspect=confined(isolation, timeout, memory_mb), pass_env=tuple(pass_env))


def resolve(spec: str, style: str | None = None, options=None, **confine) -> VerifierSpec:
    """``loading.resolve``, the verifier read at the audit's isolation level (``confine``:
    ``isolation``, ``timeout``, ``memory_mb``, ``pass_env`` as ``resolve_many``)."""
    return resolve_many([(spec, style, options)], **confine)[0]
