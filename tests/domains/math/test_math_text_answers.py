"""The oracle on text answers (issue 33, item 2): brace layers, signs, case and wrappers.

Properties over text answers (weekdays, yes/no, option letters, words): extra brace
layers around the answer do not change its label; a sign in front of a text answer makes
it another answer; text compares without case (docs/math-oracle.md); ``\\text``,
``\\mathrm`` and ``\\textbf`` wrappers are the text inside them. Also the reasoning-tag
rule (the response after the first ``</think>``) and mixed numbers.
"""

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from verifier_audit.domains.math.extract import final_answer
from verifier_audit.domains.math.oracle import label_completion

WORDS = ("Monday", "Sunday", "Friday", "yes", "No", "even", "odd", "March", "never", "impossible")
LETTERS = ("A", "B", "C", "D", "E")
WRAPPERS = ("{}", "\\text{{{}}}", "\\mathrm{{{}}}", "\\textbf{{{}}}", "\\text{{\\textbf{{{}}}}}")
SIGNS = ("-", "+", "\\pm", "\\mp", "- ")

answers = st.sampled_from(WORDS + LETTERS)
wrappers = st.sampled_from(WRAPPERS)
layers = st.integers(min_value=0, max_value=4)


def _braced(text: str, n: int) -> str:
    return "{" * n + text + "}" * n


def _case(word: str, flips: list[bool]) -> str:
    return "".join(c.swapcase() if flip else c for c, flip in zip(word, flips + [False] * len(word)))


@given(answers, wrappers, wrappers, layers)
@settings(max_examples=60, deadline=None)
def test_brace_layers_and_wrappers_do_not_change_the_label(word, gold_wrap, cand_wrap, n):
    gold = gold_wrap.format(word)
    completion = f"So the answer is $\\boxed{{{_braced(cand_wrap.format(word), n)}}}$."
    assert label_completion(completion, gold).label == "correct", (completion, gold)


@given(answers, wrappers, st.sampled_from(SIGNS), layers)
@settings(max_examples=60, deadline=None)
def test_a_sign_on_a_text_answer_makes_it_another_answer(word, wrap, sign, n):
    gold = wrap.format(word)
    for inner in (sign + wrap.format(word), wrap.format(sign + word) if wrap != "{}" else sign + word):
        completion = f"The final answer is $\\boxed{{{_braced(inner, n)}}}$."
        assert label_completion(completion, gold).label == "incorrect", (completion, gold)


@given(answers, wrappers, st.lists(st.booleans(), max_size=10))
@settings(max_examples=50, deadline=None)
def test_text_compares_without_case(word, wrap, flips):
    # a bare (or \mathrm) lowercase letter is math, not a choice: e is Euler's number
    assume(not (wrap in ("{}", "\\mathrm{{{}}}") and word in LETTERS))
    completion = f"$\\boxed{{{wrap.format(_case(word, flips))}}}$"
    assert label_completion(completion, wrap.format(word)).label == "correct"


@given(st.sampled_from(WORDS), st.sampled_from(("not ", "no ", "before ", "after ")), wrappers)
@settings(max_examples=50, deadline=None)
def test_a_word_in_front_of_a_text_answer_makes_it_another_answer(word, prefix, wrap):
    gold = wrap.format(word)
    completion = f"$\\boxed{{\\text{{{prefix}{word}}}}}$"
    assert label_completion(completion, gold).label == "incorrect"


def test_the_issue_cases():
    # the two labels issue 33 reported, both wrong before this change
    assert label_completion(r"$\boxed{{\text{A}}}$", r"\text{A}").label == "correct"
    assert label_completion(r"$\boxed{-\text{Sunday}}$", r"\text{Sunday}").label == "incorrect"
    assert label_completion(r"$\boxed{\pm\text{A}}$", "A").label == "incorrect"


def test_a_think_block_is_scratch_work_and_the_response_is_after_the_first_close():
    right, wrong = r"$\boxed{42}$", r"$\boxed{41}$"
    assert label_completion(f"<think>maybe {wrong}? no.</think> So {right}.", "42").label == "correct"
    assert label_completion(f"<think>it is {right}</think> So {wrong}.", "42").label == "incorrect"
    # a stray second </think> does not start a new response: both boxes are answers
    for first, second in ((right, wrong), (wrong, right)):
        found = label_completion(f"<think>work</think> {first} </think> {second}", "42")
        assert (found.label, found.reason) == ("incorrect", "hedge: several answers")
    assert label_completion(f"<think>it is {right}</think>", "42").label == "incorrect"  # nothing answered
    assert final_answer(f"no tags, {right}") == "42"


def test_mixed_numbers_need_a_proper_fraction():
    assert label_completion(r"$\boxed{3\frac{1}{2}}$", r"\frac{7}{2}").label == "correct"
    assert label_completion(r"$\boxed{-3\frac{1}{2}}$", r"-\frac{7}{2}").label == "correct"
    for improper in (r"2\frac{3}{2}", "2 3/2", r"1\frac{5}{2}", r"3\frac{2}{2}"):
        assert label_completion(f"$\\boxed{{{improper}}}$", r"\frac{7}{2}").label == "incorrect", improper
    assert label_completion(r"$\boxed{3\frac{2}{2}}$", "4").label == "incorrect"  # no mixed number
    assert label_completion(r"$\boxed{2 \cdot \frac{3}{2}}$", "3").label == "correct"  # a product, written so
