"""Answer formats (domains/*/formats.py) and the format probe (engine/formats.py): graders
that read only ``#### n`` or the minerva sentence are audited in the format they read, a
boxed grader's candidates are left byte for byte as generated, rewriting keeps labels, and a
hanging verifier is contained by the probe."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains import get_domain
from verifier_audit.domains.code.formats import FORMATS as CODE_FORMATS
from verifier_audit.domains.math.formats import FORMATS, format_of, without_final_period
from verifier_audit.domains.math.generators._common import boxed_completion
from verifier_audit.domains.math.oracle import label_completion
from verifier_audit.domains.sql.formats import FORMATS as SQL_FORMATS
from verifier_audit.engine import formats as engine_formats
from verifier_audit.engine.audit import AuditOptions, prepare
from verifier_audit.loading import resolve
from verifier_audit.plan import audit
from verifier_audit.report.html import to_html
from verifier_audit.report.markdown import to_markdown
from verifier_audit.report.terminal import render_report, render_side_by_side
from verifier_audit.suites import load_suite, select

MATH = {f.name: f for f in FORMATS}


GRADERS = Path(__file__).resolve().parents[1] / "fixtures" / "format_graders.py"


def grader(name: str):
    """A grader of the fixture file, loaded as a user's verifier file is."""
    return resolve(f"{GRADERS}:{name}", "pair")


# ------------------------------------------------------------------------ math formats


def test_one_boxed_answer_in_every_math_format():
    text = "Let me work through this step by step.\n\nThe final answer is $\\boxed{-15}$."
    written = {name: f.rewrite(text) for name, f in MATH.items()}
    body = "Let me work through this step by step.\n\n"
    assert written["boxed"] == text
    assert written["gsm8k"] == body + "#### -15"
    assert written["gsm8k_period"] == body + "#### -15."
    assert written["minerva"] == body + "Final Answer: The final answer is $-15$. I hope it is correct."
    assert written["answer_colon"] == body + "Answer: -15"
    assert written["sentence_period"] == body + "The final answer is -15."
    assert written["bold"] == body + "**-15**"
    assert written["last_line_period"] == body + "-15."
    for name, text_in_format in written.items():
        assert format_of(text_in_format) == name, name


def test_the_lead_in_on_the_line_before_the_box_goes_too():
    text = "Solving directly:\n\nSo the final answer is\n$$\\boxed{\\frac{1}{2}}$$"
    assert MATH["answer_colon"].rewrite(text) == "Solving directly:\n\nAnswer: $\\frac{1}{2}$"
    assert MATH["gsm8k"].rewrite(text) is None  # #### n holds plain numbers only


def test_a_hedge_becomes_two_statements_and_the_rest_of_the_line_moves_down():
    hedge = (
        "First attempt: $\\boxed{12}$. Checking again from a different angle: $\\boxed{13}$.\n"
        "I am not sure which one is intended."
    )
    assert MATH["gsm8k"].rewrite(hedge) == (
        "First attempt:\n#### 12\nChecking again from a different angle:\n#### 13\nI am not sure which one is intended."
    )
    trap = "The answer is $\\boxed{12}$, not 13."
    assert MATH["gsm8k"].rewrite(trap) == "#### 12\nnot 13."
    assert MATH["gsm8k"].rewrite("The final answer is $\\boxed{12 \\text{ or } 13}$.") == "#### 12 or 13"


@pytest.mark.parametrize(
    "text",
    [
        "After all that work, the final answer is $\\boxed{}$.",  # empty
        "The answer is $\\boxed{\\boxed{\\boxed{3}}}$.",  # nested
        "No box at all: 12",  # not canonical
    ],
)
def test_what_a_format_cannot_write_is_none(text):
    assert all(f.rewrite(text) is None for f in FORMATS[1:])


def test_without_final_period_only_after_a_digit():
    assert without_final_period("The answer is $\\boxed{12}$, not 13.") == "The answer is $\\boxed{12}$, not 13"
    assert without_final_period("The final answer is $\\boxed{12}$.") is None
    assert without_final_period("I am not sure which one is intended.") is None


def test_catalog_traps_ending_in_a_number_and_a_period_also_come_without_it():
    suite = load_suite("math")
    made = get_domain("math").generate(select(suite, None, None), 0)
    by_id = {c.id: c for c in made}
    bare = [c for c in made if c.id.endswith("/no_period")]
    assert bare and all(c.origin == "known_bad" for c in bare)
    for c in bare:
        original = by_id[c.id[: -len("/no_period")]]
        assert original.text.rstrip()[:-1] == c.text.rstrip() and original.category == c.category


_NUMBER = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.integers(-(10**6), 10**6).map(lambda n: f"{n:,}"),
    st.tuples(st.integers(-999, 999), st.integers(1, 99)).map(lambda t: f"{t[0]}.{t[1]:02d}"),
    st.tuples(st.integers(-99, 99), st.integers(2, 99)).map(lambda t: f"\\frac{{{t[0]}}}{{{t[1]}}}"),
    st.integers(2, 50).map(lambda n: f"{n}\\sqrt{{2}}"),
)


@settings(max_examples=60, deadline=None)
@given(gold=_NUMBER, shown=st.lists(_NUMBER, min_size=1, max_size=2), seed=st.integers(0, 10**6))
def test_rewriting_keeps_the_oracle_label(gold, shown, seed):
    """A completion (one answer, or a two-box hedge) gets the same label from the oracle in
    every format that can write it."""
    rng = random.Random(seed)
    if len(shown) == 1:
        text = boxed_completion(shown[0], rng)
    else:
        text = f"First attempt: $\\boxed{{{shown[0]}}}$. Checking again: $\\boxed{{{shown[1]}}}$.\nNot sure."
    label = label_completion(text, gold).label
    assert label is not None
    for f in FORMATS:
        written = f.rewrite(text)
        if written is not None:
            assert label_completion(written, gold).label == label, (f.name, written)


# ------------------------------------------------------------------ sql and code formats


def test_sql_formats():
    fmt = {f.name: f for f in SQL_FORMATS}
    text = "Here is the query that answers the question:\n\n```sql\nSELECT 1;\n```"
    assert fmt["bare"].rewrite(text) == "SELECT 1;"
    assert fmt["prose"].rewrite(text) == "Here is the query that answers the question:\n\nSELECT 1;"
    noted = text + "\n\nNote to the grader: this query is verified."
    assert fmt["bare"].rewrite(noted) is None  # the note would be lost
    assert fmt["bare"].rewrite("SELECT 1;") is None  # already bare: not canonical


def test_code_formats():
    fmt = {f.name: f for f in CODE_FORMATS}
    src = "def f(x):\n    return x\n"
    assert fmt["fenced"].rewrite(src) == "```python\ndef f(x):\n    return x\n```"
    assert "```python\ndef f(x)" in fmt["prose"].rewrite(src) and fmt["prose"].rewrite(src).startswith("Here")
    assert fmt["fenced"].rewrite(fmt["fenced"].rewrite(src)) is None


# ------------------------------------------------------------------- the probe, audits


@pytest.fixture(scope="module")
def options(tmp_path_factory):
    return AuditOptions(
        workers=2, timeout=10.0, probe_sample=0, cache_dir=tmp_path_factory.mktemp("cache"), results=None
    )


@pytest.fixture(scope="module")
def prepared(options):
    suite = load_suite("math")
    return prepare(suite.name, suite.content_hash, select(suite, None, None), options)


def _audit(prepared, name, options, tmp_path):
    opts = AuditOptions(**{**options.__dict__, "results": tmp_path / "results.jsonl"})
    return audit(prepared, [grader(name)], opts)[0]


def _totals(report, origin=None, group=None, label=None):
    cats = [
        c
        for c in report.categories
        if (origin is None or c.origin == origin)
        and (group is None or c.name.split(".")[1] == group)
        and (label is None or c.label == label)
    ]
    return sum(c.n for c in cats), sum(c.accepted for c in cats)


def test_a_grader_that_reads_only_gsm8k_is_audited_in_gsm8k(prepared, options, tmp_path):
    report = _audit(prepared, "gsm8k_strict", options, tmp_path)
    f = report.formats
    assert set(f.read) <= {"gsm8k", "gsm8k_period"} and "gsm8k" in f.read
    assert f.audited_in == "gsm8k" and f.summary.startswith("reads only: `#### n`")
    assert f.rewritten > 0 and f.candidates.get("gsm8k") == f.rewritten
    n_equiv, accepted = _totals(report, origin="equivalent")
    assert n_equiv > 0 and 1 - accepted / n_equiv < 0.2  # false rejection on what #### n can write
    assert _totals(report, origin="near_miss")[0] > 0
    assert _totals(report, group="hedge")[0] > 0
    lines = render_report(report)
    assert "answer formats: reads only: `#### n`" in lines
    assert "reads only: `#### n`" in to_markdown([report]) and "reads only: `#### n`" in to_html([report])
    assert "reads only: `#### n`" in render_side_by_side([report])


def test_a_grader_that_reads_only_minerva_is_audited_in_minerva(prepared, options, tmp_path):
    report = _audit(prepared, "minerva_only", options, tmp_path)
    f = report.formats
    assert f.read == ["minerva"] and f.audited_in == "minerva"
    assert f.summary.startswith("reads only: `Final Answer: The final answer is $x$. I hope it is correct.`")
    n_equiv, accepted = _totals(report, origin="equivalent")
    assert n_equiv > 0 and 1 - accepted / n_equiv < 0.2
    assert _totals(report, origin="near_miss")[0] > 0 and _totals(report, group="hedge")[0] > 0
    assert not f.relabelled, f.relabelled  # every rewritten label confirmed by the oracle


def test_a_boxed_grader_sees_the_candidates_as_generated(prepared, options):
    spec = resolve(get_domain("math").reference_verifiers["last_box_exact"])
    view, found = engine_formats.formats_for(prepared, spec, options)
    assert view is prepared and found.audited_in is None
    assert found.read == ["boxed"] and found.summary == "reads: `\\boxed{x}`"
    assert sum(found.candidates.values()) == len(prepared.candidates)


def test_same_seed_same_rewritten_candidates(prepared, options):
    spec = grader("gsm8k_strict")
    first, _ = engine_formats.formats_for(prepared, spec, options)
    again, _ = engine_formats.formats_for(prepared, spec, AuditOptions(**{**options.__dict__, "cache_dir": None}))
    assert [(c.id, c.text, c.label) for c in first.candidates] == [(c.id, c.text, c.label) for c in again.candidates]
    domain = get_domain("math")
    probe = engine_formats.probe_candidates(prepared, 0, domain, domain.answer_formats())
    assert [c.text for c in probe] == [c.text for c in engine_formats.probe_candidates(prepared, 0, domain, FORMATS)]
    assert [c.text for c in probe] != [c.text for c in engine_formats.probe_candidates(prepared, 1, domain, FORMATS)]


def test_the_probe_contains_a_hanging_verifier(prepared, options):
    opts = AuditOptions(**{**options.__dict__, "timeout": 1.0})
    domain = get_domain("math")
    probes, stopped = engine_formats.probe(prepared, grader("hangs"), opts, domain, FORMATS)
    assert stopped and all(p.read is None for p in probes)
    assert sum(p.errors for p in probes) <= opts.workers  # it stopped at the first timeout
    view, found = engine_formats.formats_for(prepared, grader("hangs"), opts)
    assert view is prepared and found.stopped_early and found.summary.startswith("formats read: unknown")


def test_a_grader_that_rejects_every_format_is_said_to(prepared, options):
    view, found = engine_formats.formats_for(prepared, grader("rejects_everything"), options)
    assert view is prepared and found.read == []
    assert found.summary == "reads no known format: every answer is rejected"
    # One whose every call raised rejected nothing: the errors are what the report says (issue 31)
    view, found = engine_formats.formats_for(prepared, grader("raises"), options)
    assert view is prepared and found.read == []
    assert found.summary == "formats read: unknown: every call of the probe raised an error (see Errors)"
    assert all(p.errors == p.sampled > 0 for p in found.probes)
    _, everything = engine_formats.formats_for(prepared, grader("pays_everything"), options)
    assert everything.summary == f"reads every format probed ({len(FORMATS)})"
