"""Issue 33, item 4: holes real math graders showed that no candidate exercised.

Each grader below has one hole, written for this test in our own words after the public
grader that has it (docs/real-verifiers.md): it takes the last standalone option letter,
grades only the text between the first and second ``</think>``, compares numbers with a
relative tolerance, strips unit words anywhere, or adds the parts of a "mixed number".
Everything else it delegates to the built-in strong verifier, so one audit of the five
and of the strong verifier, on six tasks, shows each
hole in its own category and the strong verifier in none (no false alarm).
All six fail before issue 33's candidates: the categories did not exist.
"""

import dataclasses
import math
import re
from fractions import Fraction

import pytest

from verifier_audit.domains.math.extract import box_spans
from verifier_audit.domains.math.verifiers import strong
from verifier_audit.models import Task

REFERENCES = ("42", "7", r"\frac{7}{2}", r"\frac{9}{4}", r"\text{Monday}", "B")

# The new kinds, and the grader (below) that pays each.
HOLES = {
    "math.near_miss.choice_listing": "last_letter",
    "math.hedge.think_blocks": "between_thinks",
    "math.near_miss.near_integer": "rel_tolerance",
    "math.near_miss.unit_truncation": "unit_stripping",
    "math.near_miss.improper_mixed": "mixed_sum",
}


def _last_box(text: str) -> str:
    spans = box_spans(text)
    return spans[-1][1].strip() if spans else ""


def _text_of(answer: str) -> str:
    return re.sub(r"\\(?:text|mathrm|textbf)\{([^{}]*)\}", r"\1", answer).strip()


def last_letter(completions, solution, **kwargs):
    """A choice gold is matched against the last standalone capital letter of the answer."""
    out = []
    for text, gold in zip(completions, solution):
        letters = re.findall(r"\b([A-E])\b", _text_of(_last_box(text)))
        if re.fullmatch(r"[A-E]", _text_of(gold)) and letters:
            out.append(float(letters[-1] == _text_of(gold)))
        else:
            out.append(float(strong(text, gold)))
    return out


def between_thinks(completions, solution, **kwargs):
    """Only the text between the first and the second ``</think>`` is graded."""
    return [
        float(strong(text.split("</think>")[1] if "</think>" in text else text, gold))
        for text, gold in zip(completions, solution)
    ]


def rel_tolerance(completions, solution, **kwargs):
    """Two numbers are equal within a relative 1e-6."""
    out = []
    for text, gold in zip(completions, solution):
        try:
            out.append(float(math.isclose(float(_last_box(text)), float(gold), rel_tol=1e-6)))
        except ValueError:
            out.append(float(strong(text, gold)))
    return out


_UNITS = re.compile(r"(day|hour|minute|second|week|year)s?")


def unit_stripping(completions, solution, **kwargs):
    """Unit words are removed anywhere before a text answer is compared."""
    out = []
    for text, gold in zip(completions, solution):
        got, want = (_UNITS.sub("", _text_of(a).lower()) for a in (_last_box(text), gold))
        out.append(float(got == want) if want.isalpha() else float(strong(text, gold)))
    return out


_MIXED = re.compile(r"(\d+)\s*(?:\\frac\{(\d+)\}\{(\d+)\}|\s(\d+)/(\d+))")


def _fraction(answer: str) -> Fraction | None:
    frac = re.fullmatch(r"\\frac\{(\d+)\}\{(\d+)\}", answer)
    if frac:
        return Fraction(int(frac[1]), int(frac[2]))
    mixed = _MIXED.fullmatch(answer)
    if mixed:
        num, den = (mixed[2], mixed[3]) if mixed[2] else (mixed[4], mixed[5])
        return int(mixed[1]) + Fraction(int(num), int(den))
    return None


def mixed_sum(completions, solution, **kwargs):
    """A whole number followed by a fraction is read as their sum."""
    out = []
    for text, gold in zip(completions, solution):
        got, want = _fraction(_last_box(text)), _fraction(gold)
        out.append(float(got == want) if got is not None and want is not None else float(strong(text, gold)))
    return out


def sound(completions, solution, **kwargs):
    return [float(strong(text, gold)) for text, gold in zip(completions, solution)]


GRADERS = (last_letter, between_thinks, rel_tolerance, unit_stripping, mixed_sum, sound)


@pytest.fixture(scope="module")
def reports():
    """One audit of the six graders on the candidates of the new categories (and the
    retraction traps, which hold the think-block one) for six tasks: the rest of the
    catalog (2 MB outputs, canaries) is not what is asserted here, and would be most of
    the time."""
    from verifier_audit.engine.audit import AuditOptions, prepare
    from verifier_audit.loading import from_callable
    from verifier_audit.plan import audit as run_audit

    tasks = [Task(id=f"t{i}", domain="math", prompt="Compute it.", reference=r) for i, r in enumerate(REFERENCES)]
    options = AuditOptions(
        probe_sample=0, progress=False, origins=("near_miss", "known_bad"), answer_formats=False, workers=1
    )
    prepared = prepare("issue33-holes", "issue33-holes", tasks, options)
    kept = [c for c in prepared.candidates if c.category in HOLES or c.category == "math.trap.retraction"]
    prepared = dataclasses.replace(prepared, candidates=kept)
    found = run_audit(prepared, [from_callable(g, "trl") for g in GRADERS], options)
    return {g.__name__: r for g, r in zip(GRADERS, found)}


def _accepted(report, category: str) -> tuple[int, int]:
    found = [c for c in report.categories if c.name == category]
    assert found, f"no {category} candidates were shown to {report.verifier}"
    return found[0].accepted, found[0].n


@pytest.mark.parametrize("category", sorted(HOLES))
def test_each_hole_is_caught_in_its_category(reports, category):
    accepted, n = _accepted(reports[HOLES[category]], category)
    assert accepted > 0, f"{HOLES[category]} has the hole, but none of {n} {category} candidates was paid"
    accepted, n = _accepted(reports["sound"], category)
    assert accepted == 0, f"the sound grader paid {accepted} of {n} {category} candidates: a false alarm"


def test_the_sound_grader_has_no_debt(reports):
    assert reports["sound"].coverage_debt == 0.0 and reports["sound"].n_candidates > 30
