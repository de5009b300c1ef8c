"""Values and messages that cross the sandbox boundary.

Results travel as tagged JSON of exact builtin types, encoded inside the sandboxed process:
a subclass (an ``int`` whose ``__eq__`` always returns True) is refused there, and the
parent never unpickles bytes that hostile code could have written. Requests go the other
way (parent -> zygote) as pickle: the parent is trusted, the zygote is ours.
"""

from __future__ import annotations

import socket
import struct
from typing import Any

STDOUT_CAP = 64 * 1024
# A program run's stdout (its answer, compared in the parent): a longer one is cut here.
PROGRAM_OUTPUT_CAP = 4 * 1024 * 1024
RESULT_CAP = 32 * 1024 * 1024
# How the error of a pytest run starts when the repository's code interfered with the harness:
# a line on its result pipe that is not the harness's (unsealed), or pytest's code (or the
# harness's) replaced during the run; no outcome of such a run counts.
TAMPERED = "the run tampered with its harness"
MAX_DEPTH = 200


def encode_value(value: Any, _depth: int = 0) -> Any:
    """Tagged JSON; containers become ``[tag, [...]]``. Raises TypeError on anything but
    exact builtin types, ValueError on nesting deeper than MAX_DEPTH."""
    if _depth > MAX_DEPTH:
        raise ValueError("return value nested too deeply")
    t = type(value)
    if value is None or t in (bool, int, float, str):
        return value
    d = _depth + 1
    if t is list:
        return ["L", [encode_value(v, d) for v in value]]
    if t is tuple:
        return ["T", [encode_value(v, d) for v in value]]
    if t is set:
        return ["S", [encode_value(v, d) for v in value]]
    if t is frozenset:
        return ["F", [encode_value(v, d) for v in value]]
    if t is dict:
        return ["D", [[encode_value(k, d), encode_value(v, d)] for k, v in value.items()]]
    if t is bytes:
        return ["B", value.hex()]
    if t is complex:
        return ["C", value.real, value.imag]
    raise TypeError(f"unserialisable return value of type {t.__module__}.{t.__qualname__}")


def decode_value(data: Any) -> Any:
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is not list or not data:
        raise ValueError("malformed value")
    tag = data[0]
    if tag == "L":
        return [decode_value(v) for v in data[1]]
    if tag == "T":
        return tuple(decode_value(v) for v in data[1])
    if tag == "S":
        return {decode_value(v) for v in data[1]}
    if tag == "F":
        return frozenset(decode_value(v) for v in data[1])
    if tag == "D":
        return {decode_value(k): decode_value(v) for k, v in data[1]}
    if tag == "B":
        return bytes.fromhex(data[1])
    if tag == "C":
        return complex(float(data[1]), float(data[2]))
    raise ValueError(f"unknown tag {tag!r}")


def send(sock: socket.socket, payload: bytes) -> None:
    sock.sendall(struct.pack("!I", len(payload)) + payload)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv(sock: socket.socket) -> bytes:
    (n,) = struct.unpack("!I", _recv_exact(sock, 4))
    if n > RESULT_CAP + STDOUT_CAP * 2 + 4096:
        raise ValueError("message too large")
    return _recv_exact(sock, n)
