"""A one-line progress bar on stderr, only when stderr is a terminal (CI logs stay clean)."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, label: str, total: int, *, enabled: bool | None = None):
        self.label, self.total, self.done = label, total, 0
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.start = self._last = time.monotonic()

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.1 or self.done == self.total):
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        frac = self.done / self.total if self.total else 1.0
        rate = self.done / max(now - self.start, 1e-9)
        eta = (self.total - self.done) / rate if rate else 0.0
        bar = "#" * int(frac * 24)
        sys.stderr.write(f"\r{self.label:<22} [{bar:<24}] {self.done}/{self.total}  {rate:,.0f}/s  eta {eta:,.0f}s ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(time.monotonic())
            sys.stderr.write("\n")
            sys.stderr.flush()
