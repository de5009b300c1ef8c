"""``verifier-audit score`` at scale: throughput and peak memory for N samples (issue 17).

    python benchmarks/bench_score_scale.py                  # N = 10,000 and 100,000
    python benchmarks/bench_score_scale.py --million        # and 1,000,000 (several minutes)
    python benchmarks/bench_score_scale.py --sizes 20000 -- --block-size 5000   # after --: score options

For each N it writes two samples files on the built-in math suite (372 tasks; a base model
and an RL policy, N/2 samples each, in the project's format: an imported-style manifest,
then one sample per line), a cheap pair-style verifier (the reference in ``\\boxed{}`` as a
substring: a hedge "\\boxed{r} or \\boxed{r+1}" fools it), and runs the real command,
``python -m verifier_audit score``, in a subprocess. Of every 10 samples of a task: 6 right
(the same text), 2 wrong, 1 hedge, and 1 with a text of its own (10% distinct texts, so
that the oracle's dedupe is not the whole story).

Printed per N: wall time, samples per second, the peak RSS of the largest single process
of the command's tree (``os.wait4``'s ``ru_maxrss``: the score process itself, in
practice) and the peaks of the whole tree's summed PSS and summed RSS (the main process,
the worker pool's server and workers), sampled from /proc every 0.2 s: forked workers share
the pages of their parent, which the RSS sum counts once per process and the PSS sum once. Ray's workers are not in the
tree (they belong to the cluster): with ``--executor ray`` the tree figure is this
machine's driver side only. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifier_audit.samples.records import Manifest, manifest_line  # noqa: E402
from verifier_audit.suites import load_suite  # noqa: E402

VERIFIER = """
def verify(completion, reference):
    return 1.0 if ("\\\\boxed{" + reference + "}") in completion else 0.0
"""


def write_files(folder: Path, n: int) -> tuple[Path, Path]:
    """Two samples files (base, rl) of n // 2 and n - n // 2 samples on the math suite."""
    tasks = load_suite("math").tasks
    out = []
    for name, role, count, offset in (("bench-base", "base", n // 2, 0), ("bench-rl", "rl", n - n // 2, n // 2)):
        path = folder / f"{name}.jsonl"
        manifest = Manifest(
            model=str(path),
            model_name=name,
            suite="math",
            task_count=len(tasks),
            tool_version="bench",
            source="import:jsonl",
            role=role,
        )
        index = [0] * len(tasks)
        with path.open("w", encoding="utf-8") as fh:
            fh.write(manifest_line(manifest) + "\n")
            for i in range(count):
                g = offset + i
                t = g % len(tasks)
                task = tasks[t]
                r = task.reference
                kind = (g // len(tasks)) % 10
                if kind < 6:
                    text = f"\\boxed{{{r}}}"
                elif kind < 8:
                    text = f"The answer is \\boxed{{{r}1}}."
                elif kind == 8:
                    text = f"\\boxed{{{r}}} or \\boxed{{{r}1}}"
                else:  # a text of its own: right or wrong by the sample's number
                    text = f"Attempt {g}: so the result is \\boxed{{{r if g % 2 else r + '2'}}}."
                row = {
                    "task_id": task.id,
                    "sample_index": index[t],
                    "split": task.split,
                    "model": name,
                    "prompt": task.prompt[:40],
                    "text": text,
                }
                index[t] += 1
                fh.write(json.dumps(row, ensure_ascii=True, separators=(",", ":")) + "\n")
        out.append(path)
    return out[0], out[1]


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(b")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, IndexError, ValueError):
        return 0


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, IndexError, ValueError):
        pass
    return 0


def tree_memory_kb(root: int) -> tuple[int, int]:
    """(summed RSS, summed PSS) of the process tree under ``root``. Forked workers share the
    pages of the process they were forked from: the RSS sum counts them once per process,
    the PSS sum (proportional set size) once in all."""
    tree, rss, pss, todo = _children(), 0, 0, [root]
    while todo:
        pid = todo.pop()
        rss += _rss_kb(pid)
        pss += _pss_kb(pid)
        todo.extend(tree.get(pid, []))
    return rss, pss


def run_one(n: int, workers: int, extra: list[str], keep: bool) -> dict:
    folder = Path(tempfile.mkdtemp(prefix=f"va-score-{n}-"))
    base, rl = write_files(folder, n)
    verifier = folder / "bench_verifier.py"
    verifier.write_text(VERIFIER, encoding="utf-8")
    cmd = [
        sys.executable,
        "-m",
        "verifier_audit",
        "score",
        str(rl),
        "--base",
        str(base),
        "--verifier",
        f"{verifier}:verify",
        "--no-config",
        "--no-progress",
        "--workers",
        str(workers),
        "--results",
        str(folder / "results.jsonl"),
        "--json",
        str(folder / "report.json"),
        *extra,
    ]
    env = dict(os.environ, VERIFIER_AUDIT_CACHE=str(folder / "cache"))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = [0, 0]
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            rss, pss = tree_memory_kb(proc.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            stop.wait(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    stop.set()
    watcher.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    figures = {}
    report = folder / "report.json"
    if report.is_file():
        data = json.loads(report.read_text())
        r, s = data["reports"][0], data["samples"][0]
        figures = {
            "n_candidates": r["n_candidates"],
            "fa": r["false_acceptance_rate"],
            "fr": r["false_rejection_rate"],
            "undecidable": s["undecidable_reasons"],
            "accepted_but_wrong": s["accepted_but_wrong"],
            "errors": r["error_kinds"],
        }
    if not keep:
        subprocess.run(["rm", "-rf", str(folder)], check=False)
    return {
        "n": n,
        "rc": proc.returncode,
        "wall": wall,
        "max_rss_kb": usage.ru_maxrss,
        "tree_kb": peak[0],
        "tree_pss_kb": peak[1],
        "figures": figures,
        "stderr_tail": err.strip().splitlines()[-3:],
        "folder": str(folder),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated N (default 10000,100000)")
    ap.add_argument("--million", action="store_true", help="also N = 1,000,000")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the generated files and the results")
    ap.add_argument("extra", nargs="*", help="options passed on to score (after --)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x]
    if args.million:
        sizes.append(1_000_000)
    print(
        f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; workers {args.workers}; "
        f"score options: {' '.join(args.extra) or '(none)'}"
    )
    print(
        f"{'N':>9} {'rc':>3} {'wall s':>8} {'samples/s':>10} {'max RSS MB':>11} {'tree PSS MB':>12} "
        f"{'tree RSS MB':>12}  figures"
    )
    for n in sizes:
        r = run_one(n, args.workers, args.extra, args.keep)
        print(
            f"{r['n']:>9} {r['rc']:>3} {r['wall']:>8.1f} {r['n'] / r['wall']:>10.0f} {r['max_rss_kb'] / 1024:>11.0f} "
            f"{r['tree_pss_kb'] / 1024:>12.0f} {r['tree_kb'] / 1024:>12.0f}  {r['figures']}  "
            f"(load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
        if r["rc"] not in (0, 1):
            print("   stderr: " + " | ".join(r["stderr_tail"]), flush=True)


if __name__ == "__main__":
    main()
