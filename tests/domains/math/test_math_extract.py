"""Answer extraction from whole completions: preference order, conflicts, hostile input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scaling import LINEAR, growth

from verifier_audit.domains.math.extract import Extraction, extract_answers, final_answer

# (completion, answers, method, conflict)
CASES = [
    (r"Thus $\boxed{\frac{1}{2}}$.", [r"\frac{1}{2}"], "boxed", False),
    (r"\fbox{7}", ["7"], "boxed", False),
    (r"\boxed{\{1, 2\}}", [r"\{1, 2\}"], "boxed", False),  # escaped braces are not groups
    (r"\boxed{\frac{\sqrt{2}}{2}}", [r"\frac{\sqrt{2}}{2}"], "boxed", False),
    (r"\boxed{\boxed{5}}", [r"\boxed{5}"], "boxed", False),  # only outermost boxes
    (r"\boxed {5}", ["5"], "boxed", False),
    (r"\boxed 5", ["5"], "boxed", False),
    (r"\boxed{5", ["5"], "boxed", False),  # unclosed: tolerated
    (r"\boxed{2} and \boxed{3}", ["2", "3"], "boxed", True),  # shotgun
    (r"\boxed{1/2} i.e. \boxed{0.5}", ["1/2", "0.5"], "boxed", False),  # same value twice
    (r"\boxed{5} \boxed{ 5 }", ["5", "5"], "boxed", False),
    (r"\boxed{12} ... so the final answer is 13", ["12", "13"], "boxed", True),  # retraction
    (r"The final answer is $\boxed{12}$.", ["12"], "boxed", False),
    (r"\boxed{} then \boxed{4}", ["4"], "boxed", False),  # an empty box is no answer
    (r"\boxed{}", ["\\boxed{}"], "last_line", False),
    ("The final answer is 42.", ["42"], "final_answer", False),
    ("Final Answer: The final answer is $3.5$. I hope it is correct.", ["3.5"], "final_answer", False),
    ("so the answer is: x = 3", ["x = 3"], "final_answer", False),
    ("The final answer is\n  17", ["17"], "final_answer", False),
    ("Final answer: 4. Wait, the final answer is 5.", ["5"], "final_answer", False),
    ("I think the final answer is 4.\nNo, the final answer is 5.", ["4", "5"], "final_answer", True),
    ("Work...\nAnswer: 12", ["12"], "answer_colon", False),
    ("**Answer:** $\\frac{3}{4}$", [r"\frac{3}{4}"], "answer_colon", False),
    ("Natalia sold 48/2 = 24 clips.\n#### 72", ["72"], "hashes", False),
    ("#### Step 1\nthen 7", ["then 7"], "last_line", False),  # a heading is not an answer
    ("We get **73** in the end.", ["73"], "bold", False),
    ("**Step 1** compute.\nSo it is **73**", ["73"], "bold", False),  # the last bold
    ("Some reasoning.\n\n  42  \n\n", ["42"], "last_line", False),
    ("", [], "none", False),
    ("   \n\t ", [], "none", False),
]


@pytest.mark.parametrize("completion,answers,method,conflict", CASES)
def test_extract(completion, answers, method, conflict):
    got = extract_answers(completion)
    assert got.answers == answers, got
    assert got.method == method, got
    assert got.conflict is conflict, got


def test_final_answer_convenience():
    assert final_answer(r"so \boxed{5}.") == "5"
    assert final_answer(r"\boxed{2} \boxed{3}") is None  # conflicting
    assert final_answer("") is None


def test_extraction_type():
    got = extract_answers("Answer: 3")
    assert isinstance(got, Extraction) and isinstance(got.answers, list)


# (build, n): build(n) is about two megabytes; extraction must grow no worse than linearly.
HUGE = [
    (lambda n: "x" * n + r"\boxed{5}", 2_000_000),
    (lambda n: r"\boxed{" * n, 300_000),
    (lambda n: "{" * n, 2_000_000),
    (lambda n: "}" * n + r"\boxed{5}", 2_000_000),
    (lambda n: r"\boxed{" + "{}" * n + "}", 1_000_000),
    (lambda n: "**a** " * n, 300_000),
    (lambda n: "the final answer is " * n, 100_000),
    (lambda n: "Answer: 1\n" * n, 200_000),
    (lambda n: "#### 1\n" * n, 250_000),
    (lambda n: ("a" * 79 + "\n") * n, 25_000),
    (lambda n: "\\" * n, 2_000_000),
    (lambda n: "Answer: " * n, 250_000),
    (lambda n: "Answer: " + "**" * n + "x", 1_000_000),
    (lambda n: "The final answer is " + "$" * n + "x", 2_000_000),
    (lambda n: r"\boxed{1}" * n, 200_000),
]


@pytest.mark.parametrize("build,n", HUGE, ids=range(len(HUGE)))
def test_two_megabytes_grow_no_worse_than_linearly(build, n):
    assert growth(extract_answers, build, n) < LINEAR


def test_deep_box_nesting_is_linear_and_does_not_recurse():
    assert growth(extract_answers, lambda n: r"\boxed{" * n + "1" + "}" * n, 3000) < LINEAR
    got = extract_answers(r"\boxed{" * 3000 + "1" + "}" * 3000)
    # each box is looked at for at most MAX_ANSWER_CHARS: the 3000-deep box is cut into
    # unparseable pieces, never recursed into
    assert got.method == "boxed"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(text):
    got = extract_answers(text)
    assert got.method in {"boxed", "final_answer", "answer_colon", "hashes", "bold", "last_line", "none"}
    assert all(isinstance(a, str) for a in got.answers)
