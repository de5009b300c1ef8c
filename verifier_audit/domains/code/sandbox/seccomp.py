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
