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
        (_LD_W_ABS, 0, 0, 4),                    # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),                    # native: go on
        (_RET_K, 0, 0, deny),                    # another ABI: fail
        (_LD_W_ABS, 0, 0, 0),                    # seccomp_data.nr
        (_JGE_K, n + 1, 0, _X32_BIT),            # x32 numbers: fail
    ]
    for i, nr in enumerate(denied):
        ops.append((_JEQ_K, n - i, 0, nr))       # a keyring call: fail
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
    program = _program(arch, denied)
    code = ctypes.create_string_buffer(program, len(program))
    prog = _Filter(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0


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
        (_LD_W_ABS, 0, 0, 4),                                 # 0: seccomp_data.arch
        (_JEQ_K, 1, 0, arch),                                 # 1: native: go on
        (_RET_K, 0, 0, _RET_ALLOW),                           # 2: another ABI: the keyring filter's to fail
        (_LD_W_ABS, 0, 0, 0),                                 # 3: seccomp_data.nr
    ]
    at = len(ops)
    allow, fail, enosys, flags = at + k + 3, at + k + 4, at + k + 5, at + k + 6
    for i, nr in enumerate(io_uring):
        ops.append((_JEQ_K, fail - (at + i) - 1, 0, nr))     # io_uring: EPERM
    here = len(ops)
    ops.append((_JEQ_K, enosys - here - 1, 0, clone3))       # clone3: ENOSYS
    here = len(ops)
    ops.append((_JEQ_K, flags - here - 1, 0, unshare))       # unshare: read its flags
    here = len(ops)
    ops.append((_JEQ_K, flags - here - 1, allow - here - 1, clone))  # clone: read its flags; else allow
    assert len(ops) == allow
    ops += [
        (_RET_K, 0, 0, _RET_ALLOW),                           # allow
        (_RET_K, 0, 0, deny),                                 # fail (EPERM)
        (_RET_K, 0, 0, nosys),                                # clone3 (ENOSYS)
        (_LD_W_ABS, 0, 0, _LD_ARG0_LOW),                      # the flags
        (_JSET_K, 1, 0, _CLONE_NEWUSER),                      # a new user namespace: fail
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
    program = _surfaces_program(_ARCHES[machine][0], *_SURFACES[machine])
    code = ctypes.create_string_buffer(program, len(program))
    prog = _Filter(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0
