"""verifier-audit scan (verifier_audit/scan/): rules over a verifier's source, and their
confirmation against what an audit measured."""

from __future__ import annotations

import argparse
import ast
import json
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from report_support import blank_report

from verifier_audit.cli import scan as scan_cli
from verifier_audit.models import (
    CategoryResult,
    Checks,
    Interval,
    ProbeResult,
    Report,
    SecurityFinding,
    to_json,
)
from verifier_audit.report.source import scan_targets, source_lines
from verifier_audit.scan import RULES, ScanError, SourceFinding, confirm, scan_source, scan_text
from verifier_audit.scan._targets import module_location

ROOT = Path(__file__).resolve().parents[2]
EXECUTES = ROOT / "examples" / "executes_output.py"
DOMAINS = ROOT / "verifier_audit" / "domains"


def rules_in(findings: list[SourceFinding]) -> set[str]:
    return {f.rule for f in findings}


def scan(source: str, function: str | None = None) -> list[SourceFinding]:
    return scan_text(textwrap.dedent(source), "grader.py", function=function)


# --------------------------------------------------------------------------- the registry


def test_every_rule_has_an_id_a_title_a_severity_a_source_and_a_way_to_be_judged():
    assert [r.id for r in RULES] == [
        "exec-model-output",
        "substring-match",
        "last-number-regex",
        "signal-alarm",
        "relative-tolerance",
        "swallowed-exception",
        "unparseable-gold-rewarded",
    ]
    for rule in RULES:
        assert rule.title and "\n" not in rule.title
        assert rule.severity.value in ("low", "medium", "high", "critical")
        assert len(rule.why) > 80, rule.id  # says why, with a source
        # Either something behavioural can confirm it, or it says why nothing can.
        assert rule.categories or rule.security_kinds or rule.probe or rule.unmeasured, rule.id


def test_rule_categories_are_real_categories_of_the_catalogs_and_generators():
    from verifier_audit.domains import get_domain

    names = {c.name for d in ("math", "sql", "code") for c in get_domain(d).categories()}
    for rule in RULES:
        for prefix in rule.categories:
            assert any(n == prefix or n.startswith(prefix + ".") for n in names), (rule.id, prefix)


# --------------------------------------------------------------------------- real verifiers


def _sympify_line() -> int:
    return next(i for i, text in enumerate(EXECUTES.read_text().splitlines(), 1) if "sympy.sympify(boxes[-1])" in text)


def test_the_eval_in_the_executes_output_example_is_flagged():
    findings = scan_source(str(EXECUTES))
    (execs,) = [f for f in findings if f.rule == "exec-model-output"]
    line = _sympify_line()
    assert (execs.line, execs.severity.value, execs.confidence) == (line, "critical", "high")
    assert "sympy.sympify" in execs.message and "`completion`" in execs.message and "boxes[-1]" in execs.message
    assert "sympy.sympify(boxes[-1])" in execs.code
    assert execs.function == "sympify_grader" and execs.scope == ["sympify_grader"]
    assert execs.categories == ["math.security"]
    # It also reads the last \boxed{}: the two-box hedge hole.
    assert "last-number-regex" in rules_in(findings)


@pytest.mark.parametrize(
    "spec",
    [
        "math/verifiers.py:strong",
        "sql/verifiers.py:strong",
        "code/verifiers.py:strong",
        "code/verifiers.py:visible_tests",
        "sql/verifiers.py:exact_match",
    ],
)
def test_the_strong_reference_verifiers_are_clean(spec):
    assert scan_source(str(DOMAINS / spec)) == []


def test_the_same_strong_verifier_by_module_name_is_clean_too():
    assert scan_source("verifier_audit.domains.math.verifiers:strong") == []


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("math/verifiers.py:substring", {"substring-match"}),
        ("math/verifiers.py:last_number", {"last-number-regex", "relative-tolerance"}),
        ("code/verifiers.py:in_process", {"exec-model-output"}),
    ],
)
def test_the_naive_reference_verifiers_are_flagged_with_their_holes(spec, expected):
    findings = scan_source(str(DOMAINS / spec))
    assert rules_in(findings) == expected
    if spec.endswith("last_number"):
        # The last number is taken in the helper the verifier calls, one level deep.
        (last,) = [f for f in findings if f.rule == "last-number-regex"]
        assert last.function == "_last_number" and "last_number" in last.scope
        (tol,) = [f for f in findings if f.rule == "relative-tolerance"]
        assert tol.severity.value == "low" and "rel_tol=1e-09" in tol.message  # tight, still relative


def test_a_whole_file_scan_flags_the_weak_verifiers_and_only_them():
    findings = scan_source(str(DOMAINS / "math" / "verifiers.py"))
    assert {f.function for f in findings} == {"substring", "_last_number", "last_number"}


def test_math_verify_timeout_is_flagged_as_signal_alarm():
    origin, package_dirs = module_location("math_verify")
    if origin is None:
        pytest.skip("math_verify is not installed")
    utils = Path(package_dirs[0]) / "utils.py"
    lines = utils.read_text().splitlines()
    arm = next(i for i, t in enumerate(lines, 1) if "signal.signal(signal.SIGALRM, handler)" in t)
    alarm = next(i for i, t in enumerate(lines, 1) if "signal.alarm(timeout_seconds)" in t)
    findings = scan_source("math_verify")
    alarms = [f for f in findings if f.rule == "signal-alarm"]
    assert [(Path(f.file).name, f.line) for f in alarms] == [("utils.py", arm)]
    assert f"signal.alarm() at line {alarm}" in alarms[0].message
    assert alarms[0].function == "timeout.decorator.wrapper"


def test_a_module_is_found_without_being_imported(tmp_path, monkeypatch):
    package = tmp_path / "evil_grader_pkg"
    package.mkdir()
    marker = tmp_path / "imported"
    (package / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (package / "rewards.py").write_text("def score(completion, reference):\n    return eval(completion)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    findings = scan_source("evil_grader_pkg.rewards:score")
    assert rules_in(findings) == {"exec-model-output"}
    assert scan_source("evil_grader_pkg")[0].file.endswith("rewards.py")  # a package: its files
    assert not marker.exists() and "evil_grader_pkg" not in sys.modules


# --------------------------------------------------------------------------- rule by rule


def test_exec_model_output_follows_model_text_through_assignments_and_calls():
    findings = scan("""
        import re, subprocess
        from sympy import sympify

        def grade(completion, reference):
            m = re.search(r"answer: (.*)", completion)
            answer = m.group(1).strip()
            program = f"print({answer})"
            subprocess.run(["python", "-c", program])
            return sympify(answer[:50]) == sympify(reference)
    """)
    assert [(f.rule, f.line, f.severity.value) for f in findings] == [
        ("exec-model-output", 9, "critical"),
        ("exec-model-output", 10, "critical"),
    ]
    assert "program]`" in findings[0].message and "`completion`" in findings[0].message


def test_exec_model_output_near_misses():
    assert (
        scan("""
        import ast, sympy
        def grade(completion, reference):
            value = ast.literal_eval(completion)   # parses literals only
            gold = sympy.sympify(reference)        # the gold, not the model's text
            return eval("1 + 1") == 2 and len(completion) < 10
    """)
        == []
    )
    # An eval of something not traced to model output: reported, at lower confidence.
    (low,) = scan("""
        def grade(expr_text, gold):
            return eval(expr_text) == gold
    """)
    assert (low.rule, low.confidence, low.severity.value) == ("exec-model-output", "low", "high")
    assert "no model output was traced" in low.message


def test_taint_crosses_one_call_into_a_helper_of_the_module():
    (finding,) = scan(
        """
        def _value(s):
            return eval(s)

        def grade(a, b):
            return _value(a) == b

        def score(completion, reference):
            return _value(completion) == float(reference)
    """,
        function="score",
    )
    assert finding.function == "_value" and finding.confidence == "high"
    assert finding.scope == ["_value", "grade", "score"]


def test_substring_match():
    findings = scan("""
        def accuracy_reward(completions, solution, **kwargs):
            contents = [c[0]["content"] for c in completions]
            return [1.0 if sol.strip() in content else 0.0 for content, sol in zip(contents, solution)]

        def native(completion, task):
            return completion.find(task.reference) != -1 or completion.endswith(f"\\\\boxed{{{task.reference}}}")
    """)
    assert [(f.rule, f.function) for f in findings] == [
        ("substring-match", "accuracy_reward"),
        ("substring-match", "native"),
    ]
    assert "`sol.strip()`" in findings[0].message and "`in`" in findings[0].message


def test_substring_match_near_misses():
    assert (
        scan("""
        def grade(completion, reference):
            if "\\\\boxed" not in completion:      # a format check, no reference in it
                return 0.0
            if completion in reference:            # the other way round: not this rule
                return 0.0
            return float(reference.strip() == completion.strip())
    """)
        == []
    )


def test_last_number_regex():
    findings = scan("""
        import re
        NUM = re.compile(r"-?\\d+(?:\\.\\d+)?")

        def last(completion, reference):
            return NUM.findall(completion)[-1] == reference

        def first(completion, reference):
            numbers = re.findall(r"[-+]?[0-9]*\\.?[0-9]+", completion)
            return numbers[0] == reference

        def last_box(solution_str, ground_truth):
            i = solution_str.rfind("\\\\boxed")
            return solution_str[i:] == ground_truth

        def first_match(completion, reference):
            return re.search(r"\\d+", completion).group() == reference

        def flexible(solution_str, ground_truth):
            for final in reversed(re.findall(r"(\\-?[0-9\\.\\,]+)", solution_str)):
                if final not in ("", "."):
                    break
            return final == ground_truth
    """)
    assert [(f.rule, f.function) for f in findings] == [
        ("last-number-regex", name) for name in ("last", "first", "last_box", "first_match", "flexible")
    ]
    assert "last number" in findings[0].message and "first number" in findings[1].message
    assert "last \\boxed{}" in findings[2].message


def test_last_number_regex_near_misses():
    assert (
        scan("""
        import re

        def anchored(completion, reference):
            found = re.findall(r"#### (\\-?[0-9\\.\\,]+)", completion)   # the stated answer, after ####
            return bool(found) and found[-1] == reference

        def exactly_one(completion, reference):
            numbers = re.findall(r"-?\\d+", completion)
            if len(numbers) != 1:                                         # a hedge: no answer
                return False
            return numbers[0] == reference

        def every_box(completion, reference):
            boxes, start = [], 0
            while (i := completion.find("\\\\boxed{", start)) != -1:      # all of them, in a loop
                boxes.append(completion[i:i + 20])
                start = i + 1
            return len(set(boxes)) == 1

        def gold_only(completion, reference):
            return re.findall(r"-?\\d+", reference)[-1] in ("1", "2")
    """)
        == []
    )


def test_signal_alarm():
    findings = scan("""
        import signal
        from signal import alarm, setitimer, ITIMER_REAL

        def with_timeout(completion, reference):
            signal.signal(signal.SIGALRM, lambda *a: None)
            alarm(5)
            try:
                return completion == reference
            finally:
                alarm(0)

        def itimer(completion, reference):
            setitimer(ITIMER_REAL, 0.5)
            return completion == reference
    """)
    assert [(f.rule, f.line, f.function) for f in findings] == [
        ("signal-alarm", 6, "with_timeout"),
        ("signal-alarm", 14, "itimer"),
    ]
    assert "signal.alarm() at line 7" in findings[0].message


def test_signal_alarm_near_misses():
    assert (
        scan("""
        import signal

        def cancel_only(completion, reference):
            signal.alarm(0)                                   # cancels; arms nothing
            signal.signal(signal.SIGTERM, signal.SIG_DFL)     # not a timer signal
            return completion == reference
    """)
        == []
    )


def test_relative_tolerance():
    findings = scan("""
        import math
        import numpy as np

        def loose(a, b):
            return math.isclose(a, b, rel_tol=1e-4)

        def numpy_default(a, b):
            return np.isclose(a, b)

        def by_hand(a, b):
            return abs(a - b) <= 1e-4 * abs(b)

        def ratio(a, b):
            return abs(a - b) / abs(b) < 1e-3
    """)
    assert [(f.rule, f.function, f.severity.value) for f in findings] == [
        ("relative-tolerance", name, "medium") for name in ("loose", "numpy_default", "by_hand", "ratio")
    ]
    assert "rtol defaulting to 1e-05" in findings[1].message


def test_relative_tolerance_near_misses():
    assert (
        scan("""
        import math

        def absolute(a, b):
            return abs(a - b) < 1e-9 or abs(a - b) <= 2 * EPS

        def exact_isclose(a, b):
            return math.isclose(a, b, rel_tol=0, abs_tol=1e-12)
    """)
        == []
    )


def test_swallowed_exception():
    findings = scan("""
        def returns_one(completion, reference):
            try:
                return float(completion) == float(reference)
            except Exception:
                return 1.0

        def falls_through(completion, reference):
            try:
                assert completion.strip() == reference
            except:
                pass
            return True

        def default_score(completion, reference):
            score = 1.0
            try:
                if completion != reference:
                    score = 0.0
            except BaseException:
                pass
            return score

        def batch(completions, references):
            rewards = []
            for c, r in zip(completions, references):
                try:
                    rewards.append(float(c == r))
                except Exception:
                    rewards.append(0.5)
            return rewards
    """)
    swallowed = [f for f in findings if f.rule == "swallowed-exception"]
    assert [f.function for f in swallowed] == ["returns_one", "falls_through", "default_score", "batch"]
    assert "returns `1.0`" in swallowed[0].message
    assert "falls through to `return True`" in swallowed[1].message
    assert "`return score`" in swallowed[2].message and "still 1.0" in swallowed[2].message
    assert "appends `0.5`" in swallowed[3].message


def test_swallowed_exception_near_misses():
    assert (
        scan("""
        def returns_zero(completion, reference):
            try:
                return float(completion) == float(reference)
            except Exception:
                return 0.0

        def narrow(completion, reference):
            try:
                return completion.encode("ascii") == reference.encode("ascii")
            except UnicodeEncodeError:       # a decision about one error, not a blanket
                return True

        def zero_default(completion, reference):
            score = 0.0
            try:
                score = float(completion == reference)
            except Exception:
                pass
            return score

        def checked_after(completion, reference):
            ok = False
            try:
                ok = completion == reference
            except Exception:
                pass
            if not ok:
                return 0.0
            return 1.0

        def reraises(completion, reference):
            try:
                return completion == reference
            except Exception:
                raise
    """)
        == []
    )


def test_unparseable_gold_rewarded():
    findings = scan("""
        from math_verify import parse, verify

        def tries(completion, reference):
            try:
                gold = float(reference)
            except ValueError:
                return 1.0
            return float(completion) == gold

        def accuracy_reward(completions, solution, **kwargs):
            rewards = []
            for content, sol in zip(completions, solution):
                gold_parsed = parse(sol)
                if len(gold_parsed) == 0:
                    rewards.append(1.0)  # Skip unparseable examples
                    continue
                rewards.append(float(verify(gold_parsed, parse(content))))
            return rewards
    """)
    assert [(f.rule, f.function) for f in findings] == [
        ("unparseable-gold-rewarded", "tries"),
        ("unparseable-gold-rewarded", "accuracy_reward"),
    ]
    assert "float(reference)" in findings[0].message
    assert "appends `1.0` to `rewards`" in findings[1].message and "len(gold_parsed) == 0" in findings[1].message


def test_unparseable_gold_near_misses():
    assert (
        scan("""
        from math_verify import parse

        def compares_strings(completion, reference):
            try:
                return float(completion) == float(reference)
            except ValueError:
                return completion.strip() == reference.strip()

        def skips(completions, solution):
            rewards = []
            for content, sol in zip(completions, solution):
                gold = parse(sol)
                if not gold:
                    rewards.append(0.0)
                    continue
                rewards.append(1.0 if parse(content) == gold else 0.0)
            return rewards
    """)
        == []
    )


# --------------------------------------------------------------------------- inputs


def test_a_file_that_does_not_parse_is_an_error_naming_file_and_line(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def ok():\n    return 1\n\ndef broken(:\n    pass\n")
    with pytest.raises(ScanError, match=r"bad\.py:4:\d+: cannot parse"):
        scan_source(str(bad))


def test_unknown_targets_and_functions_say_what_to_give(tmp_path):
    with pytest.raises(ScanError, match=r"no_such_file\.py: no such file"):
        scan_source(str(tmp_path / "no_such_file.py"))
    with pytest.raises(ScanError, match="no file, directory or importable module"):
        scan_source("no_such_module_anywhere_xyz")
    with pytest.raises(ScanError, match=r"no function 'nope' \(functions there: .*strong"):
        scan_source(str(DOMAINS / "math" / "verifiers.py") + ":nope")


def test_a_directory_is_scanned_file_by_file(tmp_path):
    (tmp_path / "a.py").write_text("def f(completion):\n    return eval(completion)\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("import signal\nsignal.alarm(3)\n")
    findings = scan_source(str(tmp_path))
    assert [(Path(f.file).name, f.rule) for f in findings] == [("a.py", "exec-model-output"), ("b.py", "signal-alarm")]
    assert findings[1].function == "" and findings[1].scope == []  # module-level code


_NAMES = st.sampled_from(["completion", "reference", "x", "text", "gold", "task.reference", "m"])
_EXPRESSIONS = st.one_of(
    _NAMES,
    st.builds("eval({})".format, _NAMES),
    st.builds("sympify({})".format, _NAMES),
    st.builds("re.findall(r'-?\\d+', {})[-1]".format, _NAMES),
    st.builds("{} in {}".format, _NAMES, _NAMES),
    st.builds("math.isclose({}, {}, rel_tol=1e-3)".format, _NAMES, _NAMES),
    st.builds("abs({} - {}) <= 1e-4 * abs({})".format, _NAMES, _NAMES, _NAMES),
    st.builds("{}.strip()[:5]".format, _NAMES),
    st.just("signal.alarm(2)"),
    st.just("1.0"),
)


@st.composite
def _statements(draw, depth=0):
    kind = draw(
        st.sampled_from(["assign", "return", "expr", "try", "if", "for"] if depth < 2 else ["assign", "return", "expr"])
    )
    e = draw(_EXPRESSIONS)
    if kind == "assign":
        return [f"{draw(st.sampled_from(['x', 'm', 'score']))} = {e}"]
    if kind == "return":
        return [f"return {e}"]
    if kind == "expr":
        return [e]
    body = [ln for _ in range(draw(st.integers(1, 2))) for ln in draw(_statements(depth + 1))]
    if kind == "try":
        handler = draw(st.sampled_from(["except Exception:", "except:", "except ValueError:"]))
        after = draw(st.sampled_from(["pass", "return 1.0", "return 0.0", "score = 1.0"]))
        return ["try:", *("    " + b for b in body), handler, "    " + after]
    if kind == "if":
        return [f"if {e}:", *("    " + b for b in body)]
    return [f"for x in {e}:", *("    " + b for b in body)]


@st.composite
def _sources(draw):
    params = draw(st.sampled_from(["completion, reference", "completions, solution", "a, b", "text, task"]))
    body = [ln for _ in range(draw(st.integers(1, 4))) for ln in draw(_statements())]
    return "\n".join(
        [
            "import re, math, signal",
            "from sympy import sympify",
            f"def grade({params}):",
            *("    " + b for b in body),
            "",
        ]
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sources())
def test_scanning_any_valid_source_never_raises_and_points_at_real_lines(source):
    ast.parse(source)  # the grammar only writes valid Python
    lines = source.splitlines()
    for finding in scan_text(source, "generated.py"):
        assert 1 <= finding.line <= len(lines)
        assert finding.code == lines[finding.line - 1].strip()
        assert finding.rule in {r.id for r in RULES} and finding.message


# --------------------------------------------------------------------------- confirm


def _category(name: str, accepted: int, n: int, label: str = "incorrect") -> CategoryResult:
    return CategoryResult(
        name=name,
        origin="known_bad",
        severity="high",
        label=label,
        n=n,
        accepted=accepted,
        rate=accepted / n if n else 0.0,
        ci=Interval(low=0.0, high=1.0),
        measured=n > 0,
    )


def _report(verifier: str, categories=(), security=(), threads: ProbeResult | None = None) -> Report:
    return blank_report(
        verifier,
        n_candidates=sum(c.n for c in categories),
        categories=list(categories),
        security_findings=list(security),
        checks=Checks(sample=8 if threads else 0, threads=threads),
    )


def _verdicts(findings: list[SourceFinding]) -> dict[str, tuple]:
    return {f.rule: (f.confirmed, f.evidence) for f in findings}


@pytest.fixture
def grader(tmp_path) -> Path:
    path = tmp_path / "grader.py"
    path.write_text(
        textwrap.dedent("""
        import math, re, signal
        from sympy import sympify

        def grade(completion, reference):
            signal.alarm(5)
            if reference in completion:
                return True
            got = re.findall(r"-?\\d+", completion)[-1]
            if math.isclose(float(got), float(reference), rel_tol=1e-3):
                return True
            try:
                gold = float(reference)
            except ValueError:
                return True
            return sympify(got) == gold
    """)
    )
    return path


def test_confirm_marks_confirmed_not_confirmed_and_unknown(grader):
    findings = scan_source(str(grader))
    assert rules_in(findings) == {
        "signal-alarm",
        "substring-match",
        "last-number-regex",
        "relative-tolerance",
        "unparseable-gold-rewarded",
        "exec-model-output",
    }
    fired = SecurityFinding(
        kind="executes_model_output",
        candidate_id="t1/math.security.eval_canary/eval_canary",
        task_id="t1",
        detail="a canary fired",
    )
    report = _report(
        f"{grader}:grade",
        categories=[
            _category("math.hedge.two_boxes", 5, 12),
            _category("math.hedge.or", 0, 12),
            _category("math.trap.last_number", 12, 12),
            _category("math.near_miss.rel_error_1e4", 0, 24),
            _category("math.security.eval_canary", 0, 12),
            _category("math.equivalent.dfrac", 3, 12, label="correct"),
        ],
        security=[fired],
        threads=ProbeResult(sampled=8, disagreed=8, errors=8),
    )
    got = _verdicts(confirm(findings, report))
    assert got["exec-model-output"][0] is True and "math.security.eval_canary 1" in got["exec-model-output"][1]
    assert got["substring-match"] == (
        True,
        "confirmed: math.trap.last_number accepted 12/12, math.hedge.two_boxes accepted 5/12",
    )
    assert got["last-number-regex"][0] is True
    assert got["signal-alarm"][0] is True and "8 of 8 candidates disagreed" in got["signal-alarm"][1]
    assert got["relative-tolerance"] == (
        False,
        "not confirmed: math.near_miss.rel_error_1e4, "
        "math.near_miss.rel_error_1e7 all rejected (0/24 over 1 categories)",
    )
    assert got["unparseable-gold-rewarded"][0] is None
    assert got["unparseable-gold-rewarded"][1].startswith("unknown: cannot be confirmed by behaviour")


def test_confirm_never_claims_what_was_not_measured(grader):
    findings = scan_source(str(grader))
    # Nothing relevant measured: no thread probe, no canary, no matching category.
    unrelated = [_category("math.format.empty_box", 0, 5)]
    bare = _verdicts(confirm(findings, _report(f"{grader}:grade", categories=unrelated)))
    assert all(verdict is None and evidence.startswith("unknown:") for verdict, evidence in bare.values()), bare
    assert "no thread probe ran" in bare["signal-alarm"][1]
    assert "no canary category" in bare["exec-model-output"][1]
    # All categories of a kind errored (n == 0): not measured either.
    errored = _verdicts(confirm(findings, _report(f"{grader}:grade", categories=[_category("math.hedge.or", 0, 0)])))
    assert errored["substring-match"][0] is None
    # Measured and held: False, never True.
    held = _verdicts(
        confirm(
            findings,
            _report(
                f"{grader}:grade",
                categories=[_category("math.security.sympify_canary", 0, 12), _category("math.hedge.or", 0, 12)],
                threads=ProbeResult(sampled=8, disagreed=0, errors=0),
            ),
        )
    )
    assert held["exec-model-output"] == (False, "not confirmed: no canary fired over 12 candidates in math.security.*")
    assert held["signal-alarm"][0] is False and held["substring-match"][0] is False


def test_confirm_uses_only_a_report_of_the_code_the_finding_is_in(grader, tmp_path):
    findings = scan_source(str(grader))
    elsewhere = _report(f"{tmp_path / 'other.py'}:grade", categories=[_category("math.hedge.or", 12, 12)])
    assert all(f.confirmed is None and "not code in" in f.evidence for f in confirm(findings, elsewhere))
    other_function = _report(f"{grader}:another", categories=[_category("math.hedge.or", 12, 12)])
    assert all(f.confirmed is None and "another()" in f.evidence for f in confirm(findings, other_function))
    # A module spec names the same file: verifier_audit.domains.math.verifiers:substring.
    substring = scan_source(str(DOMAINS / "math" / "verifiers.py") + ":substring")
    report = _report(
        "verifier_audit.domains.math.verifiers:substring", categories=[_category("math.shotgun.listing", 3, 4)]
    )
    assert [f.confirmed for f in confirm(substring, report)] == [True]


def test_a_real_audit_of_the_executes_output_example_confirms_the_eval():
    from verifier_audit import audit

    report = audit(f"{EXECUTES}:sympify_grader", split="train", limit=2, probe_sample=0, workers=1)
    confirmed = confirm(scan_source(str(EXECUTES)), report)
    (execs,) = [f for f in confirmed if f.rule == "exec-model-output"]
    assert execs.confirmed is True and execs.evidence.startswith("confirmed: executes_model_output on ")
    (last,) = [f for f in confirmed if f.rule == "last-number-regex"]
    paid = [
        c
        for c in report.categories
        if c.label == "incorrect"
        and c.n
        and c.accepted
        and any(c.name == p or c.name.startswith(p + ".") for p in last.categories)
    ]
    assert last.confirmed is bool(paid)  # whatever the audit saw, and nothing else
    # Every report carries the same section, confirmed against its own verdicts.
    assert [(f.rule, f.confirmed) for f in report.source_findings] == [(f.rule, f.confirmed) for f in confirmed]
    assert any("exec-model-output [critical] CONFIRMED" in line for line in source_lines(report))


def test_what_a_report_scans_for_each_kind_of_verifier():
    from verifier_audit.domains.math.verifiers import strong
    from verifier_audit.loading import VerifierSpec, from_callable

    assert scan_targets(VerifierSpec("x.py:f", "f", "pair")) == ["x.py:f"]
    assert scan_targets(VerifierSpec("x.py:R", "R", "trl", parts=("a", "b"))) == ["x.py:a", "x.py:b"]
    assert scan_targets(VerifierSpec("x.py:R", "R[a]", "trl", part="a")) == ["x.py:a"]
    assert scan_targets(VerifierSpec("http://127.0.0.1:1/r", "r", "http")) == []  # nothing here to read
    assert scan_targets(VerifierSpec("reasoning-gym", "reasoning-gym", "reasoning-gym")) == []
    (target,) = scan_targets(from_callable(strong))
    assert target.endswith("domains/math/verifiers.py:strong") and scan_source(target) == []


# --------------------------------------------------------------------------- the command


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="verifier-audit")
    scan_cli.add_parser(parser.add_subparsers(dest="command"))
    code = scan_cli.run(parser.parse_args(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_command_prints_findings_like_a_linter_and_exits_1(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, _ = _run(["scan", "examples/executes_output.py"], capsys)
    assert code == 1
    assert f"examples/executes_output.py:{_sympify_line()}:" in out
    assert "exec-model-output [critical] model output `boxes[-1]`" in out
    assert out.splitlines()[-1].startswith("verifier-audit scan: 2 finding(s) (1 critical, 1 high) in 1 file(s)")


def test_the_command_exits_0_when_clean_and_2_on_bad_input(capsys, tmp_path):
    code, out, _ = _run(["scan", str(DOMAINS / "math" / "verifiers.py") + ":strong"], capsys)
    assert code == 0 and "no findings" in out
    code, _, err = _run(["scan", str(tmp_path / "missing.py")], capsys)
    assert code == 2 and "missing.py: no such file" in err
    not_a_report = tmp_path / "report.json"
    not_a_report.write_text("{}")
    code, _, err = _run(["scan", str(EXECUTES), "--report", str(not_a_report)], capsys)
    assert code == 2 and "report.json: not a verifier-audit report" in err


def test_the_command_writes_json_and_confirms_against_a_report(capsys, tmp_path):
    fired = SecurityFinding(
        kind="executes_model_output",
        candidate_id="t/math.security.sympify_canary/x",
        task_id="t",
        detail="a canary fired",
    )
    report_path = tmp_path / "report.json"
    report_path.write_text(
        to_json(
            _report(
                f"{EXECUTES}:sympify_grader",
                categories=[_category("math.security.sympify_canary", 0, 2), _category("math.hedge.two_boxes", 0, 6)],
                security=[fired],
            )
        )
    )
    out_json = tmp_path / "out" / "findings.json"
    code, out, _ = _run(["scan", str(EXECUTES), "--report", str(report_path), "--json", str(out_json)], capsys)
    assert code == 1
    assert "    confirmed: executes_model_output on 1 candidate(s)" in out
    assert "    not confirmed: math.hedge.*" in out
    assert "1 confirmed, 1 not confirmed, 0 unknown" in out.splitlines()[-1]
    written = [SourceFinding.model_validate(d) for d in json.loads(out_json.read_text())]
    assert [(f.rule, f.confirmed) for f in written] == [("exec-model-output", True), ("last-number-regex", False)]


def test_min_severity_filters(capsys):
    code, out, _ = _run(["scan", str(DOMAINS / "math" / "verifiers.py"), "--min-severity", "medium"], capsys)
    assert code == 1 and "relative-tolerance" not in out and "substring-match" in out


def test_verifier_audit_scan_through_the_main_cli(capsys, monkeypatch, tmp_path):
    from verifier_audit.cli import main

    monkeypatch.chdir(ROOT)
    assert main(["scan", "examples/executes_output.py"]) == 1
    assert f"examples/executes_output.py:{_sympify_line()}:" in capsys.readouterr().out
    assert main(["scan", str(tmp_path / "missing.py")]) == 2
    assert "missing.py" in capsys.readouterr().err
