"""Verifiers that misbehave, to show that an audit survives them (and to test that it does).

Each one is the strong reference verifier, except on candidates whose text contains
"Therefore" (a word some generated completions use), where it misbehaves.
"""

import os
import signal
import time

from verifier_audit.domains.math.verifiers import strong

TRIGGER = "Therefore"


def loops_forever(completion: str, reference: str) -> bool:
    if TRIGGER in completion:
        while True:
            pass
    return strong(completion, reference)


def exits_process(completion: str, reference: str) -> bool:
    if TRIGGER in completion:
        os._exit(1)
    return strong(completion, reference)


def uses_signal_alarm(completion: str, reference: str) -> bool:
    """Times itself out with SIGALRM, as Math-Verify does: needs the main thread."""

    def on_alarm(signum, frame):
        raise TimeoutError("verifier's own 1 s limit")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(1)
    try:
        if TRIGGER in completion:
            time.sleep(5)
        return strong(completion, reference)
    finally:
        signal.alarm(0)


def slow(completion: str, reference: str) -> bool:
    """The strong verifier, 10 ms slower per call: an audit long enough to interrupt."""
    time.sleep(0.01)
    return strong(completion, reference)
