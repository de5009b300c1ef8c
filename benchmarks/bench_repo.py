"""What a repo verdict costs (docs/repo-domain.md): the oracle's pytest run forked from the
code sandbox's warm zygote (run.py) against ``python -m pytest`` started in a subprocess per
patch, on the same patched repositories (interleaved, patch by patch), with the same rule -- the test side restored, the
hidden tests added, every F2P, P2P and hidden test passed. The subprocess reads each test's
outcome from a JUnit file written outside the repository; the verdicts must be identical.

    python benchmarks/bench_repo.py [--rounds 5]

The tasks are tiny_task() (tests/domains/repo/repo_support.py) with the hand-written patches
of tests/domains/repo/repo_hacks.py that need a run (the gold, the unpatched repository, an
exit at import, PASSED lines printed, a JUnit file written, a neighbour broken). Prints the
verdicts per second of each way, their ratio, whether every verdict agreed, and the memory
a forked run's process tree peaked at.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "domains" / "repo"))

PATCHES = ("GOLD", "EMPTY", "EXITS_AT_IMPORT", "PRINTS_PASSED", "WRITES_JUNIT", "BREAKS_NEIGHBOUR")


def subprocess_verdict(text: str, task) -> bool:
    """The oracle's rule with ``python -m pytest`` in a fresh interpreter per patch."""
    from verifier_audit.domains.repo.layout import hidden_paths, node_ids, outside_allowed, pristine_tests
    from verifier_audit.domains.repo.oracle import RUN_FLAGS, patched
    from verifier_audit.domains.repo.verifiers import junit_cases, junit_key

    patch = patched(text, task)
    if outside_allowed(patch.changed, task):
        return False
    with tempfile.TemporaryDirectory(prefix="va-bench-repo-") as scratch:
        repo, report = os.path.join(scratch, "repo"), os.path.join(scratch, "report.xml")
        for path, body in pristine_tests(patch.files, task).items():
            os.makedirs(os.path.dirname(os.path.join(repo, path)), exist_ok=True)
            pathlib.Path(repo, path).write_text(body, encoding="utf-8")
        targets = node_ids(task, "fail_to_pass", "pass_to_pass") + hidden_paths(task)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *RUN_FLAGS, f"--junitxml={report}", *targets],
            cwd=repo,
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
        if not os.path.exists(report):
            return False
        cases = junit_cases(pathlib.Path(report).read_text(encoding="utf-8"))
    visible = all(cases.get(junit_key(node)) is True for node in node_ids(task, "fail_to_pass", "pass_to_pass"))
    hidden = [passed for (classname, _), passed in cases.items() if classname.startswith("tests.test_hidden")]
    return visible and bool(hidden) and all(hidden)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    import repo_hacks
    from repo_support import tiny_task

    from verifier_audit.domains.code.cases import process_sandbox
    from verifier_audit.domains.repo.oracle import label_completion
    from verifier_audit.domains.repo.run import WARM

    task = tiny_task()
    texts = [getattr(repo_hacks, name) for name in PATCHES]
    process_sandbox(WARM)  # the zygote's start, once per worker, is not a verdict's cost
    label_completion(texts[0], task)

    # Interleaved, patch by patch, so that both ways see the same load on a shared machine.
    forked, spawned, forked_span, spawned_span = [], [], 0.0, 0.0
    for _ in range(args.rounds):
        for text in texts:
            started = time.perf_counter()
            forked.append(label_completion(text, task).label == "correct")
            forked_span += time.perf_counter() - started
            started = time.perf_counter()
            spawned.append(subprocess_verdict(text, task))
            spawned_span += time.perf_counter() - started

    count = len(forked)
    print(f"{count} verdicts each ({args.rounds} rounds of {len(texts)} patches: {', '.join(PATCHES)})")
    print(f"forked from the warm zygote: {count / forked_span:6.2f} verdicts/s ({forked_span:.2f} s)")
    print(f"python -m pytest per patch:  {count / spawned_span:6.2f} verdicts/s ({spawned_span:.2f} s)")
    print(f"ratio {spawned_span / forked_span:.2f}x; identical verdicts: {forked == spawned}")
    print("verdicts (forked):", dict(zip(PATCHES, forked[: len(texts)])))
    print(memory(task, texts[0]))


def memory(task, gold: str, runs: int = 10) -> str:
    """The memory a forked run's whole process tree peaked at, over ``runs`` runs of the gold
    (the sandbox's own figure: the cgroup's, else its watcher's), against the run's bound."""
    from verifier_audit.domains.code.cases import process_sandbox
    from verifier_audit.domains.repo.layout import is_test_side, pristine_tests
    from verifier_audit.domains.repo.oracle import RUN_FLAGS, patched
    from verifier_audit.domains.repo.run import MEMORY_MB, WARM

    files = pristine_tests(patched(gold, task).files, task)
    trusted = tuple(p for p in files if is_test_side(p))
    peaks = []
    for _ in range(runs):
        result = process_sandbox(WARM).run_pytest(files, list(RUN_FLAGS), trusted=trusted, memory_mb=MEMORY_MB)
        peaks.append(result.memory_peak_mb)
    known = [p for p in peaks if p is not None]
    guard = result.memory_guard or "none"
    if not known:
        return f"memory: no peak measured ({guard})"
    return f"memory: a run's process tree peaked at {min(known)}-{max(known)} MiB over {runs} runs ({guard}; bound {MEMORY_MB} MiB)"


if __name__ == "__main__":
    main()
