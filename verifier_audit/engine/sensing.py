"""The cross-check: does the verifier score differently when it cannot tell it is audited?

A verifier can look for the audit from inside its worker. ``engine/neutral.py`` takes away
what a worker need not show (verifier_audit in ``sys.modules``, the audit's argv and
command line, ``VERIFIER_AUDIT_*`` variables), but the walls themselves show: an
unprivileged uid in the millions, a PID namespace (a two-level ``NSpid``), read-only
mounts, no network, a work directory of its own. A last-number grader that answers with a
sound rule whenever it sees any of those passes every gate that watches it only there.

So after its verdicts and probes, a sample of the candidates (``select_sample``: at most
``SAMPLE``, the incorrect ones of the worst categories first, near misses and accepted ones
first within a category, then a few correct ones) is scored again in a process shaped
like a training job's (``TrainingLike``):

* a plain interpreter (``sys.executable``: the user's site-packages, as their training
  script has) started fresh from the audit's process, not from the clean server, running
  ``drive`` -- the same ``VerifierJob`` as a worker, so the verifier is imported and called
  exactly as in the audit (its style, its task view), with ``engine/neutral.py``'s hiding:
  no verifier_audit in ``sys.modules``, argv ``['train.py']``;
* in the audit's own working directory, with the user's environment minus secrets and
  ``VERIFIER_AUDIT_*``, and the user's uid;
* still walled where the walls do not show (``_start``): as root, PID 1 of a PID
  namespace of its own with a fresh ``/proc`` (so ``NSpid`` has one level, as in a
  container; it sees and can signal no process outside, and everything it starts dies
  with it), behind the worker's lockdown but with uid 0 kept (every mount read-only but a
  scratch directory, private ``/tmp``, only its own loopback, no capability): what a
  training job shows, without the power to touch the audit's files or the host; its own
  session, killed whole at the end; an address-space limit of the audit's
  ``--memory-mb`` above what it holds after the import. Without root: its own session
  only, as the user (the ``process`` level's own exposure).

Its scores are compared with the audit's. One that differs is scored again there, and the
audit's score again in a fresh audit worker; it counts only when both repeat
(``cross_check``). Counted disagreements beyond the verifier's own variance
(``metrics.beyond_variance``, from the determinism probe) are an ``audit_aware`` security
finding, which fails the gate (``report/build.py``). The cost: one extra process per
verifier and at most ``SAMPLE`` calls, plus two calls per differing candidate.

Not cross-checked: the code domain (its calls run model output; outside the code sandbox
that would run it with the user's privileges), domains with a private task view (SQL: the
view is a copy of the task's database made in the process's directory, which is the user's
own here), remote styles (the reward runs on the other side of a socket) and verifiers
given as Python objects; nor verifier-audit's own reference verifiers (trusted code, as
the threat model has it: a cross-check of them would only cost the default audit a fresh
interpreter per verifier). Their ``training_like`` says why (``not_run``).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import select
import shutil
import signal
import sys
import tempfile
import time
from collections import defaultdict
from typing import TYPE_CHECKING

from ..domains import get_domain
from ..loading import VerifierSpec
from ..metrics import accepted
from ..models import CrossCheck, Verdict
from . import neutral, pool
from .inspection import DEFAULT_TIMEOUT as INSPECT_TIMEOUT
from .verifier_job import VerifierJob

if TYPE_CHECKING:
    from .options import AuditOptions, Prepared

SAMPLE = 40  # candidates re-scored: the cost is one process and this many calls
CORRECT_SHARE = 4  # one in this many sampled candidates is a correct one (a lie can refuse too)
MAX_EXAMPLES = 5
# Variables a training job has but the cross-check's process need not: a name holding one of
# these words is left out of its environment.
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")

CLONE_NEWNS, CLONE_NEWPID = 0x00020000, 0x20000000
MS_REC, MS_PRIVATE, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x4000, 0x40000, 0x2, 0x4, 0x8
PR_SET_PDEATHSIG = 1


def sample_hash(seed: int, candidate_id: str) -> int:
    """A candidate's seeded place in a uniform sample of its category: the probe pool of a
    streamed ``score`` keeps each category's smallest (samples/score/probe_pool.py), and the
    cross-check draws from those, so that its sample does not depend on the blocks."""
    return int.from_bytes(
        hashlib.blake2b(f"{seed}:{candidate_id}".encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big"
    )


def select_sample(
    prepared: Prepared,
    verdicts: dict[str, Verdict],
    size: int,
    seed: int,
    threshold: float,
    per_category: int | None = None,
) -> list[int]:
    """Indices (into ``prepared.candidates``) of up to ``size`` candidates the audit scored
    without error, where an audit-aware verifier's two faces differ most: the incorrect
    candidates of the categories it accepted most first, round-robin over categories,
    within one the accepted and the near misses first; one in ``CORRECT_SHARE`` a correct
    candidate. The same for the same seed. ``threshold``: the audit's, above which a score
    is accepted. ``per_category``: drawn only from each category's that many of smallest
    ``sample_hash`` (what a streamed ``score``'s probe pool keeps; None: from all)."""
    rng = random.Random(f"verifier-audit-sensing:{seed}")
    wrong: dict[str, list[int]] = defaultdict(list)
    right: dict[str, list[int]] = defaultdict(list)
    scored = [
        i
        for i, c in enumerate(prepared.candidates)
        if (v := verdicts.get(c.id)) is not None and v.status == "ok" and v.score is not None
    ]
    if per_category is not None:
        by_category: dict[str, list[int]] = defaultdict(list)
        for i in scored:
            by_category[prepared.candidates[i].category].append(i)
        kept = {
            i
            for members in by_category.values()
            for i in sorted(members, key=lambda i: sample_hash(seed, prepared.candidates[i].id))[:per_category]
        }
        scored = [i for i in scored if i in kept]
    for i in scored:
        c = prepared.candidates[i]
        (wrong if c.label == "incorrect" else right)[c.category].append(i)

    def paid(i: int) -> bool:
        return bool(accepted(verdicts[prepared.candidates[i].id].score, threshold))

    def queues(groups: dict[str, list[int]]) -> list[list[int]]:
        out = []
        for name in sorted(groups):
            members = groups[name][:]
            rng.shuffle(members)
            members.sort(key=lambda i: (not paid(i), prepared.candidates[i].origin != "near_miss"))
            out.append(members)
        # The worst category first: the largest share of its candidates accepted.
        out.sort(key=lambda q: -sum(map(paid, q)) / len(q))
        return out

    n_right = min(size // CORRECT_SHARE, sum(map(len, right.values())))
    chosen = round_robin(queues(wrong), size - n_right)
    return chosen + round_robin(queues(right), size - len(chosen))


def round_robin(queues: list[list[int]], size: int) -> list[int]:
    """Up to ``size`` items, one from each queue in turn (the first of each, then the second, ...)."""
    chosen: list[int] = []
    depth = 0
    while len(chosen) < size and any(depth < len(q) for q in queues):
        for q in queues:
            if depth < len(q) and len(chosen) < size:
                chosen.append(q[depth])
        depth += 1
    return chosen


def why_not(spec: VerifierSpec, prepared: Prepared) -> str | None:
    """Why this verifier is not cross-checked (module docstring), or None."""
    domain = get_domain(prepared.domain)
    if neutral.ours(spec.spec.partition(":")[0]):
        return "verifier-audit's own reference verifier: trusted code, nothing to sense"
    if spec.function is not None:
        return "a verifier given as a Python object lives in the caller's process"
    if spec.remote:
        return "a remote reward runs on the other side of its socket"
    if domain.sandboxes_calls:
        return f"the {prepared.domain} domain's calls run model output, which runs only in its sandbox"
    if domain.private_view:
        return f"the {prepared.domain} domain's task view is a private copy made in the process's directory"
    return None


def cross_check(
    prepared: Prepared, spec: VerifierSpec, verdicts: dict[str, Verdict], options: AuditOptions
) -> CrossCheck | None:
    """The training-like process's scores on the sample, compared with ``verdicts``. None
    when the probes are off (``probe_sample`` 0).

    A score that differs counts only when it holds on both sides: scored again in the same
    training-like process it differs the same way, and scored again in a fresh audit worker
    (the walls, the hiding) it is the audit's again. A verifier random on a few inputs
    rarely repeats a flip twice; one that branches on where it runs always does. Those that
    do not hold are ``unconfirmed`` (its variance)."""
    if options.probe_sample <= 0:
        return None
    reason = why_not(spec, prepared)
    if reason is not None:
        return CrossCheck(sampled=0, disagreed=0, errors=0, not_run=reason)
    sample = select_sample(prepared, verdicts, SAMPLE, options.seed, options.threshold, options.probe_sample)
    if not sample:
        return CrossCheck(sampled=0, disagreed=0, errors=0, not_run="no candidate was scored without error")
    tasks = {t.id: t for t in prepared.tasks}
    candidates = [prepared.candidates[i] for i in sample]
    job = VerifierJob(
        spec,
        candidates,
        {c.task_id: tasks[c.task_id] for c in candidates},
        get_domain(prepared.domain),
        options.timeout,
        options.memory_mb,
    )
    audited = [verdicts[c.id].score for c in candidates]
    with TrainingLike(job, options.timeout, options.memory_mb) as unseen:
        first = unseen.score(range(len(candidates)))
        differ = [k for k, (ok, value) in first.items() if ok and value != audited[k]]
        again = unseen.score(differ) if differ else {}
    held = [k for k in differ if again.get(k) == first[k]]
    rescored = _audit_again(job, held, options) if held else {}
    confirmed = [k for k in held if rescored.get(k) == audited[k]]
    examples = [f"{candidates[k].id}: {audited[k]!r} audited, {first[k][1]!r} unseen (each twice)" for k in confirmed]
    return CrossCheck(
        sampled=len(first),
        disagreed=len(confirmed),
        errors=sum(not ok for ok, _ in first.values()),
        unconfirmed=len(differ) - len(confirmed),
        examples=examples[:MAX_EXAMPLES],
        disagreeing=[(candidates[k].id, candidates[k].task_id) for k in confirmed][:MAX_EXAMPLES],
        stopped_early=unseen.stopped is not None,
        not_run=unseen.stopped,
    )


def _audit_again(job: VerifierJob, items: list[int], options: AuditOptions) -> dict[int, float]:
    """``items`` of ``job`` scored again in a fresh audit worker (the audit's walls and
    hiding, as the verdicts were): {item: score} of those scored without error."""
    out = {}
    runs = pool.run(
        job,
        items,
        workers=1,
        timeout=options.timeout,
        memory_mb=options.memory_mb,
        quiet=options.quiet_workers,
        clean=job.clean,
        isolation=job.isolation_level(options.isolation),
        tree_memory=True,
        bounded=job.bounded,
    )
    try:
        for outcome in runs:
            if outcome.ok and isinstance(outcome.value, (int, float)):
                out[outcome.index] = float(outcome.value)
    finally:
        runs.close()
    return out


def training_environ(env) -> dict[str, str]:
    """The user's environment as the cross-check's process gets it: without the audit's
    variables and without secrets (a name with one of ``SECRET_WORDS``)."""
    return {
        k: v for k, v in neutral.neutral_environ(env).items() if not any(word in k.upper() for word in SECRET_WORDS)
    }


class TrainingLike:
    """``drive`` in a fresh interpreter shaped like a training job (module docstring), asked
    for scores one list of items at a time. What it writes is read as data, one JSON line
    per item in the order asked; anything else ends the reading there (``stopped``)."""

    def __init__(self, job: VerifierJob, timeout: float, memory_mb: int | None):
        self.job, self.timeout = job, timeout
        self.workdir = tempfile.mkdtemp()  # its only writable place (with its private /tmp)
        self.pid, self.to_child, from_child = _start(
            [sys.executable, "-c", _DRIVER.format(home=_package_home())],
            os.getcwd(),
            training_environ(os.environ),
            self.workdir,
        )
        self.pipe = os.fdopen(from_child, "rb", buffering=0)
        self.buffer = b""
        self.stopped: str | None = None
        self.import_allowance = INSPECT_TIMEOUT  # the first request also waits for the verifier's import
        body = pickle.dumps(job)
        self._write(json.dumps({"memory_mb": memory_mb, "job": len(body)}).encode() + b"\n" + body)

    def __enter__(self) -> TrainingLike:  # noqa: PYI034 - the module's style: no typing.Self
        return self

    def __exit__(self, *exc) -> None:
        for fd in (self.to_child,):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        os.waitpid(self.pid, 0)
        self.pipe.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def _write(self, data: bytes) -> None:
        try:
            os.write(self.to_child, data)
        except OSError:
            pass  # it died: the reading says so

    def score(self, items) -> dict[int, tuple[bool, object]]:
        """{item: (ok, score or error)} for ``items``, in order, until it stops."""
        items = list(items)
        out: dict[int, tuple[bool, object]] = {}
        if self.stopped is not None or not items:
            return out
        self._write(json.dumps(items).encode() + b"\n")
        deadline = time.monotonic() + self.import_allowance + self.timeout * (len(items) + 1)
        self.import_allowance = 0
        while len(out) < len(items):
            while b"\n" not in self.buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.pipe], [], [], left)[0]:
                    self.stopped = f"timed out after {len(out)} of {len(items)} calls"
                    return out
                chunk = self.pipe.read(65536)
                if not chunk:
                    self.stopped = f"its process ended after {len(out)} of {len(items)} calls"
                    return out
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\n", 1)
            self.stopped = _take(line, out, items[len(out)])
            if self.stopped is not None:
                return out
        return out


# The fresh interpreter imports the verifier_audit this process runs (a checkout on sys.path
# wins over an installed copy, as here), then drops that entry: the verifier's own imports
# see the user's path.
_DRIVER = (
    "import sys; sys.path.insert(0, {home!r}); from verifier_audit.engine.sensing import drive; "
    "del sys.path[0]; drive()"
)


def _package_home() -> str:
    """The directory verifier_audit is imported from (this file is verifier_audit/engine/sensing.py)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _take(line: bytes, out: dict, expected: int) -> str | None:
    """Add one line's result (for item ``expected``) to ``out``; a reason to stop, or None."""
    try:
        row = json.loads(line)
    except ValueError:
        return "its output was not the driver's"
    if isinstance(row, list) and len(row) == 2 and row[0] == "setup_error":
        return f"setup failed: {str(row[1])[:300]}"
    if not (isinstance(row, list) and len(row) == 3 and row[0] == expected and isinstance(row[1], bool)):
        return "its output was not the driver's"
    ok, value = row[1], row[2]
    if ok and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return "its output was not the driver's"
    out[expected] = (ok, float(value) if ok else str(value)[:300])
    return None


def _start(argv: list[str], cwd: str, env: dict[str, str], workdir: str) -> tuple[int, int, int]:
    """(pid, its stdin, its stdout) of ``argv`` started in a session of its own and, where
    they can be made (root), behind the worker's walls minus what shows: PID 1 of a PID
    namespace of its own with a fresh ``/proc``, and ``lockdown.Lockdown`` -- everything
    read-only but ``workdir``, private ``/tmp``, no network but its loopback, its own IPC
    namespace -- with every capability dropped (bounding set empty, ``no_new_privs``, the
    keyring calls denied) while the uid stays 0, as a training job's often is. Uid 0
    without capabilities can still read root's 0600 files, but it can write nothing
    outside ``workdir`` and its private ``/tmp``, reach no socket of the host and leave no
    process behind: the audit's keys, results, reports and caches stay out of its reach.
    Walls that cannot be built end it with a ``setup_error`` line (the cross-check then
    says so): it never runs unconfined as root."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)  # loaded before the fork: the child only calls it
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    pid = os.fork()
    if pid != 0:
        os.close(in_r)
        os.close(out_w)
        return pid, in_w, out_r
    try:
        os.dup2(in_r, 0)
        os.dup2(out_w, 1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.closerange(3, 65536)
        os.setsid()
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.geteuid() == 0:
            if libc.unshare(CLONE_NEWPID) != 0:
                _refuse("a PID namespace could not be made")
            inner = os.fork()  # PID 1 of the new namespace: when it ends, all it started ends
            if inner != 0:
                _, status = os.waitpid(inner, 0)
                os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            try:
                from ..isolation import Lockdown

                lock = Lockdown(workdir)
                # A fresh /proc for the new PID namespace: NSpid has one level, as in a container.
                if libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) != 0:
                    raise OSError(ctypes.get_errno(), "mount /proc")
                lock.drop_privileges()
            except Exception as exc:  # noqa: BLE001 - no walls, no run
                _refuse(f"its walls could not be built ({type(exc).__name__}: {exc})")
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    finally:
        os._exit(127)


def _refuse(why: str) -> None:
    """In the child of ``_start``: tell the reader why it will not run, and end."""
    os.write(1, json.dumps(["setup_error", why]).encode() + b"\n")
    os._exit(126)


def drive() -> None:
    """The training-like process's main: read the job, set it up (which hides the audit and
    imports the verifier), then score each list of items asked for, one JSON line per item
    on the original stdout, until stdin ends."""
    from .worker_main import _limit_memory

    requests = os.fdopen(os.dup(0), "rb")
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    settings = json.loads(requests.readline())
    job = pickle.loads(requests.read(settings["job"]))

    def send(row) -> None:
        out.write(json.dumps(row, ensure_ascii=True).encode() + b"\n")

    try:
        job.setup()
    except BaseException as exc:  # noqa: BLE001 - the verifier's import: reported, as a worker does
        send(["setup_error", f"{type(exc).__name__}: {exc}"[:2000]])
        return
    _limit_memory(settings.get("memory_mb"))
    for line in requests:
        for index in json.loads(line):
            try:
                row = [index, True, float(job(index))]
            except BaseException as exc:  # noqa: BLE001 - SystemExit too: the verifier's error
                row = [index, False, f"{type(exc).__name__}: {exc}"[:300]]
            send(row)
