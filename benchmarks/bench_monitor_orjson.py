"""Is the monitor's JSONL fast path worth its code? (issue 32: measure orjson first.)

The JSONL reader has two paths (``monitor/readers/jsonl.py``): the reference reader, line by
line with ``json.loads`` (about 150 lines with what it shares), and a fast path that learns a
regular expression per line layout and matches the whole file at once, split over forked
readers (``_jsonl_fast`` with ``layout.py`` and ``parallel.py``, about 550 lines). This
script writes one synthetic log (``bench_monitor.py``'s: TRL's metric names, an eval line
every 1,000 steps) and, in one process on the same bytes, times ``readers.read_logs``:

* ``fast``: the fast path as shipped (forked readers when a core is idle),
* ``fast, serial``: the fast path in this process only,
* ``reference + json``: the reference reader with the standard library's parser,
* ``reference + orjson``: the reference reader with ``orjson.loads`` in place of
  ``json.loads`` (orjson's ``JSONDecodeError`` is a ``json.JSONDecodeError``, so the
  reader's error handling is unchanged),

checks that all four give the same series, and prints the figures (best of ``--repeat``).
Run it as ``python benchmarks/bench_monitor_orjson.py [ROWS] [--repeat N]`` with orjson
importable (``pip install orjson``; it is not a dependency of the package).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import tempfile
import time
import types

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_monitor import curves, write_jsonl

from verifier_audit.monitor import readers
from verifier_audit.monitor.readers import jsonl as J
from verifier_audit.monitor.readers import parallel


def read(path: pathlib.Path, *, fast: bool, serial: bool, loads) -> tuple[float, dict]:
    saved = (J._FAST, J.json, parallel.PARALLEL_MIN_BYTES)
    J._FAST = fast
    J.json = types.SimpleNamespace(loads=loads, JSONDecodeError=json.JSONDecodeError)
    if serial:
        parallel.PARALLEL_MIN_BYTES = 1 << 62
    try:
        start = time.perf_counter()
        (run,) = readers.read_logs([path])
        took = time.perf_counter() - start
    finally:
        J._FAST, J.json, parallel.PARALLEL_MIN_BYTES = saved
    return took, {k: (s.steps, s.values) for k, s in run.metrics.items()}


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="?", type=int, default=1_000_000, help="steps in the log (default 1,000,000)")
    ap.add_argument("--repeat", type=int, default=2, help="reads of each kind; the best is shown (default 2)")
    args = ap.parse_args(argv)
    try:
        import orjson
    except ImportError:
        sys.exit("orjson is not installed: pip install orjson (the comparison needs it)")
    print(
        f"{args.rows:,} rows; orjson {orjson.__version__}; cores: {os.cpu_count()}, usable now: "
        f"{parallel._idle_cores()} (load {os.getloadavg()[0]:.2f})"
    )
    kinds = [
        ("fast", True, False, json.loads),
        ("fast, serial", True, True, json.loads),
        ("reference + json", False, True, json.loads),
        ("reference + orjson", False, True, orjson.loads),
    ]
    with tempfile.TemporaryDirectory(prefix="va-bench-orjson-") as tmp:
        path = pathlib.Path(tmp) / "metrics.jsonl"
        write_jsonl(path, curves(args.rows), args.rows)
        print(f"JSONL: {path.stat().st_size / 1e6:.0f} MB")
        best: dict[str, float] = {}
        series: dict[str, dict] = {}
        for _ in range(args.repeat):
            for name, fast, serial, loads in kinds:
                took, got = read(path, fast=fast, serial=serial, loads=loads)
                best[name] = min(best.get(name, float("inf")), took)
                series[name] = got
    reference = series["reference + json"]
    for name, got in series.items():
        assert got.keys() == reference.keys(), name
        for k, (steps, values) in got.items():
            assert np.array_equal(steps, reference[k][0]) and np.array_equal(values, reference[k][1], equal_nan=True), (
                name,
                k,
            )
    print(f"{'reader':<20} {'read_logs':>9}  vs fast, serial")
    for name, *_ in kinds:
        print(f"{name:<20} {best[name]:8.2f} s  {best[name] / best['fast, serial']:5.2f}x")
    print("all four readers give the same series")


if __name__ == "__main__":
    main(sys.argv[1:])
