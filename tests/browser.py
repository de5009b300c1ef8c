"""Headless Chromium for tests that check a page as a browser renders it: find the binary,
dump the DOM after parsing, take a screenshot, decode the PNG (stdlib only).

    from browser import needs_browser, dump_dom, screenshot, decode_png

Tests marked ``needs_browser`` are skipped when no Chromium is installed, unless
``VERIFIER_AUDIT_REQUIRE_BROWSER=1`` (CI sets it): then ``chromium()`` fails the test
instead, so a CI image that lost its browser cannot pass by skipping.
"""

from __future__ import annotations

import os
import shutil
import signal
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import pytest

REQUIRE = os.environ.get("VERIFIER_AUDIT_REQUIRE_BROWSER") == "1"

# --no-sandbox: tests may run as root (CI containers), where the sandbox refuses to start.
# The background-networking flags matter: without them Chromium waits on connections that
# the test machine refuses (component updates, sync, QUIC probes) and can hang.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--disable-extensions",
    "--mute-audio",
]


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


needs_browser = pytest.mark.skipif(
    find_chromium() is None and not REQUIRE,
    reason="chromium is not installed (apt-get install chromium); "
    "set VERIFIER_AUDIT_REQUIRE_BROWSER=1 to make this a failure instead of a skip",
)


def chromium() -> str:
    """The binary, or a test failure (reached only when REQUIRE is set and there is none)."""
    path = find_chromium()
    if path is None:
        pytest.fail(
            "VERIFIER_AUDIT_REQUIRE_BROWSER=1 but no chromium on PATH "
            "(apt-get install -y --no-install-recommends chromium)"
        )
    return path


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    """Chromium with a fresh profile; on timeout the whole process group dies (Chromium
    forks a zygote and renderers that would otherwise outlive the test)."""
    with tempfile.TemporaryDirectory(prefix="va-chromium-") as profile:
        cmd = [chromium(), *FLAGS, f"--user-data-dir={profile}", *args]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            pytest.fail(f"chromium did not finish within {timeout} s: {' '.join(cmd)}")
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def dump_dom(page: Path, timeout: float = 60, size: tuple[int, int] | None = None) -> str:
    """The DOM after Chromium parsed ``page``, serialized (what the browser made of it);
    laid out in a window of ``size`` (width, height) when given."""
    window = [f"--window-size={size[0]},{size[1]}"] if size else []
    r = _run([*window, "--dump-dom", Path(page).resolve().as_uri()], timeout)
    dom = r.stdout.decode("utf-8", "replace")
    assert r.returncode == 0 and "<body" in dom, r.stderr.decode("utf-8", "replace")[-3000:]
    return dom


def screenshot(page: Path, png: Path, size: tuple[int, int] = (1200, 2000), timeout: float = 60) -> Path:
    r = _run([f"--screenshot={png}", f"--window-size={size[0]},{size[1]}", Path(page).resolve().as_uri()], timeout)
    assert r.returncode == 0 and Path(png).is_file(), r.stderr.decode("utf-8", "replace")[-3000:]
    return Path(png)


def decode_png(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """(width, height, bytes per pixel, rows of raw pixels) of an 8-bit, non-interlaced
    RGB or RGBA PNG, which is what Chromium writes. Enough to look at pixels honestly."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    assert header is not None, "PNG without IHDR"
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    bpp = 3 if color == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, cur = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(kind, cur, prev, bpp)
        rows.append(bytes(cur))
        prev = cur
    return width, height, bpp, rows


def _unfilter(kind: int, cur: bytearray, prev: bytearray, bpp: int) -> None:
    """Undo one scanline's PNG filter in place (PNG spec, section 9)."""
    if kind == 1:  # Sub
        for i in range(bpp, len(cur)):
            cur[i] = (cur[i] + cur[i - bpp]) & 255
    elif kind == 2:  # Up
        cur[:] = bytes((a + b) & 255 for a, b in zip(cur, prev))
    elif kind == 3:  # Average
        for i in range(len(cur)):
            cur[i] = (cur[i] + ((cur[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
    elif kind == 4:  # Paeth
        for i in range(len(cur)):
            a, b = (cur[i - bpp], prev[i]) if i >= bpp else (0, prev[i])
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    else:
        assert kind == 0, f"bad PNG filter type {kind}"
