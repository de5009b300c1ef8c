"""The terminal report leads with the worst hole and ends with its verdict (issue 31, items 6
and 7): one verdict line last on stdout for the README's first command and for five kinds of
verifier written from scratch (verl, TRL, SQL, code, tool); security findings first, named
by kind, "and N more" past those listed; the scan line never "unknown" beside findings;
worst escapes by severity, then rate; examples clipped around the answer the domain reads;
counts in the headers; the mutant-survival section only in the code domain, explained.

Each audit runs once (a module-scoped fixture) through the real CLI with a tiny --limit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest
from cli_support import run_cli
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verifier_audit.engine.formats import summary
from verifier_audit.models import CategoryResult, Example, FormatProbe, Formats, GateResult, Interval, Report, Severity
from verifier_audit.report import build, terminal
from verifier_audit.report import text as report_text
from verifier_audit.report.terminal import render_report

VERDICT = re.compile(r"^(gate: (PASSED|FAILED)|no gate: )")
DEMO_VERDICT = "no gate: the demo; audit yours with --verifier"

VERL = """
def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    return 1.0 if str(ground_truth) in solution_str[-30:] else 0.0
"""
TRL = """
def accuracy(completions, **kwargs):
    return [1.0 if str(gold) in text else 0.0 for text, gold in zip(completions, kwargs["solution"])]
"""
SQL = """
def grade(completion, task):
    words = lambda s: " ".join(s.lower().replace(";", " ").split())
    return words(task.reference) in words(completion)
"""
TOOL = """
import json

def grade(completion, task):
    names = [call["name"] for call in json.loads(task.reference)]
    return all(name in completion for name in names)
"""
# A code grader that runs the candidate in its own process: the hole the audit's walls catch.
CODE = """
def grade(completion, task):
    code = completion.split("```python")[-1].split("```")[0] if "```" in completion else completion
    scope = {}
    try:
        exec(code, scope)
        exec(task.tests, scope)
        scope["check"](scope[task.entry_point])
    except Exception:
        return 0.0
    return 1.0
"""


@dataclass
class Audit:
    rc: int
    stdout: str
    stderr: str
    report: dict

    @property
    def last(self) -> str:
        return self.stdout.rstrip("\n").splitlines()[-1]


def _audit(factory, name: str, source: str | None, *args: str) -> Audit:
    folder = factory.mktemp(name)
    out = folder / "report.json"
    spec = []
    if source is not None:
        (folder / f"{name}_grader.py").write_text(source)
        function = re.search(r"^def (\w+)", source, re.MULTILINE).group(1)
        spec = ["--verifier", f"{folder / f'{name}_grader.py'}:{function}"]
    r = run_cli(
        "run",
        *spec,
        *args,
        "--no-progress",
        "--json",
        str(out),
        "--no-config",
        env={"VERIFIER_AUDIT_CACHE": str(factory.getbasetemp() / "va-cache")},
    )
    assert r.returncode in (0, 1), r.stderr[-3000:]
    return Audit(r.returncode, r.stdout, r.stderr, json.loads(out.read_text()))


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Audit:
    return _audit(tmp_path_factory, "demo", None, "--limit", "2")


@pytest.fixture(scope="module")
def verl(tmp_path_factory) -> Audit:
    return _audit(tmp_path_factory, "verl", VERL, "--limit", "2", "--probe-sample", "0")


@pytest.fixture(scope="module")
def trl(tmp_path_factory) -> Audit:
    return _audit(tmp_path_factory, "trl", TRL, "--limit", "2", "--probe-sample", "0")


@pytest.fixture(scope="module")
def sql(tmp_path_factory) -> Audit:
    return _audit(tmp_path_factory, "sql", SQL, "--suite", "sql", "--limit", "2", "--probe-sample", "0")


@pytest.fixture(scope="module")
def code(tmp_path_factory) -> Audit:
    # three tasks: more security findings than the ten the terminal lists
    return _audit(
        tmp_path_factory, "code", CODE, "--suite", "code", "--limit", "3", "--probe-sample", "0", "--timeout", "2"
    )


@pytest.fixture(scope="module")
def tool(tmp_path_factory) -> Audit:
    return _audit(tmp_path_factory, "tool", TOOL, "--suite", "tool", "--limit", "2", "--probe-sample", "0")


# ------------------------------------------------------------------ the last line is the verdict


def test_the_readme_first_command_ends_with_the_demo_verdict(demo):
    assert demo.rc == 0
    assert demo.last == DEMO_VERDICT
    assert demo.stdout.count(DEMO_VERDICT) == 1


@pytest.mark.parametrize("kind", ["verl", "trl", "sql", "code", "tool"])
def test_five_verifiers_written_from_scratch_end_with_their_verdict(kind, request):
    audit: Audit = request.getfixturevalue(kind)
    report = audit.report
    assert VERDICT.match(audit.last), audit.stdout[-2000:]
    assert sum(1 for line in audit.stdout.splitlines() if VERDICT.match(line)) == 1  # ONE verdict line
    word = "PASSED" if report["gate"]["passed"] else "FAILED"
    assert audit.last.startswith(f"gate: {word} (coverage debt {report['coverage_debt']:.3f})")
    assert audit.rc == (0 if report["gate"]["passed"] else 1)
    if not report["gate"]["passed"]:  # the worst reason is on the line, not only above the scroll
        assert report["gate"]["reasons"][0] in audit.last


def test_several_verifiers_end_with_one_line_summing_them(tmp_path_factory):
    folder = tmp_path_factory.mktemp("two")
    (folder / "g.py").write_text(VERL + TRL)
    r = run_cli(
        "run",
        "--verifier",
        f"{folder / 'g.py'}:compute_score",
        "--verifier",
        f"{folder / 'g.py'}:accuracy",
        "--limit",
        "2",
        "--probe-sample",
        "0",
        "--no-progress",
        "--no-config",
        env={"VERIFIER_AUDIT_CACHE": str(tmp_path_factory.getbasetemp() / "va-cache")},
    )
    last = r.stdout.rstrip("\n").splitlines()[-1]
    assert re.match(
        r"gate: (PASSED for all 2 verifiers|FAILED for [12] of 2 verifiers; worst \w+ \(coverage debt)", last
    ), last
    assert r.returncode == (1 if "FAILED" in last else 0)


# ---------------------------------------------------------------------- security findings first


def test_security_findings_lead_the_summary_the_report_and_the_gate(code):
    findings = code.report["security_findings"]
    assert len(findings) > 10, "three tasks of escapes: more than the terminal lists"
    kinds = {f["kind"] for f in findings}
    assert kinds == {"guard_escape"}
    lead = f"{len(findings)} sandbox escapes (security findings)"
    assert code.report["gate"]["reasons"][0] == lead
    summary_line = next(line for line in code.stderr.splitlines() if "gate FAILED for" in line)
    assert summary_line.split(": ", 2)[2].startswith(lead)  # not "error rate ..."
    out = code.stdout
    assert out.index("SECURITY:") < out.index("category ")  # before the category table
    assert f"and {len(findings) - 10} more" in out and "(see security_findings)" not in out
    assert lead in code.last


def test_several_verifiers_side_by_side_name_the_security_findings_above_the_table(code, verl):
    flagged, clean = Report.model_validate(code.report), Report.model_validate(verl.report)
    text = terminal.render_side_by_side([clean, flagged])
    line = f"SECURITY: grade: {len(flagged.security_findings)} sandbox escapes (security findings)"
    assert line in text and text.index(line) < text.index("verifier ")
    assert "\x1b[" not in text and "\x1b[31;1mSECURITY" in terminal.render_side_by_side([flagged], color=True)
    painted = render_report(flagged, color=True)
    assert painted.splitlines()[-1].startswith("gate: \x1b[31;1mFAILED\x1b[0m") and "\x1b[" not in render_report(
        flagged
    )


def test_the_scan_line_never_says_unknown_beside_findings(code):
    scanned = [f for f in code.report["source_findings"] or [] if f["rule"] == "exec-model-output"]
    assert scanned, "the grader execs model output: the scan flags it"
    assert all(f["confirmed"] is True for f in scanned), scanned
    source = code.stdout.split("source (verifier-audit scan")[1].split("\n\n")[0]
    assert "unknown" not in source and "no canary category" not in source


def test_the_mutant_survival_section_is_shown_only_in_the_code_domain_and_explained(code, verl, sql, tool):
    assert "Mutant survival against" in code.stdout
    block = code.stdout.split("Mutant survival against")[1].splitlines()
    assert "judged" in block[0] and block[1].strip().startswith("(a near miss is")
    for other in (verl, sql, tool):
        assert "Mutant survival" not in other.stdout


def test_headers_carry_their_counts(code):
    out = code.stdout
    n_cats = len(code.report["categories"])
    assert re.search(rf"^Categories \(\d+ of {n_cats}, misjudged or errored\):$", out, re.MULTILINE)
    paid = [c for c in code.report["categories"] if c["label"] == "incorrect" and c["rate"] > 0 and c["examples"]]
    assert re.search(
        rf"^Worst escapes, wrong answers accepted \({min(5, len(paid))} of {len(paid)} categor", out, re.MULTILINE
    )
    blind = [c for c in code.report["categories"] if not c["measured"]]
    if blind:
        assert f"Not measured ({len(blind)} categor" in out


# ---------------------------------------------------------------- worst first, by severity


def _report(categories: list[CategoryResult]) -> Report:
    return Report(
        tool_version="t",
        verifier="g.py:grade",
        style="native",
        suite="s",
        seed=0,
        threshold=0.5,
        n_candidates=sum(c.n for c in categories),
        coverage_debt=0.0,
        coverage_debt_ci=Interval(low=0, high=0),
        false_acceptance_rate=0.0,
        false_acceptance_ci=Interval(low=0, high=0),
        false_rejection_rate=0.0,
        false_rejection_ci=Interval(low=0, high=0),
        categories=categories,
        error_rate=0.0,
        errors=0,
        gate=GateResult(passed=True, enforced=True, reasons=[]),
    )


def _category(
    name: str, severity: Severity, accepted: int, n: int = 10, text: str = "x", answer: str = ""
) -> CategoryResult:
    return CategoryResult(
        name=name,
        origin="known_bad",
        severity=severity,
        label="incorrect",
        n=n,
        accepted=accepted,
        rate=accepted / n,
        ci=Interval(low=0, high=1),
        examples=[Example(candidate_id=f"t/{name}/0", task_id="t", text=text, reference="r", answer=answer)],
    )


def _listed(text: str) -> list[str]:
    block = text.split("Worst escapes")[1].split("\n\n")[0].splitlines()[1:]
    return [line.split(" [")[0].strip() for line in block[::2]]


def test_a_critical_hole_is_listed_before_a_cosmetic_one_whatever_the_names():
    cats = [
        _category("sql.comment.trailing", Severity.low, 10),
        _category("sql.ddl.drop_table", Severity.critical, 3),
        _category("sql.config.set", Severity.critical, 3),
        _category("sql.cast.text", Severity.high, 9),
    ]
    assert _listed(render_report(_report(cats))) == [
        "sql.config.set",
        "sql.ddl.drop_table",
        "sql.cast.text",
        "sql.comment.trailing",
    ]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(Severity)), st.integers(1, 10)), min_size=1, max_size=8))
def test_worst_escapes_are_ordered_by_severity_then_rate_then_name(rows):
    cats = [_category(f"d.c.n{i}", sev, k) for i, (sev, k) in enumerate(rows)]
    listed = _listed(render_report(_report(cats)))
    rank = list(Severity)
    by_name = {c.name: c for c in cats}
    keys = [(-rank.index(by_name[n].severity), -by_name[n].rate, n) for n in listed]
    assert keys == sorted(keys) and len(listed) == min(5, len(cats))
    assert listed == [c.name for c in sorted(cats, key=terminal.worst_first)[:5]]


# ------------------------------------------------------------ examples clipped around the answer


def test_a_hack_at_the_start_and_the_answer_both_survive_the_clip():
    query = "SELECT name FROM employees WHERE salary > 1000 ORDER BY name"
    text = f"```sql\nSET threads = 1; {query}\n```\n" + "Here is why this query is right. " * 20
    (cat,) = build.with_answers([_category("sql.config.set", Severity.critical, 5, text=text)])
    assert cat.examples[0].answer == query  # the domain's own extraction
    line = next(x for x in render_report(_report([cat])).splitlines() if x.startswith("      accepted: "))
    assert "SET" in line and query in line and len(line) < 120


@settings(max_examples=100, deadline=None)
@example("SET a = 1; " + "bbbb cccc dddd " * 8, "12345", "xyz", 40)
@given(
    st.text(alphabet="abcdefgh ;=", min_size=1, max_size=200),
    st.text(alphabet="0123456789", min_size=1, max_size=12),
    st.text(alphabet="xyz .", max_size=60),
    st.integers(min_value=30, max_value=120),
)
def test_an_excerpt_keeps_the_start_and_the_answer(head, answer, tail, width):
    words = f"{head.strip() or 'h'} {answer} {tail}"
    out = report_text.excerpt(words, width, focus=answer)
    flat = " ".join(words.split())
    assert len(out) <= width and answer in out
    assert out.startswith(flat[: min(3, len(flat))])  # never the middle in place of the start


def test_math_examples_keep_their_final_answer_when_clipped():
    text = "The final answer is \\boxed{123456}. " + "Then some words follow for a long while. " * 10
    (cat,) = build.with_answers([_category("math.trap.late", Severity.high, 5, text=text)])
    assert cat.examples[0].answer == "123456"
    line = next(x for x in render_report(_report([cat])).splitlines() if x.startswith("      accepted: "))
    assert "123456" in line


def test_reports_carry_the_answer_the_domain_reads(verl, sql):
    for audit in (verl, sql):
        examples = [e for c in audit.report["categories"] for e in c["examples"]]
        answered = [e for e in examples if e["answer"]]
        assert answered, "the domain reads an answer from most examples"
        assert all(" ".join(e["answer"].split()) in " ".join(e["text"].split()) for e in answered)


# ------------------------------------------------------------------------------------- wording


def test_unknown_formats_are_explained_inline():
    probes = [
        FormatProbe(name="boxed", shows="\\boxed{x}", sampled=2, accepted=2, read=True),
        FormatProbe(name="gsm8k", shows="#### n", sampled=0, accepted=0, read=None),
        FormatProbe(name="frac", shows="a/b", sampled=0, accepted=0, read=None),
    ]
    line = summary(Formats(canonical="boxed", probes=probes))
    assert "(2 unknown: no reference of the suite can be written in them)" in line
    probes[2] = FormatProbe(name="frac", shows="a/b", sampled=1, accepted=0, errors=1, read=None)
    assert "1 with a probe that timed out or crashed" in summary(Formats(canonical="boxed", probes=probes))


def test_the_article_before_a_type_name():
    assert [report_text.article(w) for w in ("int", "str", "object", "NoneType", "ellipsis")] == [
        "an int",
        "a str",
        "an object",
        "a NoneType",
        "an ellipsis",
    ]


def test_a_score_holding_an_object_is_named_with_an():
    import numpy as np

    from verifier_audit.scores import ScoreError, read_score

    with pytest.raises(ScoreError, match=r"holding an object; return a real number"):
        read_score(np.array([object()], dtype=object))


def test_the_verdict_line_of_a_comparison_run_and_of_none():
    assert terminal.verdict_line([], demo=True) == DEMO_VERDICT
    assert terminal.verdict_line([]).startswith("no gate")


def test_the_demo_table_is_not_a_gate(demo):
    assert "gate: FAILED" not in demo.stdout and "gate: PASSED" not in demo.stdout
    assert len(demo.report["reports"]) == 4  # the demo writes its report like any run
