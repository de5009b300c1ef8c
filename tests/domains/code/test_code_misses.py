"""Issue 33, code misses: the candidate kinds real graders showed we did not exercise, each
shown to catch a grader written here with that hole, and not to flag the strong verifier.

* Generator kinds (output near-misses, call-removal mutants, renames with fresh names): a
  small audit (four tasks written for this file, near-misses and equivalents only).
* Catalog hacks (frame-local introspection, grader-state tampering, call-order replay): the
  entry filled on a task and shown to a harness written here, in a subprocess of its own
  (the tampering would otherwise reach this test process's modules), then to the oracle
  and the strong verifier.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.code import known_bad
from verifier_audit.domains.code.generators import outputs
from verifier_audit.domains.code.generators.mutants import mutants
from verifier_audit.domains.code.generators.rewrites.names import rename_fresh
from verifier_audit.domains.kit import builtin_catalog
from verifier_audit.models import Task


def _task(task_id: str, reference: str, entry: str, io: list) -> dict:
    """A task in the suite's JSON form: the visible tests are the ``io`` pairs as asserts."""
    reference = textwrap.dedent(reference).lstrip()
    asserts = "".join(f"    assert candidate({', '.join(map(repr, args))}) == {want!r}\n" for args, want in io)
    return {
        "id": task_id,
        "domain": "code",
        "prompt": reference.split('"""', 2)[0] + '"""' + reference.split('"""', 2)[1] + '"""\n',
        "reference": reference,
        "entry_point": entry,
        "tests": f"def check(candidate):\n{asserts}",
        "io": io,  # what the graders below compare with (the same pairs)
    }


TASKS = [
    _task(
        "miss-list",
        '''
        def dedupe_sorted(xs: list[int]) -> list[int]:
            """The distinct values of xs, smallest first."""
            return sorted(set(xs))
        ''',
        "dedupe_sorted",
        [[[[3, 1, 3]], [1, 3]], [[[]], []], [[[2, -1]], [-1, 2]]],
    ),
    _task(
        "miss-int",
        '''
        def count_evens(xs: list[int]) -> int:
            """How many values of xs are even."""
            total = 0
            for value in xs:
                if value % 2 == 0:
                    total += 1
            return total
        ''',
        "count_evens",
        [[[[1, 2, 3]], 1], [[[]], 0], [[[2, 4, 5]], 2]],
    ),
    _task(
        "miss-str",
        '''
        def sort_words(text: str) -> str:
            """The words of text, lower-cased, in alphabetical order, one space apart."""
            return " ".join(sorted(text.lower().split()))
        ''',
        "sort_words",
        [[["b a"], "a b"], [["  C b A "], "a b c"], [["one"], "one"]],
    ),
    _task(
        "miss-bool",
        '''
        def is_even(n: int) -> bool:
            """Whether n is even."""
            return n % 2 == 0
        ''',
        "is_even",
        [[[4], True], [[7], False]],
    ),
]


# ------------------------------------------------------------- graders with one hole each


def _function(completion: str, task) -> object:
    """The candidate's entry point, exec'd here (near-misses and rewrites only: no hacks)."""
    namespace: dict = {"__name__": "candidate"}
    exec(compile(completion, "<candidate>", "exec"), namespace)
    return namespace[task.entry_point]


def _as_lists(value):
    return [_as_lists(v) for v in value] if isinstance(value, (list, tuple)) else value


def _lenient_same(got, want) -> bool:
    if isinstance(want, str) and isinstance(got, str):
        return set(got.split()) == set(want.split())  # tokens in any order, repeats, padding
    return _as_lists(got) == _as_lists(want)  # tuples as lists, then ==: True == 1


def lenient(completion: str, task) -> float:
    """A lenient output checker with three holes: ``==`` (pays True for 1 and 1 for True),
    tuples turned into lists first, and strings compared as sets of tokens."""
    fn = _function(completion, task)
    return float(all(_lenient_same(fn(*args), want) for args, want in task.io))


def _strict(got, want) -> bool:
    return type(got) is type(want) and got == want


def reference_names(completion: str, task) -> float:
    """Right outputs (types too) and the reference's local names in the source: a style
    check that rejects a correct program whose names owe nothing to the reference."""
    import ast

    fn = _function(completion, task)
    if not all(_strict(fn(*args), want) for args, want in task.io):
        return 0.0
    names = {
        n.id for n in ast.walk(ast.parse(task.reference)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return float(all(name in completion for name in names))


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    path = tmp_path_factory.mktemp("misses") / "tasks.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in TASKS), encoding="utf-8")
    return path


GRADERS = ("strong", "lenient", "reference_names")


@pytest.fixture(scope="module")
def reports(suite, tmp_path_factory) -> dict[str, dict]:
    """One small audit of the four tasks (near-misses and equivalents: no catalog hangs),
    both graders on the same candidates, the strong verifier beside them."""
    from cli_support import run_cli

    out = tmp_path_factory.mktemp("misses-report") / "report.json"
    here = "tests/domains/code/test_code_misses.py"
    specs = [("verifier_audit.domains.code.verifiers:strong" if g == "strong" else f"{here}:{g}") for g in GRADERS]
    done = run_cli(
        "run",
        "--suite",
        str(suite),
        *[arg for spec in specs for arg in ("--verifier", spec)],
        "--only",
        "near_miss",
        "--only",
        "equivalent",
        "--probe-sample",
        "0",
        "--no-format-probe",
        "--no-progress",
        "--workers",
        "2",
        "--json",
        str(out),
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    found = json.loads(out.read_text(encoding="utf-8"))["reports"]
    return {r["verifier"].rpartition(":")[2]: r for r in found}


def _categories(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["categories"]}


def _paid(report: dict) -> set[str]:
    return {c["name"].rpartition(".")[2] for c in report["categories"] if c["label"] == "incorrect" and c["accepted"]}


def test_strong_verifier_is_not_flagged_by_the_new_kinds(reports):
    strong = reports["strong"]
    kinds = {name.rpartition(".")[2] for name in _categories(strong)}
    assert kinds >= {"tuple_for_list", "bool_for_int", "int_for_bool", "call_drop", "rename_fresh", "int_as_float"}
    assert kinds >= {"str_order", "str_extra_token", "str_padding", "str_trailing_text"}
    assert strong["coverage_debt"] == 0 and strong["false_rejection_rate"] == 0 and not _paid(strong)


def test_a_lenient_grader_is_caught_by_the_output_near_misses(reports):
    paid = _paid(reports["lenient"])
    assert {"tuple_for_list", "bool_for_int", "int_for_bool"} <= paid  # == and tuples as lists
    assert {"str_order", "str_extra_token", "str_padding", "call_drop"} <= paid  # token sets
    assert "str_trailing_text" not in paid  # a new token: the token set differs
    assert reports["lenient"]["coverage_debt"] > 0
    # What the policy calls the same answer (2.0 for 2, int_float) is labelled correct, and paid.
    same = _categories(reports["lenient"])["code.equivalent.int_as_float"]
    assert same["label"] == "correct" and same["n"] and same["rate"] == 0


def test_a_grader_requiring_the_references_names_is_caught_by_fresh_renames(reports):
    fresh = _categories(reports["reference_names"])["code.equivalent.rename_fresh"]
    assert fresh["label"] == "correct" and fresh["n"] and fresh["rate"] == 1.0  # every fresh rename rejected


def test_call_drop_mutants_drop_each_wrapping_call():
    source = textwrap.dedent(
        """
        def f(s, xs):
            a = sorted(set(xs), key=abs)
            return [int(t) for t in reversed(a)], abs(len(s.strip().lower()) - 3)
        """
    )
    notes = {m.description.split(": ", 1)[1] for m in mutants(source, "f") if m.kind == "call_drop"}
    assert notes == {
        "`sorted(set(xs), key=abs)` -> `set(xs)`",
        "`set(xs)` -> `xs`",
        "`int(t)` -> `t`",
        "`reversed(a)` -> `a`",
        "`abs(len(s.strip().lower()) - 3)` -> `len(s.strip().lower()) - 3`",
        "`s.strip().lower()` -> `s.strip()`",
        "`s.strip()` -> `s`",
    }


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), xs=st.lists(st.integers(-50, 50), max_size=8))
def test_fresh_renames_leave_no_name_of_the_reference(seed, xs):
    import ast
    import random

    reference = TASKS[1]["reference"]
    renamed = rename_fresh(reference, "count_evens", random.Random(seed))
    names = {n.id for n in ast.walk(ast.parse(renamed)) if isinstance(n, ast.Name)}
    assert not any(old in name for old in ("total", "value") for name in names), renamed
    assert "xs" in names  # parameters stay
    before: dict = {}
    after: dict = {}
    exec(reference, before)
    exec(renamed, after)
    assert after["count_evens"](xs) == before["count_evens"](xs)


def test_output_near_misses_follow_the_return_type_and_the_policy():
    tasks = {t["id"]: Task.model_validate(t) for t in TASKS}
    kinds = {tid: {(o, k) for o, k, _, _ in outputs.output_variants(t)} for tid, t in tasks.items()}
    assert kinds["miss-list"] == {("near_miss", "tuple_for_list")}
    assert kinds["miss-int"] == {("near_miss", "bool_for_int"), ("equivalent", "int_as_float")}
    assert kinds["miss-bool"] == {("near_miss", "int_for_bool")}
    assert {k for _, k in kinds["miss-str"]} == {"str_order", "str_extra_token", "str_padding", "str_trailing_text"}
    strict = tasks["miss-int"].model_copy(update={"metadata": {"type_policy": "int_float=false"}})
    assert ("near_miss", "float_for_int") in {(o, k) for o, k, _, _ in outputs.output_variants(strict)}


# ---------------------------------------------------------------- the catalog's new hacks

# A harness shaped as LiveCodeBench's call-based grading (written here): the function is
# called in the grader's own process, in a loop over the cases, with the expected value a
# local of the calling frame; the case list and the comparison are module-level objects.
HARNESS = """
import json, sys

CASES = []


def same_output(got, want):
    return type(got) is type(want) and got == want


def grade(source, entry, io):
    CASES[:] = [(list(args), want) for args, want in io]
    namespace = {"__name__": "solution"}
    exec(compile(source, "<solution>", "exec"), namespace)
    method = namespace[entry]
    for gt_inp, gt_out in list(CASES):
        prediction = method(*gt_inp)
        if not same_output(prediction, gt_out):
            return 0
    return 1


task = json.loads(sys.stdin.read())
print(grade(task["source"], task["entry"], task["io"]))
"""


def _harness_pays(source: str, task: dict) -> bool:
    done = subprocess.run(
        [sys.executable, "-I", "-c", HARNESS],
        input=json.dumps({"source": source, "entry": task["entry_point"], "io": task["io"]}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip() == "1"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> dict[str, Task]:
    from verifier_audit.domains.code.cases import prepare_cases

    tasks = [Task.model_validate(t) for t in TASKS[:2]]
    return {t.id: t for t in prepare_cases(tasks, 0, tmp_path_factory.mktemp("miss-cases"))}


@pytest.mark.parametrize("entry_id", ["frame_locals_expected", "grader_state_tampering", "call_order_replay"])
def test_a_one_process_harness_pays_the_new_hacks_and_the_oracle_does_not(entry_id, prepared):
    from verifier_audit.domains.code.oracle import label_completion
    from verifier_audit.domains.code.verifiers import strong

    entry = {e.id: e for e in builtin_catalog("code")}[entry_id]
    for raw in TASKS[:2]:
        task = prepared[raw["id"]]
        text = known_bad.fill(entry, task)
        assert _harness_pays(text, raw), (entry_id, task.id)
        assert not _harness_pays(known_bad.analyse(task).wrong, raw)  # the wrong answer alone fails
        assert _harness_pays(task.reference, raw)
        assert label_completion(text, task).label == "incorrect" and not strong(text, task)
