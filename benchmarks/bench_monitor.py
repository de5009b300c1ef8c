"""Time ``verifier-audit monitor`` on a 1,000,000-row training log (issue 7: well under 10 s).

Writes one synthetic run of ROWS steps twice, as JSONL (TRL's metric names, one object per
line, an eval line every 1,000 steps) and as a W&B history CSV export (``train/`` and
``eval/`` prefixes, empty cells on eval rows), then times, for each file:

* ``read_logs`` (format detection, parsing, canonical names),
* ``alarms.check`` (every alarm; the planted entropy collapse must fire),
* ``fit.fit_entropy_reward``,

and prints the figures. Run it as ``python benchmarks/bench_monitor.py [ROWS] [--serial]``
(``--serial``: no worker processes, as on a busy machine). The files are written to a
temporary folder and removed.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifier_audit.monitor import readers  # noqa: E402
from verifier_audit.monitor.alarms import check  # noqa: E402
from verifier_audit.monitor.fit import fit_entropy_reward  # noqa: E402
from verifier_audit.monitor.readers import parallel  # noqa: E402

NAMES = [
    "reward",
    "reward_std",
    "frac_reward_zero_std",
    "entropy",
    "kl",
    "completions/mean_length",
    "rewards/accuracy/mean",
    "rewards/format/mean",
    "loss",
    "grad_norm",
    "learning_rate",
]
EVAL_EVERY = 1000


def curves(n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    t = np.arange(n, dtype=np.float64)
    u = t / n
    collapse = 0.3 * n
    after = np.clip(t - collapse, 0, None)
    c = {
        "entropy": np.where(t < collapse, 1.2, 0.1 + 1.1 * np.exp(-after / (0.02 * n))),
        "reward": 0.2 + 0.5 * u,
        "reward_std": 0.45 - 0.2 * u,
        "frac_reward_zero_std": 0.1 + 0.3 * u,
        "kl": 0.05 * u,
        "completions/mean_length": 300 + 200 * u,
        "rewards/accuracy/mean": 0.2 + 0.5 * u,
        "rewards/format/mean": 1 - 0.8 * np.exp(-15 * u),
        "loss": 0.01 + 0 * u,
        "grad_norm": 0.5 + 0 * u,
        "learning_rate": 1e-6 + 0 * u,
    }
    for k in c:
        c[k] = c[k] + rng.normal(0, 0.01 * (abs(c[k]).mean() + 1e-9), n)
    c["eval_reward"] = 0.25 + 0.3 * u + rng.normal(0, 0.01, n)
    return c


def write_jsonl(path: pathlib.Path, c: dict, n: int) -> None:
    cols = [c[k] for k in NAMES]
    template = "{" + '"step": %d, ' + ", ".join(f'"{k}": %r' for k in NAMES) + "}\n"
    with path.open("w") as f:
        for s in range(n):
            f.write(template % (s, *(float(col[s]) for col in cols)))
            if s % EVAL_EVERY == 0:
                f.write(f'{{"step": {s}, "eval_reward": {float(c["eval_reward"][s])!r}, "eval_loss": 0.3}}\n')


def write_csv(path: pathlib.Path, c: dict, n: int) -> None:
    header = ["_step", "train/global_step"] + [f"train/{k}" for k in NAMES] + ["eval/reward"]
    cols = [c[k] for k in NAMES]
    with path.open("w") as f:
        f.write(",".join(header) + "\n")
        row = 0
        for s in range(n):
            f.write(f"{row},{s}," + ",".join(repr(float(col[s])) for col in cols) + ",\n")
            row += 1
            if s % EVAL_EVERY == 0:
                f.write(f"{row},{s}," + "," * len(NAMES) + repr(float(c["eval_reward"][s])) + "\n")
                row += 1


def bench(path: pathlib.Path) -> dict:
    t0 = time.perf_counter()
    (run,) = readers.read_logs([path])
    t1 = time.perf_counter()
    alarms = check(run)
    t2 = time.perf_counter()
    fit = fit_entropy_reward(run)
    t3 = time.perf_counter()
    assert any(a.kind == "entropy_collapse" for a in alarms), [a.kind for a in alarms]
    return {
        "read": t1 - t0,
        "alarms": t2 - t1,
        "fit": t3 - t2,
        "total": t3 - t0,
        "metrics": len(run.metrics),
        "points": sum(len(s) for s in run.metrics.values()),
        "alarms_fired": [a.kind for a in alarms],
        "fit_result": fit,
        "format": run.format,
    }


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="?", type=int, default=1_000_000, help="steps in the log (default 1,000,000)")
    ap.add_argument("--serial", action="store_true", help="no worker processes, as on a busy machine")
    args = ap.parse_args(argv)
    n = args.rows
    if n < 10:
        ap.error(f"rows: {n}; at least 10 (the alarms need a few points to smooth)")
    if args.serial:
        parallel.PARALLEL_MIN_BYTES = 1 << 62
    print(
        f"{n:,} rows; cores: {os.cpu_count()}, usable now: {parallel._idle_cores()} "
        f"(load {os.getloadavg()[0]:.2f}){'; serial' if args.serial else ''}"
    )
    c = curves(n)
    with tempfile.TemporaryDirectory(prefix="va-bench-monitor-") as tmp:
        for kind, writer in (("jsonl", write_jsonl), ("csv", write_csv)):
            path = pathlib.Path(tmp) / f"metrics.{kind}"
            t = time.perf_counter()
            writer(path, c, n)
            size = path.stat().st_size
            print(f"\n{kind}: {size / 1e6:.0f} MB written in {time.perf_counter() - t:.1f} s")
            r = bench(path)
            print(f"  read_logs   {r['read']:6.2f} s   ({r['format']}, {r['metrics']} metrics, {r['points']:,} points)")
            print(f"  alarms      {r['alarms']:6.2f} s   ({', '.join(r['alarms_fired'])})")
            print(
                f"  fit         {r['fit']:6.2f} s   (a {r['fit_result'].a:.3g}, b {r['fit_result'].b:.3g}, ceiling {r['fit_result'].ceiling:.3g})"
            )
            print(f"  total       {r['total']:6.2f} s")
            path.unlink()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory of this process: {peak:.0f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])
