"""The math oracle against a table of known pairs.

Every case of ANCHORS.md "Math verifiers" is here (marked `# anchor`): equivalents that
graders wrongly reject, near-misses they wrongly accept, hedges and shotguns, hostile
input. Then the four reference verifiers, and Hypothesis properties.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scaling import relative_cost
from sympy.core.cache import clear_cache

from verifier_audit import canary
from verifier_audit.domains.math import verifiers
from verifier_audit.domains.math.answer import Answer, Kind
from verifier_audit.domains.math.latex import _parse_cached, parse_answer
from verifier_audit.domains.math.oracle import answers_equivalent, equivalent, label_completion

# (gold, candidate): must be equivalent
EQUAL = [
    (r"\frac{1}{2}", "0.5"),  # anchor
    (r"\frac{1}{2}", "2/4"),  # anchor
    ("½", "0.5"),  # anchor (Unicode fraction)
    (r"10\%", "0.1"),  # anchor
    (r"10\%", "10"),
    ("0.1", r"10\%"),
    (r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt{2}}"),  # anchor
    ("√2/2", r"1/\sqrt2"),
    ("(x+1)^2", "x^2+2x+1"),  # anchor
    ("(x+1)²", "x^2 + 2x + 1"),
    ("y=2x+1", "2x-y+1=0"),  # anchor
    ("y=2x+1", "2x−y+1=0"),  # Unicode minus
    (r"\{2,3\}", r"\{3,2\}"),  # anchor
    (r"\{2, 3\}", "3, 2"),
    ("(1,2]", r"1<x\le2"),  # anchor
    ("(1,2]", "1 < x ≤ 2"),
    ("2^{100}", "1267650600228229401496703205376"),  # anchor
    ("2¹⁰⁰", "1267650600228229401496703205376"),
    ("-5", "−5"),  # anchor: Unicode minus
    ("-3/4", "−\\frac{3}{4}"),
    ("73", "73"),
    ("Monday", "monday"),  # anchor
    ("Monday", r"\text{Monday}"),
    ("12345", "12,345"),  # anchor
    ("12345", r"12{,}345"),
    ("1000000", "1,000,000"),
    ("5", r"5 \text{ cm}"),  # anchor
    ("5", "5 cm"),
    ("30", r"30^\circ"),  # anchor
    ("30", "30°"),
    ("30", r"30^{\circ}"),
    ("5", "x = 5"),
    ("x=5", "5"),
    ("0.3", "0.30000000000000004"),  # float artefact: 1e-12 slack for decimals
    ("1500000", r"1.5\times10^{6}"),
    ("1500000", "1.5e6"),
    ("1000000", "10^6"),
    ("1000000", r"10^{6}"),
    (r"\frac{3}{4}", "0.75"),
    (r"\dfrac{3}{4}", r"\tfrac34"),
    (r"\frac12", "1/2"),
    ("2", "2.0"),
    (r"\sqrt{8}", r"2\sqrt{2}"),
    (r"\sqrt[3]{8}", "2"),
    (r"\sqrt[3]{-8}", "-2"),
    (r"2\pi", r"\pi \cdot 2"),
    (r"\frac{\pi}{4}", r"\pi/4"),
    ("x(x+1)", "x^2+x"),
    ("(x+1)(x-1)", "x^2-1"),
    (r"\sin^2 x + \cos^2 x", "1"),
    (r"e^{i\pi}", "-1"),
    (r"\mathrm{e}^2", "e^2"),
    (r"\exp(1)", "e"),
    (r"\ln(e^3)", "3"),
    (r"\log_2 8", "3"),
    (r"\frac{x}{2}", "0.5x"),
    (r"2 \cdot 3", "6"),
    (r"2 \times 3", "6"),
    (r"6 \div 2", "3"),
    (r"\left( 1, 2 \right]", "(1,2]"),
    ("[1,2)", r"1 \le x < 2"),
    (r"(-\infty,3)", "x<3"),
    (r"[3, \infty)", r"x\geq3"),
    (r"(-\infty, 1) \cup (2, \infty)", r"x < 1 \text{ or } x > 2"),
    (r"(-\infty, 3) \cup (3, \infty)", r"x \ne 3"),
    (r"(-2, 2)", "x^2 < 4"),
    ("(1, \\infty)", "2x + 1 > 3"),
    (r"x \in [1, 2]", "[1,2]"),
    (r"\mathbb{R}", r"(-\infty, \infty)"),
    ("(1, 2)", "(1,2)"),
    ("(2, 3)", "x=2, y=3"),
    (r"\pm 2", "2, -2"),
    (r"\pm 2", r"\{-2, 2\}"),
    (r"1 \pm \sqrt{2}", r"1+\sqrt2, 1-\sqrt2"),
    (r"\{5\}", "5"),
    (r"\emptyset", r"\{\}"),
    (r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{bmatrix}1 & 2 \\ 3 & 4\end{bmatrix}"),
    (r"\begin{pmatrix}\frac12\\ 2\end{pmatrix}", r"\begin{pmatrix}0.5\\2\end{pmatrix}"),
    (r"\begin{pmatrix}1\\2\end{pmatrix}", "(1, 2)"),
    ("(A)", "A"),
    ("(A)", r"\text{(A)}"),
    ("B", r"\textbf{(B)}"),
    ("yes", r"\text{Yes}"),
    ("x^2 = 4", "(x-2)(x+2) = 0"),
    ("x = 2", "2x = 4"),
    ("f(x) = 2x + 1", "2x+1"),
    ("y = 2x + 1", "y - 2x = 1"),
    ("x^2 + y^2 = 25", "y^2 + x^2 - 25 = 0"),
    (r"2\frac{1}{2}", r"\frac{5}{2}"),  # a mixed number
    ("3.5", r"\frac{7}{2}"),
    (r"\infty", r"\infty"),
    ("|x|", r"\sqrt{x^2}"),
    (r"$\frac{1}{2}$", r"\boxed{\frac12}"),
    ("50", r"50\%"),  # a% equals a
    (r"\frac{1}{2}", r"50\%"),  # ... and a/100
    ("3 + 4i", "4i + 3"),
    (r"\sqrt{-4}", "2i"),
    (r"\binom{5}{2}", "10"),
    ("5!", "120"),
    (r"2^{10000}", r"2^{5000}\cdot 2^{5000}"),
    (r"\sqrt{2}", "1.4142135623730951"),  # a printed double: within 1e-12
    ("2", r"\frac{6}{3} = 2"),  # a true chain: its value is the last side
    ("x = 2", "x = 6/3 = 2"),
    (r"\{1, 2\}", r"S = \{1, 2\}"),  # a name before '=' claims nothing
]

# (gold, candidate): must NOT be equivalent
NOT_EQUAL = [
    ("50", "0.5"),  # anchor: percent x100 leniency
    ("50", "5000"),  # anchor
    ("10^6", "1000050"),  # anchor: relative tolerance 1e-4
    (r"\frac{1}{2^{99}}", r"\frac{1}{2^{98}}"),  # anchor: rounding to 6 places
    ("1/2^{99}", "0"),
    (r"\pi", "3.14"),  # anchor
    (r"\pi", "3.1416"),
    ("(1,2]", "[1,2]"),  # anchor: bracket type
    ("(1,2]", "(1,2)"),
    ("[1,2)", "(1,2]"),
    ("5", "-5"),  # anchor: sign flip
    ("-3", "3"),
    (r"\frac{1}{2}", r"-\frac{1}{2}"),
    ("x-1", "1-x"),
    ("5", "6"),  # anchor: off by one
    ("5", "4"),
    ("100", "101"),
    ("3x-y+13=0", "3x+4y+14=0"),  # anchor: only the text after the last '=' compared
    ("y = 2x + 1", "y = 2x + 2"),
    ("y = 2x + 1", "x = 2y + 1"),
    (r"\pm 2021", "2021"),  # anchor
    ("2021", r"\pm 2021"),
    ("4", r"4\sqrt(2)"),  # anchor
    ("4", r"4\sqrt{2}"),
    ("2", r"2 \text{ or } 3"),  # anchor: hedge
    ("2", r"2\text{ (or maybe 3)}"),  # anchor
    ("0", r"0 \lor -7"),  # anchor
    ("-7", r"0 \vee -7"),
    ("x = 2", r"x = 2 \text{ or } x = 3"),
    ("2", "2 or 3"),
    (r"\{2,3\}", "(2,3)"),  # a set is not a tuple
    ("(1,2)", "(2,1)"),  # tuples are ordered
    ("(1,2)", "2, 1"),
    (r"\{1,2\}", r"\{1,2,3\}"),
    ("2, 3", "2, 3, 3"),
    ("x", "|x|"),
    ("x^2+1", "x^2"),
    ("x", "y"),
    ("x", "5"),
    (r"\sqrt{2}", "1.414"),
    (r"\infty", r"-\infty"),
    (r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"\begin{pmatrix}1&3\\2&4\end{pmatrix}"),
    (r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", "(1, 2, 3, 4)"),
    ("Monday", "Tuesday"),
    ("A", "B"),
    ("(A)", "(C)"),
    ("yes", "no"),
    ("12", "13"),
    ("12", "12.5"),
    (r"10\%", "1"),
    (r"10\%", "1000"),
    ("x^2 = 4", "x = 2"),
    (r"\sin x", r"\cos x"),
    (r"e^x", r"e^{-x}"),
    (r"\log_2 8", r"\log_8 2"),
    ("3.14159265358979", r"\pi + 10^{-3}"),
    (r"2^{100}", "1267650600228229401496703205377"),
    (r"\frac{1}{3}", "0.333333"),
    (r"\frac{1}{3}", "0.3333333333"),
    ("2", r"\{2, 3\}"),
    ("42", "43 = 42"),  # a false chain equals nothing, not its last side
    ("43", "43 = 42"),
    (r"3\sqrt{17}", r"1 + 3\sqrt{17} = 3\sqrt{17}"),
    ("(-1, 1)", "(-1, 2) = (-1, 1)"),
    ("x = 3", "x = 6/3 = 3"),
]


@pytest.mark.parametrize("gold,cand", EQUAL)
def test_equal(gold, cand):
    assert answers_equivalent(cand, gold), f"{cand!r} should equal {gold!r}"
    assert answers_equivalent(gold, cand), "equivalence must be symmetric"


@pytest.mark.parametrize("gold,cand", NOT_EQUAL)
def test_not_equal(gold, cand):
    assert not answers_equivalent(cand, gold), f"{cand!r} must not equal {gold!r}"
    assert not answers_equivalent(gold, cand), "equivalence must be symmetric"


@pytest.mark.parametrize("text", [r"x^{10^{10}} = 5", r"(x+1)^{10^{10}}", r"e^{e^{e^{e^{10}}}}"])
def test_answers_without_numeric_value_still_equal_themselves(text):
    assert answers_equivalent(text, text)
    assert not answers_equivalent(text, "5")


def test_hedge_equals_nothing_not_even_itself():
    hedge = parse_answer(r"2 \text{ or } 3")
    assert hedge.kind == Kind.HEDGE
    assert not equivalent(hedge, hedge)


# ---------------------------------------------------------------------------------------
# label_completion: whole completions
# ---------------------------------------------------------------------------------------

# (completion, gold, label, reason starts with)
LABELS = [
    (r"So the answer is $\boxed{\frac{1}{2}}$.", "0.5", "correct", "equivalent"),
    ("The final answer is **73**", "73", "correct", "equivalent"),
    ("We get\n\n**73**", "73", "correct", "equivalent"),  # anchor: bold, not boxed
    ("#### 72", "72", "correct", "equivalent"),
    ("Answer: Monday", "monday", "correct", "equivalent"),
    (r"\boxed{2} hmm, or \boxed{3}", "2", "incorrect", "hedge"),  # anchor: shotgun
    (r"\boxed{2} hmm, or \boxed{3}", "3", "incorrect", "hedge"),  # last-box graders fail
    (r"\boxed{2 \text{ or } 3}", "2", "incorrect", "hedge"),  # anchor
    (r"\boxed{2\text{ (or maybe 3)}}", "2", "incorrect", "hedge"),  # anchor
    (r"\boxed{0 \lor -7}", "-7", "incorrect", "hedge"),  # anchor
    (r"\boxed{0 \lor -7}", "0", "incorrect", "hedge"),
    (r"The answer is \boxed{13}, not 12", "12", "incorrect", "not equivalent"),  # anchor
    ("12 eggs are left ... we cannot determine the rest", "12", "incorrect", "candidate"),
    (", ".join(map(str, range(1001))), "12", "incorrect", ""),  # anchor: listing 0..1000
    (" ".join(rf"\boxed{{{i}}}" for i in range(1001)), "12", "incorrect", "hedge"),
    (
        r"\boxed{12}" + " filler" * 4000 + "\nWait, the final answer is 13.",
        "12",
        "incorrect",
        "hedge",
    ),  # anchor: retraction after 20k characters of filler
    (r"\boxed{}", "12", "incorrect", ""),  # anchor: empty box
    ("", "12", "incorrect", "no answer"),
    ("   \n  ", "12", "incorrect", "no answer"),
    (r"\boxed{print('X') or \pi}", r"\pi", "incorrect", "hedge"),  # anchor: never executed
    (r"\boxed{5}", r"\frac{1}{", None, "gold unparseable"),  # anchor: never correct
    (r"\boxed{\frac{1}{}", r"\frac{1}{", None, "gold unparseable"),
    (r"\boxed{x}", "", None, "gold unparseable"),
    (r"\boxed{2}", r"2 \text{ or } 3", None, "gold unparseable"),
    (r"\boxed{\frac{1}{}}", "5", "incorrect", "candidate unparseable"),
    (r"\boxed{1/2} so \boxed{0.5}", "0.5", "correct", "equivalent"),  # same answer twice
    (r"\boxed{5", "5", "correct", "equivalent"),  # unclosed box tolerated
    (r"\boxed{\boxed{5}}", "5", "correct", "equivalent"),
    (r"$\boxed{(1,2]}$", "1 < x \\le 2", "correct", "equivalent"),
    (r"\boxed{\pm 2021}", "2021", "incorrect", "not equivalent"),  # anchor
    (r"\boxed{12,345}", "12345", "correct", "equivalent"),
    (r"\boxed{5 \text{ cm}}", "5", "correct", "equivalent"),
    (r"\boxed{30^\circ}", "30", "correct", "equivalent"),
    (r"\boxed{x = 5}", "5", "correct", "equivalent"),
]


@pytest.mark.parametrize("completion,gold,label,reason", LABELS)
def test_label_completion(completion, gold, label, reason):
    got = label_completion(completion, gold)
    assert got.label == label, got
    assert got.reason.startswith(reason), got


# (completion, what the label may be) against gold 5: each may cost at most
# AT_MOST_TYPICAL typical labels, measured in the same test (seen: under 100; the old limit,
# 2 s, was some 2,000 typical calls; a power tower evaluated or an exponential parse costs
# far more)
TYPICAL = r"so the answer is $\boxed{\frac{10}{2}}$"
AT_MOST_TYPICAL = 2000


def _label_afresh(completion: str) -> None:
    """label_completion against gold 5 without the parse memo and sympy's cache (a repeated
    run must do the work again)."""
    _parse_cached.cache_clear()
    clear_cache()
    label_completion(completion, "5")


HOSTILE = [
    (r"\boxed{" * 3000, {"incorrect"}),  # anchor: nested 3,000 deep
    (r"\boxed{" * 3000 + "5" + "}" * 3000, {"incorrect"}),
    ("\x00" + r"\boxed{5}", {"correct"}),  # anchor: a NUL outside the answer is harmless
    (r"\boxed{5" + "\x00" + "}", {"incorrect"}),  # ... inside it, unparseable
    (r"\boxed{5}" + "\ud800", {"correct"}),  # anchor: lone surrogate
    (r"\boxed{" + "\ud800" + "}", {"incorrect"}),
    ("x" * 2_000_000 + r"\boxed{5}", {"correct"}),  # anchor: 2 MB outputs
    (r"\boxed{" + "{}" * 1_000_000 + "5}", {"incorrect"}),
    ("{" * 1_000_000 + r"\boxed{5}", {"correct"}),
    (r"\boxed{5^{5^{5^{5^5}}}}", {"incorrect"}),  # anchor: power tower
    (r"\boxed{2^{10^{10}}}", {"incorrect"}),
    (r"\boxed{9^{9^{9^{9}}}}", {"incorrect"}),
    (r"\boxed{x^{10^{4000}}}", {"incorrect"}),
    (r"\boxed{e^{e^{e^{e^{10}}}}}", {"incorrect"}),
    (r"\boxed{\sqrt{" + "7" * 3000 + "}}", {"incorrect"}),
    (r"\boxed{(3000!)!}", {"incorrect"}),
    (r"\boxed{" + "(" * 5000 + "}", {"incorrect"}),
    (r"\boxed{" + "-" * 8999 + "5}", {"incorrect"}),
    (r"\boxed{x^{10^{10}} = 5}", {"incorrect"}),
    (r"\boxed{(x+1)^{10^{10}} = 5}", {"incorrect"}),
    (r"\boxed{(x+1)^{1000} - x^{1000}}", {"incorrect"}),
]


@pytest.mark.parametrize("completion,allowed", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_completions_are_bounded_and_safe(completion, allowed):
    got = label_completion(completion, "5")
    assert got.label in allowed, got
    assert relative_cost(_label_afresh, completion, TYPICAL, repeats=3) < AT_MOST_TYPICAL


def test_power_tower_gold_is_unknown_not_correct():
    got = label_completion(r"\boxed{5^{5^{5^{5^5}}}}", r"5^{5^{5^{5^5}}}")
    assert got.label is None


def test_model_output_is_never_executed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    payload = canary.payload("math_oracle")
    for text in (
        rf"\boxed{{{payload}}}",
        rf"\boxed{{{payload} or \pi}}",
        payload,
        rf"\boxed{{\pi + {payload}}}",
        f"Answer: {payload}",
    ):
        assert label_completion(text, r"\pi").label != "correct"
        assert not verifiers.strong(text, "0")
    assert canary.fired(str(tmp_path)) == []


def test_deterministic():
    a = [label_completion(c, g) for c, g, _, _ in LABELS[:12]]
    b = [label_completion(c, g) for c, g, _, _ in LABELS[:12]]
    assert a == b


# ---------------------------------------------------------------------------------------
# reference verifiers: weakest first, each with the hole it is known for
# ---------------------------------------------------------------------------------------


def test_substring_is_fooled_by_listing_and_rejects_equivalents():
    assert verifiers.substring(", ".join(map(str, range(1001))), "12")
    assert not verifiers.substring(r"\boxed{0.5}", r"\frac{1}{2}")
    assert not verifiers.substring("anything", "")


def test_last_number_is_fooled_by_trailing_numbers():
    assert verifiers.last_number(r"\boxed{13}, not 12", "12")
    assert verifiers.last_number("so 12,345", "12345")
    assert not verifiers.last_number("no digits here", "12")
    assert not verifiers.last_number("12", r"\text{Monday}")


def test_last_box_exact_is_fooled_by_shotguns_and_rejects_equivalents():
    assert verifiers.last_box_exact(r"\boxed{2} \boxed{3}", "3")
    assert verifiers.last_box_exact(r"\boxed{ \frac{1}{2} }", r"\frac{1}{2}")
    assert not verifiers.last_box_exact(r"\boxed{0.5}", r"\frac{1}{2}")
    assert not verifiers.last_box_exact("no box", "3")


def test_strong_verifier():
    assert verifiers.strong(r"\boxed{0.5}", r"\frac{1}{2}")
    assert verifiers.strong("The final answer is **73**", "73")
    assert not verifiers.strong(r"\boxed{2} \boxed{3}", "3")
    assert not verifiers.strong(r"\boxed{13}, not 12", "12")
    assert not verifiers.strong(", ".join(map(str, range(1001))), "12")
    assert not verifiers.strong(r"\boxed{5}", r"\frac{1}{")


# ---------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------

_fractions = st.tuples(st.integers(-(10**6), 10**6), st.integers(1, 10**4))


def _terminating(q: int) -> bool:
    while q % 2 == 0:
        q //= 2
    while q % 5 == 0:
        q //= 5
    return q == 1


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_fractions)
def test_fraction_forms_are_equivalent(pq):
    p, q = pq
    forms = [rf"\frac{{{p}}}{{{q}}}", f"{p}/{q}", rf"\dfrac{{{p}}}{{{q}}}"]
    f = Fraction(p, q)
    if _terminating(f.denominator):  # its decimal expansion is finite: write it exactly
        digits = 0
        while (f * 10**digits).denominator != 1:
            digits += 1
        scaled = abs(f.numerator * 10**digits // f.denominator)
        text = str(scaled).rjust(digits + 1, "0")
        decimal = ("-" if f < 0 else "") + (text[:-digits] + "." + text[-digits:] if digits else text)
        forms.append(decimal)
    answers = [parse_answer(x) for x in forms]
    assert all(a.value == f.numerator / __import__("sympy").Integer(f.denominator) for a in answers)
    for a in answers[1:]:
        assert equivalent(answers[0], a)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_fractions)
def test_a_plus_one_is_never_a(pq):
    p, q = pq
    a = rf"\frac{{{p}}}{{{q}}}"
    assert not answers_equivalent(f"{a} + 1", a)
    assert not answers_equivalent(f"{p + q}/{q}", a)  # the same, written as one fraction


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(1, 9))
def test_polynomial_identity_and_perturbation(a, b, k):
    expanded = f"x^2 + {a + b}x + {a * b}".replace("+ -", "- ")
    factored = f"(x + {a})(x + {b})".replace("+ -", "- ")
    assert answers_equivalent(expanded, factored)
    assert not answers_equivalent(f"{factored} + {k}", expanded)


def test_equivalent_accepts_answer_objects():
    half = Answer(Kind.NUMBER, __import__("sympy").Rational(1, 2))
    assert equivalent(half, parse_answer("0.5"))
