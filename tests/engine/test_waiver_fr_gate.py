"""Issue 31 item 4: a waived category of correct answers leaves the false-rejection gate, as a
waived category of wrong answers leaves the gated debt. The gate says what it left out (a
reason that names the waived categories, or a note when every one of them is waived); the
reported false-rejection rate stays the unwaived one."""

import json

from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.metrics import gate, pooled_rate
from verifier_audit.models import CategoryResult, GateConfig, Interval


def correct(name: str, n: int, rejected: int) -> CategoryResult:
    return CategoryResult(
        name=name,
        origin="equivalent",
        severity="medium",
        label="correct",
        n=n,
        accepted=n - rejected,
        rate=rejected / n if n else 0.0,
        ci=Interval(low=0, high=1),
    )


def fr_of(categories) -> float:
    return pooled_rate(categories, "correct")[0]


def test_every_false_rejection_category_waived_passes_with_a_note():
    cats = [correct("math.equivalent.a", 10, 10), correct("math.equivalent.b", 10, 10)]
    g = gate(0.0, cats, fr_of(cats), 0, GateConfig(waived_categories=[c.name for c in cats]))
    assert g.passed, g.reasons
    assert len(g.notes) == 1 and "false rejection not gated" in g.notes[0]
    assert "math.equivalent.a, math.equivalent.b" in g.notes[0] and "1.000" in g.notes[0]  # the reported rate


def test_a_waived_category_leaves_the_gated_rate_and_the_reason_says_so():
    cats = [correct("math.equivalent.a", 10, 10), correct("math.equivalent.b", 10, 2)]
    g = gate(0.0, cats, fr_of(cats), 0, GateConfig(waived_categories=["math.equivalent.a"]))
    assert g.reasons == ["false rejection (waived categories left out) 0.200 > max-false-rejection 0.1"]
    assert "gated without the waived categories (math.equivalent.a): 0.200" in g.notes[0]
    # Within the limit once the waived category is out: passes, and the note still says why.
    cats[1] = correct("math.equivalent.b", 10, 1)
    g = gate(0.0, cats, fr_of(cats), 0, GateConfig(waived_categories=["math.equivalent.a"]))
    assert g.passed and g.notes and "0.100" in g.notes[0] and "0.550" in g.notes[0]


def test_a_waiver_with_max_rate_holds_its_category_to_that_rate():
    cats = [correct("math.equivalent.a", 10, 3), correct("math.equivalent.b", 10, 0)]
    over = gate(0.0, cats, fr_of(cats), 0, GateConfig(category_limits={"math.equivalent.a": 0.2}))
    assert over.reasons == ["category math.equivalent.a: false rejection 0.30 (3/10) > waiver max_rate 0.2"]
    assert gate(0.0, cats, fr_of(cats), 0, GateConfig(category_limits={"math.equivalent.a": 0.5})).passed


def test_without_waivers_the_check_is_unchanged():
    cats = [correct("math.equivalent.a", 10, 5)]
    g = gate(0.0, cats, 0.5, 0, GateConfig())
    assert g.reasons == ["false rejection 0.500 > max-false-rejection 0.1"] and g.notes == []


@given(
    st.lists(st.tuples(st.integers(1, 40), st.integers(0, 40), st.booleans()), min_size=1, max_size=8),
    st.sampled_from([0.0, 0.1, 0.5, 1.0]),
)
def test_the_gated_false_rejection_is_the_unwaived_categories_alone(rows, limit):
    """Property: the FR check with waivers decides exactly as the plain check on the
    categories that are not waived; every waived name is in the note."""
    cats = [correct(f"math.equivalent.c{i}", n, min(r, n)) for i, (n, r, _) in enumerate(rows)]
    waived = [c.name for c, (_, _, w) in zip(cats, rows) if w]
    config = GateConfig(max_false_rejection=limit, waived_categories=waived)
    kept = [c for c in cats if c.name not in waived]
    g = gate(0.0, cats, fr_of(cats), 0, config)
    plain = gate(0.0, kept, fr_of(kept), 0, GateConfig(max_false_rejection=limit))
    assert g.passed == plain.passed
    if waived:
        assert all(name in g.notes[0] for name in waived)
    else:
        assert g == plain


VERIFIER = '''
def never(completion, reference):
    """Rejects everything: every right answer is a false rejection, no wrong one is paid."""
    return 0.0
'''


def test_cli_waiving_every_false_rejection_category_passes_and_says_why(cli, tmp_path):
    """End to end: the real command, every category of correct answers in the run waived
    (from [[tool.verifier_audit.waivers]]): exit 0, the note in the terminal, the JSON's
    false_rejection_rate still the unwaived 1.0."""
    from verifier_audit.domains import get_domain

    (tmp_path / "v.py").write_text(VERIFIER)
    names = sorted(c.name for c in get_domain("math").categories() if c.origin == "equivalent")  # the right answers
    waivers = "".join(
        f'[[tool.verifier_audit.waivers]]\ncategory = "{n}"\nreason = "a test waives it"\n\n' for n in names
    )
    (tmp_path / "pyproject.toml").write_text(f"[tool.verifier_audit]\nlimit = 3\n\n{waivers}")
    out = tmp_path / "report.json"
    r = cli(
        "run",
        "--config",
        str(tmp_path / "pyproject.toml"),
        "--verifier",
        f"{tmp_path}/v.py:never",
        "--probe-sample",
        "0",
        "--no-format-probe",
        "--no-progress",
        "--json",
        str(out),
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "note: false rejection not gated: every category of correct answers is waived" in r.stdout
    report = json.loads(out.read_text())
    assert report["false_rejection_rate"] == 1.0 and report["gate"]["passed"]
    assert report["gate"]["notes"] and not report["gate"]["reasons"]
    # ... and every report format says it too, not only the JSON and the terminal.
    from verifier_audit.models import Report
    from verifier_audit.report.html import to_html
    from verifier_audit.report.markdown import to_markdown

    parsed = Report.model_validate(report)
    assert "note: false rejection not gated" in to_markdown([parsed])
    assert "note: false rejection not gated" in to_html([parsed])
