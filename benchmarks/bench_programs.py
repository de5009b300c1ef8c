"""Program runs per second: the sandbox's zygotes against one ``subprocess.run`` per case.

python benchmarks/bench_programs.py [--mutants N] [--repeat R]

The cases are the program suite's (``--suite programs``): every task's visible and hidden
cases, run by its reference and by its first N AST mutants (``generators/near_miss``).
Each (program, case) pair is run three ways, in the same process, one after the other:

* as a grader without a sandbox runs it (the baseline): ``subprocess.run([sys.executable,
  prog], input=..., timeout=...)``, a fresh interpreter per case, in a temporary directory;
* through ``cases.run_case``: one fork of the process's warm zygote per case
  (``Sandbox.run_program``; the program path before its cases shared a fork);
* through ``cases.run_cases``, the path the oracle and the reference verifiers use: the
  cases of one program in one fork of the zygote (``Sandbox.run_program_cases``), each
  with its own stdin, ``__main__`` and clocks; a case that ends the fork runs again alone.

Both sandboxed ways are checked against the baseline on every pair: the same exit status
(0 or not), the same stdout when it is 0, and so the same verdict under the task's checker.
Both run at the sandbox's default level, with the oracle's limits. A pair whose program
spins until the sandbox's CPU limit (0.5 s) would cost the baseline its whole wall clock:
such pairs are found in the warm-up pass and left out of every timing (the figure would
otherwise flatter the sandbox); their number is printed.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from verifier_audit.domains.code.programs.cases import (
    WALL_LIMIT,
    Case,
    Check,
    all_cases,
    program_of,
    run_case,
    run_cases,
    task_checker,
)
from verifier_audit.domains.code.programs.generators import near_miss
from verifier_audit.domains.code.sandbox import SandboxResult, default_level
from verifier_audit.suites import load_suite


@dataclass(frozen=True)
class Program:
    task: str
    source: str
    cases: list[Case]
    check: Check


def programs(mutants: int) -> list[Program]:
    """The suite's references and their first ``mutants`` AST mutants, each on every case."""
    made = []
    for task in load_suite("programs").tasks:
        check, cases = task_checker(task), all_cases(task)
        found = [c for c in near_miss.generate(task, random.Random(0)) if c.category.split(".")[-1] in mutants_kinds()]
        for source in [task.reference] + [program_of(c.text) or c.text for c in found[:mutants]]:
            made.append(Program(task.id, source, cases, check))
    return made


def mutants_kinds() -> set[str]:
    """The AST mutants' kinds (not the output-level changes, which wrap the reference)."""
    return set(near_miss.KINDS) - set(near_miss.OUTPUT_CHANGES)


Outcome = tuple[int | None, str]  # exit status (None: the clock), stdout


def shared(program: Program) -> list[Outcome]:
    """The program on its cases the oracle's way: ``cases.run_cases``, about one zygote fork."""
    return _outcomes(run_cases(program.source, program.cases))


def lone(program: Program) -> list[Outcome]:
    """The program on its cases one zygote fork each: ``cases.run_case``."""
    return _outcomes(run_case(program.source, case) for case in program.cases)


def _outcomes(results: Iterable[SandboxResult]) -> list[Outcome]:
    return [(r.exit_status, r.stdout if r.exit_status == 0 else "") for r in results]


def baseline(program: Program, folder: str) -> list[Outcome]:
    """One fresh interpreter per case, as a grader without a sandbox runs a program."""
    path = os.path.join(folder, "solution.py")
    with open(path, "w") as fh:
        fh.write(program.source)
    got: list[Outcome] = []
    for case in program.cases:
        try:
            out = subprocess.run(
                [sys.executable, path], input=case.input, capture_output=True, text=True, timeout=WALL_LIMIT, cwd=folder
            )
        except subprocess.TimeoutExpired:
            got.append((None, ""))
            continue
        got.append((out.returncode, out.stdout if out.returncode == 0 else ""))
    return got


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", type=int, default=3, help="AST mutants per task besides the reference (default 3)")
    ap.add_argument("--repeat", type=int, default=1, help="timed passes over the programs, each side (default 1)")
    args = ap.parse_args(argv)
    if args.mutants < 0 or args.repeat < 1:
        ap.error("--mutants >= 0 and --repeat >= 1")
    every = programs(args.mutants)
    # Warm-up (the zygote starts), and the cases that spin to the sandbox's CPU limit left out.
    kept, spinning = [], 0
    for program in every:
        warm = list(run_cases(program.source, program.cases))
        cases = [c for c, r in zip(program.cases, warm) if r.kind != "timeout"]
        spinning += len(program.cases) - len(cases)
        if cases:
            kept.append(Program(program.task, program.source, cases, program.check))
    runs = sum(len(p.cases) for p in kept)
    print(
        f"{runs} runs: {len(kept)} programs (the references and up to {args.mutants} AST mutants per task of "
        f"--suite programs) on their visible + hidden cases; {spinning} spinning runs left out; "
        f"sandbox level {default_level()}"
    )

    results: dict[str, list[list[Outcome]]] = {}
    rates: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        sides: dict[str, Callable[[Program], list[Outcome]]] = {
            "subprocess": lambda p: baseline(p, folder),
            "lone": lone,
            "shared": shared,
        }
        for name, side in sides.items():
            start = time.perf_counter()
            for _ in range(args.repeat):
                results[name] = [side(p) for p in kept]
            rates[name] = runs * args.repeat / (time.perf_counter() - start)

    differ, right = [], 0
    for name in ("shared", "lone"):
        for program, ours, theirs in zip(kept, results[name], results["subprocess"]):
            for case, (status, out), (b_status, b_out) in zip(program.cases, ours, theirs):
                verdict = status == 0 and program.check(out, case)
                right += verdict and name == "shared"
                # The same status (0 or not), the same stdout when 0, so the same verdict.
                if (
                    (status == 0) != (b_status == 0)
                    or out != b_out
                    or verdict != (b_status == 0 and program.check(b_out, case))
                ):
                    differ.append((name, program.task, status, b_status, out[:60], b_out[:60]))
    print(
        f"verdicts: {right} right outputs, {runs - right} wrong or failed; {len(differ)} runs differ from the baseline"
    )
    for row in differ[:10]:
        print("  differs:", row)
    base = rates["subprocess"]
    print(f"one subprocess.run per case (baseline):     {base:8.1f} runs/s")
    print(f"one zygote fork per case (cases.run_case):  {rates['lone']:8.1f} runs/s  {rates['lone'] / base:5.1f}x")
    print(f"one fork per program (cases.run_cases):     {rates['shared']:8.1f} runs/s  {rates['shared'] / base:5.1f}x")
    if differ:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
