"""The parent side: a pool of warm zygotes, and the result of one run.

``Sandbox`` starts ``workers`` zygotes and hands each run to an idle one; ``run`` is
thread-safe. A zygote that breaks (its socket fails) is replaced, never reused.
"""

from __future__ import annotations

import json
import os
import pickle
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ....isolation import SANDBOX_LEVELS, UID_RANGE, memory
from ....isolation import confine as isolation
from .codec import decode_value, recv, send

LEVELS = SANDBOX_LEVELS  # a sandbox run's levels, weakest first: the one table is isolation/_levels.py

WARM_MODULES = (
    "array",
    "bisect",
    "cmath",
    "collections",
    "copy",
    "dataclasses",
    "datetime",
    "decimal",
    "encodings.idna",
    "enum",
    "fractions",
    "functools",
    "hashlib",
    "heapq",
    "itertools",
    "math",
    "numbers",
    "operator",
    "random",
    "re",
    "statistics",
    "string",
    "textwrap",
    "typing",
    "unicodedata",
)

# A fresh zygote loads this package and the walls (isolation/, standard library only) under
# a root of its own name, without the rest of verifier_audit (which would drag pydantic and
# sympy into every fork): the root and the packages on the way here are empty stand-ins
# whose path is the real folder, so no __init__ of theirs runs.
_BOOTSTRAP = (
    "import sys, types, socket\n"
    "for name, path in (('va_sandbox', sys.argv[1]), ('va_sandbox.domains', sys.argv[1] + '/domains'),"
    " ('va_sandbox.domains.code', sys.argv[1] + '/domains/code')):\n"
    "    pkg = types.ModuleType(name); pkg.__path__ = [path]; sys.modules[name] = pkg\n"
    "from va_sandbox.domains.code.sandbox import server, pool\n"
    "uid = int(sys.argv[4])\n"
    "spec = None if sys.argv[6] == 'none' else (sys.argv[6], sys.argv[7])\n"
    "server.serve(socket.socket(fileno=int(sys.argv[2])), sys.argv[3], None if uid < 0 else uid, sys.argv[5],"
    " warm=pool.WARM_MODULES + tuple(filter(None, sys.argv[8].split(','))), memory_spec=spec)\n"
)


@dataclass
class SandboxResult:
    ok: bool
    value: Any = None
    error: str | None = None
    kind: str = "ok"  # ok | exception | timeout | crash | memory
    stdout: str = ""
    seconds: float = 0.0
    level: str = ""  # the isolation level the run actually got
    # batch runs: one SandboxResult per input that finished, in order (may be fewer than
    # the inputs when the run timed out or crashed part way)
    items: list[SandboxResult] = field(default_factory=list)
    # What the run tried outside itself and the sandbox's walls stopped (isolation/_walls.py): marker
    # files written outside the workdir, connections to the loopback tripwire. Only at the
    # namespaces level; empty below it, where nothing watches.
    escapes: list[str] = field(default_factory=list)
    # What bounded the memory of the run's whole process tree: "cgroup v2", "cgroup v1",
    # "watcher" (isolation/_memory.py), or "" (the process level: nothing). The peak is what the tree
    # held at most, in MiB: the kernel's for a cgroup, the largest sample for the watcher
    # (None when the run ended before the first sample).
    memory_guard: str = ""
    memory_peak_mb: float | None = None
    # program runs (``run_program``): ``stdout`` is the program's stdout alone, ``stderr`` what
    # it wrote there, ``exit_status`` its status (negative: killed by that signal; None: not a
    # program run). ``ok`` is a clean exit with status 0.
    stderr: str = ""
    exit_status: int | None = None
    # ``run_program_cases``: another input of the same program ran before this one in its
    # process (its clocks were its own, but not its interpreter).
    batched: bool = False

    # pytest runs (``run_pytest``): each outcome the run's plugin reported, in order, as
    # (node id, phase, outcome); ``value`` is {"exit": pytest's exit code, "files": the files
    # asked back}, None when the session did not end (an exit at import, a kill).
    # ``tampered``: how the run's code interfered with the harness (lines on the result pipe
    # that are not the harness's, pytest's code replaced; it starts with codec.TAMPERED), ""
    # for none; then ``tests`` is empty -- no outcome of the run counts -- while the exit
    # status, the log and the files asked back are still what the run left.
    tests: list[tuple[str, str, str]] = field(default_factory=list)
    tampered: str = ""


def available_levels() -> list[str]:
    """Levels that work on this machine. ``rlimits`` always works; only as root does it
    include the uid drop that makes RLIMIT_NPROC bind."""
    found = ["process", "rlimits"]
    if isolation.namespaces_available():
        found.append("namespaces")
    return found


def default_level() -> str:
    """The strongest level this machine supports."""
    return "namespaces" if "namespaces" in available_levels() else "rlimits"


class _Zygote:
    """One warm server process and our end of its socket."""

    def __init__(
        self,
        level: str,
        uid: int | None,
        target: Callable | None,
        tree_memory: str | None = None,
        warm: tuple[str, ...] = (),
    ):
        self.uid = uid  # its runs' uid (None: not dropped)
        # The memory bound of its runs' trees (a cgroup made here, removed at close).
        self.memory = memory.provision(tree_memory) if level != "process" else None
        self.workroot = tempfile.mkdtemp(prefix="va-sandbox-")
        os.chmod(self.workroot, 0o711)
        self.sock, theirs = socket.socketpair()
        uid_arg = uid if uid is not None else -1
        if target is None:
            here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
            spec = self.memory or ("none", "")
            args = [
                sys.executable,
                "-I",
                "-c",
                _BOOTSTRAP,
                here,
                str(theirs.fileno()),
                level,
                str(uid_arg),
                self.workroot,
                *spec,
                ",".join(warm),
            ]
            proc = subprocess.Popen(args, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, start_new_session=True)
            self.pid, self._proc = proc.pid, proc
        else:
            self._proc = None
            self.pid = os.fork()
            if self.pid == 0:  # the zygote: keeps the caller's loaded code, drops its fds
                try:
                    os.setsid()
                    self.sock.close()
                    keep = theirs.fileno()
                    os.closerange(3, keep)
                    os.closerange(keep + 1, 65536)
                    from . import server

                    server.serve(theirs, level, uid, self.workroot, target=target, memory_spec=self.memory)
                finally:
                    os._exit(70)
        theirs.close()

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            if self._proc is not None:
                self._proc.wait()
            else:
                os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        if self.memory is not None:
            memory.release(self.memory)
        shutil.rmtree(self.workroot, ignore_errors=True)


class Sandbox:
    """A pool of warm zygotes; each run forks once from one of them.

    ``target=None``: runs execute candidate *source* (``run``). ``target=fn``: the zygotes
    are forks of this process and each run calls ``fn(*args)`` (``call``) — how the engine
    isolates a verifier under audit that it has already imported. Use as a context manager.
    """

    def __init__(
        self,
        workers: int = 2,
        level: str | None = None,
        uid: int | None = None,
        target: Callable | None = None,
        tree_memory: str | None = None,
        warm: tuple[str, ...] = (),
    ):
        level = level or default_level()
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
        if level == "namespaces" and "namespaces" not in available_levels():
            raise RuntimeError("the namespaces level needs unshare(CLONE_NEWPID|CLONE_NEWNET|CLONE_NEWNS) (root)")
        self.level, self.workers, self.target = level, workers, target
        # None: the strongest bound this machine offers (a cgroup, else the watcher);
        # "watcher" or "cgroup" forces one (isolation/_memory.py).
        if tree_memory not in (None, "cgroup", "watcher"):
            raise ValueError(f"tree_memory must be None, 'cgroup' or 'watcher', not {tree_memory!r}")
        self.tree_memory = tree_memory
        # Modules a source zygote imports beside WARM_MODULES, once, before it forks any run
        # (the repo domain's: pytest and its plugins, so a pytest run starts warm).
        self.warm = tuple(warm)
        self._uid = uid
        self._idle: queue.Queue[_Zygote] = queue.Queue()
        self._all: list[_Zygote] = []
        self._lock = threading.Lock()
        self._closed = True

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _uid_for_new_zygote(self) -> int | None:
        if self._uid is not None:
            return self._uid
        if os.geteuid() != 0:
            return None
        return random.SystemRandom().randrange(*UID_RANGE)

    def _spawn(self) -> None:
        z = _Zygote(self.level, self._uid_for_new_zygote(), self.target, self.tree_memory, self.warm)
        self._all.append(z)
        self._idle.put(z)

    def start(self) -> None:
        with self._lock:
            self._closed = False
            for _ in range(self.workers):
                self._spawn()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for z in self._all:
                z.close()
            self._all.clear()

    def _replace(self, z: _Zygote) -> None:
        with self._lock:
            z.close()
            if z in self._all:
                self._all.remove(z)
            if not self._closed:
                self._spawn()

    def _request(self, req: dict, timeout: float) -> SandboxResult:
        if self._closed:
            raise RuntimeError("Sandbox is not started (use it as a context manager)")
        z = self._idle.get()
        ok = False
        try:
            z.sock.settimeout(timeout + 10.0)  # backstop: the zygote enforces the real limit
            send(z.sock, pickle.dumps(req))
            raw = recv(z.sock)
            ok = True
        except (OSError, EOFError, ValueError) as exc:
            return SandboxResult(
                False, None, f"sandbox failure: {type(exc).__name__}: {exc}", "crash", level=self.level
            )
        finally:
            if ok:
                self._idle.put(z)
            else:
                self._replace(z)
        return _result(raw, self.level)

    def run(
        self,
        source: str,
        *,
        call: str | None = None,
        args: tuple = (),
        batch: list | None = None,
        timeout: float = 5.0,
        memory_mb: int = 512,
        item_timeout: float | None = None,
        cpu_timeout: float | None = None,
    ) -> SandboxResult:
        """Execute ``source``; then call ``call(*args)``, or ``call`` on every argument tuple
        of ``batch`` (one process for all of them; ``items`` holds one result per input; an
        input over ``item_timeout`` seconds of CPU time ends the batch with a ``timeout``
        item). ``timeout`` is the run's wall clock; ``cpu_timeout``, when given, also ends
        the run (a ``timeout``) once its process has used that much CPU time: a spinning
        program ends there whatever signals it ignores, and how loaded the machine is does
        not move the line."""
        if batch is not None and call is None:
            raise ValueError("batch needs call= (the function to call on each input)")
        req = self._source_request(
            timeout,
            memory_mb,
            cpu_timeout,
            source=source,
            call=call,
            args=tuple(args),
            batch=None if batch is None else [tuple(a) for a in batch],
            item_timeout=item_timeout,
        )
        return self._request(req, timeout)

    def _source_request(self, timeout: float, memory_mb: int, cpu_timeout: float | None, **fields: Any) -> dict:
        """A run request of a source Sandbox (``run``, ``run_program``, ``run_pytest``): the
        clocks and the memory bound, no function call unless ``fields`` names one."""
        if self.target is not None:
            raise RuntimeError("this Sandbox calls a target function: use call()")
        req: dict = dict(call=None, args=(), batch=None, item_timeout=None)
        req.update(fields)
        req.update(
            timeout=float(timeout),
            memory_mb=int(memory_mb),
            cpu_timeout=None if cpu_timeout is None else float(cpu_timeout),
        )
        return req

    def run_program(
        self,
        source: str,
        stdin: str,
        *,
        timeout: float = 5.0,
        memory_mb: int = 512,
        cpu_timeout: float | None = None,
    ) -> SandboxResult:
        """Run ``source`` as a whole program, as ``python prog.py < input > output``: fd 0
        reads ``stdin``, the result's ``stdout`` is what it wrote to fd 1 (its stderr apart),
        ``exit_status`` its status. Same walls, clocks and memory bound as ``run``; the
        output is compared by the caller, never in the run."""
        req = self._source_request(timeout, memory_mb, cpu_timeout, source=source, stdin=str(stdin))
        return self._request(req, timeout)

    def run_program_cases(
        self,
        source: str,
        stdins: list[str],
        *,
        timeout: float = 5.0,
        memory_mb: int = 512,
        cpu_timeout: float | None = None,
    ) -> Iterator[SandboxResult]:
        """``run_program`` on each input, in order, lazily: the same result per input, for
        about a fork per program rather than one per input. The inputs run one after the
        other in one fork (each with its own stdin, ``__main__`` and clocks: ``timeout`` and
        ``cpu_timeout`` are per input); a result from there is ``batched`` when an input
        ran before it in that process (its ``stderr`` is empty: what the batch wrote there
        is not split by input). The first input that ends the process, meets a clock or the
        memory limit, or leaves a thread or a process behind is run again by
        ``run_program``, in a fork of its own, and the inputs after it in a new batch: so a
        clock or a crash is always a lone run's. A caller that must have a lone run's
        verdict for a failure runs a ``batched`` one again (``programs.cases.judge``)."""
        limits = dict(timeout=float(timeout), memory_mb=int(memory_mb), cpu_timeout=cpu_timeout)
        start = 0
        while start < len(stdins):
            rest = [str(s) for s in stdins[start:]]
            if len(rest) == 1:
                yield self.run_program(source, rest[0], **limits)  # type: ignore[arg-type]
                return
            req = self._source_request(timeout, memory_mb, cpu_timeout, source=source, stdin=None, stdins=rest)
            whole = self._request(req, timeout * len(rest))
            for number, item in enumerate(whole.items):
                item.batched = number > 0
                item.escapes, item.memory_guard, item.memory_peak_mb = whole.escapes, whole.memory_guard, None
                yield item
            start += len(whole.items)
            if start < len(stdins):
                yield self.run_program(source, stdins[start], **limits)  # type: ignore[arg-type]
                start += 1

    def run_pytest(
        self,
        files: dict[str, str],
        args: list[str],
        *,
        read_back: tuple[str, ...] = (),
        trusted: tuple[str, ...] = (),
        timeout: float = 30.0,
        memory_mb: int = 512,
        cpu_timeout: float | None = None,
    ) -> SandboxResult:
        """Write the repository ``files`` into the run's private working directory and run
        ``pytest.main(args)`` there, as ``python -m pytest ARGS`` in a checkout would (its
        plugins not autoloaded, no cache; ``atexit`` handlers run at the end), with our
        plugin reporting each test's outcome on the run's result pipe (``tests``), never
        through the repository or the log. ``stdout`` is the log (fds 1 and 2),
        ``exit_status`` the run's status, ``value`` pytest's exit code and the files of
        ``read_back`` as the run left them. Same walls, clocks and memory bound as ``run``;
        a zygote started with ``warm=("pytest", ...)`` forks each run with pytest loaded and
        configured (``pytest_warm.py``). ``trusted``: paths of ``files`` that are the caller's
        own (a task's tests, never a candidate's), which the zygote rewrites and compiles once
        for every later run that imports the same source."""
        pytest = dict(files=dict(files), args=list(args), read_back=tuple(read_back), trusted=tuple(trusted))
        return self._request(self._source_request(timeout, memory_mb, cpu_timeout, pytest=pytest), timeout)

    def call(self, *args: Any, timeout: float = 5.0, memory_mb: int = 512) -> SandboxResult:
        """Call the target in a fresh isolated process; its return value must be builtin data."""
        if self.target is None:
            raise RuntimeError("this Sandbox runs source: use run()")
        return self._request(dict(args=args, timeout=float(timeout), memory_mb=int(memory_mb)), timeout)


def _one(resp: dict, level: str, seconds: float = 0.0, stdout: str = "") -> SandboxResult:
    kind = resp.get("kind")
    value = decode_value(resp.get("value")) if kind == "ok" else None
    return SandboxResult(kind == "ok", value, resp.get("error"), kind, stdout, seconds, level)


def _item(resp: dict, level: str) -> SandboxResult:
    item = _one(resp, level, float(resp.get("t", 0.0)), str(resp.get("stdout") or ""))
    status = resp.get("exit_status")
    item.exit_status = status if isinstance(status, int) else None
    return item


def _result(raw: bytes, level: str) -> SandboxResult:
    try:
        resp = json.loads(raw)
        result = _one(resp, resp.get("level", level), float(resp.get("seconds", 0.0)), resp.get("stdout", ""))
        result.items = [_item(item, level) for item in resp.get("items", ())]
        result.escapes = [str(e)[:300] for e in resp.get("escapes", ())]
        result.memory_guard = str(resp.get("memory_guard") or "")
        peak = resp.get("memory_peak")
        result.memory_peak_mb = round(peak / 2**20, 1) if isinstance(peak, int) else None
        status = resp.get("exit_status")
        result.exit_status = status if isinstance(status, int) else None
        result.stderr = str(resp.get("stderr") or "")
        result.tests = [(str(t[0]), str(t[1]), str(t[2])) for t in resp.get("tests", ())]
        result.tampered = str(resp.get("tampered") or "")
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        return SandboxResult(False, None, f"malformed result: {type(exc).__name__}", "crash", level=level)
    return result


def run_python(
    source: str,
    *,
    call: str | None = None,
    args: tuple = (),
    timeout: float = 5.0,
    memory_mb: int = 512,
    level: str | None = None,
) -> SandboxResult:
    """One run with a one-off zygote (default: the strongest available level). For many
    runs, keep a ``Sandbox`` open instead."""
    with Sandbox(workers=1, level=level) as sb:
        return sb.run(source, call=call, args=args, timeout=timeout, memory_mb=memory_mb)
