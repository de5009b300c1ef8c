"""Issue 30, items 8 and 9: the environment, disk and processes of the workers that run a
verifier (isolation/_limits.py, verifier_audit/environment.py, seccomp.deny_new_kernel_surfaces).

Each test writes the hostile verifier into its own directory and throws the attack at a
real audit (the command in a subprocess, or the API, which runs the same workers): a
secret of the audit's environment sent back in an error; a 2 GiB file; 2,000 forks;
io_uring and a new user namespace; a kill -9 that leaves a work directory behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit import audit as api_audit
from verifier_audit.environment import MASK, MIN_SECRET, mask, secret_values, worker_environment
from verifier_audit.isolation import _limits as limits
from verifier_audit.isolation import default_level

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-fake-9f2c41e07b5d4a1c8e6f"  # what a training job's environment holds
LINUX = sys.platform.startswith("linux")
root_only = pytest.mark.skipif(not LINUX or os.geteuid() != 0, reason="cgroups and namespaces need root on Linux")

LEAKS = '''
import os

def leaks_the_environment(completion, reference):
    """Sends back every variable it can see whose value looks like a key: in os.environ, and
    in the environment its process was started with (/proc/self/environ)."""
    seen = {k: v for k, v in os.environ.items() if v.startswith("sk-")}
    try:  # unreadable at the namespaces level (the uid changed after the exec)
        with open("/proc/self/environ", "rb") as fh:
            started = [v.decode() for v in fh.read().split(b"\\0") if b"=sk-" in v]
    except OSError as exc:
        started = type(exc).__name__
    raise RuntimeError(f"seen={seen!r} named={os.environ.get('VA_FAKE_API_KEY', 'absent')} started={started!r}")
'''


def _command(*args, env=None, **kw):
    return subprocess.run(
        [sys.executable, "-m", "verifier_audit", *args],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        timeout=600,
        **kw,
    )


def _audit_args(verifier: str, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--verifier",
        verifier,
        "--limit",
        "1",
        "--no-progress",
        "--no-config",
        "--probe-sample",
        "0",
        "--no-format-probe",
        "--workers",
        "1",  # no test here is about the pool: a second worker is a start-up more per audit
        "--json",
        str(out / "report.json"),
        "--results",
        str(out / "results.jsonl"),
        *extra,
    ]


def _messages(report) -> list[str]:
    return [m for ms in report.error_messages.values() for m in ms]


def _errors(out: Path) -> list[str]:
    lines = (out / "results.jsonl").read_text().splitlines()
    return [json.loads(line).get("error") or "" for line in lines if '"error"' in line]


def test_a_secret_of_the_audits_environment_never_reaches_the_results_or_the_report(tmp_path):
    grader = tmp_path / "leaky.py"
    grader.write_text(LEAKS)
    env = {"VA_FAKE_API_KEY": SECRET, "VA_FAKE_PLAIN": "sk-plain-value-7ab3d"}
    # Not passed: the worker's environment is the allow-list; the secret is not there, not
    # even in the environment its process started with (readable at the process level).
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    r = _command(*_audit_args(f"{grader}:leaks_the_environment", hidden, "--isolation", "process"), env=env)
    assert r.returncode in (0, 1), r.stderr[-2000:]
    errors = _errors(hidden)
    assert errors and all("seen={}" in e and "named=absent" in e and "started=[]" in e for e in errors), errors[:3]
    # Passed by name: the verifier gets it, and what it sends back is masked everywhere.
    passed = tmp_path / "passed"
    passed.mkdir()
    r = _command(
        *_audit_args(
            f"{grader}:leaks_the_environment", passed, "--pass-env", "VA_FAKE_API_KEY", "--pass-env", "VA_FAKE_PLAIN"
        ),
        env=env,
    )
    assert r.returncode in (0, 1), r.stderr[-2000:]
    errors = _errors(passed)
    assert errors and all(f"named={MASK}" in e and "VA_FAKE_PLAIN" in e for e in errors), errors[:3]
    for folder in (hidden, passed):
        for name in ("results.jsonl", "report.json"):
            text = (folder / name).read_text()
            assert SECRET not in text and "sk-plain-value-7ab3d" not in text, name
    assert SECRET not in r.stdout + r.stderr
    report = json.loads((passed / "report.json").read_text())
    shown = json.dumps(report)
    assert MASK in shown and SECRET not in shown


def test_a_key_named_by_a_remote_styles_options_still_reaches_its_worker(monkeypatch):
    # A judge's api_key_env and an HTTP style's header_env.* pass without --pass-env: the
    # style's own client reads them in the worker.
    from verifier_audit.loading import VerifierSpec

    spec = VerifierSpec(
        spec="http://127.0.0.1:1/v1",
        name="judge",
        style="judge",
        options=(("api_key_env", "VA_JUDGE_KEY"), ("header_env.X-Key", "VA_HEADER_KEY")),
    )
    monkeypatch.setenv("VA_JUDGE_KEY", SECRET)
    monkeypatch.setenv("VA_HEADER_KEY", SECRET + "-2")
    monkeypatch.setenv("VA_UNRELATED_TOKEN", "tok-unrelated-123456")
    env = worker_environment(os.environ, spec.env_names)
    assert env["VA_JUDGE_KEY"] == SECRET and env["VA_HEADER_KEY"] == SECRET + "-2"
    assert "VA_UNRELATED_TOKEN" not in env and env.get("PATH") == os.environ.get("PATH")
    assert set(secret_values(os.environ, spec.env_names)) >= {SECRET, SECRET + "-2", "tok-unrelated-123456"}


@settings(max_examples=200, deadline=None)
@given(
    secret=st.text(min_size=MIN_SECRET, max_size=24),
    before=st.text(max_size=40),
    after=st.text(max_size=40),
    times=st.integers(1, 3),
)
def test_a_masked_text_never_holds_the_secret(secret, before, after, times):
    text = before + (secret + after) * times
    masked = mask(text, [secret])
    assert secret not in masked
    assert MASK in masked or secret not in text


WRITES = '''
import os
import signal

def dies_writing_two_gib(completion, reference):
    """The same, with the signal the kernel sends at the limit put back to its default."""
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    return writes_two_gib(completion, reference)

def writes_two_gib(completion, reference):
    """Writes 2 GiB, a MiB at a time, in its working directory."""
    block = b"x" * 2**20
    with open("big.bin", "wb") as fh:
        for _ in range(2048):
            fh.write(block)
            fh.flush()
    return 1.0
'''


@pytest.mark.parametrize(
    "isolation, grader",
    [("process", "writes_two_gib"), ("namespaces", "writes_two_gib"), ("process", "dies_writing_two_gib")],
)
def test_a_file_past_the_limit_is_an_error_verdict_and_the_audit_goes_on(tmp_path, isolation, grader):
    if isolation == "namespaces" and default_level() != "namespaces":
        pytest.skip("the namespaces level needs root on Linux")
    path = tmp_path / "writer.py"
    path.write_text(WRITES)
    # The task's 5 equivalent answers, not its 99 candidates: each call that dies of SIGXFSZ
    # costs a worker's restart, and five calls in a row show the audit going on as well.
    report = api_audit(
        f"{path}:{grader}",
        suite="math",
        limit=1,
        origins=("equivalent",),
        probe_sample=0,
        file_mb=2,
        isolation=isolation,
        workers=1,
        cache=True,
    )
    assert report.n_candidates > 1 and report.errors == report.n_candidates  # every call ran, none wrote 2 GiB
    assert _messages(report) and all(limits.FILE_LIMIT_WORDS in m for m in _messages(report)), _messages(report)


FORKS = '''
import os

def forks_2000_times(completion, reference):
    """Forks 2,000 children that wait on a pipe, on one candidate of the audit (its answer
    boxed with the sign flipped: a fork costs what the worker maps); says how many it got.
    One candidate, not once per worker: a call past the pool's SLOW_AFTER (a loaded
    machine) lets a spare worker take the next chunk, in a work directory of its own."""
    if "\\\\boxed{-" + reference + "}" not in completion:
        return 0.0
    r, w = os.pipe()
    n = 0
    try:
        for _ in range(2000):
            if os.fork() == 0:
                os.close(w)
                os.read(r, 1)
                os._exit(0)
            n += 1
    except OSError as exc:
        raise RuntimeError(f"forked {n}: {exc}") from None
    finally:
        os.close(w)
        while n:  # the children end on the pipe's EOF: reaped, they count no more
            os.wait()
            n -= 1
    raise RuntimeError("forked 2000")
'''


@root_only
@pytest.mark.parametrize("isolation", ["process", "namespaces"])
def test_a_fork_bomb_is_stopped_at_the_process_bound(tmp_path, isolation):
    grader = tmp_path / "forks.py"
    grader.write_text(FORKS)
    report = api_audit(
        f"{grader}:forks_2000_times",
        suite="math",
        limit=1,
        probe_sample=0,
        max_processes=32,
        isolation=isolation,
        workers=1,
        timeout=60,  # the one slow call (31 forks on a loaded machine) ends on its bound, not on the clock
    )
    assert report.errors == 1 and report.n_candidates > 1  # one candidate, one bomb; the audit went on
    assert _messages(report)
    for message in _messages(report):
        assert limits.PROCESS_LIMIT_WORDS in message, message
        forked = int(message.split("forked ", 1)[1].split(":")[0])
        assert forked < 32, message


PROBE = """
import ctypes, errno, json, os

def _surfaces():
    libc = ctypes.CDLL(None, use_errno=True)
    out = {}
    for name, call in (("io_uring_setup", lambda: libc.syscall(425, 1, ctypes.c_void_p(0))),
                       ("unshare_newuser", lambda: libc.unshare(0x10000000)),
                       ("clone3", lambda: libc.syscall(435, 0, 0))):
        ctypes.set_errno(0)
        rc = call()
        out[name] = "ok" if rc == 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    # what still works: a thread, a fork, a subprocess
    import subprocess, threading
    t = threading.Thread(target=lambda: None)
    t.start()
    t.join()
    out["subprocess"] = subprocess.run(["true"]).returncode
    return out
"""

REFUSES = (
    PROBE
    + """

def probes_the_kernel(completion, reference):
    raise RuntimeError("surfaces=" + json.dumps(_surfaces(), sort_keys=True))
"""
)


@pytest.mark.skipif(not LINUX or os.uname().machine not in ("x86_64", "aarch64"), reason="seccomp tables")
@pytest.mark.parametrize("isolation", ["process", "namespaces"])
def test_io_uring_and_new_user_namespaces_are_refused_in_a_worker(tmp_path, isolation):
    if isolation == "namespaces" and default_level() != "namespaces":
        pytest.skip("the namespaces level needs root on Linux")
    grader = tmp_path / "kernel.py"
    grader.write_text(REFUSES)
    report = api_audit(
        f"{grader}:probes_the_kernel", suite="math", limit=1, probe_sample=0, isolation=isolation, workers=1
    )
    assert _messages(report)
    for message in _messages(report):
        seen = json.loads(message.split("surfaces=", 1)[1])
        assert seen["io_uring_setup"] in ("EPERM", "ENOSYS"), seen
        assert seen["unshare_newuser"] in ("EPERM", "ENOSYS"), seen
        assert seen["clone3"] == "ENOSYS" and seen["subprocess"] == 0, seen


@pytest.mark.skipif(not LINUX or os.uname().machine not in ("x86_64", "aarch64"), reason="seccomp tables")
def test_io_uring_and_new_user_namespaces_are_refused_in_a_code_sandbox_run():
    from verifier_audit.domains.code.sandbox import Sandbox, pool

    level = pool.default_level()
    with Sandbox(workers=1, level=level) as box:
        r = box.run(PROBE, call="_surfaces", timeout=10)
    assert r.ok, r
    refused = ("EPERM", "ENOSYS")
    assert r.value["io_uring_setup"] in refused and r.value["unshare_newuser"] in refused, r.value
    assert r.value["clone3"] == "ENOSYS" and r.value["subprocess"] == 0, r.value


SLEEPS = """
import os, time

def sleeps_in_its_directory(completion, reference):
    with open(os.path.join(os.environ["VA_MARK_DIR"], "cwd"), "w") as fh:
        fh.write(os.getcwd())
    with open("left-behind.bin", "wb") as fh:
        fh.write(b"x" * 2**20)
    time.sleep(120)
    return 1.0
"""


def test_a_killed_audits_work_directories_are_removed_by_the_next_run(tmp_path):
    grader = tmp_path / "sleeper.py"
    grader.write_text(SLEEPS)
    marks, scratch = tmp_path / "marks", tmp_path / "tmp"
    marks.mkdir()
    scratch.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VA_MARK_DIR": str(marks), "TMPDIR": str(scratch)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "verifier_audit",
            "run",
            "--verifier",
            f"{grader}:sleeps_in_its_directory",
            "--limit",
            "1",
            "--no-progress",
            "--no-config",
            "--probe-sample",
            "0",
            "--no-format-probe",
            "--workers",
            "1",
            "--isolation",
            "process",
            "--timeout",
            "300",
            "--pass-env",
            "VA_MARK_DIR",
            "--results",
            str(tmp_path / "r.jsonl"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "stderr.txt", "w"),
    )
    try:
        for _ in range(6000):  # until the verifier has written where it runs (or the audit ended)
            if (marks / "cwd").exists() and (marks / "cwd").read_text():
                break
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        assert (marks / "cwd").exists(), (
            f"the audit never called the verifier (exit {proc.poll()}): {(tmp_path / 'stderr.txt').read_text()[-3000:]}"
        )
        left = Path((marks / "cwd").read_text())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert left.parent == scratch and left.name.startswith("tmp"), left  # a neutral name
    for _ in range(100):  # the worker dies with its parent a moment later; its directory stays
        if (left / "left-behind.bin").exists():
            break
        time.sleep(0.05)
    assert (left / "left-behind.bin").exists()
    assert str(left) in (limits.ledger_dir() / str(proc.pid)).read_text()
    # The next run, of another verifier, removes it before it makes its own.
    after = tmp_path / "after"
    after.mkdir()
    # (--isolation process: pytest's tmp_path is 0700, closed to a namespaced worker's uid.)
    r = _command(
        *_audit_args("verifier_audit.domains.math.verifiers:strong", after, "--isolation", "process"),
        env={"TMPDIR": str(scratch)},
    )
    assert r.returncode in (0, 1), r.stderr[-2000:]
    assert not left.exists()
    assert not (limits.ledger_dir() / str(proc.pid)).exists()


def test_a_ledger_entry_of_a_live_process_is_kept_and_of_a_reused_pid_removed(tmp_path):
    # The pid alone would mistake a process that reused it for the audit: the start time
    # is checked too. A real process, its ledger file written as an audit's would be.
    live = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        folder = limits.ledger_dir()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        kept, gone = tmp_path / "tmpkept", tmp_path / "tmpgone"
        kept.mkdir()
        (folder / str(live.pid)).write_text(f"start {limits._start_time(live.pid)}\n{kept}\n")
        limits.sweep_stale_workdirs()
        assert kept.exists() and (folder / str(live.pid)).exists()  # that audit still runs
        gone.mkdir()
        (folder / str(live.pid)).write_text(f"start 1\n{gone}\n")  # the pid, another start: reused
        limits.sweep_stale_workdirs()
        assert not gone.exists() and not (folder / str(live.pid)).exists()
    finally:
        live.stdin.close()
        live.wait()


def test_pass_env_in_the_config_reaches_the_spec_and_a_bad_name_is_an_input_error(tmp_path):
    from verifier_audit.config import load_config
    from verifier_audit.errors import InputError
    from verifier_audit.plan import make_groups

    grader = tmp_path / "leaky.py"
    grader.write_text(LEAKS)
    project = tmp_path / "pyproject.toml"
    project.write_text(
        f'[tool.verifier_audit]\nsuite = "math"\npass_env = ["VA_FAKE_API_KEY"]\n\n'
        f'[[tool.verifier_audit.verifiers]]\nspec = "{grader}:leaks_the_environment"\n'
    )
    [group] = make_groups({"pass_env": ["VA_OTHER"]}, load_config(project), [])
    assert [s.pass_env for s in group.specs] == [("VA_FAKE_API_KEY", "VA_OTHER")]
    project.write_text('[tool.verifier_audit]\nsuite = "math"\n\npass_env = ["NOT-A-NAME"]\n')
    with pytest.raises(InputError) as err:
        load_config(project)
    assert f"{project}:4" in str(err.value) and "pass_env" in str(err.value) and "NOT-A-NAME" in str(err.value)


def test_a_temporary_directory_too_long_for_a_unix_socket_is_no_internal_error(tmp_path):
    """The forkserver's socket lives under TMPDIR; a TMPDIR past the 107 bytes a Unix socket
    path holds made every audit exit 3 (as under pytest-xdist's deep temporary folders)."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    out = tmp_path / "out"
    out.mkdir()
    r = _command(
        *_audit_args("verifier_audit.domains.math.verifiers:strong", out, "--isolation", "process"),
        env={"TMPDIR": str(deep)},
    )
    assert r.returncode in (0, 1), r.stderr[-2000:]
    assert json.loads((out / "report.json").read_text())["n_candidates"] > 0
