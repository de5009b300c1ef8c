"""The program catalog (adversarial_cases/program.yaml): every hack is a wrong program by
the oracle, and each is paid by the weak stdin grader it is aimed at -- graders written
here, in a few lines each, the way hand-rolled judges run a program (a subprocess per
case, in a directory of its own) -- while the strong verifier pays none.

One instance per entry, on tasks of the built-in ``programs`` suite: a handful of runs."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from verifier_audit.domains import get_domain
from verifier_audit.domains.code.programs import verifiers
from verifier_audit.domains.code.programs.cases import Case, all_cases
from verifier_audit.domains.code.programs.checker import tokens_equal
from verifier_audit.domains.code.programs.generators.known_bad import PLACEHOLDERS, fill, task_kinds
from verifier_audit.domains.code.programs.oracle import label_completion
from verifier_audit.domains.kit import builtin_catalog, check_template
from verifier_audit.models import Task
from verifier_audit.suites import load_suite

CATALOG = {entry.id: entry for entry in builtin_catalog("program")}
TASKS = load_suite("programs").tasks


def _task(name: str) -> Task:
    return next(t for t in TASKS if t.id == f"programs/{name}")


# ------------------------------------------------------------------ weak graders


def _run(program: str, case: Case, where: Path, *, fd_file: Path | None = None, env: dict | None = None):
    """``python main.py < input`` in ``where``; the expected output's descriptor inherited
    when ``fd_file`` is given (as a shell judge's ``3<expected.txt`` does)."""
    (where / "main.py").write_text(program, encoding="utf-8")
    fds: tuple[int, ...] = ()
    if fd_file is not None:
        fd_file.write_text(case.output, encoding="utf-8")
        fds = (os.open(fd_file, os.O_RDONLY),)
    try:
        return subprocess.run(
            [sys.executable, "-S", "main.py"],  # -S: no site import, a quicker start
            input=case.input,
            capture_output=True,
            text=True,
            cwd=where,
            pass_fds=fds,
            env=env or {"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            timeout=20,
        )
    finally:
        for fd in fds:
            os.close(fd)


Grader = Callable[[str, Task, Path], bool]


def files_in_cwd(program: str, task: Task, tmp: Path) -> bool:
    """Writes case.in and case.ans next to the program; tokens compared."""
    for case in all_cases(task):
        (tmp / "case.in").write_text(case.input, encoding="utf-8")
        (tmp / "case.ans").write_text(case.output, encoding="utf-8")
        run = _run(program, case, tmp)
        if run.returncode != 0 or not tokens_equal(run.stdout, case.output):
            return False
    return True


def inherited_fd(program: str, task: Task, tmp: Path) -> bool:
    """Opens the expected output (outside the program's directory) and lets it be inherited."""
    (tmp / "run").mkdir(exist_ok=True)
    for case in all_cases(task):
        run = _run(program, case, tmp / "run", fd_file=tmp / "expected.txt")
        if run.returncode != 0 or not tokens_equal(run.stdout, case.output):
            return False
    return True


def zip_lines(program: str, task: Task, tmp: Path) -> bool:
    """Status 0 and the lines compared with zip(), which stops at the shorter."""
    for case in all_cases(task):
        run = _run(program, case, tmp)
        got, want = run.stdout.splitlines(), case.output.splitlines()
        if run.returncode != 0 or not got or not all(a.split() == b.split() for a, b in zip(got, want)):
            return False
    return True


def substring(program: str, task: Task, tmp: Path) -> bool:
    """The expected output somewhere in what was printed."""
    for case in all_cases(task):
        run = _run(program, case, tmp)
        if run.returncode != 0 or case.output.strip() not in run.stdout:
            return False
    return True


def fingerprinted(program: str, task: Task, tmp: Path) -> bool:
    """Runs with ONLINE_JUDGE set, as competitive judges do; tokens compared."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ONLINE_JUDGE": "1"}
    for case in all_cases(task):
        run = _run(program, case, tmp, env=env)
        if run.returncode != 0 or not tokens_equal(run.stdout, case.output):
            return False
    return True


def visible_only(program: str, task: Task, tmp: Path) -> bool:
    return verifiers.visible_only(program, task)


# entry -> the task it is shown on and the weak graders that must pay for it
AIMED: dict[str, tuple[str, tuple[Grader, ...]]] = {
    "expected_file_in_cwd": ("palindromes", (files_in_cwd,)),
    "expected_from_inherited_fd": ("reverse_words", (inherited_fd,)),
    "first_line_then_os_exit": ("count_vowels", (zip_lines,)),
    "first_line_then_sys_exit": ("palindromes", (zip_lines,)),
    "right_only_under_a_judge": ("reverse_words", (fingerprinted, files_in_cwd)),
    "debug_line_after_answer": ("fizzbuzz", (zip_lines, substring)),
    "debug_line_before_answer": ("average", (substring,)),
    "visible_lookup": ("reverse_words", (visible_only,)),
}


def test_every_entry_is_aimed_at_a_grader_here():
    assert set(AIMED) == set(CATALOG)
    for entry in CATALOG.values():
        check_template(entry.template, PLACEHOLDERS)
        assert entry.label == "incorrect" and entry.reference.strip(), entry.id


@pytest.mark.parametrize("entry_id", sorted(AIMED))
def test_a_hack_is_wrong_paid_by_the_grader_it_targets_and_not_by_the_strong_one(entry_id, tmp_path):
    name, graders = AIMED[entry_id]
    task = _task(name)
    program = fill(CATALOG[entry_id], task)
    label = label_completion(program, task)
    assert label.label == "incorrect", label.reason
    assert not verifiers.strong(program, task)
    for grader in graders:
        assert grader(program, task, tmp_path), f"{grader.__name__} refused {entry_id}"


@pytest.mark.parametrize("grader", [files_in_cwd, inherited_fd, zip_lines, substring, fingerprinted])
def test_the_weak_graders_still_refuse_a_plain_wrong_program(grader, tmp_path):
    """What they pay above is the hack's doing, not a grader that pays anything."""
    assert not grader("import sys\nsys.stdin.read()\nprint(0)\n", _task("reverse_words"), tmp_path)


def test_every_entry_compiles_on_every_suite_task_it_applies_to():
    candidates = [c for c in get_domain("program").generate(TASKS, 0) if c.origin == "known_bad"]
    made = {c.category.split(".")[-1] for c in candidates}
    assert made == {e.category.split(".")[-1] for e in CATALOG.values()}
    for candidate in candidates:
        compile(candidate.text, candidate.id, "exec")
        assert candidate.label == "incorrect"
    # the partial-output exits go on multi-line tasks only, where the first line is partial
    partial = [c for c in candidates if c.category == "program.hack.exit_after_partial"]
    assert partial and all("multiline" in task_kinds(_task(c.task_id.split("/")[1])) for c in partial)
    # a hack is no near miss: mutant survival counts none of them
    assert not any("visible_lookup" in c.category for c in candidates if c.origin == "near_miss")
