"""Test cases for differential testing, and running a candidate against them.

``prepare_cases`` (once per audit, in the parent): for every task, the visible tests'
inputs plus Hypothesis-generated ones (``inputs.generate_inputs``), run through the
*reference* in the sandbox; inputs on which the reference raises or times out are dropped
(they are outside its domain: HumanEval references have unstated preconditions). The
surviving (input, reference output) pairs go into ``task.metadata["cases"]`` as tagged
JSON, and are cached on disk per task.

``run_candidate`` (in an engine worker): one sandboxed process runs the candidate on every
case; outputs come back as data and are compared here with ``compare.values_equal`` under
the task's type policy. The candidate never sees an expected value.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...models import Task
from .compare import TypePolicy, values_equal
from .sandbox import Sandbox, decode_value, encode_value

CASES_VERSION = "5"  # 5: inputs outside the task's contract kept apart (inputs/contract.py)
N_GENERATED = 60  # Hypothesis inputs per task, on top of the visible ones
REFERENCE_TIMEOUT = 10.0
# An input the reference needs longer than this for is dropped: every candidate (and every
# mutant that loops on it) would pay for it, and the fast inputs separate programs as well.
SLOW_INPUT = 0.05
# Reference time per task: past it, further generated inputs are dropped (fastest kept),
# never the first MIN_CASES (the visible tests' inputs come first). A task whose every
# input is slow (HumanEval/75 loops 100^3 times) then runs on fewer inputs.
CASE_BUDGET = 0.25
MIN_CASES = 10
MAX_OUTSIDE = 20  # inputs outside the contract kept (apart) per task: enough to say a program differs there
REFILL = 3  # where inputs fall outside the contract, this many times N_GENERATED are drawn
POLICY_ENV = "VERIFIER_AUDIT_TYPE_POLICY"

# This process's sandboxes, one per set of extra warm modules (the repo domain's has pytest).
_SANDBOXES: dict[tuple[str, ...], tuple[int, Sandbox]] = {}
_SANDBOX_LOCK = threading.Lock()


def _fresh_lock_after_fork() -> None:
    global _SANDBOX_LOCK
    _SANDBOX_LOCK = threading.Lock()  # a fork taken while a thread held it must not inherit it held


os.register_at_fork(after_in_child=_fresh_lock_after_fork)


def process_sandbox(warm: tuple[str, ...] = ()) -> Sandbox:
    """This process's sandbox whose zygote also imported ``warm`` (``Sandbox(warm=)``),
    started on first use. Keyed by pid: a forked engine worker must not share the parent's
    zygote sockets, so it starts its own. Locked: verifiers are called from threads too,
    and two first calls must not start two sandboxes (the loser's would be collected under
    the thread still using it)."""
    with _SANDBOX_LOCK:
        found = _SANDBOXES.get(warm)
        if found is None or found[0] != os.getpid():
            box = Sandbox(workers=1, warm=warm)
            box.start()
            found = _SANDBOXES[warm] = (os.getpid(), box)
        return found[1]


def entry_point(task: Task) -> str:
    name = (task.model_extra or {}).get("entry_point")
    if not name:
        raise ValueError(f"task {task.id}: no entry_point (code tasks name the function to call)")
    return name


def tests_of(task: Task) -> str:
    return (task.model_extra or {}).get("tests") or ""


def policy_of(task: Task) -> TypePolicy:
    text = task.metadata.get("type_policy") or os.environ.get(POLICY_ENV, "")
    return TypePolicy.parse(text)


# --------------------------------------------------------------------------- preparing


def _cache_key(task: Task, seed: int) -> str:
    blob = json.dumps(
        [
            CASES_VERSION,
            N_GENERATED,
            seed,
            task.id,
            task.reference,
            tests_of(task),
            (task.model_extra or {}).get("entry_point"),
            task.metadata.get("input_hints"),
            task.metadata.get("signature"),
        ],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _compute(task: Task, seed: int, box: Sandbox) -> dict:
    from .inputs import generate_inputs
    from .inputs.contract import infer_contract, outside

    # Inputs outside the task's contract ("positive", "non-empty", ...) are not cases: a
    # program that differs there is not wrong. They are run apart (at most MAX_OUTSIDE),
    # and more inputs are drawn so that as many as before lie inside.
    # The first draw's inside inputs stay first (a task with nothing outside keeps the very
    # cases it had), the refill only adds.
    contract = infer_contract(task)
    inputs = [tuple(a) for a in generate_inputs(task, n=N_GENERATED, seed=seed) if _encodable(a)]
    wanted = len(inputs)
    if any(outside(contract, a) for a in inputs):
        seen = {repr(a) for a in inputs}
        more = [tuple(a) for a in generate_inputs(task, n=REFILL * N_GENERATED, seed=seed) if _encodable(a)]
        inputs += [a for a in more if repr(a) not in seen]
    inside = [a for a in inputs if not outside(contract, a)][:wanted]
    apart = [a for a in inputs if outside(contract, a)][:MAX_OUTSIDE]
    batch = inside + apart
    result = box.run(task.reference, call=entry_point(task), batch=batch, timeout=REFERENCE_TIMEOUT, memory_mb=1024)
    rows = [
        (i, args, item)
        for i, (args, item) in enumerate(zip(batch, result.items))
        if item.ok and item.seconds <= SLOW_INPUT
    ]
    usable = [row for row in rows if row[0] < len(inside)]
    kept_apart = [row for row in rows if row[0] >= len(inside)]
    chosen, spent = usable[:MIN_CASES], sum(item.seconds for _, _, item in usable[:MIN_CASES])
    for row in sorted(usable[MIN_CASES:], key=lambda r: r[2].seconds):
        if spent + row[2].seconds > CASE_BUDGET:
            break
        chosen.append(row)
        spent += row[2].seconds
    kept = [(args, item) for _, args, item in sorted(chosen, key=lambda r: r[0])]
    cases = [[encode_value(args), encode_value(item.value)] for args, item in kept]
    return {
        "cases": cases,
        "outside_cases": [[encode_value(args), encode_value(item.value)] for _, args, item in kept_apart],
        "generated": len(batch),
        "outside_contract": len(kept_apart),
        "reference_raised": sum(1 for i in result.items if not i.ok),
        "slow_dropped": sum(1 for i in result.items if i.ok and i.seconds > SLOW_INPUT),
        "budget_dropped": len(usable) - len(kept),
        "reference_seconds": round(sum(item.seconds for _, item in kept), 4),
        "slowest_input_seconds": round(max((item.seconds for _, item in kept), default=0.0), 5),
        "reference_status": result.kind,
        "reference_error": result.error if not result.ok else None,
    }


def _encodable(args: Any) -> bool:
    try:
        encode_value(tuple(args))
        return True
    except (TypeError, ValueError):
        return False


def prepare_cases(tasks: list[Task], seed: int, cache_dir: Path, workers: int = 2) -> list[Task]:
    """Tasks with ``metadata["cases"]`` (and ``metadata["case_stats"]``); cached per task."""
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    found: dict[str, dict] = {}
    todo = []
    for task in tasks:
        path = cache_dir / f"cases-{_cache_key(task, seed)}.json"
        try:
            found[task.id] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            todo.append((task, path))
    if todo:
        with Sandbox(workers=workers) as box, ThreadPoolExecutor(workers) as ex:
            for (task, path), data in zip(todo, ex.map(lambda tp: _compute(tp[0], seed, box), todo)):
                found[task.id] = data
                fd, tmp = tempfile.mkstemp(dir=cache_dir, suffix=".tmp")
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(data, fh)
                os.replace(tmp, path)
    out = []
    for task in tasks:
        data = found[task.id]
        stats = {k: v for k, v in data.items() if k not in ("cases", "outside_cases")}
        stats["cases"] = len(data["cases"])
        meta = {**task.metadata, "cases": data["cases"], "outside_cases": data["outside_cases"], "case_stats": stats}
        out.append(task.model_copy(update={"metadata": meta}))
    return out


# --------------------------------------------------------------------------- running

_DECODED: dict[str, tuple[list[tuple], list[Any]]] = {}


def decoded_cases(task: Task) -> tuple[list[tuple], list[Any]]:
    """(inputs, expected outputs), decoded once per process."""
    if task.id not in _DECODED:
        rows = task.metadata.get("cases") or []
        _DECODED[task.id] = ([decode_value(a) for a, _ in rows], [decode_value(e) for _, e in rows])
    return _DECODED[task.id]


_OUTSIDE: dict[str, tuple[list[tuple], list[Any]]] = {}


def decoded_outside(task: Task) -> tuple[list[tuple], list[Any]]:
    """(inputs, expected outputs) outside the task's contract, decoded once per process."""
    if task.id not in _OUTSIDE:
        rows = task.metadata.get("outside_cases") or []
        _OUTSIDE[task.id] = ([decode_value(a) for a, _ in rows], [decode_value(e) for _, e in rows])
    return _OUTSIDE[task.id]


@dataclass(frozen=True)
class Verdict:
    correct: bool
    reason: str


def candidate_timeout(task: Task) -> float:
    """5x the reference's time on the same cases, at least a second (process start and a
    loaded machine), at most 5: a slower program is judged incorrect."""
    ref = float(task.metadata.get("case_stats", {}).get("reference_seconds", 0.05) or 0.05)
    return min(5.0, max(1.0, 5 * ref))


def candidate_cpu_timeout(task: Task) -> float:
    """The CPU time a candidate's run on the cases may use: 5x the reference's time there,
    at least 0.25 s (50x what the suite's references take), at most the run's wall clock
    (``candidate_timeout``, which stays as the backstop for a program that waits). A
    spinning program that ignores every signal ends here instead of on the wall clock, and
    a correct one is not failed by a loaded machine: preempted, it uses no more CPU."""
    ref = float(task.metadata.get("case_stats", {}).get("reference_seconds", 0.05) or 0.05)
    return min(candidate_timeout(task), max(0.25, 5 * ref))


def input_timeout(task: Task) -> float:
    """Per input: 50x the reference's slowest input, at least 0.1 s of CPU time. Most
    programs that hang do so on their first input; this ends them in 0.1 s instead of the
    run's limits."""
    slowest = float(task.metadata.get("case_stats", {}).get("slowest_input_seconds", SLOW_INPUT) or 0.0)
    return max(0.1, 50 * slowest)


def run_candidate(
    code: str, task: Task, *, inputs: list[tuple] | None = None, expected: list[Any] | None = None
) -> Verdict:
    """Run ``code``'s entry point on the cases (default: the task's); compare here."""
    if inputs is None:
        inputs, expected = decoded_cases(task)
    if not inputs:
        return Verdict(False, "no usable test case for this task")
    result = process_sandbox().run(
        code,
        call=entry_point(task),
        batch=inputs,
        timeout=candidate_timeout(task),
        item_timeout=input_timeout(task),
        cpu_timeout=candidate_cpu_timeout(task),
    )
    policy = policy_of(task)
    for i, (args, want) in enumerate(zip(inputs, expected)):
        if i >= len(result.items):
            return Verdict(False, f"{result.kind} before input {i} finished: {result.error}")
        item = result.items[i]
        if not item.ok:
            return Verdict(False, f"input {_short(args)}: {item.kind}: {item.error}")
        if not values_equal(want, item.value, policy):
            return Verdict(False, f"input {_short(args)}: expected {_short(want)}, got {_short(item.value)}")
    return Verdict(True, f"matches the reference on {len(inputs)} inputs")


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
