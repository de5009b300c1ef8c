"""Run untrusted Python in a separate, limited process and get its result back as data.

Shape (three processes per run, two of them forked):

    parent (the audit) --socket--> zygote (fresh ``python -I``, stdlib only, warm)
        zygote  --fork--> monitor (root; unshares namespaces; enforces the wall clock)
        monitor --fork--> candidate (setsid, rlimits, uid drop, private cwd, scrubbed env)

The candidate's return value is encoded *in the candidate* to tagged JSON (never pickle:
the parent must not unpickle hostile bytes) and sent on a pipe; the parent decodes it. The
comparison with expected outputs happens in the parent, which never sends them anywhere.

Killing the tree: at the ``namespaces`` level the candidate is PID 1 of a fresh PID
namespace, so SIGKILL to it kills every descendant, ``setsid()`` or not. At lower levels the
monitor is a child subreaper (PR_SET_CHILD_SUBREAPER): orphaned descendants are reparented
to it, and it kills and reaps its children until none is left.

This file is also the zygote's entry point (``python -I sandbox.py --zygote FD``), so the
zygote imports nothing of the package.
"""

from __future__ import annotations

import ctypes
import json
import os
import pickle
import queue
import resource
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional

LEVELS = ("process", "rlimits", "namespaces")
NOBODY = 65534
STDOUT_CAP = 64 * 1024
RESULT_CAP = 32 * 1024 * 1024

CLONE_NEWNS = 0x00020000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36

_libc = ctypes.CDLL(None, use_errno=True)

WARM_MODULES = (
    "array", "bisect", "cmath", "collections", "copy", "dataclasses", "datetime", "decimal",
    "encodings.idna", "enum", "fractions", "functools", "hashlib", "heapq", "itertools", "math",
    "numbers", "operator", "random", "re", "statistics", "string", "textwrap", "typing",
    "unicodedata",
)


@dataclass
class SandboxResult:
    ok: bool
    value: Any = None
    error: Optional[str] = None
    kind: str = "ok"  # ok | exception | timeout | crash | memory
    stdout: str = ""
    seconds: float = 0.0
    level: str = ""  # the isolation level the run actually got


# --------------------------------------------------------------------------- levels


def levels() -> list[dict]:
    """What each level blocks, and the test in tests/test_code_sandbox.py that shows it.
    Levels are cumulative: a row blocked at ``process`` is blocked at the levels above."""
    rows = [
        ("process", "reading expected outputs", "own process; result serialised, compared in the parent", "test_expected_values_never_reach_child"),
        ("process", "sys.exit(0) / os._exit(0) before returning", "no result message = crash, never a pass", "test_exit_before_return_is_not_ok"),
        ("process", "objects that fake equality (__eq__ always True)", "only exact builtin types serialise", "test_fake_eq_object_is_rejected"),
        ("process", "infinite loop", "wall-clock timeout, SIGKILL to the process group", "test_infinite_loop_times_out"),
        ("process", "inherited file descriptors", "all fds closed except stdio and the result pipe", "test_inherited_fds_closed"),
        ("process", "secrets in environment variables", "environment replaced by a minimal one", "test_environment_scrubbed"),
        ("process", "leftover files in the working directory", "private temporary cwd, removed after the run", "test_private_workdir_removed"),
        ("process", "a grandchild that calls setsid()", "monitor is a child subreaper and kills all its descendants", "test_setsid_grandchild_killed[process]"),
        ("rlimits", "memory bomb", "RLIMIT_AS", "test_memory_bomb"),
        ("rlimits", "CPU burn in C code", "RLIMIT_CPU (SIGXCPU, then SIGKILL)", "test_cpu_limit"),
        ("rlimits", "huge file", "RLIMIT_FSIZE (EFBIG)", "test_big_file_fsize"),
        ("rlimits", "fd exhaustion", "RLIMIT_NOFILE", "test_nofile_limit"),
        ("rlimits", "fork bomb", "RLIMIT_NPROC, effective because the candidate runs as uid 65534", "test_fork_bomb_contained"),
        ("rlimits", "reading the parent's private files", "uid/gid dropped to 65534 (nobody), no supplementary groups", "test_cannot_read_parent_private_file"),
        ("namespaces", "a grandchild that calls setsid()", "candidate is PID 1 of a new PID namespace", "test_setsid_grandchild_killed[namespaces]"),
        ("namespaces", "network (loopback included)", "new network namespace, no interfaces up", "test_network_blocked_namespaces"),
        ("namespaces", "writes to /tmp, /var/tmp, /dev/shm outside the workdir", "new mount namespace with private tmpfs there", "test_tmp_writes_stay_private"),
    ]
    return [dict(level=l, blocks=b, mechanism=m, test=t) for l, b, m, t in rows]


# --------------------------------------------------------------------------- value codec


def encode_value(value: Any, _depth: int = 0) -> Any:
    """Tagged JSON for exact builtin types only; a subclass (say an int whose ``__eq__``
    always returns True) is refused. Containers become ``[tag, ...]`` arrays."""
    if _depth > 200:
        raise ValueError("return value nested too deeply")
    t = type(value)
    if value is None or t in (bool, int, float, str):
        return value
    d = _depth + 1
    if t is list:
        return ["L", [encode_value(v, d) for v in value]]
    if t is tuple:
        return ["T", [encode_value(v, d) for v in value]]
    if t is set:
        return ["S", [encode_value(v, d) for v in value]]
    if t is frozenset:
        return ["F", [encode_value(v, d) for v in value]]
    if t is dict:
        return ["D", [[encode_value(k, d), encode_value(v, d)] for k, v in value.items()]]
    if t is bytes:
        return ["B", value.hex()]
    if t is complex:
        return ["C", value.real, value.imag]
    raise TypeError(f"unserialisable return value of type {t.__module__}.{t.__qualname__}")


def decode_value(data: Any) -> Any:
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is not list or not data:
        raise ValueError("malformed value")
    tag = data[0]
    if tag == "L":
        return [decode_value(v) for v in data[1]]
    if tag == "T":
        return tuple(decode_value(v) for v in data[1])
    if tag == "S":
        return {decode_value(v) for v in data[1]}
    if tag == "F":
        return frozenset(decode_value(v) for v in data[1])
    if tag == "D":
        return {decode_value(k): decode_value(v) for k, v in data[1]}
    if tag == "B":
        return bytes.fromhex(data[1])
    if tag == "C":
        return complex(float(data[1]), float(data[2]))
    raise ValueError(f"unknown tag {tag!r}")


# --------------------------------------------------------------------------- framing


def _send(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(struct.pack("!I", len(payload)) + payload)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _recv(sock: socket.socket) -> bytes:
    (n,) = struct.unpack("!I", _recv_exact(sock, 4))
    if n > RESULT_CAP + STDOUT_CAP * 2 + 4096:
        raise ValueError("message too large")
    return _recv_exact(sock, n)


# --------------------------------------------------------------------------- the candidate


def _limits(timeout: float, memory_mb: int) -> None:
    cpu = int(timeout) + 1
    mem = memory_mb * 1024 * 1024
    for res, value in (
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (mem, mem)),
        (resource.RLIMIT_FSIZE, (16 * 1024 * 1024,) * 2),
        (resource.RLIMIT_NOFILE, (64, 64)),
        (resource.RLIMIT_NPROC, (32, 32)),
        (resource.RLIMIT_CORE, (0, 0)),
    ):
        resource.setrlimit(res, value)


def _candidate_main(req: dict, wfd: int, out_fd: int, workdir: str, uid: Optional[int]) -> None:
    """In the forked candidate. Never returns."""
    try:
        os.setsid()
    except OSError:
        pass  # already a session leader (PID 1 of a namespace after setsid is fine too)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd in [int(f) for f in os.listdir("/proc/self/fd")]:
        if fd > 2 and fd != wfd:
            try:
                os.close(fd)
            except OSError:
                pass
    os.chdir(workdir)
    os.environ.clear()
    os.environ.update(PATH="/usr/local/bin:/usr/bin:/bin", HOME=workdir, TMPDIR=workdir, LANG="C.UTF-8")
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversize write raises EFBIG instead
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    if req["level"] != "process":
        _limits(req["timeout"], req["memory_mb"])
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # cleared by setuid: set after
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)
    out = os.fdopen(wfd, "wb", closefd=True)
    try:
        namespace = {"__name__": "__candidate__", "__builtins__": __builtins__}
        exec(compile(req["source"], "<candidate>", "exec"), namespace)
        value = None
        if req["call"] is not None:
            value = namespace[req["call"]](*req["args"])
        msg = {"kind": "ok", "value": encode_value(value)}
    except MemoryError:
        msg = {"kind": "memory", "error": "MemoryError (address-space limit reached)"}
    except (SystemExit, KeyboardInterrupt, GeneratorExit) as exc:
        msg = {"kind": "crash", "error": f"{type(exc).__name__}: {exc} (the candidate tried to exit)"}
    except BaseException as exc:  # noqa: BLE001 - every failure of the candidate is an outcome
        try:
            msg = {"kind": "exception", "error": f"{type(exc).__name__}: {exc}"[:2000]}
        except BaseException:  # noqa: BLE001 - a hostile __str__
            msg = {"kind": "exception", "error": type(exc).__name__}
    try:
        data = json.dumps(msg).encode()
    except BaseException as exc:  # noqa: BLE001
        data = json.dumps({"kind": "exception", "error": f"unserialisable result: {type(exc).__name__}"}).encode()
    try:
        sys.stdout.flush()
        out.write(data)
        out.flush()
    finally:
        os._exit(0)


# --------------------------------------------------------------------------- the monitor


def _enter_namespaces(memory_mb: int) -> None:
    if _libc.unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare")
    if _libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "mount --make-rprivate /")
    size = f"size={max(16, memory_mb // 4)}m,mode=1777".encode()
    for path in ("/tmp", "/var/tmp", "/dev/shm"):
        if os.path.isdir(path):
            if _libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, size) != 0:
                raise OSError(ctypes.get_errno(), f"mount tmpfs {path}")


def _children() -> list[int]:
    pids = []
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as fh:
                pids += [int(p) for p in fh.read().split()]
    except OSError:
        pass
    return pids


def _kill_all_descendants() -> None:
    """Subreaper sweep: kill every child, reap, repeat (orphans reparent to us)."""
    for _ in range(10000):
        kids = _children()
        if not kids:
            break
        for pid in kids:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        _reap(block=True)
    _reap(block=False)


def _reap(block: bool) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if block:
            return


def _monitor_main(req: dict, uid: Optional[int]) -> bytes:
    """Runs one candidate; returns the JSON response for the parent."""
    level = req["level"]
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    if level == "namespaces":
        _enter_namespaces(req["memory_mb"])
    workdir = tempfile.mkdtemp(prefix="va-code-")
    if uid is not None and level != "process":
        os.chown(workdir, uid, uid)
    out_file = tempfile.TemporaryFile(dir=workdir if level == "namespaces" else None)
    rfd, wfd = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rfd)
            _candidate_main(req, wfd, out_file.fileno(), workdir, uid)
        finally:
            os._exit(70)
    os.close(wfd)
    deadline = start + req["timeout"]
    pidfd = os.pidfd_open(pid)
    data, timed_out, status = bytearray(), False, None
    rfd_open = True
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([rfd, pidfd] if rfd_open else [pidfd], [], [], left)
        if rfd in ready:
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                rfd_open = False
            elif len(data) < RESULT_CAP:
                data += chunk
        if pidfd in ready:
            break
    seconds = time.monotonic() - start
    # Kill the tree: the candidate first (PID 1 of its namespace takes everything with it),
    # then its process group, then whatever was reparented to us.
    for kill in (os.kill, os.killpg):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = None
    # Drain what the candidate wrote before exiting (non-blocking: a grandchild may hold
    # the write end, but it is being killed now).
    if rfd_open and not timed_out:
        os.set_blocking(rfd, False)
        try:
            while len(data) < RESULT_CAP:
                chunk = os.read(rfd, 1 << 16)
                if not chunk:
                    break
                data += chunk
        except BlockingIOError:
            pass
    _kill_all_descendants()
    os.close(rfd)
    os.close(pidfd)
    out_file.seek(0)
    stdout = out_file.read(STDOUT_CAP).decode("utf-8", "replace")
    out_file.close()
    shutil.rmtree(workdir, ignore_errors=True)

    resp = {"stdout": stdout, "seconds": seconds, "level": level}
    msg = None
    if data and not timed_out:
        try:
            msg = json.loads(bytes(data))
        except (ValueError, RecursionError):
            msg = None
    sig = os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None
    if timed_out:
        resp.update(kind="timeout", error=f"wall-clock timeout after {req['timeout']} s")
    elif sig == signal.SIGXCPU or (sig == signal.SIGKILL and level != "process"):
        resp.update(kind="timeout", error=f"CPU time limit (signal {signal.Signals(sig).name})")
    elif isinstance(msg, dict) and msg.get("kind") in ("ok", "exception", "memory", "crash"):
        resp.update(kind=msg["kind"], value=msg.get("value"), error=msg.get("error"))
        if not isinstance(resp["error"], (str, type(None))):
            resp.update(kind="crash", value=None, error="malformed result message")
    elif data:
        resp.update(kind="crash", error="malformed result message")
    elif sig is not None:
        resp.update(kind="crash", error=f"killed by {signal.Signals(sig).name}")
    else:
        code = os.WEXITSTATUS(status) if status is not None else "?"
        resp.update(kind="crash", error=f"exited with status {code} without returning a result")
    return json.dumps(resp).encode()


# --------------------------------------------------------------------------- the zygote


def _zygote_main(fd: int, uid: Optional[int]) -> None:
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # Warm the stdlib modules candidates commonly import. It also matters for access: after
    # the uid drop the candidate can only import what is cached here when the interpreter
    # lives in a directory uid 65534 cannot read (e.g. a pyenv under /root, mode 0700).
    import importlib

    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            pass

    sock = socket.socket(fileno=fd)
    while True:
        try:
            req = pickle.loads(_recv(sock))  # from the trusted parent
        except (EOFError, OSError):
            os._exit(0)
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.close(rfd)
                sock.close()
                try:
                    resp = _monitor_main(req, uid)
                except BaseException as exc:  # noqa: BLE001
                    resp = json.dumps({"kind": "crash", "error": f"sandbox failure: {type(exc).__name__}: {exc}", "level": req["level"]}).encode()
                _write_all(wfd, resp)
            except BaseException:  # noqa: BLE001
                code = 1
            finally:
                os._exit(code)
        os.close(wfd)
        chunks = []
        while True:
            chunk = os.read(rfd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(rfd)
        os.waitpid(pid, 0)
        resp = b"".join(chunks) or json.dumps({"kind": "crash", "error": "sandbox monitor died", "level": req["level"]}).encode()
        try:
            _send(sock, resp)
        except OSError:
            os._exit(0)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


# --------------------------------------------------------------------------- the parent


def available_levels() -> list[str]:
    """Levels that work on this machine, probed in a forked child."""
    found = ["process"]
    if os.geteuid() == 0:
        found.append("rlimits")
    else:
        found.append("rlimits")  # rlimits work unprivileged; NPROC then counts the user
    pid = os.fork()
    if pid == 0:
        ok = _libc.unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS) == 0
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        found.append("namespaces")
    return found


def default_level() -> str:
    """The strongest level this machine supports: nothing a candidate does (loopback
    network included) gets through where namespaces are available."""
    return "namespaces" if "namespaces" in available_levels() else "rlimits"


class _Zygote:
    def __init__(self, uid: Optional[int]):
        self.sock, theirs = socket.socketpair()
        args = [sys.executable, "-I", os.path.abspath(__file__), "--zygote", str(theirs.fileno()), str(uid if uid is not None else -1)]
        self.proc = subprocess.Popen(args, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, start_new_session=True)
        theirs.close()

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()


class Sandbox:
    """A pool of warm zygotes; each run forks a fresh monitor and candidate from one.
    Thread-safe: up to ``workers`` runs proceed at once (call ``run`` from threads)."""

    def __init__(self, workers: int = 2, level: Optional[str] = None, uid: Optional[int] = None):
        level = level or default_level()
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}")
        if level == "namespaces" and "namespaces" not in available_levels():
            raise RuntimeError("the namespaces level needs unshare(CLONE_NEWPID|CLONE_NEWNET|CLONE_NEWNS) (root)")
        self.level = level
        self.workers = workers
        self.uid = uid if uid is not None else (NOBODY if os.geteuid() == 0 else None)
        self._idle: "queue.Queue[_Zygote]" = queue.Queue()
        self._all: list[_Zygote] = []
        self._lock = threading.Lock()
        self._closed = True

    def __enter__(self) -> "Sandbox":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        self._closed = False
        for _ in range(self.workers):
            z = _Zygote(self.uid)
            self._all.append(z)
            self._idle.put(z)

    def close(self) -> None:
        self._closed = True
        with self._lock:
            for z in self._all:
                z.close()
            self._all.clear()

    def _replace(self, z: _Zygote) -> None:
        with self._lock:
            z.close()
            if z in self._all:
                self._all.remove(z)
            if not self._closed:
                new = _Zygote(self.uid)
                self._all.append(new)
                self._idle.put(new)

    def run(self, source: str, *, call: Optional[str] = None, args: tuple = (), timeout: float = 5.0,
            memory_mb: int = 512, level: Optional[str] = None) -> SandboxResult:
        if self._closed:
            raise RuntimeError("Sandbox is not started (use it as a context manager)")
        level = level or self.level
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}")
        req = dict(source=source, call=call, args=tuple(args), timeout=float(timeout), memory_mb=int(memory_mb), level=level)
        z = self._idle.get()
        ok = False
        try:
            z.sock.settimeout(timeout + 10.0)  # backstop: the monitor enforces the real limit
            _send(z.sock, pickle.dumps(req))
            raw = _recv(z.sock)
            ok = True
        except (OSError, EOFError, ValueError) as exc:
            return SandboxResult(False, None, f"sandbox failure: {type(exc).__name__}: {exc}", "crash", "", 0.0, level)
        finally:
            if ok:
                self._idle.put(z)
            else:
                self._replace(z)
        return _result(raw, level)


def _result(raw: bytes, level: str) -> SandboxResult:
    try:
        resp = json.loads(raw)
        kind = resp["kind"]
        value = decode_value(resp.get("value")) if kind == "ok" else None
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        return SandboxResult(False, None, f"malformed result: {type(exc).__name__}", "crash", "", 0.0, level)
    return SandboxResult(kind == "ok", value, resp.get("error"), kind, resp.get("stdout", ""), float(resp.get("seconds", 0.0)), resp.get("level", level))


def run_python(source: str, *, call: Optional[str] = None, args: tuple = (), timeout: float = 5.0,
               memory_mb: int = 512, level: Optional[str] = None) -> SandboxResult:
    """One run with a one-off zygote (default: the strongest available level). For many
    runs, keep a ``Sandbox`` open instead."""
    with Sandbox(workers=1, level=level) as sb:
        return sb.run(source, call=call, args=args, timeout=timeout, memory_mb=memory_mb)


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "--zygote":
    _uid = int(sys.argv[3])
    _zygote_main(int(sys.argv[2]), None if _uid < 0 else _uid)
