"""No test races the clock: a test that asserts wall-clock or CPU time fails on a loaded
machine (the README's test command failed twice on a busy 2-core one). Tests bound work
(counts of calls, rows, steps; sizes) or compare with a baseline measured in the same test
(tests/scaling.py); speed belongs in benchmarks/.

The scan below reads tests/*.py with ``ast`` and fails on an ``assert`` that compares a
time difference -- ``time.perf_counter() / monotonic() / time() / process_time()`` minus
something, or a name assigned from such a difference (``elapsed = monotonic() - start``),
or a rate divided by one -- with anything. Hang guards (``deadline = monotonic() + 120``,
then ``assert monotonic() < deadline``) compare a clock reading, not a difference, and
pass. tests/scaling.py's ratio helpers are the one allowed place that measures time.
"""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import settings

TESTS = Path(__file__).resolve().parent
CLOCKS = {
    "perf_counter",
    "monotonic",
    "time",
    "process_time",
    "perf_counter_ns",
    "monotonic_ns",
    "time_ns",
    "process_time_ns",
    "thread_time",
}
ALLOWED = {"scaling.py"}  # growth / relative_cost: ratios against a baseline in the same test


def _is_clock_call(node: ast.AST) -> bool:
    """``time.monotonic()``, ``monotonic()`` (imported from time), and the like."""
    if not isinstance(node, ast.Call) or node.args:
        return False
    fn = node.func
    name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else None
    if isinstance(fn, ast.Attribute) and not (isinstance(fn.value, ast.Name) and fn.value.id == "time"):
        return False
    return name in CLOCKS


def _is_time_span(node: ast.AST, spans: set[str]) -> bool:
    """A clock reading minus something, a name holding one, or a quantity divided by one."""
    if isinstance(node, ast.Name):
        return node.id in spans
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Sub) and (_is_clock_call(node.left) or _is_clock_call(node.right)):
            return True
        if isinstance(node.op, (ast.Div, ast.Mult, ast.Add, ast.Sub)):
            return _is_time_span(node.left, spans) or _is_time_span(node.right, spans)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("round", "abs", "float"):
        return any(_is_time_span(a, spans) for a in node.args)
    return False


def _spans(tree: ast.AST) -> set[str]:
    """Names assigned from a time span anywhere in the module (to a fixed point)."""
    spans: set[str] = set()
    while True:
        found = set(spans)
        for node in ast.walk(tree):
            targets, value = [], None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
                targets, value = [node.target], node.value
            if value is None:
                continue
            pairs = []
            for target in targets:
                if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
                    pairs += zip(target.elts, value.elts)
                else:
                    pairs.append((target, value))
            for target, v in pairs:
                if isinstance(target, ast.Name) and _is_time_span(v, found):
                    found.add(target.id)
        if found == spans:
            return spans
        spans = found


def clock_assertions(source: str, filename: str) -> list[str]:
    """``file:line`` of every assert in ``source`` that compares a time span."""
    tree = ast.parse(source, filename)
    spans = _spans(tree)
    hits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        for compare in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
            if any(_is_time_span(side, spans) for side in [compare.left, *compare.comparators]):
                hits.append(f"{filename}:{node.lineno}")
                break
    return hits


def test_no_test_asserts_wall_clock_or_cpu_time():
    hits = [
        hit
        for path in sorted(TESTS.rglob("*.py"))
        if path.name not in ALLOWED
        for hit in clock_assertions(path.read_text(encoding="utf-8"), f"{path.relative_to(TESTS.parent)}")
    ]
    assert hits == [], (
        "assertions on elapsed time (bound work instead: tests/scaling.py, counts, sizes):\n" + "\n".join(hits)
    )


def test_the_scan_finds_what_it_is_for():
    caught = """
import time
from time import monotonic, process_time
def test_a():
    start = time.perf_counter()
    work()
    assert time.perf_counter() - start < 2.0
def test_b():
    start = monotonic()
    work()
    elapsed = monotonic() - start
    assert elapsed < 0.8
def test_c():
    n, start = 300, time.perf_counter()
    per_second = n / (time.perf_counter() - start)
    assert per_second > 200
def test_d():
    start = process_time()
    assert round(process_time() - start, 1) <= 5 and True
"""
    assert clock_assertions(caught, "t.py") == ["t.py:7", "t.py:12", "t.py:16", "t.py:19"]
    passed = """
import time
def test_hang_guard():
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and busy():
        time.sleep(0.1)
    assert time.monotonic() < deadline, "never ended"
def test_counts():
    assert len(calls) == 1 and growth(f, build, 100) < LINEAR
def test_server_stamp():
    assert reply["created"] <= int(time.time())
"""
    assert clock_assertions(passed, "t.py") == []


def test_hypothesis_has_no_deadline():
    # Hypothesis fails an example that runs past its deadline (200 ms by default), a clock
    # like any other: conftest.py loads a profile without one for every test.
    assert settings.default.deadline is None
