"""signal-alarm: a timeout built on SIGALRM, which only the main thread can arm."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...models import Severity
from .._facts import FunctionInfo, ModuleInfo
from .._rule import Hit, Rule

_TIMER_SIGNALS = ("SIGALRM", "SIGVTALRM", "SIGPROF")


def _arms(node: ast.AST, module: ModuleInfo) -> str | None:
    """What the call is, when it arms an alarm or installs a handler for one. Cancelling
    (``signal.alarm(0)``) is not reported: it comes with the arming call."""
    qualname = module.imports.call(node)
    if qualname == "signal.alarm" and node.args and not _is_zero(node.args[0]):
        return "signal.alarm()"
    if qualname == "signal.setitimer" and len(node.args) >= 2 and not _is_zero(node.args[1]):
        return "signal.setitimer()"
    if qualname == "signal.signal" and node.args:
        which = module.imports.qualname(node.args[0]) or ""
        if which.rsplit(".", 1)[-1] in _TIMER_SIGNALS:
            return f"signal.signal({which.rsplit('.', 1)[-1]}, ...)"
    return None


def _is_zero(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value == 0


def check(fn: FunctionInfo, module: ModuleInfo) -> Iterator[Hit]:
    # One finding per function, at its first arming call; the message names the others.
    calls = [(node, what) for node in fn.nodes if (what := _arms(node, module))]
    if not calls:
        return
    first, what = calls[0]
    others = sorted({f"{w} at line {n.lineno}" for n, w in calls[1:]})
    also = f" (also {', '.join(others)})" if others else ""
    yield Hit(
        first,
        f"{what} in {fn.display}{also}: a SIGALRM timeout works on the main thread only; called from "
        "a trainer's thread pool it raises ValueError ('signal only works in main thread') or never fires",
    )


RULE = Rule(
    id="signal-alarm",
    title="a timeout that only works on the main thread (signal.alarm)",
    severity=Severity.medium,
    why=(
        "Python's documentation of the signal module: handlers always run in the main thread, and signal.signal() "
        "called from another thread raises ValueError. Trainers score rewards from thread pools, where such a "
        "timeout errors or is off. huggingface/Math-Verify documents it: its parsing_timeout / timeout_seconds use "
        "signal.alarm() (math_verify/utils.py), and it tells threaded users to pass None and time out themselves."
    ),
    check=check,
    probe="threads",
)
