"""Per-sample random streams, independent of how samples are batched.

Each sample ``(seed, task_id, sample_index)`` gets a 64-bit key (two 32-bit halves) from
SHA-256. The uniform number a backend draws for that sample at decoding step ``t`` is a
hash of ``(key, t)``: a counter-based generator, so the draws of a sample do not depend on
which other samples share its batch, on their order, or on how many steps they take.
"""

from __future__ import annotations

import hashlib

MASK32 = 0xFFFFFFFF


def sample_key(seed: int, task_id: str, sample_index: int) -> tuple[int, int]:
    """The two 32-bit halves of the sample's key."""
    digest = hashlib.sha256(f"verifier-audit/sample\0{seed}\0{task_id}\0{sample_index}".encode()).digest()
    return int.from_bytes(digest[:4], "little"), int.from_bytes(digest[4:8], "little")


def mix32(x: int) -> int:
    """A 32-bit integer hash (xor-shift-multiply; constants below 2**31 so that the
    tensor version in the backends never overflows int64). The reference for tests."""
    x &= MASK32
    x ^= x >> 16
    x = (x * 0x21F0AAAD) & MASK32
    x ^= x >> 15
    x = (x * 0x735A2D97) & MASK32
    x ^= x >> 15
    return x


def uniform(key: tuple[int, int], step: int) -> float:
    """The uniform in (0, 1) that sample ``key`` draws at decoding step ``step``."""
    h = mix32(key[0] ^ mix32(key[1] ^ mix32(step + 0x9E3779B9)))
    return (h + 0.5) / 4294967296.0
