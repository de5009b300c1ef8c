"""The watch: what the trainer hands it (sampled rollouts, logged metrics), the windows it
keeps, the JSONL it writes, the alarms it raises and what it does about them.

Two threads touch a ``Watch``. The trainer's thread only enqueues: ``seen`` draws the seeded
sample and submits the sampled rollouts to the labeller, ``log`` appends the metrics to a
deque. Everything else -- labels counted into windows, lines written, alarms checked -- runs
in the labeller's thread (``tick``, after each batch and whenever the queue is idle), so
the trainer never waits for the oracle, the file or the alarms.

A window is ``window`` trainer steps. It closes when every rollout sampled in it is labelled
and the trainer has logged or called the reward at a later step (or at ``close``); its line
then goes to the JSONL and the alarms are checked on the run so far, read exactly as
``verifier-audit monitor`` reads the file (``monitor.readers.LiveRun``), with the monitor's
rules (``monitor.alarms.check``, ``paid_wrong_rising`` among them). An alarm kind fires once,
at the first check where it holds.
"""

from __future__ import annotations

import json
import logging
import math
import random
import re
import threading
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..metrics import wilson
from ..monitor.alarms import Alarm, Thresholds, check
from ..monitor.readers import LiveRun
from ..monitor.run import WATCH_PREFIX
from ._labeller import Labeller, Rollout

ACTIONS = ("log", "report", "stop")
LOG = logging.getLogger("verifier_audit.watch")
CLIP = 400  # characters of a prompt or completion kept in an example


def category_of(reason: str) -> str:
    """The failure category the domain's oracle names in its reason ("hedge: several
    answers" -> "hedge", "not equivalent (boxed)" -> "not equivalent", "no answer"), else
    "unknown"."""
    head = re.split(r"[:(]", reason, maxsplit=1)[0].strip()
    return head or "unknown"


def paid_value(score: Any) -> float | None:
    """A reward's return value as training reads it: a number, or a dict's ``"score"``
    (verl); None ("does not apply", TRL) and anything unreadable are not counted."""
    if isinstance(score, dict):
        score = score.get("score")
    if score is None or isinstance(score, bool):
        return None
    try:
        value = float(score)
    except (TypeError, ValueError):
        return None
    return value if value == value else None  # NaN: TRL's "does not apply"


@dataclass
class _Window:
    index: int
    step: int = 0  # the largest step of a rollout sampled in it
    sampled: int = 0
    dropped: int = 0  # sampled, refused by the labeller's full queue
    pending: int = 0  # sampled, not yet labelled
    labelled: int = 0  # decided by the oracle
    undecided: int = 0
    paid_wrong: int = 0
    refused_right: int = 0
    categories: Counter = field(default_factory=Counter)  # of the paid-but-wrong
    examples: list[dict] = field(default_factory=list)

    def line(self) -> dict:
        pw, rr = wilson(self.paid_wrong, self.labelled), wilson(self.refused_right, self.labelled)
        share = (lambda k: k / self.labelled) if self.labelled else (lambda k: None)
        return {
            "step": self.step,
            WATCH_PREFIX + "sampled": self.sampled,
            WATCH_PREFIX + "dropped": self.dropped,
            WATCH_PREFIX + "labelled": self.labelled,
            WATCH_PREFIX + "undecided": self.undecided,
            WATCH_PREFIX + "paid_wrong": self.paid_wrong,
            WATCH_PREFIX + "refused_right": self.refused_right,
            WATCH_PREFIX + "paid_wrong_share": share(self.paid_wrong),
            WATCH_PREFIX + "paid_wrong_ci": [pw.low, pw.high],
            WATCH_PREFIX + "refused_right_share": share(self.refused_right),
            WATCH_PREFIX + "refused_right_ci": [rr.low, rr.high],
            WATCH_PREFIX + "categories": dict(self.categories),
            WATCH_PREFIX + "categories_ci": {
                c: [ci.low, ci.high] for c, ci in ((c, wilson(k, self.labelled)) for c, k in self.categories.items())
            },
            WATCH_PREFIX + "examples": self.examples,
        }


@dataclass(frozen=True)
class WatchAlarm:
    """An alarm of the monitor's, fired live, with examples of paid-but-wrong rollouts."""

    alarm: Alarm
    examples: list[dict]

    @property
    def kind(self) -> str:
        return self.alarm.kind

    @property
    def step(self) -> float:
        return self.alarm.step

    def to_dict(self) -> dict:
        return {**self.alarm.to_dict(), "examples": self.examples}


class Watch:
    """The state behind ``watch(...)``'s wrapper (see ``verifier_audit.watch``; the keywords
    are its own). ``label``: the labelling function, ``(items, tasks) -> [(label, reason)]``
    in place of ``samples.labels.label_texts`` in the pool (the tests plant a failing one)."""

    def __init__(
        self,
        *,
        domain: str,
        out: str | Path,
        sample: float = 0.02,
        seed: int = 0,
        window: int = 1,
        actions: Sequence[str] = ("log",),
        threshold: float = 0.5,
        thresholds: Thresholds | None = None,
        html: str | Path | None = None,
        examples: int = 3,
        capacity: int = 10_000,
        timeout: float | None = None,
        name: str = "",
        label=None,
    ):
        if not 0.0 <= sample <= 1.0:
            raise ValueError(f"watch(sample={sample}): a fraction of the rollouts, 0 to 1")
        if window < 1:
            raise ValueError(f"watch(window={window}): trainer steps per window, at least 1")
        unknown = [a for a in actions if a not in ACTIONS]
        if unknown:
            raise ValueError(f"watch(actions={list(actions)}): unknown {unknown}; choose from {', '.join(ACTIONS)}")
        self.domain, self.sample, self.window, self.actions = domain, sample, window, tuple(actions)
        self.threshold, self.thresholds = threshold, thresholds or Thresholds()
        self.out = Path(out)
        self.html = Path(html) if html is not None else self.out.with_suffix(".html")
        self.max_examples = examples
        self.rollouts = 0  # every rollout the reward scored
        self.alarms: list[WatchAlarm] = []
        self.stop_requested = False
        self._rng = random.Random(seed)
        self._skip = self._gap()  # rollouts to pass over before the next sampled one
        self._step = 0  # the latest trainer step seen
        self._logs: deque[dict] = deque()
        self._windows: dict[int, _Window] = {}
        self._fired: set[str] = set()
        self._recent: deque[dict] = deque(maxlen=examples)  # the latest paid-but-wrong examples
        # two locks, so the trainer never waits for the file or the alarms: ``_counts`` guards
        # the open windows (held for a few assignments, by the trainer too); ``_lock`` the
        # file, the live run and the alarms (the background thread, the report, ``close``)
        self._counts = threading.Lock()
        self._lock = threading.RLock()
        self._closing = False
        self._live = LiveRun(str(self.out), name or self.out.stem)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.out.open("w", encoding="utf-8")
        self.labeller = Labeller(domain, self._labelled, capacity=capacity, timeout=timeout, label=label)
        self.labeller.on_idle = self.tick

    # --- the trainer's side --------------------------------------------------------------
    def at_step(self, step: int | None) -> int:
        """The step rollouts are counted under: ``step`` when the caller knows it, else the
        latest one logged."""
        if step is not None and step > self._step:
            self._step = step
        return self._step if step is None else step

    def draw(self, n: int) -> list[int]:
        """Which of the next ``n`` rollouts are sampled (their positions; usually none). The
        gap to the next sampled rollout is drawn once, geometric with the sample rate, so a
        call with nothing sampled costs a subtraction, not a draw per rollout."""
        self.rollouts += n
        if self._skip >= n:
            self._skip -= n
            return []
        picked, at = [], self._skip
        while at < n:
            picked.append(at)
            at += 1 + self._gap()
        self._skip = at - n
        return picked

    def _gap(self) -> int:
        """Rollouts skipped before the next sampled one: Geometric(sample) - 1, seeded."""
        if self.sample >= 1.0:
            return 0
        if self.sample <= 0.0:
            return 1 << 62
        return int(math.log(1.0 - self._rng.random()) / math.log(1.0 - self.sample))

    def seen(
        self, step: int, prompts: Sequence[Any], completions: Sequence[Any], references: Sequence[Any], scores: Any
    ) -> None:
        """The reward scored ``completions``: sample them (seeded) and queue the sampled.
        Whatever goes wrong here is recorded, never raised into the trainer."""
        try:
            picked = self.draw(len(completions))
            if picked:
                self.take(step, picked, prompts, completions, references, scores)
        except Exception as exc:  # noqa: BLE001 -- the watch never crashes the training
            self.labeller.record(f"sampling a reward call failed: {type(exc).__name__}: {exc}")

    def missing_reference(self, field_name: str, columns: list[str]) -> None:
        self.labeller.record(
            f"the reward was called without the column {field_name!r} (its list columns: "
            f"{', '.join(columns) or 'none'}); nothing is labelled: give watch(reference_field=...) "
            "the dataset column that holds the reference"
        )

    def take(
        self,
        step: int,
        picked: list[int],
        prompts: Sequence[Any],
        completions: Sequence[Any],
        references: Sequence[Any],
        scores: Any,
    ) -> None:
        """Queue the rollouts at positions ``picked`` (``draw``'s) for the labeller."""
        self.at_step(step)
        for i in picked:
            try:
                score = paid_value(scores[i])
            except (IndexError, KeyError, TypeError):
                score = None
            if score is None:
                continue
            rollout = Rollout(
                step, _text(prompts[i]) if prompts else "", _text(completions[i]), str(references[i]), score
            )
            with self._counts:
                w = self._windows.get(self._index(step))
                if w is None:
                    w = self._windows[self._index(step)] = _Window(self._index(step))
                w.sampled += 1
                w.pending += 1
                w.step = max(w.step, step)
            if not self.labeller.submit(rollout):
                with self._counts:
                    w.pending -= 1
                    w.dropped += 1

    def log(self, metrics: dict, step: int) -> None:
        """The trainer's logged metrics at ``step`` (entropy, KL, reward, reward_std, length
        under the trainer's own names): queued, written and checked in the background."""
        self.at_step(step)
        self._logs.append({"step": step, **{k: v for k, v in metrics.items() if _is_number(v)}})

    # --- the background ------------------------------------------------------------------
    def _index(self, step: int) -> int:
        return max(step - 1, 0) // self.window

    def _labelled(self, rollout: Rollout, label: str | None, reason: str) -> None:
        with self._counts:
            w = self._windows[self._index(rollout.step)]
            w.pending -= 1
            if label is None:
                w.undecided += 1
                return
            w.labelled += 1
            paid = rollout.score >= self.threshold
            if paid and label == "incorrect":
                w.paid_wrong += 1
                category = category_of(reason)
                w.categories[category] += 1
                example = {
                    "step": rollout.step,
                    "prompt": rollout.prompt[:CLIP],
                    "completion": rollout.completion[:CLIP],
                    "reference": rollout.reference[:CLIP],
                    "score": rollout.score,
                    "category": category,
                    "reason": reason,
                }
                if len(w.examples) < self.max_examples:
                    w.examples.append(example)
                self._recent.append(example)
            elif not paid and label == "correct":
                w.refused_right += 1

    def tick(self) -> None:
        """Write what was logged, close the windows that can close, check the alarms."""
        with self._lock:
            changed = False
            while self._logs:
                self._write(self._logs.popleft())
                changed = True
            closed = []
            with self._counts:
                now = self._index(self._step)
                for index in sorted(self._windows):
                    w = self._windows[index]
                    if w.pending > 0 or (index >= now and not self._closing):
                        break
                    closed.append(self._windows.pop(index))
            for w in closed:
                self._write(w.line())
            if changed or closed:
                self._file.flush()
                self._check()

    def _write(self, line: dict) -> None:
        self._file.write(json.dumps(line, allow_nan=False, default=str) + "\n")
        self._live.add(line)

    def _check(self) -> None:
        run = self._live.run()
        if run is None:
            return
        for alarm in check(run, self.thresholds):
            if alarm.kind in self._fired:
                continue
            self._fired.add(alarm.kind)
            with self._counts:
                recent = list(self._recent)
            fired = WatchAlarm(alarm, recent)
            self.alarms.append(fired)
            self._file.write(
                json.dumps({"step": alarm.step, "alarm": alarm.kind, **fired.to_dict()}, default=str) + "\n"
            )
            self._act(fired)

    def _act(self, fired: WatchAlarm) -> None:
        if "log" in self.actions:
            LOG.warning("verifier-audit watch: %s at step %g: %s", fired.kind, fired.step, fired.alarm.message)
        if "report" in self.actions:
            self.write_report()
        if "stop" in self.actions:
            self.stop_requested = True

    # --- the end ------------------------------------------------------------------------
    def write_report(self) -> Path | None:
        """The monitor's HTML page of the run so far, at ``html``."""
        from ..monitor.report import build_report, render_html

        with self._lock:
            self._file.flush()
            run = self._live.run()
        if run is None:
            return None
        report, fired = build_report([run], self.thresholds)
        self.html.write_text(render_html(report, [run], fired), encoding="utf-8")
        return self.html

    def close(self, timeout: float | None = None) -> Path | None:
        """Label what is queued, close every window, check, write the HTML report; returns
        its path (a second call returns it again). Errors the labeller met are logged, never
        raised."""
        if self._file.closed:
            return self.html if self.html.is_file() else None
        self.labeller.drain(timeout)
        with self._lock:
            self._closing = True
        self.tick()
        self.labeller.close(timeout)
        for error in self.labeller.errors:
            LOG.warning("verifier-audit watch: %s", error)
        with self._lock:
            self._file.flush()
        page = self.write_report()
        with self._lock:
            self._file.close()
        return page


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


def _text(x: Any) -> str:
    """A prompt or completion as text: TRL's conversational form is a list of messages
    (the last one's content is what was said), a dict is one message."""
    if isinstance(x, str):
        return x
    if isinstance(x, dict):
        return str(x.get("content", ""))
    if isinstance(x, (list, tuple)) and x:
        return _text(x[-1])
    return "" if x is None else str(x)
