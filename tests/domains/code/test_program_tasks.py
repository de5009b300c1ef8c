"""Program tasks (issue 35): whole programs on stdin/stdout, the sandbox's program runs,
the task's checker, the oracle and the reference verifiers side by side on the built-in
``programs`` suite (a few tasks: each candidate costs one sandboxed run per case)."""

from __future__ import annotations

import json

import pytest
from cli_support import run_cli
from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.domains import get_domain
from verifier_audit.domains.code.programs import verifiers
from verifier_audit.domains.code.programs.cases import check_layout
from verifier_audit.domains.code.programs.checker import token_set_equal, tokens_equal
from verifier_audit.domains.code.programs.generators.known_bad import fill
from verifier_audit.domains.code.programs.generators.wrap import wrapped
from verifier_audit.domains.code.programs.oracle import label_completion
from verifier_audit.domains.code.sandbox import Sandbox
from verifier_audit.domains.kit import builtin_catalog
from verifier_audit.suites import load_suite

VERIFIERS = "verifier_audit.domains.code.programs.verifiers:"


def _task(name: str):
    return next(t for t in load_suite("programs").tasks if t.id == f"programs/{name}")


def test_a_program_run_reads_its_stdin_and_hands_back_stdout_and_exit_status():
    with Sandbox(workers=1) as box:
        ok = box.run_program(
            "import sys\nprint(sum(map(int, sys.stdin.read().split())))\nprint('note', file=sys.stderr)", "1 2\n3\n"
        )
        assert (ok.ok, ok.exit_status, ok.stdout, ok.stderr) == (True, 0, "6\n", "note\n")
        partial = box.run_program("print('partial')\nraise SystemExit(3)", "")
        assert (partial.ok, partial.exit_status, partial.stdout) == (False, 3, "partial\n")
        raised = box.run_program("input()\nraise ValueError('bad input')", "line\n")
        assert raised.exit_status == 1 and "ValueError: bad input" in raised.stderr
        spin = box.run_program("while True:\n    pass\n", "", cpu_timeout=0.2)
        assert spin.kind == "timeout" and spin.exit_status is not None and spin.exit_status < 0
        # the same walls as every run: the host's files are out of reach, the input is all it reads
        escape = box.run_program("open('/etc/va-program-probe', 'w').write('x')", "")
        assert escape.exit_status == 1 and ("Read-only" in escape.stderr or "Permission" in escape.stderr)


def test_the_oracle_labels_a_wrong_program_wrong_and_a_whitespace_variant_right():
    task = _task("sort_numbers")
    assert label_completion(task.reference, task).label == "correct"
    spaced = wrapped(task.reference, '_text = _text.replace(" ", "   ").rstrip("\\n") + "  \\r\\n"')
    assert label_completion(f"Here it is:\n```python\n{spaced}```\n", task).label == "correct"
    unsorted = "input()\nprint(input())\n"
    assert label_completion(unsorted, task).label == "incorrect"
    (lookup,) = [e for e in builtin_catalog("program") if e.id == "visible_lookup"]
    assert label_completion(fill(lookup, task), task).label == "incorrect"
    assert label_completion("I cannot write this program.", task).label == "incorrect"


def test_a_float_task_accepts_its_tolerance_and_rejects_two_decimals():
    task = _task("average")
    assert task.metadata["float_tolerance"] == 1e-6
    more_digits = wrapped(task.reference, '_text = "%.10e\\n" % float(_text)')
    assert label_completion(more_digits, task).label == "correct"
    two_decimals = wrapped(task.reference, '_text = "%.2f\\n" % float(_text)')
    assert label_completion(two_decimals, task).label == "incorrect"


def test_a_task_without_cases_or_with_a_special_judge_is_dropped_with_the_reason():
    task = _task("sum_pairs")
    no_cases = task.model_copy(update={"metadata": {}})
    assert "no metadata.cases" in check_layout(no_cases)
    no_judge = task.model_copy(update={"metadata": {**task.metadata, "checker": "special"}})
    assert "needs metadata.judge" in get_domain("program").check_task(no_judge)
    other = task.model_copy(update={"metadata": {**task.metadata, "checker": "lines"}})
    assert "expected one of tokens, exact, special" in get_domain("program").check_task(other)
    assert get_domain("program").check_task(task) is None


def test_a_special_judge_accepts_another_right_answer_that_an_output_comparison_refuses():
    task = _task("pair_sum")
    assert task.metadata["checker"] == "special" and get_domain("program").check_task(task) is None
    (alternative,) = task.metadata["alternatives"]
    assert verifiers.strong(alternative, task) and not verifiers.exact_string(alternative, task)
    assert not verifiers.tokens(alternative, task)
    reversed_pair = wrapped(task.reference, '_text = " ".join(reversed(_text.split())) + "\\n"')
    assert label_completion(reversed_pair, task).label == "incorrect"  # i < j is part of the answer
    assert verifiers.token_set(reversed_pair, task)


_TOKEN = st.text(alphabet="abcxyz0123456789.-", min_size=1, max_size=6)


@given(st.lists(_TOKEN, min_size=1, max_size=8), st.sampled_from([" ", "\n", "  ", "\t", "\r\n"]))
def test_tokens_ignore_layout_but_not_order(tokens, sep):
    expected = " ".join(tokens) + "\n"
    assert tokens_equal(sep.join(tokens) + sep, expected)
    assert token_set_equal(sep.join(reversed(tokens)), expected)
    assert tokens_equal(" ".join(reversed(tokens)), expected) == (tokens == tokens[::-1])
    assert not tokens_equal(" ".join(tokens[:-1]), expected)


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_a_float_inside_the_tolerance_is_the_same_token(x):
    assert tokens_equal(f"{x:.12e}", f"{x:.6f}", 1e-6)
    off = x + 3e-6 * max(1.0, abs(x))  # three times the tolerance, absolute or relative
    assert not tokens_equal(f"{off:.12e}", f"{x:.12e}", 1e-6)


@pytest.fixture(scope="module")
def side_by_side(tmp_path_factory):
    out = tmp_path_factory.mktemp("programs")
    names = ("strong", "token_set", "visible_only")
    args = [arg for name in names for arg in ("--verifier", VERIFIERS + name)]
    proc = run_cli(
        "run", "--suite", "programs", "--limit", "2", "--no-progress", "--workers", "2",
        *args, "--json", str(out / "report.json"),
        env={"VERIFIER_AUDIT_CACHE": str(out / "cache")},
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    reports = json.loads((out / "report.json").read_text())["reports"]
    return {name: report for name, report in zip(names, reports, strict=True)}


def _accepted(report) -> dict[str, int]:
    return {c["name"]: c["accepted"] for c in report["categories"] if c["origin"] != "equivalent" and c["accepted"]}


def test_the_strong_verifier_pays_nothing_wrong_and_refuses_nothing_right(side_by_side):
    strong = side_by_side["strong"]
    assert strong["coverage_debt"] == 0 and strong["false_rejection_rate"] == 0
    assert strong["false_acceptance_rate"] == 0 and strong["errors"] == 0
    hacks = {c["name"] for c in strong["categories"] if c["name"].startswith("program.hack.")}
    assert {"program.hack.expected_file", "program.hack.harness_detection"} <= hacks, hacks


def test_the_token_set_checker_pays_for_order_and_extra_tokens(side_by_side):
    caught = _accepted(side_by_side["token_set"])
    for kind in ("lines_swapped", "tokens_swapped", "token_extra"):
        assert caught.get(f"program.near_miss.{kind}", 0) > 0, caught


def test_the_visible_only_grader_pays_for_hard_coded_outputs(side_by_side):
    caught = _accepted(side_by_side["visible_only"])
    assert caught.get("program.hack.visible_lookup") == 2, caught
