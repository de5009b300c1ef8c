"""What the live watch costs (issue 37): the trainer's side per reward call, and the
background labelling's throughput.

1. **Overhead per call**, in the same process: a TRL-style reward over a batch of
   ``BATCH`` completions, called bare and through ``watch(...)`` (sample 0.02, the default),
   interleaved call by call so both see the same machine; the median over ``CALLS`` calls of
   each, for two rewards: a cheap regex reward (the worst case for a relative overhead: the
   reward itself costs microseconds) and a ``math_verify`` reward (parse and verify, what a
   math GRPO run typically pays). The labeller runs as in training (its pool labels the
   sampled rollouts meanwhile).
2. **Labelling throughput**: ``LABEL`` rollouts sampled at 1.0 and submitted at once; the
   time until the labeller has labelled them all with the math oracle in the audit's clean
   workers (one worker: the trainer keeps the other cores).

3. **The alarm's level**: ``paid_wrong_rising`` on 200 flat runs of 300 windows of 8 labelled
   rollouts (seeded binomial shares 0.02, 0.05, 0.3), at the default z >= 4 and at 3: how
   many runs fire (the test runs at every window, so a loose level fires on flat runs).

Run: ``python benchmarks/bench_watch.py [CALLS] [LABEL]``.
"""

from __future__ import annotations

import pathlib
import re
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifier_audit.watch import watch  # noqa: E402

BATCH = 16
ANSWERS = [
    f"Let me think. {a} + {a} = {2 * a}, so the answer is \\boxed{{{2 * a + (a % 3 == 0)}}}." for a in range(BATCH)
]
SOLUTIONS = [str(2 * a) for a in range(BATCH)]
BOXED = re.compile(r"\\boxed\{([^{}]*)\}")


def regex_reward(prompts, completions, solution, **kwargs):
    out = []
    for c, s in zip(completions, solution):
        found = BOXED.findall(c)
        out.append(1.0 if found and found[-1].strip() == s else 0.0)
    return out


def math_verify_reward(prompts, completions, solution, **kwargs):
    from math_verify import parse, verify

    return [1.0 if verify(parse(s), parse(c)) else 0.0 for c, s in zip(completions, solution)]


def per_call(reward, calls: int, folder: pathlib.Path) -> tuple[float, float]:
    """Seconds per call, bare and watched (interleaved): medians, then means (a mean also
    counts the calls the labeller's thread held up: it shares the trainer's GIL)."""
    watched = watch(reward, domain="math", out=folder / f"{reward.__name__}.jsonl", sample=0.02)
    kwargs = {"prompts": ["p"] * BATCH, "completions": ANSWERS, "solution": SOLUTIONS}
    for _ in range(20):  # warm both (imports, caches)
        reward(**kwargs)
        watched(**kwargs)
    bare, wrapped = [], []
    for _ in range(calls):
        t = time.perf_counter()
        reward(**kwargs)
        bare.append(time.perf_counter() - t)
        t = time.perf_counter()
        watched(**kwargs)
        wrapped.append(time.perf_counter() - t)
    watched.watch.close(timeout=120)
    return statistics.median(bare), statistics.median(wrapped), statistics.fmean(bare), statistics.fmean(wrapped)


def throughput(n: int, folder: pathlib.Path) -> tuple[float, float]:
    """(seconds for the first batch, which starts the clean server; rollouts per second after)."""
    watched = watch(regex_reward, domain="math", out=folder / "throughput.jsonl", sample=1.0, capacity=n + BATCH)
    kwargs = {"prompts": ["p"] * BATCH, "completions": ANSWERS, "solution": SOLUTIONS}
    t = time.perf_counter()
    watched(**kwargs)
    watched.watch.labeller.drain(300)
    first = time.perf_counter() - t
    t = time.perf_counter()
    for _ in range(n // BATCH):
        watched(**kwargs)
    watched.watch.labeller.drain(600)
    rate = (n // BATCH) * BATCH / (time.perf_counter() - t)
    watched.watch.close(timeout=120)
    return first, rate


def false_alarms(z: float, level: float, runs: int = 200, windows: int = 300) -> int:
    import numpy as np

    from verifier_audit.monitor.alarms import Thresholds, check
    from verifier_audit.monitor.run import Run, Series

    rng = np.random.default_rng(1)
    steps = np.arange(1.0, windows + 1)
    th = Thresholds(paid_wrong_z=z)
    fired = 0
    for _ in range(runs):
        paid = rng.binomial(8, level, size=windows).astype(float)
        run = Run(
            name="flat",
            source="bench",
            metrics={"watch/labelled": Series(steps, np.full(windows, 8.0)), "watch/paid_wrong": Series(steps, paid)},
        )
        fired += bool(check(run, th))
    return fired


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    label = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        for reward in (regex_reward, math_verify_reward):
            n = calls if reward is regex_reward else max(calls // 10, 200)
            bare, wrapped, bare_mean, wrapped_mean = per_call(reward, n, folder)
            for what, b, w in (("median", bare, wrapped), ("mean", bare_mean, wrapped_mean)):
                print(
                    f"{reward.__name__:<20} batch {BATCH}, {n} calls, {what:<6}: bare {b * 1e6:9.1f} us, "
                    f"watched {w * 1e6:9.1f} us, overhead {(w - b) * 1e6:7.2f} us ({(w - b) / b:+.1%})"
                )
        first, rate = throughput(label, folder)
        print(f"labelling: first batch (starts the clean server) {first:.2f} s; then {rate:.0f} rollouts/s ({label})")
    for z in (4.0, 3.0):
        fired = [false_alarms(z, level) for level in (0.02, 0.05, 0.3)]
        print(f"paid_wrong_rising at z >= {z:g}: flat runs that fired, of 200 x 300 windows (0.02, 0.05, 0.3): {fired}")


if __name__ == "__main__":
    main()
