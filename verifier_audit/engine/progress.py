"""A one-line progress bar on stderr, only when stderr is a terminal (CI logs stay clean),
with an ETA that says when it cannot know.

Why not the mean rate since the start: an audit's fast calls finish in seconds and its
slow ones (hangs that wait out the per-call timeout) come last, so the mean rate promised
"eta 0s" for minutes. The estimate here uses the recent rate measured up to now (a stall
lowers it while it lasts) and the calls in flight: one running far longer than calls
take is presumed to wait out its timeout. Without enough evidence it shows "eta ?".
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

WINDOW = 50  # advances (items or batches) the recent rate is measured over
MIN_SAMPLES = 5  # fewer completions than this: no rate-based estimate
STUCK_FACTOR = 10  # a call in flight this many typical durations long is presumed stuck...
STUCK_FLOOR = 1.0  # ...and at least this many seconds long


@dataclass
class Estimate:
    seconds: float | None  # None: not enough evidence
    stuck: int = 0  # calls in flight presumed to wait out their timeout


class EtaEstimator:
    """Time left from completion times and the calls in flight; ``now`` is always passed
    in, so the logic is tested with a synthetic clock."""

    def __init__(self, total: int, *, timeout: float | None = None, workers: int = 1):
        self.total, self.timeout, self.workers = total, timeout, max(1, workers)
        self.done = 0
        self._recent: deque[tuple[float, int]] = deque(maxlen=WINDOW)  # (time, items) of each advance
        self._in_flight: list[float] = []  # start times of the calls running now

    def skip(self, n: int) -> None:
        """``n`` items done before this run (a resumed audit): they move the bar, not the rate."""
        self.done += n

    def record(self, now: float, n: int = 1) -> None:
        self.done += n
        self._recent.append((now, n))

    def in_flight(self, started: list[float]) -> None:
        self._in_flight = list(started)

    def rate(self, now: float | None = None) -> float | None:
        """Items per second since the oldest advance of the window, measured up to ``now``
        (None: up to the last advance). The items of that oldest advance were done before
        it, so they do not count."""
        if len(self._recent) < MIN_SAMPLES:
            return None
        span = (self._recent[-1][0] if now is None else now) - self._recent[0][0]
        items = sum(n for _, n in self._recent) - self._recent[0][1]
        return items / span if span > 0 and items > 0 else None

    def estimate(self, now: float) -> Estimate:
        remaining = self.total - self.done
        if remaining <= 0:
            return Estimate(0.0)
        rate = self.rate(now)
        guesses = [remaining / rate] if rate else []
        stuck = 0
        if self.timeout and self._in_flight:
            # How long a call takes here (the workers share the completions), from the rate
            # while calls completed: the stall itself must not make a hang look typical.
            before = self.rate()
            typical = self.workers / before if before else 0.0
            after = max(STUCK_FLOOR, STUCK_FACTOR * typical)
            ages = [now - s for s in self._in_flight if now - s > after]
            stuck = len(ages)
            if ages:
                guesses.append(max(0.0, self.timeout - min(ages)))
        return Estimate(max(guesses) if guesses else None, stuck)


def clock(seconds: float) -> str:
    """12s, 3:07, 1:02:03."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    m, s = divmod(s, 60)
    return f"{m}:{s:02d}" if m < 60 else f"{m // 60}:{m % 60:02d}:{s:02d}"


class Progress:
    """``advance`` after each item; ``in_flight`` (the pool's on_wait) between them, so the
    line keeps moving while the workers wait on slow calls."""

    def __init__(
        self,
        label: str,
        total: int,
        *,
        enabled: bool | None = None,
        timeout: float | None = None,
        workers: int = 1,
        now: Callable[[], float] = time.monotonic,
    ):
        self.label, self.total = label, total
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._now = now
        self.eta = EtaEstimator(total, timeout=timeout, workers=workers)
        self.start = self._last = now()
        self._width = 0

    @property
    def done(self) -> int:
        return self.eta.done

    def skip(self, n: int) -> None:
        self.eta.skip(n)

    def advance(self, n: int = 1) -> None:
        t = self._now()
        self.eta.record(t, n)
        self._maybe_draw(t)

    def in_flight(self, started: list[float]) -> None:
        t = self._now()
        self.eta.in_flight(started)
        self._maybe_draw(t)

    def _maybe_draw(self, t: float) -> None:
        if self.enabled and (t - self._last > 0.1 or self.done == self.total):
            self._last = t
            self._draw(t)

    def line(self, t: float) -> str:
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * int(frac * 24)
        est, rate = self.eta.estimate(t), self.eta.rate(t)
        eta = "?" if est.seconds is None else clock(est.seconds)
        if est.stuck:
            eta += f" ({est.stuck} call{'s' if est.stuck > 1 else ''} may wait out the {self.eta.timeout:g}s timeout)"
        speed = "" if not rate else f"{rate:,.0f}/s  " if rate >= 10 else f"{rate:.2g}/s  "
        return (
            f"{self.label:<22} [{bar:<24}] {self.done}/{self.total}  {speed}{clock(t - self.start)} elapsed  eta {eta}"
        )

    def _draw(self, t: float) -> None:
        text = self.line(t)
        pad = max(0, self._width - len(text))  # a shorter line overwrites all of the last one
        self._width = len(text)
        sys.stderr.write(f"\r{text}{' ' * pad}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(self._now())
            sys.stderr.write("\n")
            sys.stderr.flush()
