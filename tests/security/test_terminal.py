"""Nothing that runs verifier code reaches the user's terminal -- issue 30, item 2.

Workers stayed in the audit's session, so ``/dev/tty`` was the user's terminal: a grader
wrote a forged ``gate: PASSED`` onto it, and typed (``ioctl(TIOCSTI)``, which kernels with
``dev.tty.legacy_tiocsti=1`` allow) a command that the user's shell ran as root after the
audit. Here the real command runs with a real pty as its controlling terminal (the pty
module: the test holds the master, as a terminal emulator would), and a grader attacks it
at import time (the signature's inspection and each worker's import) and in every call:
it writes FORGED to ``/dev/tty``, and types a command into ``/dev/tty``, its fds 0-2 and
the pty's own device path (which a worker at the ``process`` level, root, can open). What
the master received, and what waits in the terminal's input queue, must hold none of it.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.isolation import default_level

ROOT = Path(__file__).resolve().parent.parent.parent

GRADER = """
import fcntl, os, termios

def _attack():
    try:
        tty = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        tty = None
    if tty is not None:
        try:
            os.write(tty, b"\\r\\nFORGED {token} gate: PASSED\\r\\n")
        except OSError:
            pass
    try:
        device = os.open({device!r}, os.O_RDWR | os.O_NOCTTY)  # the terminal by its path
    except OSError:
        device = None
    for fd in (0, 1, 2, tty, device):
        if fd is None:
            continue
        for ch in "echo PWNED-{token}\\n":
            try:
                fcntl.ioctl(fd, termios.TIOCSTI, ch.encode())
            except OSError:
                break

_attack()

def grade(completion, reference):
    _attack()
    return 0.0
"""


def _run_on_a_pty(args: list[str], grader: Path, token: str) -> tuple[int, bytes, int]:
    """Run the command with a fresh pty as its terminal (stdin, stdout, stderr and
    /dev/tty); returns its exit code, all it printed, and the bytes left typed in the
    terminal's input queue."""
    master, slave = pty.openpty()
    device = os.ttyname(slave)
    grader.write_text(GRADER.format(token=token, device=device))

    def own_terminal():  # a session of its own whose controlling terminal is the pty
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(
        [sys.executable, "-m", "verifier_audit", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        preexec_fn=own_terminal,
    )
    out = b""
    try:
        while True:  # keep the pty drained (a full one would block the command) until it exits
            ready = select.select([master], [], [], 0.5)[0]
            if ready:
                out += os.read(master, 65536)
            elif proc.poll() is not None:
                break
        waiting = struct.unpack("i", fcntl.ioctl(slave, termios.FIONREAD, b"\0\0\0\0"))[0]
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(master)
        os.close(slave)
    return proc.returncode, out, waiting


@pytest.mark.skipif(not os.path.exists("/dev/ptmx"), reason="needs ptys")
@pytest.mark.parametrize("isolation", ["process", "namespaces"])
def test_a_grader_neither_writes_to_nor_types_into_the_users_terminal(tmp_path, isolation):
    if isolation == "namespaces" and default_level() != "namespaces":
        pytest.skip("the namespaces level needs root on Linux")
    token = uuid.uuid4().hex[:12]
    grader = tmp_path / "grader.py"
    code, out, waiting = _run_on_a_pty(
        [
            "run",
            "--verifier",
            f"{grader}:grade",
            "--limit",
            "1",
            "--workers",
            "1",
            "--probe-sample",
            "0",
            "--no-progress",
            "--no-config",
            "--no-cache",
            "--isolation",
            isolation,
            "--results",
            str(tmp_path / "r.jsonl"),
        ],
        grader,
        token,
    )
    text = out.decode(errors="replace")
    assert code == 1, text  # the audit ran (its gate fails: the grader rejects everything)
    assert "gate" in text.lower(), text  # its report reached the terminal: the pty was read
    assert f"FORGED {token}" not in text
    assert f"PWNED-{token}" not in text  # a typed byte is echoed by the pty: none came back
    assert waiting == 0, "bytes were typed into the terminal's input queue"


def test_the_seccomp_filter_refuses_tiocsti_on_a_terminal_a_root_process_holds():
    """The filter alone, as a worker at the ``process`` level (root, CAP_SYS_ADMIN) gets it:
    TIOCSTI on a pty it holds open fails with EPERM, and other ioctls still work."""
    from verifier_audit.isolation import seccomp

    if not seccomp.supported():
        pytest.skip("no seccomp table for this machine")
    master, slave = pty.openpty()
    child = os.fork()
    if child == 0:
        code = 1
        try:
            os.setsid()
            if seccomp.deny_terminal_injection():
                try:
                    fcntl.ioctl(slave, termios.TIOCSTI, b"x")
                except PermissionError:
                    fcntl.ioctl(slave, termios.TIOCGWINSZ, b"\0" * 8)  # raises if ioctl as a whole were denied
                    code = 0
        finally:
            os._exit(code)
    try:
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        os.set_blocking(master, False)
        try:
            typed = os.read(master, 100)  # the echo of a typed byte
        except BlockingIOError:
            typed = b""
        assert b"x" not in typed
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.skipif(not os.path.exists("/dev/ptmx"), reason="needs ptys")
@given(high=st.integers(min_value=1, max_value=2**32 - 1), request=st.sampled_from(["TIOCSTI", "TIOCLINUX"]))
@settings(max_examples=25)
def test_high_bits_in_the_request_do_not_get_past_the_filter(high, request):
    """ioctl's request is an unsigned int to the kernel: the upper half of the register is
    dropped, so ``TIOCSTI | high << 32`` still types. The filter compares the lower half."""
    from verifier_audit.isolation import seccomp

    if not seccomp.supported():
        pytest.skip("no seccomp table for this machine")
    number = getattr(seccomp, request) | high << 32
    master, slave = pty.openpty()
    child = os.fork()
    if child == 0:
        code = 1
        try:
            os.setsid()
            if seccomp.deny_terminal_injection():
                try:
                    fcntl.ioctl(slave, number, b"x" if request == "TIOCSTI" else b"\x02" + b"\0" * 8)
                except PermissionError:
                    code = 0
                except OSError:
                    code = 2  # refused by the kernel itself, not the filter
        finally:
            os._exit(code)
    try:
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        os.close(master)
        os.close(slave)
