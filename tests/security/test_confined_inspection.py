"""The verifier's import-time code, run to read its signature, gets the walls of a verifier
call (engine/inspection.py) -- issue 30, item 1.

Each test writes a hostile verifier whose module-level block throws one attack while the
audit reads its signature (``loading.resolve``, which every front end goes through), and
checks from the host that the attack got nowhere. What the block managed is also raised
from the import ("ESCAPED: ..."), so an escape fails the resolve itself: the answer of an
inspection is the one channel back to the audit, and it is checked. Before, the import ran
in a plain child interpreter of the audit: as root, with every capability, in the host's
namespaces -- each of these attacks worked there.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from verifier_audit.engine.inspection import resolve as confined_resolve
from verifier_audit.errors import VerifierLoadError
from verifier_audit.isolation import default_level
from verifier_audit.loading import resolve

ROOT = Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.skipif(default_level() != "namespaces", reason="the namespaces level needs root on Linux")

ESCAPES = """
if FOUND:
    raise RuntimeError("ESCAPED: " + "; ".join(FOUND))


def grade(completion, reference):
    return 1.0
"""


def _hostile(tmp_path: Path, block: str) -> str:
    """A verifier file whose import runs ``block`` (which appends to FOUND what got through)."""
    path = tmp_path / f"hostile_{uuid.uuid4().hex[:8]}.py"
    path.write_text("import os\nFOUND = []\n" + block + ESCAPES)
    return f"{path}:grade"


def _read(spec: str, **confine):
    """The spec read as the audit reads it: at the default level through ``loading.resolve``,
    at another through the engine's inspection."""
    got = confined_resolve(spec, **confine) if confine else resolve(spec)
    assert got.style == "pair"
    return got


def _processes_with(token: str) -> list[int]:
    """Host pids whose command line holds ``token`` (a daemon the verifier started)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if token.encode() in fh.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def _gone(token: str) -> list[int]:
    """Host pids still holding ``token``, after giving a killed tree a moment to be reaped
    (bounded by tries, not by a clock)."""
    for _ in range(100):
        alive = _processes_with(token)
        if not alive:
            return []
        time.sleep(0.05)
    return alive


def test_import_time_code_runs_unprivileged_without_capabilities(tmp_path):
    _read(
        _hostile(
            tmp_path,
            """
if os.getuid() == 0 or os.geteuid() == 0:
    FOUND.append("uid 0")
with open("/proc/self/status") as fh:
    caps = {k: v.strip() for k, _, v in (line.partition(":") for line in fh)}
if int(caps["CapEff"], 16) or int(caps["CapBnd"], 16):
    FOUND.append("capabilities " + caps["CapEff"] + "/" + caps["CapBnd"])
if caps.get("NoNewPrivs") != "1":
    FOUND.append("no_new_privs off")
""",
        )
    )


def test_import_time_writes_to_root_and_the_cache_do_not_reach_the_host(tmp_path):
    token = uuid.uuid4().hex
    cache = Path(os.environ["VERIFIER_AUDIT_CACHE"])
    cache.mkdir(parents=True, exist_ok=True)
    targets = [Path("/root") / f"va-forged-{token}", cache / f"forged-{token}.jsonl", tmp_path / f"forged-{token}"]
    _read(
        _hostile(
            tmp_path,
            f"""
for target in {[str(t) for t in targets]!r}:
    try:
        with open(target, "w") as fh:
            fh.write("forged")
    except OSError:
        pass
""",
        )
    )
    try:
        assert [t for t in targets if t.exists()] == []
    finally:
        for t in targets:
            t.unlink(missing_ok=True)


def test_a_root_only_file_stays_closed(tmp_path):
    secret = tmp_path / "secret.key"
    secret.write_text("TOP-SECRET-0600")
    secret.chmod(0o600)
    _read(
        _hostile(
            tmp_path,
            f"""
try:
    FOUND.append("read the secret: " + open({str(secret)!r}).read())
except OSError:
    pass
""",
        )
    )


def test_host_tcp_unix_and_abstract_sockets_are_unreachable(tmp_path):
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(tmp_path / "host.sock"))
    unix.listen(8)
    abstract = socket.socket(socket.AF_UNIX)
    name = f"\0va-host-{uuid.uuid4().hex}"
    abstract.bind(name)
    abstract.listen(8)
    try:
        _read(
            _hostile(
                tmp_path,
                f"""
import socket
for family, address in [(socket.AF_INET, ("127.0.0.1", {tcp.getsockname()[1]})),
                        (socket.AF_UNIX, {str(tmp_path / "host.sock")!r}), (socket.AF_UNIX, {name!r})]:
    s = socket.socket(family)
    s.settimeout(2)
    try:
        s.connect(address)
        s.sendall(b"hello from the verifier")
    except OSError:
        pass
    finally:
        s.close()
""",
            )
        )
        # A connection made would be waiting in a listener's queue: none is.
        assert select.select([tcp, unix, abstract], [], [], 0)[0] == []
    finally:
        for s in (tcp, unix, abstract):
            s.close()


def test_a_sysv_segment_does_not_outlive_the_inspection(tmp_path):
    key = int.from_bytes(os.urandom(3), "big") + 0x5600000
    _read(
        _hostile(
            tmp_path,
            f"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
if libc.shmget({key}, 4096, 0o1000 | 0o666) == -1:  # IPC_CREAT
    FOUND.append("no shmget at all: errno %d" % ctypes.get_errno())  # the test must see it made
""",
        )
    )
    libc = ctypes.CDLL(None, use_errno=True)
    shmid = libc.shmget(key, 0, 0)
    if shmid != -1:
        libc.shmctl(shmid, 0, None)  # IPC_RMID: leave the host clean even when the test fails
    assert shmid == -1, "the verifier's SysV segment is in the host's IPC namespace"


def test_the_audits_memory_is_out_of_reach(tmp_path):
    _read(
        _hostile(
            tmp_path,
            f"""
for mode in ("rb", "r+b"):
    try:
        with open("/proc/{os.getpid()}/mem", mode, buffering=0) as fh:
            FOUND.append("opened the audit's memory (" + mode + ")")
    except OSError:
        pass
""",
        )
    )


DAEMON = """
import sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:  # a daemon: out of the session and the group, holding every fd it got
        os.execv("/bin/sleep", ["sleep", "{seconds}"])
    os._exit(0)
os.wait()
"""


@pytest.mark.parametrize("isolation", ["namespaces", "process"])
def test_a_setsid_daemon_does_not_survive_the_inspection(tmp_path, isolation):
    """It holds the pipes it inherited, too: the old inspection waited for their end."""
    marker = f"3599.{uuid.uuid4().int % 10**9}"  # the daemon sleeps this long: its command line names it uniquely
    _read(_hostile(tmp_path, DAEMON.format(seconds=marker)), isolation=isolation, timeout=30)
    assert _gone(marker) == []


def test_a_daemon_dies_with_a_kill_9_of_the_audit(tmp_path):
    """The import starts a daemon, then hangs; the audit is killed -9 meanwhile."""
    marker = f"3598.{uuid.uuid4().int % 10**9}"
    spec = _hostile(tmp_path, DAEMON.format(seconds=marker) + "import time\ntime.sleep(3600)\n")
    audit = subprocess.Popen(
        [sys.executable, "-c", f"from verifier_audit.loading import resolve; resolve({spec!r})"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(1200):  # bounded by tries: until the daemon is up
            if _processes_with(marker) or audit.poll() is not None:
                break
            time.sleep(0.05)
        assert _processes_with(marker), "the import never started its daemon"
    finally:
        audit.send_signal(signal.SIGKILL)
        audit.wait()
    assert _gone(marker) == []


def test_a_hanging_import_is_bounded_and_named(tmp_path):
    spec = _hostile(tmp_path, "import time\ntime.sleep(3600)\n")
    with pytest.raises(VerifierLoadError, match="did not finish within 2 s"):
        confined_resolve(spec, timeout=2)


def test_the_command_stops_with_exit_2_on_an_import_past_inspect_timeout(tmp_path, cli):
    spec = _hostile(tmp_path, "import time\ntime.sleep(3600)\n")
    done = cli(
        "run",
        "--verifier",
        spec,
        "--inspect-timeout",
        "1",
        "--no-config",
        "--no-cache",
        "--limit",
        "1",
        "--no-progress",
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert "did not finish within 1 s (--inspect-timeout" in done.stderr


@pytest.mark.parametrize("front", ["run", "score", "api"])
def test_every_front_end_reads_the_spec_confined(tmp_path, cli, front):
    """``run``, ``score`` and the API resolve the spec before anything else (a missing
    suite or samples file stops them right after): the import-time write to /root made
    during that resolve must not land, whichever front end made it."""
    from verifier_audit import audit
    from verifier_audit.errors import InputError

    marker = Path("/root") / f"va-front-{uuid.uuid4().hex}"
    spec = _hostile(
        tmp_path,
        f"""
try:
    open({str(marker)!r}, "w").close()
except OSError:
    pass
""",
    )
    missing = str(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not samples\n")
    try:
        if front == "api":
            with pytest.raises(InputError):
                audit(spec, suite=missing, cache=False)
        else:
            args = ["--suite", missing] if front == "run" else [str(bad)]
            done = cli(front, *args, "--verifier", spec, "--no-config", "--no-progress", timeout=300)
            assert done.returncode == 2, done.stderr
        assert not marker.exists()
    finally:
        marker.unlink(missing_ok=True)


_MOUNT = {"x86_64": 165, "aarch64": 40}


@pytest.mark.skipif(os.uname().machine not in _MOUNT, reason="no mount number for this machine")
@pytest.mark.parametrize("isolation", ["namespaces", "process"])
def test_where_the_walls_cannot_be_built_the_spec_is_refused_unless_a_weaker_level_is_asked(tmp_path, isolation):
    """The command runs where ``mount`` is denied (a seccomp filter, as some container
    runtimes set): namespaces can be made, so ``namespaces`` looks available, but the
    worker's read-only mounts cannot. The inspection's worker then fails closed: exit 2,
    saying so, the verifier never imported. ``--isolation process`` (no mounts) imports it."""
    from verifier_audit.isolation import seccomp

    marker = tmp_path / "imported"
    spec = _hostile(tmp_path, f"open({str(marker)!r}, 'w').close()\n")
    arch = seccomp._ARCHES[os.uname().machine][0]

    def without_mount():
        if not seccomp._install(seccomp._program(arch, (_MOUNT[os.uname().machine],))):
            os._exit(99)

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "verifier_audit",
            "run",
            "--verifier",
            spec,
            "--isolation",
            isolation,
            "--suite",
            str(tmp_path / "missing.jsonl"),
            "--no-config",
            "--no-progress",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=without_mount,
    )
    assert done.returncode == 2, done.stderr
    if isolation == "namespaces":
        assert "could not be set up" in done.stderr and "--isolation process" in done.stderr, done.stderr
        assert not marker.exists()
    else:
        assert "missing.jsonl" in done.stderr, done.stderr  # past the inspection: the suite is what is missing
        assert marker.exists()
