"""The witness: what a worker's calls did, seen from outside the verifier's process.

Why: the tripwires (``tripwires.py``) run in the worker that imported the verifier, and
everything the worker sends is under the verifier's control. A grader that sets
``Tripwires.collect = lambda self: []`` and ``Lockdown.sweep = lambda self: []`` before each
call, wraps ``_send`` to drop the ``fired`` field, or closes every descriptor it did not open
(the kernel watch's among them), and then ``eval``s every answer, got no finding, ``gate:
PASSED`` and a checklist that said "checked: does not execute model output". Nothing the
verifier's interpreter holds can be the evidence.

Who: the init of the worker's PID namespace (``worker_main._guard_processes``). It is forked
before the verifier exists, stays root while the worker drops to an unprivileged uid (the
``namespaces`` level): the verifier cannot signal it (an init takes no signal from its own
namespace it has no handler for, and another uid's process none at all), ptrace it or read
its memory or descriptors. It lives as long as the worker, and reports once more when the
worker ends (a verifier that kills its own worker after a canary fired loses nothing). It
holds:

* a fanotify group (``hostwatch.HostWatch``): a filesystem mark on every writable file
  system of the host (the worker's directory, and anywhere at the ``process`` level), on the
  worker's private scratch (the upper layer of its ``/tmp`` and ``/var/tmp`` overlays and its
  own ``/dev/shm``, marked through ``/proc/<worker>/...`` once the lockdown made them), and
  an open mark on every decoy file. Fanotify names the process of each event in the
  reader's PID namespace, so an event with a pid is this worker's or a process it started
  (``mkdir`` of the ``system`` form, a fresh interpreter), even after it exited;
* a mark on the worker's decoy module directory, on its import path: one module file
  ``vacanary<token>.py`` per ``import`` canary of the job, which raises the
  ``ModuleNotFoundError`` the import would have raised. An import that looks for the module
  opens the file: the kernel sees the open (``decoy_modules``);
* the pipe to the parent, which the worker never holds (it closes its copy before the
  verifier is imported).

What it tells the parent: opens (a decoy module imported, a decoy file read) as they happen,
judged while their process lives, and on the parent's ``sync`` (after each call's result
-- one look for several when the worker's next result is in already -- and before a
timed-out worker is killed) the markers created since, which it removes once no call of the
worker runs (the end of a chunk, the worker's end). The parent credits each to the
candidate whose text holds the marker's token (``canary.tokens_in``), else as ``Witness``
says, and merges it with what the worker reported: the worker can add findings, never
remove the witness's.
A witness that ends early, stops answering or could not watch is an ``unobserved:canaries
...`` entry, which keeps the checklist's ``executes_model_output`` item unknown: its silence
is never a "checked".

At the ``process`` level the worker keeps uid 0 and its capabilities: a verifier can still
ptrace the init and silence it, or remove the decoy modules (docs/canaries.md). Without a PID
namespace (not root, ``--isolation none``) there is no witness, and every report says so.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
from collections.abc import Callable, Iterable

from .. import canary
from . import _hostwatch as hostwatch

SPOT = "canaries"  # what an unobserved entry about canaries starts with (report/checklist.py reads it)
SYNC_WAIT = 10.0  # seconds the parent waits for the witness's answer before it counts as lost
MAX_PENDING = 4096  # markers held between syncs; past that, some go unreported (said so)
MAX_MESSAGE = 1 << 20
_MODULES = ".va-modules"
_MODULE_SOURCE = "raise ModuleNotFoundError({message!r}, name={name!r})\n"


def _unobserved(what: str) -> str:
    return f"unobserved:{SPOT} (outside witness): {what}"


# ------------------------------------------------------------------ in the worker, before the verifier


def decoy_modules(directory: str, tokens: Iterable[str]) -> str | None:
    """Write a decoy module for each ``import`` canary token into ``directory`` (root's, mode
    755: the verifier's uid cannot change it) and return it, to be appended to the import
    path. Each raises the ``ModuleNotFoundError`` a missing module would, so a grader sees
    what it saw before; the open of its file is the evidence. A file named ``__pycache__``
    keeps bytecode from being cached beside them (a cached import would open that instead)."""
    tokens = sorted(set(tokens))
    if not tokens:
        return None
    try:
        os.makedirs(directory, mode=0o755)
        os.chmod(directory, 0o755)
        for token in tokens:
            name = f"{canary.MODULE_PREFIX}{token}"
            with open(os.path.join(directory, f"{name}.py"), "w", encoding="ascii") as fh:
                fh.write(_MODULE_SOURCE.format(message=f"No module named {name!r}", name=name))
        open(os.path.join(directory, "__pycache__"), "w").close()
    except OSError:
        return None
    return directory


def hand_off(
    link: socket.socket | None, parent, *, workdir: str, lock=None, tokens: Iterable[str] = (), why_none: str = ""
) -> str | None:
    """In the worker, still privileged, before the verifier is imported: tell the witness
    (over ``link``) what to watch -- the worker's own pid, its private scratch once the
    lockdown made it, its decoy modules -- and wait until it does; then close the link.
    Without a witness (``link`` None), tell the parent why over its pipe (``parent``) and
    close that. Returns the decoy module directory to append to ``sys.path``, if any."""
    if link is None:
        if parent is not None:
            try:
                parent.send_bytes(json.dumps(["none", [why_none]]).encode())
            except OSError:
                pass
            parent.close()
        return None
    # The lockdown covers /dev/shm with a fresh tmpfs where it is a directory (lockdown._scratch).
    shm = lock is not None and os.path.isdir("/dev/shm") and not os.path.islink("/dev/shm")
    base = "/dev/shm" if shm else (workdir if lock is None else None)  # a workdir behind the lockdown is the verifier's
    modules = decoy_modules(os.path.join(base, _MODULES), tokens) if base else None
    message = {
        "pid": int(os.readlink("/proc/self")),
        "modules": modules,
        "shm": shm,
        "scratch": dict(getattr(lock, "uppers", {}) or {}),
    }
    try:
        link.sendall(json.dumps(message).encode() + b"\n")
        link.recv(16)  # the witness watches now
    except OSError:
        pass
    link.close()
    return modules


# ------------------------------------------------------------------ the witness (the namespace's init)


class _Seen:
    """What the witness saw since the parent last asked."""

    def __init__(self, worker: int):
        self.worker = worker  # its pid in this namespace
        self.watch, why = hostwatch.HostWatch.start(canary.PREFIX, hostwatch.decoys())
        self.blind = (
            []
            if self.watch is not None
            else [
                (
                    f"no kernel watch outside the verifier ({why}): markers, imports and decoy reads were seen only from "
                    "inside its process"
                )
            ]
        )
        self.pending: list[tuple[int, bytes, bytes]] = []  # markers created, not yet reported
        self.later: list[tuple[int, bytes, bytes]] = []  # reported, to be removed when the worker is idle
        self.imported: set[str] = set()

    def hand_off(self, message: dict) -> None:
        if self.watch is None:
            return
        host = int(message["pid"])
        self.watch.subject(self.worker, host)
        for root, fd in sorted(message.get("scratch", {}).items()):
            self.watch.mark_filesystem(f"/proc/{host}/fd/{int(fd)}", "the worker's private scratch", shown=root)
        if message.get("shm"):
            self.watch.mark_filesystem(f"/proc/{host}/root/dev/shm", "the worker's private scratch", shown="/dev/shm")
        modules = message.get("modules")
        if modules and not self.watch.mark_children(f"/proc/{host}/root{modules}"):
            self.blind.append("imports of canary modules: their decoy directory could not be watched")

    def read(self) -> list[str]:
        """Opens since the last read, as entries (now: their process may be gone later);
        markers created are held for ``entries``."""
        if self.watch is None:
            return []
        found = hostwatch.Found()
        for event in self.watch.events(found):
            self.watch.sort(event, found)
        room = MAX_PENDING - len(self.pending)
        if len(found.pending) > room:
            self.blind.append(f"more than {MAX_PENDING} canary markers between two looks: some were not reported")
        self.pending += found.pending[: max(0, room)]
        self.blind += found.blind
        out = [
            f"executes_model_output:{name}: imported: its decoy module was opened (fanotify)"
            for name in found.imported
            if name not in self.imported
        ]
        self.imported |= set(found.imported)
        return out + [hostwatch.read_outside(path) for path in found.opened]

    def entries(self, idle: bool = False) -> list[str]:
        """Everything not yet reported. Markers are removed only when no call of the worker
        runs (``idle``: the parent says so at the end of each chunk of calls, and when the
        worker ended): while the parent asks, the worker may run its next calls, and a
        marker one of them just made must stay while it runs (its own cleanup is evidence
        too, for the audit hook)."""
        out = self.read()
        if self.watch is not None:
            for pending in self.pending:
                name, where, there = self.watch.take(*pending, remove=idle)
                out.append(f"executes_model_output:{name}: {hostwatch.created(where, there)}")
                if there and not idle:
                    self.later.append(pending)
            if idle:
                for pending in self.later:
                    self.watch.take(*pending)
                self.later = []
            self.blind += self.watch.pending_blind
            self.watch.pending_blind = []
        self.pending, self.imported = [], set()
        blind, self.blind = list(dict.fromkeys(self.blind)), []
        return out + [_unobserved(b) for b in blind]


def _tell(parent, message: list) -> None:
    try:
        parent.send_bytes(json.dumps(message, ensure_ascii=True).encode())
    except (OSError, ValueError):
        pass  # the parent is gone: the worker dies with it


def _reap(worker: int) -> int | None:
    """Reap every child that ended; the worker's wait status once it has."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return None
        if pid == 0:
            return None
        if pid == worker:
            return status


def serve(worker: int, status_w: int, parent, link: socket.socket) -> None:
    """The init's life with a witness: reap orphans, watch, answer the parent; when the
    worker ends, a last report, then its wait status to the shell (``_be_init``)."""
    seen = _Seen(worker)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    roles = {wake_r: "child", parent.fileno(): "parent", link.fileno(): "link"}
    if seen.watch is not None:
        roles[seen.watch.fd] = "kernel"
    poller = select.poll()
    for fd in roles:
        poller.register(fd, select.POLLIN)
    while True:
        status = _reap(worker)
        if status is not None:
            _tell(parent, ["end", seen.entries(idle=True)])
            os.write(status_w, str(status).encode())
            return
        for fd, _ in poller.poll():
            role = roles.get(fd)
            if role == "child":
                try:
                    while os.read(wake_r, 512):
                        pass
                except OSError:
                    pass
            elif role == "kernel":
                news = seen.read()
                if news:
                    _tell(parent, ["seen", news])
            elif role == "link":
                data = b""
                try:
                    while not data.endswith(b"\n"):
                        chunk = link.recv(1 << 16)
                        if not chunk:
                            break
                        data += chunk
                    if data.strip():
                        seen.hand_off(json.loads(data))
                    link.sendall(b"ok\n")
                except (OSError, ValueError, KeyError, TypeError):
                    pass
                poller.unregister(fd)
                del roles[fd]
                link.close()
            elif role == "parent":
                try:
                    asked = parent.recv_bytes(64)
                except (EOFError, OSError):
                    poller.unregister(fd)
                    del roles[fd]
                    continue
                _tell(parent, ["sync", seen.entries(idle=asked == b"idle")])


# ------------------------------------------------------------------ in the parent


def merged(fired: list[str], extra: list[str]) -> list[str]:
    """``fired`` (the worker's findings) with ``extra`` (the witness's): one finding per
    canary token -- a marker the worker reported already is not reported twice (as the
    tripwires' own kernel watch did not) -- and other entries once each. The worker can
    add findings; whatever it leaves out, the witness's stay."""
    out = list(fired)
    keys = {_key(entry) for entry in out} - {None}
    for entry in extra:
        key = _key(entry)
        if (key is None or key not in keys) and entry not in out:
            out.append(entry)
            keys.add(key)
    return out


def _key(entry: str) -> str | None:
    kind, _, rest = entry.partition(":")
    if kind != "executes_model_output":
        return None
    marker = rest.split(":", 1)[0]
    return canary.token_of(marker) or marker


class Witness:
    """The parent's end of one worker's witness: its pipe (``child`` goes to the worker,
    which hands it to the init), and the findings it sent, credited to calls.

    ``tokens_of(item)``: the canary tokens in an item's text (``VerifierJob.canary_tokens``),
    by which a marker is credited to its candidate; without it, or for a marker whose token
    is no candidate's, an entry goes to the call that ran when it came (markers: the call
    whose result the parent had when it asked)."""

    def __init__(self, ctx, tokens_of: Callable[[int], set] | None = None):
        self.conn, self.child = ctx.Pipe()
        self.tokens_of = tokens_of
        self.tokens: dict[str, int] = {}
        self.extra: dict[int | None, list[str]] = {}
        self.waiting: set[int] = set()  # items handed out whose calls have not ended
        self.held: list = []  # outcomes waiting for the next look (``hold``)
        self.unplaced: list[tuple[str, bool]] = []  # (marker no token credits, waited an outcome already)
        self.lost: str | None = None
        self.told = False
        self.ended = False

    def started(self) -> None:
        self.child.close()

    def close(self) -> None:
        self.conn.close()

    def expect(self, items: Iterable[int]) -> None:
        """A chunk was handed out: the tokens that credit a marker to one of its calls."""
        items = list(items)
        self.waiting.update(items)
        if self.tokens_of is not None:
            for item in items:
                for token in self.tokens_of(item):
                    self.tokens[token] = item

    def news(self, running: int | None) -> None:
        """The witness sent something (its pipe is readable): read it all, crediting it
        to ``running`` (the call in flight) unless a token says whose it is."""
        while not self.ended and self.lost is None and self.conn.poll(0):
            self._receive(running)

    def settle(self) -> None:
        """The worker is ready: what its setup (the verifier's import) did is no call's;
        only what the witness could not watch is kept."""
        self._sync(None)
        kept = [e for entries in self.extra.values() for e in entries if e.startswith("unobserved:")]
        self.extra = {None: kept} if kept else {}

    def hold(self, outcome) -> None:
        """``outcome``'s call ended and the worker's next result is in already: one look at
        the witness will do for both (``hand_in``), at a cost per look, not per call."""
        self.waiting.discard(outcome.index)
        self.held.append(outcome)

    def hand_in(self, outcome, idle: bool = True) -> list:
        """``outcome``'s call ended (or timed out, or crashed): ask the witness, and merge
        what it saw into the findings of ``outcome`` and of those held before it, which are
        returned with it -- all of it but what a token credits to a call of this worker that
        has not ended yet (the worker runs on meanwhile).

        A marker no token credits (a job without texts) goes where the worker reported it
        (the same finding); else it may be the next call's, which ran while the parent
        asked: it waits for the next look, once. ``idle``: no call of this worker runs any
        more, so it goes to ``outcome``."""
        self.waiting.discard(outcome.index)
        self._sync(outcome.index, idle)
        held, self.held = [*self.held, outcome], []
        indices = {o.index for o in held}
        extra: dict[int, list[str]] = {}
        for key in [k for k in self.extra if k not in self.waiting]:
            extra.setdefault(key if key is not None and key in indices else outcome.index, []).extend(
                self.extra.pop(key)
            )
        reported = {_key(e): o.index for o in held for e in o.security if _key(e) is not None}
        unplaced, self.unplaced = self.unplaced, []
        for entry, waited in unplaced:
            if _key(entry) in reported:
                extra.setdefault(reported[_key(entry)], []).append(entry)
            elif idle or waited:
                extra.setdefault(outcome.index, []).append(entry)
            else:
                self.unplaced.append((entry, True))
        if self.lost is not None and not self.told:
            extra.setdefault(outcome.index, []).append(self.lost)
            self.told = True
        for o in held:
            if o.index in extra:
                o.security = merged(o.security, extra[o.index])
        return held

    def _sync(self, running: int | None, idle: bool = True) -> None:
        if self.ended or self.lost is not None:
            while not self.ended and self.lost is None and self.conn.poll(0):
                self._receive(running)
            return
        try:
            self.conn.send_bytes(b"idle" if idle else b"sync")
        except OSError:
            pass  # ended: its last words may still be in the pipe
        while not self.ended and self.lost is None:
            if not self.conn.poll(SYNC_WAIT):
                self._lose("stopped answering")
                return
            if self._receive(running) == "sync":
                return

    def _receive(self, running: int | None) -> str | None:
        try:
            message = json.loads(self.conn.recv_bytes(MAX_MESSAGE))
        except (EOFError, OSError):
            self._lose("ended before the worker did")
            return None
        except ValueError:
            self._lose("sent a message that is not JSON")
            return None
        if not (
            isinstance(message, list)
            and len(message) == 2
            and message[0] in ("seen", "sync", "end", "none")
            and isinstance(message[1], list)
            and all(isinstance(e, str) for e in message[1])
        ):
            self._lose("sent a malformed message")
            return None
        tag, entries = message
        if tag == "none":
            self.lost = _unobserved(
                f"none for this worker ({entries[0] if entries else 'not started'}): markers, "
                "imports and decoy reads were seen only from inside the verifier's process"
            )
            return tag
        for entry in entries:
            key = _key(entry)
            if key is not None and key not in self.tokens:
                self.unplaced.append((entry, False))
            else:
                self.extra.setdefault(running if key is None else self.tokens[key], []).append(entry)
        if tag == "end":
            self.ended = True
        return tag

    def _lose(self, why: str) -> None:
        self.lost = _unobserved(
            f"the witness of this worker {why}: what its calls did from then on was seen only "
            "from inside the verifier's process"
        )
