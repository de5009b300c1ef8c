"""A seccomp filter for runs: the kernel keyring system calls fail with EPERM.

Why a filter: kernel keys outlive the process that made them. A key a run adds to its
session keyring lands in the keyring it inherited (the audit's own), and its uid's user
keyring persists in the kernel after the run; no namespace covers keyrings. Nothing a
verifier or a candidate legitimately does needs ``add_key``, ``request_key`` or
``keyctl`` (Docker's default seccomp profile denies the same three).

The filter is classic BPF, assembled here (the standard library has no libseccomp
binding). It also fails every system call made through another ABI than the native one
(x32 numbers, i386 ``int 0x80`` on x86_64), which would otherwise reach the same calls
under other numbers. The zygote installs it on itself once (per run it would cost about
0.5 ms), after ``PR_SET_NO_NEW_PRIVS`` (which also keeps setuid binaries from raising a
run's privileges); every run it forks, and all a run starts, inherit both for good.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct

_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_X32_BIT = 0x40000000

# machine -> (AUDIT_ARCH_*, numbers of add_key, request_key, keyctl)
_ARCHES = {
    "x86_64": (0xC000003E, (248, 249, 250)),
    "aarch64": (0xC00000B7, (217, 218, 219)),
}

_libc = ctypes.CDLL(None, use_errno=True)


class _Filter(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _program(arch: int, denied: tuple[int, ...]) -> bytes:
    deny = _RET_ERRNO | errno.EPERM
    n = len(denied)
    ops = [
        (_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),  # native: go on
        (_RET_K, 0, 0, deny),  # another ABI: fail
        (_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        (_JGE_K, n + 1, 0, _X32_BIT),  # x32 numbers: fail
    ]
    for i, nr in enumerate(denied):
        ops.append((_JEQ_K, n - i, 0, nr))  # a keyring call: fail
    ops += [(_RET_K, 0, 0, _RET_ALLOW), (_RET_K, 0, 0, deny)]
    return b"".join(struct.pack("HBBI", *op) for op in ops)


def supported() -> bool:
    return os.uname().machine in _ARCHES


def deny_keyrings() -> bool:
    """Install the filter on this process (a zygote). False when this architecture has no
    table here or the kernel refused (nothing installed then: say so, never claim it)."""
    if not supported():
        return False
    arch, denied = _ARCHES[os.uname().machine]
    return _install(_program(arch, denied))


def _install(program: bytes) -> bool:
    """Install ``program`` on this process, after ``PR_SET_NO_NEW_PRIVS`` (which the kernel
    asks of a process without CAP_SYS_ADMIN); False when the kernel refused."""
    code = ctypes.create_string_buffer(program, len(program))
    prog = _Filter(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0


# --- The terminal: no keystrokes typed into it ------------------------------------------
#
# ``ioctl(fd, TIOCSTI, &c)`` pushes a byte into a terminal's input queue as if it had been
# typed: a grader that reaches the user's terminal (its fds, /dev/tty) types a command the
# user's shell runs after the audit, as the user (root). ``TIOCLINUX`` (subcodes 2 and 3)
# pastes the console's selection, the same injection on a virtual console. The kernel
# refuses TIOCSTI on a terminal that is not the caller's controlling one only without
# CAP_SYS_ADMIN, and only where ``dev.tty.legacy_tiocsti`` is off for the rest; workers
# also leave the terminal's session (``os.setsid``), but a worker at the ``process`` level
# keeps root's capabilities. So both requests fail with EPERM by seccomp, whatever the fd.
# A filter of its own, apart from the keyring rules above: they are installed at
# different places (every worker at every level but ``none``; the sandbox's zygotes).

_IOCTL = {"x86_64": 16, "aarch64": 29}  # the ioctl system call's number
TIOCSTI, TIOCLINUX = 0x5412, 0x541C  # the same on x86_64 and aarch64 (asm-generic)
_ARG1_LOW = 24  # offsetof(seccomp_data, args[1]), its low 32 bits (little-endian): ioctl's request


def _terminal_program(arch: int, ioctl: int) -> bytes:
    deny = _RET_ERRNO | errno.EPERM
    ops = [
        (_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),  # native: go on
        (_RET_K, 0, 0, deny),  # another ABI: fail (its ioctl has another number)
        (_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        (_JGE_K, 5, 0, _X32_BIT),  # x32 numbers: fail
        (_JEQ_K, 0, 3, ioctl),  # not ioctl: allow
        (_LD_W_ABS, 0, 0, _ARG1_LOW),  # the request (the kernel reads it as 32 bits)
        (_JEQ_K, 2, 0, TIOCSTI),  # typing into a terminal: fail
        (_JEQ_K, 1, 0, TIOCLINUX),  # pasting on a console: fail
        (_RET_K, 0, 0, _RET_ALLOW),
        (_RET_K, 0, 0, deny),
    ]
    return b"".join(struct.pack("HBBI", *op) for op in ops)


def deny_terminal_injection() -> bool:
    """Make ``ioctl(TIOCSTI)`` and ``ioctl(TIOCLINUX)`` fail with EPERM in this process and
    all it starts, for good. False when this architecture has no table here or the kernel
    refused (nothing installed then: say so, never claim it)."""
    machine = os.uname().machine
    if machine not in _ARCHES or machine not in _IOCTL:
        return False
    return _install(_terminal_program(_ARCHES[machine][0], _IOCTL[machine]))


# --------------------------------------------------------------------------- new kernel surfaces

# machine -> numbers of (io_uring_setup, io_uring_enter, io_uring_register), of unshare and
# clone (whose flags, their first argument, are read), and of clone3
_SURFACES = {
    "x86_64": ((425, 426, 427), 272, 56, 435),
    "aarch64": ((425, 426, 427), 97, 220, 435),
}
_CLONE_NEWUSER = 0x10000000
_LD_ARG0_LOW = 16  # seccomp_data.args[0], its low 32 bits (little-endian): where the flags are
_JSET_K = 0x45


def _surfaces_program(arch: int, io_uring: tuple[int, ...], unshare: int, clone: int, clone3: int) -> bytes:
    """The filter of ``deny_new_kernel_surfaces``, assembled: io_uring's three calls fail
    with EPERM; ``unshare`` and ``clone`` with CLONE_NEWUSER in their flags fail with
    EPERM; ``clone3`` fails with ENOSYS (its flags are in memory, out of a filter's reach,
    and on ENOSYS glibc's ``pthread_create``, ``fork`` and ``posix_spawn`` fall back to
    ``clone``, whose flags are checked)."""
    deny, nosys = _RET_ERRNO | errno.EPERM, _RET_ERRNO | errno.ENOSYS
    k = len(io_uring)
    # Jump offsets count the instructions skipped; the tail is: [k+4] allow, [k+5] deny,
    # [k+6] nosys, [k+7] load flags, [k+8] test CLONE_NEWUSER, [k+9] allow.
    ops = [
        (_LD_W_ABS, 0, 0, 4),  # 0: seccomp_data.arch
        (_JEQ_K, 1, 0, arch),  # 1: native: go on
        (_RET_K, 0, 0, _RET_ALLOW),  # 2: another ABI: the keyring filter's to fail
        (_LD_W_ABS, 0, 0, 0),  # 3: seccomp_data.nr
    ]
    at = len(ops)
    allow, fail, enosys, flags = at + k + 3, at + k + 4, at + k + 5, at + k + 6
    for i, nr in enumerate(io_uring):
        ops.append((_JEQ_K, fail - (at + i) - 1, 0, nr))  # io_uring: EPERM
    here = len(ops)
    ops.append((_JEQ_K, enosys - here - 1, 0, clone3))  # clone3: ENOSYS
    here = len(ops)
    ops.append((_JEQ_K, flags - here - 1, 0, unshare))  # unshare: read its flags
    here = len(ops)
    ops.append((_JEQ_K, flags - here - 1, allow - here - 1, clone))  # clone: read its flags; else allow
    assert len(ops) == allow
    ops += [
        (_RET_K, 0, 0, _RET_ALLOW),  # allow
        (_RET_K, 0, 0, deny),  # fail (EPERM)
        (_RET_K, 0, 0, nosys),  # clone3 (ENOSYS)
        (_LD_W_ABS, 0, 0, _LD_ARG0_LOW),  # the flags
        (_JSET_K, 1, 0, _CLONE_NEWUSER),  # a new user namespace: fail
        (_RET_K, 0, 0, _RET_ALLOW),
        (_RET_K, 0, 0, deny),
    ]
    return b"".join(struct.pack("HBBI", *op) for op in ops)


def deny_new_kernel_surfaces() -> bool:
    """Install, on this process and all it starts, a filter that refuses io_uring and new
    user namespaces (a second filter, stacked on ``deny_keyrings``'s where both are).

    Why: io_uring performs file and socket operations from kernel threads that seccomp does
    not see (a filter on ``openat`` or ``connect`` is bypassed by submitting the same
    operation to a ring), and it has been the way to most recent kernel privilege
    escalations; a new user namespace makes its creator root inside it, with the
    capabilities to mount, to make network interfaces and to reach kernel code an
    unprivileged uid never reaches (nf_tables, overlayfs), which is how the walls of the
    lockdown and the sandbox would be climbed. No verifier and no candidate needs either.
    Docker's default profile refuses both.

    ``no_new_privs`` first, which an unprivileged process needs to install a filter. False
    when this architecture has no table here or the kernel refused (nothing installed)."""
    machine = os.uname().machine
    if machine not in _SURFACES or machine not in _ARCHES:
        return False
    return _install(_surfaces_program(_ARCHES[machine][0], *_SURFACES[machine]))
