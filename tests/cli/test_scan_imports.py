"""The scan follows imports (issue 33, item 7): a wrapper's "nothing flagged" said nothing
of the grader module it imports, where ``parse_expr(completion)`` was. Also the false
``unparseable-gold-rewarded`` (and ``swallowed-exception``) on a sound fallback, and
the parsers a grader calls through a loop or from latex2sympy.

The graders here are written for these tests; verl's are read from the installed package.
"""

from __future__ import annotations

import argparse
import importlib.util
import textwrap
from pathlib import Path

import pytest
from report_support import blank_report

from verifier_audit.cli import scan as scan_cli
from verifier_audit.loading import VerifierSpec
from verifier_audit.models import Report
from verifier_audit.report.source import source_findings, source_lines
from verifier_audit.scan import scan_target, scan_text
from verifier_audit.scan._imports import MAX_DEPTH

# The wrapper a user points the audit at: DeepScaleR's signature, the grading imported.
WRAPPER = """
from graders.symbolic import grade


def deepscaler_reward_fn(solution_str, ground_truth, enable_llm=False):
    return grade(solution_str, ground_truth)
"""

# The grader module: it reads the last box, parses the gold, and when the gold is not an
# expression compares the text (the sound fallback); the model's answer goes to parse_expr.
GRADER = """
import re

from sympy.parsing.sympy_parser import parse_expr


def _last_box(s):
    found = re.findall(r"\\\\boxed\\{([^{}]*)\\}", s)
    return found[-1] if found else None


def grade(s, t):
    answer = _last_box(s)
    if answer is None:
        return 0.0
    try:
        gold = parse_expr(t)
    except Exception:
        if answer.strip() != t.strip():
            return 0.0
        return 1.0
    try:
        return float(parse_expr(answer) == gold)  # PARSE
    except Exception:
        return 0.0
"""


def _project(root: Path, grader: str = GRADER) -> Path:
    (root / "graders").mkdir()
    (root / "graders" / "__init__.py").write_text("")
    (root / "graders" / "symbolic.py").write_text(textwrap.dedent(grader))
    wrapper = root / "reward.py"
    wrapper.write_text(textwrap.dedent(WRAPPER))
    return wrapper


def _line_of(path: Path, marker: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if marker in line)


def test_a_finding_in_the_imported_grader_names_its_file_and_line(tmp_path):
    wrapper = _project(tmp_path)
    scan = scan_target(f"{wrapper}:deepscaler_reward_fn")
    grader = tmp_path / "graders" / "symbolic.py"
    assert [Path(f).resolve() for f in scan.files] == [wrapper.resolve(), grader.resolve()]
    (execs,) = [f for f in scan.findings if f.rule == "exec-model-output"]
    assert Path(execs.file).resolve() == grader.resolve() and execs.line == _line_of(grader, "# PARSE")
    assert execs.severity.value == "critical" and execs.function == "grade"
    # The grader's parameters are `s` and `t`: model output because the wrapper passes it.
    assert "from `solution_str`" in execs.message
    assert execs.via == f"{wrapper}:deepscaler_reward_fn"
    # ... and through grade into its own helper, one level deep
    assert any(f.rule == "last-number-regex" and f.function == "_last_box" for f in scan.findings)
    # No import followed: the wrapper alone is clean, as it was before
    assert scan_target(f"{wrapper}:deepscaler_reward_fn", follow_imports=False).findings == []


def _report(verifier: str) -> Report:
    return blank_report(verifier)


def test_the_reports_source_line_names_every_file_read(tmp_path):
    wrapper = _project(tmp_path)
    spec = f"{wrapper}:deepscaler_reward_fn"
    report = _report(spec)
    report.source_findings, report.source_files = source_findings(
        VerifierSpec(spec, "deepscaler_reward_fn", "pair"), report
    )
    head = source_lines(report)[0]
    assert head.startswith(f"source (verifier-audit scan of {wrapper}, ") and "graders/symbolic.py" in head
    assert "2 finding(s)" in head and "reached from" in "\n".join(source_lines(report))
    # The finding in the imported file is held against the report of the wrapper's function
    # (it runs that code), not "unknown: the report audits another file".
    (execs,) = [f for f in report.source_findings if f.rule == "exec-model-output"]
    assert "not code in" not in execs.evidence and "no canary category" in execs.evidence

    clean = tmp_path / "clean"
    clean.mkdir()
    wrapper = _project(clean, "def grade(s, t):\n    return float(s.strip() == t.strip())\n")
    report = _report(f"{wrapper}:deepscaler_reward_fn")
    report.source_findings, report.source_files = source_findings(
        VerifierSpec(report.verifier, "deepscaler_reward_fn", "pair"), report
    )
    assert source_lines(report)[0] == (
        f"source (verifier-audit scan of {wrapper}, {report.source_files[1]}): nothing flagged"
    )
    assert report.source_files[1].endswith("graders/symbolic.py")


SOUND_FALLBACKS = """
from sympy.parsing.sympy_parser import parse_expr

def returns(completion, reference):
    try:
        gold = parse_expr(reference)
    except Exception:
        if completion.strip() == reference.strip():
            return 1.0
        return 0.0
    return float(parse_expr(completion) == gold)

def early_exit(completion, reference):
    try:
        gold = parse_expr(reference)
    except Exception:
        if completion.strip() != reference.strip():
            return 0.0
        return 1.0
    return float(parse_expr(completion) == gold)

def sets_the_score(completion, reference):
    score = 0.0
    try:
        score = float(parse_expr(completion) == parse_expr(reference))
    except Exception:
        if completion == reference:
            score = 1.0
    return score

def tested(completions, solution):
    rewards = []
    for content, sol in zip(completions, solution):
        gold = parse_expr(sol)
        if gold is None:
            rewards.append(1.0 if content == sol else 0.0)
            continue
        rewards.append(float(parse_expr(content) == gold))
    return rewards
"""


def test_no_false_unparseable_gold_on_a_sound_fallback():
    # Before: unparseable-gold-rewarded and swallowed-exception on returns, early_exit and
    # sets_the_score (a pay under `if completion == reference` counted as a gift).
    findings = scan_text(textwrap.dedent(SOUND_FALLBACKS), "grader.py")
    assert {f.rule for f in findings} == {"exec-model-output"}


def test_a_zero_difference_is_not_a_failed_parse_of_the_gold():
    # The shape of the MATH/PRM800K grader's are_equal_under_sympy, kept by verl prime_math
    # and DeepScaleR: `simplified == 0` means the answers are equal. It was read as "the
    # gold's parse is empty" (like `len(gold_parsed) == 0`), paying: a false
    # unparseable-gold-rewarded on verl/utils/reward_score/prime_math/__init__.py.
    findings = scan_text(
        textwrap.dedent("""
        import sympy
        from sympy.parsing.sympy_parser import parse_expr

        def equal_under_sympy(reference, completion):
            same = False
            try:
                difference = parse_expr(f"({reference})-({completion})")
                simplified = sympy.simplify(difference)
                if simplified == 0:
                    same = True
            except Exception:
                pass
            return same
        """),
        "grader.py",
    )
    assert [f.rule for f in findings] == ["exec-model-output"]  # `len(gold_parsed) == 0` is still one: test_scan.py


def test_a_fallback_that_pays_everyone_is_still_flagged():
    findings = scan_text(
        textwrap.dedent("""
        from sympy.parsing.sympy_parser import parse_expr

        def pays(completion, reference):
            try:
                gold = parse_expr(reference)
            except Exception:
                if completion:              # tests the completion, not against the gold
                    return 1.0
                return 0.0
            return float(parse_expr(completion) == gold)
        """),
        "grader.py",
    )
    assert {f.rule for f in findings} == {"exec-model-output", "unparseable-gold-rewarded", "swallowed-exception"}


def test_parsers_called_through_a_loop_or_latex2sympy_are_sinks():
    findings = scan_text(
        textwrap.dedent("""
        from sympy.parsing.latex import parse_latex
        from sympy.parsing.sympy_parser import parse_expr
        from latex2sympy2_extended import latex2sympy

        def symbolic_equal(completion, reference):
            for f in [parse_latex, parse_expr, latex2sympy]:
                try:
                    return f(completion) == reference
                except Exception:
                    pass
            return False

        def latex_only(completion, reference):
            return latex2sympy(completion) == reference
        """),
        "grader.py",
    )
    assert [(f.function, f.severity.value) for f in findings] == [
        ("symbolic_equal", "critical"),  # the loop's worst: parse_expr
        ("latex_only", "medium"),
    ]
    assert "parse_expr (sympy documents that it uses eval) (as `f`)" in findings[0].message


def test_what_is_not_followed_and_the_depth_bound(tmp_path):
    # The standard library and sympy are not read; a chain deeper than MAX_DEPTH stops.
    for i in range(MAX_DEPTH + 2):
        (tmp_path / f"hop{i}.py").write_text(
            f"import json\nimport sympy\nfrom hop{i + 1} import step\n\n"
            f"def step(completion):\n    return step(sympy.sympify(json.dumps(completion)))\n"
        )
    scan = scan_target(f"{tmp_path / 'hop0.py'}:step")
    assert [Path(f).name for f in scan.files] == [f"hop{i}.py" for i in range(MAX_DEPTH + 1)]
    assert scan.unfollowed == [f"hop{MAX_DEPTH + 1}.step (depth limit)"]
    assert {Path(f.file).name for f in scan.findings} == {f"hop{i}.py" for i in range(MAX_DEPTH + 1)}


def _installed_verl() -> Path:
    found = importlib.util.find_spec("verl")
    if found is None:
        pytest.skip("verl is not installed (.ci/run installs it without its dependencies)")
    return Path(found.submodule_search_locations[0]) / "utils" / "reward_score"


def test_an_installed_verl_grader_is_scanned_through_its_import(tmp_path):
    graders = _installed_verl()
    wrapper = tmp_path / "verl_reward.py"
    wrapper.write_text(
        textwrap.dedent("""
        from verl.utils.reward_score import math_dapo, prime_math

        def prime(solution_str, ground_truth):
            return float(prime_math.compute_score(solution_str, ground_truth)[0])

        def dapo(solution_str, ground_truth):
            return math_dapo.compute_score(solution_str, ground_truth)["score"]
        """)
    )
    prime = scan_target(f"{wrapper}:prime")
    # Files inside the working directory are shown relative to it (CI's venv is in the clone).
    read = {str(Path(f).resolve()) for f in prime.files}
    assert str((graders / "prime_math" / "__init__.py").resolve()) in read
    assert str((graders / "prime_math" / "grader.py").resolve()) in read  # a relative import, followed
    execs = [f for f in prime.findings if f.rule == "exec-model-output"]
    # math_equal parse_expr()s and eval()s the extracted answer, and symbolic_equal's _parse
    # tries parse_expr on it in a loop (docs/real-verifiers.md)
    assert {(Path(f.file).name, f.function) for f in execs} == {
        ("grader.py", "math_equal"),
        ("grader.py", "symbolic_equal._parse"),
    }
    assert any("reaches eval" in f.message for f in execs)
    assert all(f.via == f"{wrapper}:prime" for f in prime.findings)
    dapo = scan_target(f"{wrapper}:dapo")
    assert [Path(f).resolve() for f in dapo.files] == [wrapper.resolve(), (graders / "math_dapo.py").resolve()]
    assert dapo.findings == []


def test_the_command_follows_the_imports_of_a_wrapper_file(tmp_path, capsys, monkeypatch):
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    parser = argparse.ArgumentParser(prog="verifier-audit")
    scan_cli.add_parser(parser.add_subparsers(dest="command"))
    assert scan_cli.run(parser.parse_args(["scan", "reward.py"])) == 1
    out = capsys.readouterr().out.splitlines()
    grader = Path("graders", "symbolic.py")
    assert any(
        line.startswith(f"{grader}:{_line_of(grader, '# PARSE')}:") and "exec-model-output [critical]" in line
        for line in out
    )
    assert all(line.endswith("(reached from reward.py:deepscaler_reward_fn)") for line in out[:-1])
    assert out[-1].endswith(f"; read reward.py, {grader}")


def test_a_package_reexport_and_a_decorator_are_followed(tmp_path):
    # `from math_verify import verify` names math_verify/__init__.py, which only re-exports
    # it from grader.py; there verify() is wrapped in @timeout, whose wrapper arms SIGALRM.
    pytest.importorskip("math_verify")
    wrapper = tmp_path / "mv_reward.py"
    wrapper.write_text(
        "from math_verify import parse, verify\n\n\n"
        "def score(solution_str, ground_truth):\n"
        "    return float(verify(parse(ground_truth), parse(solution_str)))\n"
    )
    scan = scan_target(f"{wrapper}:score")
    assert [Path(f).name for f in scan.files] == ["mv_reward.py", "grader.py", "parser.py", "utils.py"]
    (alarm,) = [f for f in scan.findings if f.rule == "signal-alarm"]
    assert alarm.file.endswith("math_verify/utils.py") and alarm.function == "timeout.decorator.wrapper"
    assert alarm.via == f"{wrapper}:score"
