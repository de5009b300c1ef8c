"""Source-guided search and the reach reserve (issue 33, item 6): a format bonus the
verifier pays for a token it looks for (``\\therefore``) is found by inserting the
literals its source compares completions against, read through its imports and never by
importing it; and every family the search reports has its reach measured on the tasks, or
says that it was not (never "paid on 0 of 0 tasks")."""

from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.engine.audit import AuditOptions, prepare
from verifier_audit.engine.search._source import source_operators
from verifier_audit.loading import resolve
from verifier_audit.plan import audit
from verifier_audit.report.exploitability import search_lines
from verifier_audit.scan import compared_literals, scan_target
from verifier_audit.scan._literals import regex_literal
from verifier_audit.suites import load_suite

pytestmark = pytest.mark.slow

# A grader in our own words: full marks for the right boxed answer, and a format bonus of
# 0.6 for a reasoning token anywhere -- over the 0.5 threshold on a wrong answer too. The
# token is checked in a helper module beside it, so finding it means following the import.
GRADER = """
import re

from marks import has_marker

BOX = re.compile(r"\\\\boxed\\{([^{}]*)\\}")


def therefore_bonus(completion, reference):
    boxes = BOX.findall(completion)
    if boxes and boxes[-1].strip() == reference.strip():
        return 1.0
    return 0.6 if has_marker(completion) else 0.0
"""

MARKS = """
import re


def has_marker(s):
    return "\\\\therefore" in s


def tagged(s):
    return re.search(r"<answer>(.*?)</answer>", s)


def final(response):
    if response.startswith(("Final Answer:", "x")):
        return response.count("QED")
    return response.label == "correct"  # a field of an object: not text the completion holds
"""


# Read, never run: importing this file raises.
TRIPWIRE = """
raise SystemExit("imported")


def tripwire(completion, reference):
    return completion.endswith("</verdict>")
"""


@pytest.fixture(scope="module")
def grader(tmp_path_factory):
    where = tmp_path_factory.mktemp("graders")
    (where / "therefore.py").write_text(GRADER)
    (where / "marks.py").write_text(MARKS)
    (where / "tripwire.py").write_text(TRIPWIRE)
    return where


@pytest.fixture(scope="module")
def prepared():
    """30 integer tasks, one near-miss each (the audit itself: 30 calls)."""
    suite = load_suite("math")
    tasks = [t for t in suite.tasks if t.metadata.get("answer_type") == "integer"][:30]
    out = prepare(suite.name, suite.content_hash, tasks, AuditOptions(probe_sample=0, progress=False))
    first: dict = {}
    for c in out.candidates:
        if c.origin == "near_miss":
            first.setdefault(c.task_id, c)
    out.candidates = list(first.values())
    return out


def _search(prepared, spec: str, budget: int, **options):
    opts = AuditOptions(probe_sample=0, progress=False, search=budget, answer_formats=False, **options)
    return audit(prepared, [resolve(spec)], opts)[0]


# --------------------------------------------------------------------------- reading the literals


def test_literals_are_read_through_the_imports_without_importing(grader):
    literals = compared_literals(f"{grader / 'therefore.py'}:therefore_bonus")
    assert ("\\therefore", "") in literals  # in marks.has_marker, reached through the import
    assert ("\\boxed{", "}") in literals  # the pattern's text around its group: a pair
    assert compared_literals(f"{grader / 'tripwire.py'}:tripwire") == [("</verdict>", "")]
    every = compared_literals(str(grader / "marks.py"))
    assert ("<answer>", "</answer>") in every and ("Final Answer:", "") in every and ("QED", "") in every
    assert ("correct", "") not in every  # `.label == "correct"` compares a field, not the text


def test_the_literal_reader_follows_what_the_scan_follows(tmp_path):
    # One import follower (scan/_imports.walk) for the scan and the literal reader: a
    # package's re-export, a relative import and a class's method are followed by both, and
    # the call seeds the taint (`gold` is the reference: "<gold>" is no marker).
    package = tmp_path / "judging"
    package.mkdir()
    (package / "__init__.py").write_text("from .core import judge\n")
    (package / "core.py").write_text(
        "from .rules import Rules\n\n\n"
        "def judge(text, gold):\n"
        '    return Rules.opened(text) and ("</think>" in text or "<gold>" in gold)\n'
    )
    (package / "rules.py").write_text(
        'class Rules:\n    @staticmethod\n    def opened(s):\n        return s.startswith("Answer:")\n'
    )
    wrapper = tmp_path / "reward.py"
    wrapper.write_text(
        "from judging import judge\n\n\ndef score(completion, gold):\n    return float(judge(completion, gold))\n"
    )
    assert compared_literals(f"{wrapper}:score") == [("</think>", ""), ("Answer:", "")]
    assert [Path(f).name for f in scan_target(f"{wrapper}:score").files] == ["reward.py", "core.py", "rules.py"]


def test_the_literal_reader_leaves_installed_graders_to_the_scan(tmp_path):
    # The reader's own bounds (_literals.READ): the user's modules only. verl's gsm8k looks
    # for "#### "; the scan reads it through the import, the literal reader does not.
    if importlib.util.find_spec("verl") is None:
        pytest.skip("verl is not installed (.ci/run installs it without its dependencies)")
    wrapper = tmp_path / "gsm8k_reward.py"
    wrapper.write_text(
        "from verl.utils.reward_score import gsm8k\n\n\n"
        "def score(solution_str, ground_truth):\n"
        '    return gsm8k.compute_score(solution_str, ground_truth) + ("Answer:" in solution_str)\n'
    )
    assert [Path(f).name for f in scan_target(f"{wrapper}:score").files] == ["gsm8k_reward.py", "gsm8k.py"]
    assert compared_literals(f"{wrapper}:score") == [("Answer:", "")]
    assert ("#### ", "") in compared_literals(
        str(Path(importlib.util.find_spec("verl").origin).parent / "utils" / "reward_score" / "gsm8k.py")
    )


_TEXT = st.text(alphabet="abcXYZ<>/:\\ _{}0123456789", min_size=2, max_size=12).filter(lambda s: s.strip())


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT)
def test_a_simple_pattern_gives_the_text_it_needs(before, after):
    assert regex_literal(re.escape(before)) == (before, "")
    assert regex_literal(re.escape(before) + r"\s*(.*?)" + re.escape(after)) == (before, after)


@settings(max_examples=100, deadline=None)
@given(_TEXT, st.integers(0, 10**6), st.integers(0, 2**32 - 1))
def test_an_inserted_literal_is_what_the_pattern_finds(literal, number, seed):
    text = f"Work.\n\nThe final answer is $\\boxed{{{number}}}$."
    ops = source_operators([(literal, ""), ("<answer>", "</answer>")], lambda t: str(number))
    for name, op in ops.items():
        out = op(text, random.Random(seed), None)
        assert out is not None and out != text
        if name.endswith(":wrap"):
            assert re.search(r"<answer>(.*?)</answer>", out).group(1) == str(number)
        else:
            assert re.search(re.escape(literal), out) and f"\\boxed{{{number}}}" in out


# --------------------------------------------------------------------------- the search


def test_a_format_bonus_is_found_only_with_source_guided_operators(prepared, grader):
    spec = f"{grader / 'therefore.py'}:therefore_bonus"
    report = _search(prepared, spec, 150)
    bonus = [f for f in report.search.families if any(op.startswith("src:therefore:") for op in f.operators)]
    assert bonus, [f.name for f in report.search.families]
    wide = [f for f in bonus if f.reach_measured and f.reach_misjudged > f.reach_tasks / 2]
    assert wide and wide[0].direction == "false_acceptance"
    category = next(c for c in report.categories if c.name == wide[0].category)
    assert category.origin == "search" and category.accepted == wide[0].reach_misjudged
    assert any(r.startswith(f"category {category.name}") for r in report.gate.reasons)
    # 150 calls do not measure all five families on 30 tasks: those left say so, not "0 of 0".
    lines = search_lines(report)
    for f in report.search.families:
        assert f.reach_measured == (f.reach_tasks > 0)
        assert any(line.startswith(f"  {f.name}: reach not measured") for line in lines) != f.reach_measured
    # The same search without them: the domain's own edits never write the token.
    plain = _search(prepared, spec, 150, source_guided=False)
    assert not [f for f in plain.search.families if "therefore" in f.name], [f.name for f in plain.search.families]


def test_every_family_reported_has_its_reach_measured_or_says_it_was_not(prepared):
    # 250 calls over 30 tasks: the search before the reserve reported two families of this
    # verifier "refused on 0 of 0 tasks" (its budget was spent before their reach).
    report = _search(prepared, "verifier_audit.domains.math.verifiers:last_number", 250)
    families = report.search.families
    assert len(families) >= 3 and all(f.reach_measured and f.reach_tasks > 0 for f in families)
    assert report.search.stopped_early is None
    lines = "\n".join(search_lines(report))
    assert " of 0 tasks" not in lines
