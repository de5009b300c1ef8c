"""Input contracts (inputs/contract.py): inferred from the docstring, the visible tests and
the type hints; generated inputs outside them are kept apart from the cases, and a program
that differs from the reference only there is not a weak-test flag."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.domains.base import OUTSIDE_CONTRACT
from verifier_audit.domains.code.cases import decoded_cases, decoded_outside, prepare_cases
from verifier_audit.domains.code.inputs.contract import infer_contract, outside
from verifier_audit.domains.code.oracle import label_completion
from verifier_audit.domains.code.verifiers import visible_tests
from verifier_audit.engine.audit import _drop_reason
from verifier_audit.models import Candidate, Task

# No literal call in the tests (a loop), no type hint: before contracts, the generator drew
# any small integer, negatives and 0 included, and the reference answers them all.
DIGITS = '''def count_digits(n):
    """Given a positive integer n, return how many decimal digits it has."""
    return len(str(n))
'''
LOOP_TESTS = "def check(candidate):\n    for n in range(1, 5):\n        assert candidate(n) == 1\n"


def _task(reference: str, entry: str, tests: str = LOOP_TESTS, **extra) -> Task:
    return Task(
        id=f"contract-{entry}",
        domain="code",
        prompt=reference,
        reference=reference,
        entry_point=entry,
        tests=tests,
        **extra,
    )


def test_docstring_words_make_clauses():
    c = infer_contract(_task(DIGITS, "count_digits"))
    assert c.clauses == [{"min": ("gt", 0)}]
    assert outside(c, (-3,)) and outside(c, (0,)) and not outside(c, (7,))
    lists = infer_contract(
        _task(
            'def f(xs, word):\n    """Given a non-empty list of integers xs and a lowercase word."""\n    return 0\n',
            "f",
            tests="def check(candidate):\n    assert candidate([3, -1], 'ab') == 0\n",
        )
    )
    assert lists.clauses[0] == {"min_len": 1, "int_elements": True}  # -1 visible: no sign clause
    assert lists.clauses[1] == {"lowercase": True}
    assert outside(lists, ([], "ab")) and outside(lists, ([1, True], "ab")) and outside(lists, ([1], "aB"))
    assert not outside(lists, ([5, -2], "xy"))


def test_symbols_duplicates_and_brackets():
    bound = infer_contract(_task('def f(n, xs):\n    """Assume n > 1 and 2 <= len(xs)."""\n    return n\n', "f"))
    assert bound.clauses == [{"min": ("gt", 1)}, {"min_len": 2}]
    assert outside(bound, (1, [1, 2])) and outside(bound, (2, [1])) and not outside(bound, (2, [1, 2]))
    distinct = infer_contract(
        _task('def f(arr):\n    """The given array will not contain\n    duplicate values."""\n    return 0\n', "f")
    )
    assert outside(distinct, ([1, 2, 1],)) and not outside(distinct, ([1, 2, 3],))
    shown = "def check(candidate):\n    assert candidate('(()) ()') == 0\n    assert candidate('[()]') == 0\n"
    brackets = infer_contract(_task("def f(s):\n    return 0\n", "f", tests=shown))
    # every visible string, and every group of it, is balanced; and single-spaced
    assert brackets.clauses[0] == {"min_len": 1, "balanced": "words"}
    assert outside(brackets, ("(()",)) and outside(brackets, (")(",)) and outside(brackets, ("(( ))",))
    assert not outside(brackets, ("(()) []",))
    spaced = "def check(candidate):\n    assert candidate('(()) ()') == 0\n    assert candidate('() []') == 0\n"
    words = infer_contract(_task("def f(s):\n    return 0\n", "f", tests=spaced))
    assert outside(words, ("()  ()",)) and outside(words, (" ()",)) and not outside(words, ("() () ()",))


def test_words_about_the_result_and_broken_by_visible_inputs_bind_nothing():
    result_only = _task('def f(n):\n    """Return a positive number."""\n    return abs(n) + 1\n', "f")
    assert not infer_contract(result_only)
    shown = _task(
        'def f(n):\n    """n is positive."""\n    return n\n',
        "f",
        tests="def check(candidate):\n    assert candidate(-2) == -2\n",
    )
    assert "min" not in infer_contract(shown).clauses[0]  # the visible tests call it with -2


def test_hints_are_the_contract_already():
    hinted = _task(DIGITS, "count_digits", metadata={"input_hints": {"n": {"min": -5, "max": 5}}})
    assert not infer_contract(hinted)


@given(st.lists(st.integers(-50, 50), max_size=6))
def test_outside_agrees_with_the_words(xs):
    c = infer_contract(
        _task('def f(xs):\n    """xs is a non-empty sorted list of non-negative integers."""\n    return xs\n', "f")
    )
    assert bool(outside(c, (xs,))) == (not xs or xs != sorted(xs) or min(xs) < 0)


def test_generated_cases_stay_inside_and_a_broken_program_only_outside_is_not_flagged(tmp_path):
    (task,) = prepare_cases([_task(DIGITS, "count_digits")], 0, tmp_path)
    inside, _ = decoded_cases(task)
    apart, _ = decoded_outside(task)
    assert inside and all(n > 0 for (n,) in inside)  # before: -10..10 drawn, negatives kept
    assert apart and all(n <= 0 for (n,) in apart)
    assert task.metadata["case_stats"]["outside_contract"] == len(apart)

    only_outside = DIGITS.replace("len(str(n))", "len(str(abs(n)))")  # differs for n < 0 only
    label = label_completion(only_outside, task)
    assert label.label == "correct" and label.reason.startswith(OUTSIDE_CONTRACT)
    mutant = Candidate(
        id="m", task_id=task.id, category="code.near_miss.x", origin="near_miss", text="", label="incorrect"
    )
    assert _drop_reason(mutant, label.label, label.reason) == "outside_contract"  # not equivalent_mutant

    inside_too = DIGITS.replace("len(str(n))", "len(str(n)) if n != 10 else 1")  # differs at 10
    assert label_completion(inside_too, task).label == "incorrect"
    # both pass the task's own tests: only the second is a weak-test flag
    assert visible_tests(only_outside, task) and visible_tests(inside_too, task)
    assert label_completion(DIGITS, task).reason.startswith("matches")
