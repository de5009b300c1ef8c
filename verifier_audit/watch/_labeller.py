"""The background labeller: rollouts the wrapper sampled, labelled by the domain's oracle in
the audit's worker pool, never in the trainer's thread.

The trainer's side of it is ``submit``: one ``put_nowait`` on a bounded queue (a full queue
drops the rollout and counts it, so a slow oracle never slows training). A daemon thread
takes rollouts off the queue in batches and hands each batch to ``samples.labels.
label_texts`` -- the labelling ``score`` and ``compare`` use -- with ``clean=True``: the
oracle's workers are forked from the audit's clean server (a fresh interpreter), never from
the trainer's process with its model and its threads, and a completion that hangs a parser
or crashes its worker is a timeout or a crash of that worker (label None), as in the audit.

Nothing the labeller meets is raised into the trainer: an exception in a batch is recorded
(``errors``) and the batch's rollouts are undecided; a thread that died is restarted by the
next ``submit`` and the restart is recorded (``restarts``).
"""

from __future__ import annotations

import hashlib
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ..models import Task


@dataclass(frozen=True)
class Rollout:
    """One sampled rollout: what the trainer paid for it, and what the oracle needs."""

    step: int  # the trainer's step this rollout trains (TRL: global_step + 1, as logged)
    prompt: str
    completion: str
    reference: str
    score: float  # what the reward returned for it, as training reads it


def task_of(domain: str, prompt: str, reference: str) -> Task:
    """The task a rollout is labelled against: the dataset row's prompt and reference, its
    id their hash (the same row gives the same task, prepared once)."""
    digest = hashlib.blake2b(f"{prompt}\0{reference}".encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return Task(id=f"watch-{digest}", domain=domain, prompt=prompt, reference=reference)


OnLabelled = Callable[[Rollout, "str | None", str], None]


class Labeller:
    """``submit`` rollouts; ``on_labelled(rollout, label, reason)`` is called from the
    labeller's thread for each (label "correct", "incorrect", or None: undecided)."""

    def __init__(
        self,
        domain: str,
        on_labelled: OnLabelled,
        *,
        capacity: int = 10_000,
        batch: int = 64,
        linger: float = 0.5,
        timeout: float | None = None,
        memory_mb: int | None = 4096,
        label: Callable[..., list[tuple[str | None, str]]] | None = None,
    ):
        self.domain, self.on_labelled = domain, on_labelled
        self.batch, self.timeout, self.memory_mb = batch, timeout, memory_mb
        self.linger = linger  # seconds a batch waits to fill
        self._waiting = False  # drain() is waiting: label what is there at once
        self.queue: queue.Queue[Rollout] = queue.Queue(maxsize=capacity)
        self.dropped = 0  # rollouts refused by a full queue
        self.labelled = 0
        self.errors: list[str] = []  # what went wrong in the labeller, oldest first
        self.restarts = 0
        self._label = label  # the labelling function (tests give a failing one); None: label_texts
        self._tasks: dict[str, Task] = {}  # prepared once per task
        self._pending = 0  # rollouts submitted, not yet handed to on_labelled
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._closed = False
        self._thread: threading.Thread | None = None
        self._running = False  # False from the moment a dying thread takes no more work
        self.on_idle: Callable[[], None] = lambda: None  # run in the thread after each batch and when idle

    def record(self, error: str) -> None:
        """Keep an error for the report (the same one twice in a row once; the last 100)."""
        if not self.errors or self.errors[-1] != error:
            self.errors.append(error)
            del self.errors[:-100]

    # --- the trainer's side: enqueue only ------------------------------------------------
    def submit(self, rollout: Rollout) -> bool:
        """Queue one rollout; False when the queue is full (the rollout is dropped)."""
        if not self._alive():
            self._start()
        with self._lock:
            self._pending += 1
        try:
            self.queue.put_nowait(rollout)
        except queue.Full:
            with self._lock:
                self._pending -= 1
            self.dropped += 1
            return False
        return True

    def _alive(self) -> bool:
        return self._running and self._thread is not None and self._thread.is_alive()

    def _start(self) -> None:
        if self._closed:
            return
        self._running = True
        if self._thread is not None:
            self.restarts += 1
            self.record("the labeller's thread had stopped; restarted")
        self._thread = threading.Thread(target=self._loop, name="verifier-audit-watch", daemon=True)
        self._thread.start()

    # --- the background -----------------------------------------------------------------
    def _loop(self) -> None:
        while not self._closed or not self.queue.empty():
            self._idle_work()
            try:
                first = self.queue.get(timeout=0.05)
            except queue.Empty:
                continue
            items = [first]
            # gather a batch: each batch is a pool run (a worker forked, pipes, pickles) in
            # this process, under the trainer's GIL, so few large batches cost the trainer
            # less than many small ones; wait up to ``linger`` for more unless someone waits
            while len(items) < self.batch:
                try:
                    items.append(self.queue.get(timeout=0.0 if self._waiting else self.linger))
                except queue.Empty:
                    break
            try:
                self._label_batch(items)
            finally:
                with self._lock:
                    self._pending -= len(items)
                    self._idle.notify_all()
        self._idle_work()

    def _idle_work(self) -> None:
        try:
            self.on_idle()
        except Exception as exc:  # noqa: BLE001 -- the watch's bookkeeping never stops the labeller
            self.record(f"the watch's bookkeeping failed: {type(exc).__name__}: {exc}")

    def _label_batch(self, items: list[Rollout]) -> None:
        dying: BaseException | None = None
        try:
            results = self._run_oracle(items)
        except BaseException as exc:  # noqa: BLE001 -- whatever the oracle's pool raised, the trainer goes on
            self.record(f"labelling {len(items)} rollouts failed: {type(exc).__name__}: {exc}")
            results = [(None, f"labeller_error: {type(exc).__name__}")] * len(items)
            if not isinstance(exc, Exception):
                dying = exc  # SystemExit, KeyboardInterrupt: the thread ends, its batch accounted for
        for rollout, (label, reason) in zip(items, results):
            try:
                self.on_labelled(rollout, label, reason)
            except Exception as exc:  # noqa: BLE001 -- the watch's own bookkeeping never stops the trainer
                self.record(f"recording a label failed: {type(exc).__name__}: {exc}")
        self.labelled += len(items)
        if dying is not None:
            self._running = False  # before its batch is handed back: the next submit restarts
            raise dying

    def _run_oracle(self, items: list[Rollout]) -> list[tuple[str | None, str]]:
        from ..samples.labels import label_texts, prepare_for_labels

        tasks = [task_of(self.domain, r.prompt, r.reference) for r in items]
        new = [t for t in {t.id: t for t in tasks}.values() if t.id not in self._tasks]
        if new:
            self._tasks.update((t.id, t) for t in prepare_for_labels(new))
        label = self._label or label_texts
        texts = [(t.id, r.completion) for t, r in zip(tasks, items)]
        if self._label is not None:
            return label(texts, self._tasks)
        from ..domains import get_domain

        limit = self.timeout or get_domain(self.domain).default_timeout
        return label(texts, self._tasks, workers=1, timeout=limit, memory_mb=self.memory_mb, clean=True)

    # --- waiting and stopping -------------------------------------------------------------
    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every queued rollout is labelled; False when ``timeout`` ran out."""
        if not self._alive() and not self.queue.empty():
            self._start()
        self._waiting = True
        try:
            with self._idle:
                return self._idle.wait_for(lambda: self._pending <= 0, timeout)
        finally:
            self._waiting = False

    def close(self, timeout: float | None = None) -> None:
        """Label what is queued, then stop the thread."""
        self.drain(timeout)
        self._closed = True
        if self._thread is not None:
            self._thread.join(timeout)
