"""What a worker sends is data: the verifier runs in the worker and can write to its pipe,
so a crafted message is a crash of that call, never code run in the audit's process."""

import os
import pickle
import socket
import stat
import struct

from verifier_audit.engine import pool


class _RunsMarker:
    """Unpickling this calls os.mkdir(path): what a crafted pickle would do in the parent."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.mkdir, (self.path,))


def _frame(payload: bytes) -> bytes:
    return struct.pack("!i", len(payload)) + payload  # multiprocessing.Connection's framing


class WritesToItsPipe:
    """Call 1 writes ``payload(i)`` to every socket it holds (the worker's pipe among them)."""

    def __init__(self, kind: str, marker: str):
        self.kind, self.marker = kind, marker

    def setup(self):
        pass

    def payload(self, i: int) -> bytes:
        if self.kind == "pickle":
            return pickle.dumps((i, True, _RunsMarker(self.marker), None, 0.0, []))
        if self.kind == "other_call":
            return b"[999, true, 1.0, null, 0.0, []]"
        return b'["setup_error", "forged: stop the audit"]'

    def __call__(self, i):
        if i == 1:
            for fd in sorted(int(n) for n in os.listdir("/proc/self/fd")):
                if fd < 3:
                    continue
                try:
                    if stat.S_ISSOCK(os.fstat(fd).st_mode):
                        socket.socket(fileno=os.dup(fd)).sendall(_frame(self.payload(i)))
                except OSError:
                    pass
        return float(i)


def _run(kind, tmp_path):
    marker = str(tmp_path / "unpickled-in-parent")
    outs = {o.index: o for o in pool.run(WritesToItsPipe(kind, marker), range(6), workers=1, timeout=20)}
    return outs, marker


def test_a_crafted_pickle_is_never_unpickled(tmp_path):
    outs, marker = _run("pickle", tmp_path)
    assert not os.path.exists(marker)
    assert sorted(outs) == list(range(6))
    assert not outs[1].ok and outs[1].error_kind == "crash" and "not JSON" in outs[1].error
    assert all(outs[i].ok and outs[i].value == float(i) for i in (0, 2, 3, 4, 5))


def test_a_result_for_another_call_is_a_crash(tmp_path):
    outs, _ = _run("other_call", tmp_path)
    assert not outs[1].ok and "result for call 999" in outs[1].error
    assert all(outs[i].ok for i in (0, 2, 3, 4, 5))


def test_a_forged_setup_error_does_not_stop_the_audit(tmp_path):
    outs, _ = _run("setup_error", tmp_path)
    assert sorted(outs) == list(range(6))
    assert not outs[1].ok and outs[1].error_kind == "crash"
