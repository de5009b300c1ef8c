"""What a call leaves behind in its worker: state that changes what later calls pay (the
persistence probe, engine/persistence.py) and work left running after it returns
(engine/lingering.py). Planted graders and their sound controls: tests/fixtures/state_graders.py.
Bounded by counts: a dozen candidates, one worker per verifier."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains import get_domain
from verifier_audit.engine import persistence, pool
from verifier_audit.engine.audit import AuditOptions, Prepared, audit_verdicts
from verifier_audit.engine.verifier_job import VerifierJob
from verifier_audit.loading import resolve
from verifier_audit.models import Candidate, Task
from verifier_audit.report.build import build_reports

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "state_graders.py"
POISON = r"\boxed{globals().update(_ALWAYS=True)}"


def _candidate(task: str, k: int, text: str, label: str, category: str, origin: str = "near_miss") -> Candidate:
    return Candidate(
        id=f"{task}/{category}/{k}", task_id=task, text=text, origin=origin, category=category, label=label
    )


def _prepared() -> Prepared:
    """One task: its panel, then a sample that patches an eval-based grader and one whose
    check a thread-based timeout gives up on, then wrong answers that a patched grader pays."""
    task = Task(id="t0", domain="math", prompt="p", reference="7")
    candidates = [
        _candidate("t0", 0, r"so \boxed{7}", "correct", "math.equivalent.plain", "equivalent"),
        _candidate("t0", 0, r"so \boxed{8}", "incorrect", "math.near_miss.off_by_one"),
        _candidate("t0", 0, POISON, "incorrect", "math.hostile.grader_state", "known_bad"),
        _candidate("t0", 0, r"\boxed{slow}", "incorrect", "math.hostile.slow_check", "known_bad"),
    ]
    candidates += [_candidate("t0", k, rf"\boxed{{{9 + k}}}", "incorrect", "math.near_miss.far") for k in range(1)]
    return Prepared("state", "h", "math", [task], candidates, [])


# The process level: the walls are not under test here, and its workers start sooner.
OPTIONS = AuditOptions(progress=False, probe_sample=0, answer_formats=False, workers=1, isolation="process")
GRADERS = ("eval_grader", "sound_grader", "thread_timeout_grader", "joined_thread_grader")


def _fresh_scores(prepared: Prepared, spec) -> dict[str, float | None]:
    """The same verifier's scores with each call in a worker of its own (``pool.Lane.fresh``)."""
    job = VerifierJob(spec, prepared.candidates, {t.id: t for t in prepared.tasks}, get_domain("math"))
    lane = pool.Lane(
        job,
        range(len(prepared.candidates)),
        clean=True,
        isolation="process",
        tree_memory=True,
        fresh=True,
    )
    return {prepared.candidates[o.index].id: o.value for _, o in pool.run_lanes([lane], workers=2)}


def test_poisoning_and_lingering_work_are_found_verdicts_stay_a_fresh_workers_and_controls_are_clean():
    prepared = _prepared()
    specs = [resolve(f"{FIXTURES}:{name}") for name in GRADERS]
    handed = audit_verdicts(prepared, specs, OPTIONS)
    reports = dict(zip(GRADERS, build_reports(handed, OPTIONS), strict=True))
    kinds = {name: sorted(f.kind for f in reports[name].security_findings) for name in GRADERS}
    assert kinds == {
        "eval_grader": ["persistent_state"],
        "sound_grader": [],
        "thread_timeout_grader": ["lingering_work"],
        "joined_thread_grader": [],
    }

    poisoned = reports["eval_grader"]
    (finding,) = poisoned.security_findings
    assert finding.candidate_id == "t0/math.hostile.grader_state/0"  # the poisoning candidate
    assert "one sample changes what later calls pay" in finding.detail
    assert (
        "t0/math.near_miss.off_by_one/0 (labelled incorrect) scored 1.0" in finding.detail
    )  # the flipped panel answer
    assert not poisoned.gate.passed and "changes later calls' pay" in poisoned.gate.reasons[0]

    # The audit's verdicts are those of a fresh worker per call: the patched worker was
    # retired and what it scored since its panel was last unchanged was scored again.
    verdicts = {cid: v.score for cid, v in handed[0].verdicts.items()}
    assert verdicts == _fresh_scores(prepared, specs[0])
    assert all(verdicts[c.id] == (1.0 if c.label == "correct" else 0.0) for c in prepared.candidates)

    lingering = reports["thread_timeout_grader"]
    (finding,) = lingering.security_findings
    assert finding.candidate_id == "t0/math.hostile.slow_check/0"
    assert "its timeout returns but leaves work running (1 thread still running" in finding.detail
    assert not lingering.gate.passed and "1 call that left work running" in lingering.gate.reasons[0]
    for name in ("sound_grader", "joined_thread_grader"):
        assert reports[name].gate.passed, reports[name].gate.reasons


class _Pids:
    """A job whose calls return a name of their worker (drawn at its setup: every worker is
    pid 2 of a PID namespace of its own); call 1 reports work left running."""

    def setup(self) -> None:
        self.name = os.urandom(8).hex()

    def __call__(self, item: int) -> str:
        return self.name

    def after(self, item: int) -> list[str]:
        return ["lingering_work:1 thread still running"] if item == 1 else []


def test_a_worker_is_retired_after_a_retiring_finding_and_a_fresh_lane_uses_one_per_call():
    lane = pool.Lane(_Pids(), range(4))
    pids = {o.index: o.value for _, o in pool.run_lanes([lane], workers=1)}
    assert pids[0] == pids[1] and len({pids[1], pids[2]}) == 2 and pids[2] == pids[3]
    fresh = pool.Lane(_Pids(), range(3), fresh=True)
    assert len({o.value for _, o in pool.run_lanes([fresh], workers=1)}) == 3


_LABELS = st.sampled_from(["correct", "incorrect"])
_CATEGORIES = st.sampled_from(["math.near_miss.a", "math.hostile.b", "math.security.c", "math.equivalent.d"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), _LABELS, _CATEGORIES), max_size=24), st.integers(0, 3))
def test_the_panel_and_the_probed_calls(rows, seed):
    candidates = [
        _candidate(f"t{task}", k, f"text {k}", label, category) for k, (task, label, category) in enumerate(rows)
    ]
    panel = persistence.panels(candidates)
    chosen = persistence.probed(candidates, panel, seed)
    assert chosen == persistence.probed(candidates, panel, seed)  # seeded
    for task, (right, wrong) in panel.items():
        assert candidates[right].label == "correct" and candidates[wrong].label == "incorrect"
        assert candidates[right].task_id == candidates[wrong].task_id == task
    inside = {i for members in panel.values() for i in members}
    for i, c in enumerate(candidates):
        hostile = c.category.split(".")[1] in persistence.PROBED
        if c.task_id in panel and i not in inside and hostile:
            assert i in chosen
        if i in inside or c.task_id not in panel:
            assert i not in chosen


def test_a_busy_child_process_left_running_is_work_left_an_idle_thread_or_a_waited_child_is_not():
    import subprocess
    import sys
    import threading

    from verifier_audit.engine.lingering import Leftovers

    look = Leftovers()
    look.before()
    subprocess.run([sys.executable, "-c", "pass"], check=True)  # waited for
    idle = threading.Event()
    waiting = threading.Thread(target=idle.wait, daemon=True)  # a pool's thread waiting for work
    waiting.start()
    assert look.after() == []
    look.before()
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        (finding,) = look.after()
        assert finding.startswith("lingering_work:1 child process still running after the call returned")
    finally:
        busy.kill()
        busy.wait()
        idle.set()
        waiting.join()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_coin_flipping_grader_is_not_called_persistent_and_a_poisoned_one_is(seed):
    """The panel inside one worker (``PanelWatch``) on a grader that pays at random: its
    panel answers vary before any probed call and are left out, or a change is not seen
    ``STEADY`` times in a row -- 40 probed calls give at most a chance finding, where seeing a
    change twice (the first rule) gave one on about every fourth call (15 on the coin's
    ``--limit 3`` audit). A grader whose state a
    sample changed gives the changed score every time: found on the first probed call after."""
    import random

    rng = random.Random(seed)
    panel = {"t0": (0, 1)}
    coin = persistence.PanelWatch(frozenset(range(2, 42)), panel)
    found = 0
    for index in range(2, 42):
        coin.before(index, "t0", lambda i: float(rng.random() < 0.5))
        if coin.after(index, "t0", lambda i: float(rng.random() < 0.5)):
            found += 1
            coin = persistence.PanelWatch(frozenset(range(2, 42)), panel)  # the worker retired: a fresh one
    assert found <= 1, found

    poisoned = {"on": False}
    watch = persistence.PanelWatch(frozenset({2, 3}), panel)
    watch.before(2, "t0", lambda i: float(i == 0 or poisoned["on"]))
    assert watch.after(2, "t0", lambda i: float(i == 0 or poisoned["on"])) == []
    poisoned["on"] = True  # the probed call 3 patched the grader: the wrong panel answer is paid
    watch.before(3, "t0", lambda i: float(i == 0 or poisoned["on"]))
    entries = watch.after(3, "t0", lambda i: float(i == 0 or poisoned["on"]))
    assert entries and entries[0] == f"{persistence.FINDING}:1:0.0:1.0"
