"""The clean server: a forkserver whose server is a fresh interpreter, from which the
verifiers' workers are forked (``pool.run(..., clean=True)``), so they share none of the
audit's memory (no candidates, no labels, no results) with the verifier under audit.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import pickle
import sys
import tempfile
from typing import Any


class CleanStart:
    """What a clean worker needs to become the caller's worker: the job, pickled once by the
    parent, and the caller's cwd, environment and import path as they are now (the clean
    server has those of when it started). The environment is the job's: for a verifier's,
    the allow-list and what is passed to it by name (isolation/_limits.job_environment), so
    the audit's secrets never reach the worker, not even in this object."""

    def __init__(self, job: Any):  # a pool.Job (importing pool here would be a circle)
        from ..isolation import job_environment

        self.job = pickle.dumps(job)
        self.cwd, self.env, self.path = os.getcwd(), job_environment(job), list(sys.path)
        # The start method a verifier's own multiprocessing uses: the caller's default, as in
        # a training job (the server would otherwise pass on its own, forkserver).
        self.start_method = mp.get_start_method()

    def open(self) -> Any:
        mp.set_start_method(self.start_method, force=True)
        # The server's own scratch directory for multiprocessing (its socket lives there) is
        # not this worker's: a verifier's Manager or Pool makes a fresh one where it can.
        mp.current_process()._config.pop("tempdir", None)  # type: ignore[attr-defined]  # CPython's private attribute, not in typeshed
        os.chdir(self.cwd)
        os.environ.clear()
        os.environ.update(self.env)
        sys.path[:] = self.path
        return pickle.loads(self.job)


@contextlib.contextmanager
def without_main_module():
    """multiprocessing re-runs the caller's ``__main__`` script in each process it starts
    this way (so that functions defined there can be unpickled); a user's unguarded script
    would then run again -- audit and all -- in every worker. Clean workers need nothing
    from ``__main__``: their job is verifier_audit's own and names the verifier by a spec.

    The server is also started with the workers' allow-listed environment only: a process
    keeps the environment it was started with in its memory (``/proc/self/environ``), and
    every worker forked from the server would read the audit's keys there, whatever
    ``CleanStart`` later puts in ``os.environ``. The temporary directory's variables stay
    (the server's socket lives there, and this process's ``tempfile`` would otherwise
    settle on ``/tmp`` for good if it first looked now)."""
    from multiprocessing import spawn

    from ..environment import worker_environment

    original = spawn.get_preparation_data

    def without_main(name):
        data = original(name)
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
        return data

    spawn.get_preparation_data = without_main
    tempfile.gettempdir()  # settled from the full environment, before it is trimmed
    kept = dict(os.environ)
    trimmed = worker_environment(kept, ("TMPDIR", "TEMP", "TMP"))
    for name in set(kept) - set(trimmed):
        del os.environ[name]
    try:
        yield
    finally:
        spawn.get_preparation_data = original
        os.environ.update(kept)


def let_go_of_the_server() -> None:
    """Close this worker's copy of the clean server's "alive" pipe. The server exits when no
    process holds that pipe any more (the audit's and its workers' copies), and workers die
    with the server (their parent-death signal): a worker holding it would keep the server,
    and so itself, alive after a kill -9 of the audit. multiprocessing passes it to every
    child, which keeps it as ``_forkserver_alive_fd`` (forkserver._serve_one)."""
    from multiprocessing import forkserver

    fd = getattr(forkserver._forkserver, "_forkserver_alive_fd", None)
    if fd is not None:
        forkserver._forkserver._forkserver_alive_fd = None  # type: ignore[attr-defined]  # CPython's private attribute, not in typeshed
        try:
            os.close(fd)
        except OSError:
            pass


# What the clean server imports before it forks a worker (see _clean_context); None: every
# installed domain's reference verifiers (engine/clean_preload.py).
_preload: list[str] | None = None


def clean_context():
    """A forkserver whose server is a fresh interpreter: workers forked from it share none
    of the audit's memory (no candidates, no labels, no results) with the verifier."""
    ctx = mp.get_context("forkserver")
    # What every worker would otherwise import afresh (sympy alone takes ~0.5 s): the
    # server imports it once, and each worker is forked from there with it loaded.
    ctx.set_forkserver_preload(
        ["verifier_audit.engine.verifier_job"]
        + (_preload if _preload is not None else ["verifier_audit.engine.clean_preload"])
    )
    return ctx


def warm_clean_server(domains: list[str] | None = None) -> None:
    """Start the clean workers' server now, so that its imports overlap other work (the
    candidates' preparation) instead of delaying the first verifier call. ``domains``: the
    domains whose reference verifiers (and what they import) the server loads, when it is
    not running yet; None: every installed domain's. Only what the audit needs: a worker
    of the code domain forks a sandbox run per call, and on this kind of VM a fork costs
    about 0.07 ms per MiB the process holds (sympy and sqlglot, which a code audit never
    uses, took a fork and exit from 2.5 to 5.6 ms; benchmarks/bench_code_audit.py)."""
    global _preload
    from multiprocessing import forkserver

    if domains is not None and getattr(forkserver._forkserver, "_forkserver_pid", None) is None:
        from ..domains import get_domain

        _preload = [module for d in domains for module in get_domain(d).warm_modules()]
    clean_context()
    _short_socket_dir()
    with without_main_module():
        forkserver.ensure_running()


# A Unix socket's path holds at most 107 bytes; multiprocessing puts the forkserver's at
# ``<temporary directory>/pymp-XXXXXXXX/listener-XXXXXXXX``.
_SOCKET_PATH_MAX, _PYMP, _LISTENER = 107, len("/pymp-XXXXXXXX"), len("/listener-XXXXXXXX")


def _short_socket_dir() -> None:
    """Where the temporary directory (``TMPDIR``) is too long a path for the forkserver's
    socket, give multiprocessing a directory of its own under ``/tmp`` instead (removed at
    exit, as multiprocessing removes its own): a long ``TMPDIR`` is no reason to fail."""
    import shutil
    from multiprocessing import util

    config = mp.current_process()._config  # type: ignore[attr-defined]  # CPython's private attribute, not in typeshed
    made = config.get("tempdir")  # multiprocessing's own, where it made one already
    longest = len(made) if made else len(tempfile.gettempdir()) + _PYMP
    if longest + _LISTENER <= _SOCKET_PATH_MAX or not os.path.isdir("/tmp"):
        return
    config["tempdir"] = tempfile.mkdtemp(prefix="pymp-", dir="/tmp")
    util.Finalize(None, shutil.rmtree, args=[config["tempdir"]], exitpriority=-100)


@contextlib.contextmanager
def light_clean_server():
    """The clean server for a verifier's inspection (engine/inspection.py), which comes
    before the audit knows its domain: where none runs yet, one that preloads only the
    engine's job module (not every domain's verifiers), stopped afterwards, so that the
    audit's own (``warm_clean_server([domain])``) loads what its domain needs and no more
    (a code audit's workers fork per run: a server holding sympy makes each fork slower).
    Where one runs already (a second audit in this process), it is used as it is."""
    from multiprocessing import forkserver

    server = forkserver._forkserver
    if getattr(server, "_forkserver_pid", None) is not None:
        yield
        return
    mp.get_context("forkserver").set_forkserver_preload(["verifier_audit.engine.verifier_job"])
    _short_socket_dir()
    with without_main_module():
        server.ensure_running()
    try:
        yield
    finally:
        server._stop()  # type: ignore[attr-defined]  # CPython's private method, not in typeshed
