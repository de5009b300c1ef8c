"""The isolation of verifier workers (isolation/_lockdown.py, ``--isolation``): what a verifier
in a math or SQL audit can no longer do at the default level, shown against the ``process``
level where the same attack works (so each test can fail).

The attacks are the red-team findings of issue 13: a verifier that ``eval``s model output
ran ``id`` as root and wrote outside its directory; reached host sockets; left IPC objects
behind; held more memory across forked children than the limit."""

import ctypes
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from verifier_audit.engine import pool
from verifier_audit.isolation import default_level, memory

pytestmark = pytest.mark.skipif(default_level() != "namespaces", reason="the namespaces level needs root on Linux")


class Attack:
    """A pool job whose one call runs ``code`` (the verifier's body) and returns its value."""

    def __init__(self, code: str, readable=()):
        self.code, self.readable = code, [str(p) for p in readable]

    def setup(self):
        pass

    def readable_paths(self):
        return self.readable

    def __call__(self, item):
        scope = {}
        exec(self.code, scope)  # noqa: S102 - the hostile verifier under test
        return scope.get("result")


def run(code: str, level: str, memory_mb=512, timeout=20.0, readable=(), tree_memory=True):
    job = Attack(code, readable)
    [out] = list(
        pool.run(job, [0], workers=1, timeout=timeout, memory_mb=memory_mb, isolation=level, tree_memory=tree_memory)
    )
    return out


def test_writes_outside_the_work_dir_do_not_reach_the_host(tmp_path):
    # The home and pytest's directory: read-only, and closed to the worker's uid.
    home = Path.home() / f".va-isolation-probe-{os.getpid()}"
    in_tmp = tmp_path / "written-by-the-verifier"
    code = (
        f"import errno\nresult = []\nfor p in ({str(home)!r}, {str(in_tmp)!r}):\n"
        f"    try:\n        open(p, 'w').write('x'); result.append('wrote')\n"
        f"    except OSError as e:\n        result.append(errno.errorcode[e.errno])"
    )
    try:
        out = run(code, "namespaces", readable=[tmp_path])
        assert out.ok and all(v in ("EROFS", "EACCES") for v in out.value), out
        assert not home.exists() and not in_tmp.exists()
        assert run(code, "process").value == ["wrote", "wrote"]  # the same writes, one level down
        assert home.exists() and in_tmp.exists()
    finally:
        home.unlink(missing_ok=True)


def test_the_worker_runs_as_an_unprivileged_uid_that_cannot_read_private_files(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("key")
    secret.chmod(0o600)
    code = (
        f"import os\ntry:\n    open({str(secret)!r}).read(); seen = True\nexcept OSError:\n    seen = False\n"
        f"result = [os.getuid(), seen]"
    )
    out = run(code, "namespaces", readable=[tmp_path])
    assert out.ok and out.value[0] != 0 and out.value[1] is False, out
    assert run(code, "process").value == [0, True]


def test_writes_to_tmp_land_in_private_scratch_and_host_files_stay_readable(tmp_path):
    # /tmp is an overlay: a suite or checkout under /tmp is still read, writes stay private.
    readable = Path("/tmp") / f"va-host-file-{os.getpid()}"
    readable.write_text("from the host")
    written = Path("/tmp") / f"va-scratch-write-{os.getpid()}"
    try:
        code = (
            f"result = open({str(readable)!r}).read(); open({str(written)!r}, 'w').write('x'); "
            f"result = [result, open({str(written)!r}).read()]"
        )
        out = run(code, "namespaces")
        assert out.ok and out.value == ["from the host", "x"]
        assert not written.exists()
    finally:
        readable.unlink()
        written.unlink(missing_ok=True)


def test_no_capabilities_and_the_mounts_cannot_be_made_writable():
    code = (
        "import subprocess\n"
        "caps = [l.split()[1] for l in open('/proc/self/status') if l.startswith(('CapEff', 'CapBnd'))]\n"
        "rc = subprocess.run(['mount', '-o', 'remount,rw', '/'], capture_output=True).returncode\n"
        "result = caps + [rc]"
    )
    out = run(code, "namespaces")
    assert out.ok, out.error
    eff, bnd, rc = out.value
    assert int(eff, 16) == 0 and int(bnd, 16) == 0 and rc != 0
    eff_process = run(code, "process").value[0]
    assert int(eff_process, 16) != 0  # root with its capabilities, one level down


def test_the_host_network_is_unreachable():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    port = srv.getsockname()[1]
    code = (
        f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2); result = 'connected'\n"
        f"except OSError as e:\n    result = type(e).__name__"
    )
    try:
        assert run(code, "namespaces").value != "connected"
        assert run(code, "process").value == "connected"
    finally:
        srv.close()


def test_a_host_unix_socket_file_is_covered_and_the_attempt_reported(tmp_path):
    path = str(tmp_path / "service.sock")
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(path)
    srv.listen(4)
    got = []
    srv.settimeout(0.5)

    def serve():
        try:
            conn, _ = srv.accept()
            got.append(conn.recv(64))
        except OSError:
            pass

    t = threading.Thread(target=serve)
    t.start()
    code = (
        f"import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({path!r}); s.sendall(b'secret'); "
        f"s.close(); result = 1"
    )
    try:
        out = run(code, "namespaces", readable=[tmp_path])  # reachable: the cover, not the uid, stops it
    finally:
        t.join()
        srv.close()
    assert got == []  # the host's service never heard from it
    assert any(f.startswith("guard_escape:") and path in f and "secret" in f for f in out.security), out.security


def test_sysv_shared_memory_dies_with_the_worker():
    key = 0x7A000000 + os.getpid() % 0xFFFF
    code = f"import ctypes\nlibc = ctypes.CDLL(None)\nresult = libc.shmget({key}, 4096, 0o1666)"
    out = run(code, "namespaces")
    assert out.ok and out.value >= 0
    libc = ctypes.CDLL(None)
    assert libc.shmget(key, 0, 0o666) == -1  # not on the host
    # one level down it outlives the worker (and is removed here)
    assert run(code, "process").value >= 0
    shmid = libc.shmget(key, 0, 0o666)
    assert shmid >= 0
    libc.shmctl(shmid, 0, None)  # IPC_RMID


def test_a_daemon_the_verifier_starts_dies_with_its_worker():
    # A double-forked setsid daemon that becomes `sleep <a duration only it has>`.
    mark = f"{4000 + os.getpid() % 1000}.{os.getpid()}"
    code = (
        "import os\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        os.execvp('sleep', ['sleep', {mark!r}])\n"
        "    os._exit(0)\n"
        "result = 1"
    )

    def running() -> list[int]:
        ps = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
        return [int(line.split()[0]) for line in ps.splitlines() if line.split()[1:] == ["sleep", mark]]

    assert run(code, "namespaces").ok
    assert running() == []  # nothing of it runs now that the worker is gone
    # one level down it outlives the worker (and is killed here)
    assert run(code, "none").ok
    left = []
    for _ in range(100):  # the grandchild may not have exec'd yet
        left = running()
        if left:
            break
        time.sleep(0.05)
    for pid in left:
        os.kill(pid, 9)
    assert left


FORKS_FOUR_HOLDERS = (
    # Four children of 150 MiB each under a 256 MiB limit: each is under RLIMIT_AS alone.
    "import os, time\n"
    "kids = []\n"
    "for _ in range(4):\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        b = bytearray(150 * 2**20)\n"
    "        for i in range(0, len(b), 4096): b[i] = 1\n"
    "        time.sleep(5); os._exit(0)\n"
    "    kids.append(pid)\n"
    "codes = [os.waitpid(k, 0)[1] for k in kids]\n"
    "result = sum(1 for c in codes if os.WIFSIGNALED(c))"
)


@pytest.mark.parametrize("level", ["namespaces", "process"])
def test_the_memory_limit_covers_the_process_tree(level):
    if memory.provision()[0] != "cgroup":
        pytest.skip("no memory cgroup can be made here (test_the_accounted_watch_bounds_the_tree covers that)")
    killed = run(FORKS_FOUR_HOLDERS, level, memory_mb=256)
    assert (not killed.ok and "MemoryError" in killed.error) or (killed.ok and killed.value > 0), killed
    spared = run(FORKS_FOUR_HOLDERS, level, memory_mb=256, tree_memory=False)  # RLIMIT_AS alone
    assert spared.ok and spared.value == 0


def test_the_accounted_watch_bounds_the_tree_without_a_cgroup(monkeypatch):
    # Where no cgroup can be made (not root, no writable cgroup file system), the parent
    # sums the tree's memory and kills it past the limit.
    monkeypatch.setattr(pool, "_take_cgroup", lambda: None)
    out = run(FORKS_FOUR_HOLDERS, "process", memory_mb=256)
    assert not out.ok and "MemoryError" in out.error and "accounted" in out.error, out


def test_an_audit_runs_at_namespaces_by_default_and_says_so(tmp_path):
    target = tmp_path / "outside"
    verifier = tmp_path / "writes_outside.py"
    verifier.write_text(
        "import os\n"
        "def reward(completion, answer):\n"
        f"    try:\n        open({str(target)!r}, 'w').close()\n    except OSError:\n        pass\n"
        "    return 1.0 if completion.strip().endswith(answer) else 0.0\n"
    )
    report = tmp_path / "r.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "verifier_audit",
            "run",
            "--verifier",
            f"{verifier}:reward",
            "--limit",
            "1",
            "--no-progress",
            "--no-cache",
            "--probe-sample",
            "0",
            "--no-format-probe",
            "--workers",
            "1",
            "--json",
            str(report),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode in (0, 1), proc.stderr
    import json

    data = json.loads(report.read_text())
    assert data.get("reports", [data])[0]["settings"]["isolation"] == "namespaces"
    assert not target.exists()


def test_isolation_none_is_warned_about_and_a_bad_level_is_an_error(tmp_path):
    base = [
        sys.executable,
        "-m",
        "verifier_audit",
        "run",
        "--limit",
        "1",
        "--no-progress",
        "--no-cache",
        "--probe-sample",
        "0",
        "--no-format-probe",
        "--workers",
        "1",
        "--verifier",
        "verifier_audit.domains.math.verifiers:strong",
    ]
    none = subprocess.run(base + ["--isolation", "none"], capture_output=True, text=True, cwd=tmp_path)
    assert none.returncode == 0, none.stderr
    assert "warning: isolation none" in none.stderr
    bad = subprocess.run(base + ["--isolation", "chroot"], capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and "--isolation" in bad.stderr and "namespaces" in bad.stderr


def test_the_config_sets_the_level_and_rejects_an_unknown_one(tmp_path):
    from verifier_audit.config import load_config
    from verifier_audit.errors import InputError

    good = tmp_path / "pyproject.toml"
    good.write_text('[tool.verifier_audit]\nisolation = "process"\n')
    assert load_config(good).isolation == "process"
    good.write_text('[tool.verifier_audit]\nisolation = "jail"\n')
    with pytest.raises(InputError, match="isolation"):
        load_config(good)
