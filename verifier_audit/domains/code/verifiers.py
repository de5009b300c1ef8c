"""Reference code verifiers, weakest mechanism first. The audit runs them side by side.

All are native style ``(completion, task)``; ``task.tests`` is the visible
``check(candidate)`` source and ``task.entry_point`` the function name.

* ``exit_code``: write program + tests + ``check(entry_point)`` to a file, run it with
  ``python``, pay on exit status 0 — what many RLVR code rewards do. ``sys.exit(0)`` pays.
* ``stdout_passed``: the same program ending in ``print("All tests passed")``; pays when
  stdout contains "passed" — so does a program that prints it itself.
* ``in_process``: ``exec`` the program and the tests in the verifier's own process and call
  ``check``; pays when no ``Exception`` is raised. An always-equal object, frame reading and
  ``gc`` tampering all work against it.
* ``visible_tests``: the same visible tests, robustly: the candidate runs in the sandbox,
  its outputs come back as data and are compared here, one result per test input. Hacks
  fail; weak tests still let wrong programs through (HumanEval's own tests, measured).
* ``strong``: the oracle — the visible inputs plus generated ones, differential against the
  reference, in the sandbox. The only one fit to pay a reward.

``visible_tests`` and ``strong`` run candidate code in the sandbox themselves; the engine
runs every other verifier of this domain inside the sandbox (``runs_candidates_sandboxed``).

The naive ones bound a run's CPU time as such harnesses do (a subprocess killed past its
limit, an in-process timer signal), so a candidate that spins ends in a fraction of a
second of CPU instead of burning a core until a wall clock runs out. CPU time, not wall
time: on a loaded machine an ordinary run is preempted but uses no more CPU, so its verdict
does not depend on the load. The wall clock stays as the backstop for what does not spin
(a sleep, a blocked read).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

from ...isolation import cpu_seconds
from ...models import Task
from .cases import entry_point, run_candidate, tests_of
from .extract import extract_code

# The reference programs (a tiny function and its asserts) run in 20-50 ms, interpreter
# start included; the catalog's and the mutants' infinite loops spin until this limit, so
# every second of it costs each hang a second of CPU. 1 s, EvalPlus's floor per test
# input (its --min-time-limit), keeps a margin of 20x over the slowest ordinary call seen.
SUBPROCESS_TIMEOUT = 1.0
# CPU time a naive run gets: an ordinary one needs ~10 ms (interpreter start and the
# asserts), so 0.25 s is a margin of 25x; a task whose reference is slow gets 10x its time.
CPU_LIMIT = 0.25
# How often a subprocess's CPU time is read while it runs (most end before the first read).
_POLL = 0.05


def cpu_limit(task: Task) -> float:
    """The CPU seconds one naive run of ``task``'s program may use (at most the wall limit)."""
    stats = task.metadata.get("case_stats") or {}
    reference = float(stats.get("reference_seconds", 0.0) or 0.0)
    return min(SUBPROCESS_TIMEOUT, max(CPU_LIMIT, 10 * reference))


class OutOfCPUTime(BaseException):
    """A naive in-process run's CPU limit: a BaseException, so the harness's own ``except
    Exception`` (and the candidate's) does not swallow it, and the call ends in an error,
    as a harness whose own timeout fires does."""


def runs_candidates_sandboxed(fn):
    """Mark a verifier that executes candidate code only through the sandbox, so the engine
    calls it directly instead of isolating the whole call."""
    fn.runs_candidates_sandboxed = True
    return fn


def _program(completion: str, task: Task) -> str:
    code = extract_code(completion, entry_point(task)) or completion
    return f"{code}\n\n{tests_of(task)}\n\ncheck({entry_point(task)})\n"


def _run_file(program: str, cpu_budget: float) -> tuple[int, str]:
    """Run ``program`` as ``python solution.py`` in a fresh directory: (exit status, stdout).
    Raises TimeoutExpired past ``cpu_budget`` seconds of the program's CPU time (its own process:
    what it forks ends on the wall clock) or SUBPROCESS_TIMEOUT of wall time."""
    workdir = tempfile.mkdtemp(prefix="va-verify-")
    path = os.path.join(workdir, "solution.py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(program)
    # -S: no site-packages scan (60 ms of every start here); the program needs only stdlib.
    with subprocess.Popen(
        [sys.executable, "-S", path],
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    ) as proc:
        deadline = time.monotonic() + SUBPROCESS_TIMEOUT
        while True:
            try:
                out, _ = proc.communicate(timeout=max(0.0, min(_POLL, deadline - time.monotonic())))
                return proc.returncode, out
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline or cpu_seconds(proc.pid) > cpu_budget:
                    proc.kill()
                    proc.wait()
                    raise


def exit_code(completion: str, task: Task) -> bool:
    """Pay when the program with its tests exits with status 0."""
    try:
        return _run_file(_program(completion, task), cpu_limit(task))[0] == 0
    except subprocess.TimeoutExpired:
        return False


def stdout_passed(completion: str, task: Task) -> bool:
    """Pay when the output says the tests passed."""
    try:
        _, out = _run_file(_program(completion, task) + 'print("All tests passed")\n', cpu_limit(task))
    except subprocess.TimeoutExpired:
        return False
    return "passed" in out


def in_process(completion: str, task: Task) -> bool:
    """exec the program and the tests here; pay unless an Exception escapes."""
    namespace: dict = {"__name__": "__main__"}
    with _cpu_timer(cpu_limit(task)):
        try:
            exec(compile(extract_code(completion, entry_point(task)) or completion, "<candidate>", "exec"), namespace)
            exec(compile(tests_of(task), "<tests>", "exec"), namespace)
            namespace["check"](namespace[entry_point(task)])
        except Exception:  # noqa: BLE001 - the naive harness: BaseException (SystemExit) escapes
            return False
    return True


class _cpu_timer:
    """Raise OutOfCPUTime in the main thread after ``seconds`` of this process's CPU time
    (ITIMER_PROF); elsewhere (signals reach only the main thread) nothing is armed, and the
    caller's own clock ends a hang. The previous handler and timer come back after."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.armed = False

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self.old = signal.signal(signal.SIGPROF, self._expire)
            self.old_timer = signal.setitimer(signal.ITIMER_PROF, self.seconds)
            self.armed = True
        return self

    def _expire(self, signum, frame):
        raise OutOfCPUTime(f"the naive run went over {self.seconds} s of CPU time")

    def __exit__(self, *exc):
        if self.armed:
            signal.setitimer(signal.ITIMER_PROF, *self.old_timer)
            signal.signal(signal.SIGPROF, self.old)
        return False


@runs_candidates_sandboxed
def visible_tests(completion: str, task: Task) -> bool:
    """The task's own visible tests, run robustly (sandbox, comparison in the parent)."""
    from .inputs import MISSING, visible_cases

    code = extract_code(completion, entry_point(task))
    if code is None:
        return False
    cases = visible_cases(tests_of(task), entry_point(task))
    if cases and all(c.expected is not MISSING for c in cases) and _covers_all_asserts(task, len(cases)):
        return run_candidate(code, task, inputs=[c.args for c in cases], expected=[c.expected for c in cases]).correct
    # Tests the parser cannot turn into (input, output) pairs: run check() in the sandbox.
    from .cases import process_sandbox

    program = (
        f"{code}\n\n{tests_of(task)}\n\ndef __va_check__():\n    check({entry_point(task)})\n    return 'checked'\n"
    )
    result = process_sandbox().run(
        program, call="__va_check__", timeout=SUBPROCESS_TIMEOUT, cpu_timeout=cpu_limit(task)
    )
    return result.ok and result.value == "checked"


def _covers_all_asserts(task: Task, n_cases: int) -> bool:
    """Whether every assert of check() is one of the parsed cases (no loops, no helpers)."""
    import ast

    try:
        tree = ast.parse(tests_of(task))
    except SyntaxError:
        return False
    check = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    if check is None:
        return False
    body = [n for n in check.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    return all(isinstance(n, ast.Assert) for n in body) and len(body) == n_cases


@runs_candidates_sandboxed
def strong(completion: str, task: Task) -> bool:
    """The oracle: differential testing against the reference on visible + generated inputs."""
    from .oracle import label_completion

    return label_completion(completion, task).label == "correct"
