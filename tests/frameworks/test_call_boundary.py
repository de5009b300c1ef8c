"""Usage errors that used to look like a failed gate (issue 31, item 3).

A verifier whose signature its call style cannot call -- ``def f(a, b, c)``, verl's four
arguments to ``compute_score(solution_str, ground_truth)``, a TRL reward asking for a
column the suite lacks -- is exit 2 before the audit, naming the style, how it was picked,
the signature and what was passed (frameworks/_binding.py); one that binds but raises
TypeError in its body is audited as before, and its format line no longer says "every
answer is rejected". A GSM8K file read as ours, its worked solutions mapped to the
reference, is exit 2 suggesting ``--format gsm8k`` (suites.py).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.errors import InputError, VerifierLoadError
from verifier_audit.frameworks._binding import check_calls, valid_reads
from verifier_audit.loading import from_callable, make_caller
from verifier_audit.models import Task
from verifier_audit.suites import load_suite

VERIFIERS = {
    "three.py": "def f(a, b, c):\n    return 1.0\n",
    # written for two arguments: auto picks pair (issue 33); --style verl cannot call it
    "verl_two.py": "def compute_score(solution_str, ground_truth):\n"
    "    return float(solution_str.strip() == ground_truth.strip())\n",
    "trl_column.py": "def reward(completions, difficulty, **kwargs):\n    return [1.0 for _ in completions]\n",
    # binds; the TypeError is the verifier's own, raised in its body: audited, not a usage error
    "body.py": "def grade(completion, reference):\n    return len(completion) + None\n",
    "exact.py": "def exact(completion, reference):\n    return float(completion.strip().endswith(reference))\n",
}


@pytest.fixture(scope="module")
def here(tmp_path_factory):
    root = tmp_path_factory.mktemp("call_boundary")
    for name, source in VERIFIERS.items():
        (root / name).write_text(source)
    rows = [
        {
            "question": f"Tom has {i} apples and buys {i + 2} more. How many apples does he have?",
            "answer": f"He has {i} + {i + 2} = <<{i}+{i + 2}={2 * i + 2}>>{2 * i + 2} apples.\n#### {2 * i + 2}",
        }
        for i in range(1, 8)
    ]
    (root / "gsm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def _usage_error(result) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout[-2000:], result.stderr[-2000:])
    assert "gate" not in result.stdout and "category" not in result.stdout  # nothing was audited
    return " ".join(result.stderr.split())


def test_three_parameters_under_pair(cli, here):
    err = _usage_error(cli("run", "--limit", "2", "--no-progress", "--verifier", f"{here}/three.py:f"))
    assert "style pair, picked by its signature" in err
    assert "its signature is f(a, b, c)" in err and "missing a required argument: 'c'" in err
    assert "2 positional arguments (completion, reference)" in err
    assert f"{here}/three.py line 1" in err and "Fix: " in err and "wrapper" in err


def test_verl_given_for_two_parameters(cli, here):
    err = _usage_error(
        cli(
            "run", "--limit", "2", "--no-progress", "--style", "verl", "--verifier", f"{here}/verl_two.py:compute_score"
        )
    )
    assert "style verl, given with --style" in err
    assert "4 positional arguments (data_source, solution_str, ground_truth, extra_info)" in err
    assert "its signature is compute_score(solution_str, ground_truth): too many positional arguments" in err
    assert "Fix: --style pair" in err  # the style that calls it as written


def test_trl_reward_asking_for_a_missing_column(cli, here):
    err = _usage_error(cli("run", "--limit", "2", "--no-progress", "--verifier", f"{here}/trl_column.py:reward"))
    assert "style trl, picked by its parameter completions" in err
    assert "reward(completions, difficulty, **kwargs)" in err and "missing a required argument: 'difficulty'" in err
    columns = re.search(r"the rows of suite math have ([^.]+)\.", err)
    assert columns and "difficulty" not in columns.group(1)
    assert {"prompts", "reference", "answer", "ground_truth"} <= set(columns.group(1).split(", "))
    assert "It asks for the column difficulty" in err and '"metadata"' in err


def test_a_type_error_in_the_body_is_audited(cli, here):
    result = cli("run", "--limit", "2", "--no-progress", "--verifier", f"{here}/body.py:grade")
    assert result.returncode in (0, 1), result.stderr[-2000:]
    assert "TypeError" in result.stdout and "gate:" in result.stdout
    # Every call raised: the format line must not call that rejecting every answer (item 3)
    line = next(x for x in result.stdout.splitlines() if x.startswith("answer formats:"))
    assert "every answer is rejected" not in line and "unknown" in line and "raised an error" in line


def test_gsm8k_read_as_ours_suggests_its_format(cli, here):
    suite = str(here / "gsm.jsonl")
    err = _usage_error(
        cli(
            "run",
            "--limit",
            "2",
            "--no-progress",
            "--suite",
            suite,
            "--field",
            "prompt=question",
            "--field",
            "reference=answer",
        )
    )
    assert (
        f"--field reference=answer: 7 of 7 references are worked solutions ending in '#### n' "
        f"(line 1 of {suite}): use --format gsm8k, which reads the number after ####"
    ) in err
    err = _usage_error(cli("run", "--limit", "2", "--no-progress", "--suite", suite))
    assert f"{suite}:1: not a valid task" in err and "read it with --format gsm8k" in err
    ok = cli(
        "run",
        "--limit",
        "2",
        "--no-progress",
        "--suite",
        suite,
        "--format",
        "gsm8k",
        "--verifier",
        f"{here}/exact.py:exact",
    )
    assert ok.returncode in (0, 1) and "gate" in ok.stdout, ok.stderr[-2000:]


# ------------------------------------------------------------------ without the CLI


def _write(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_math_solutions_mapped_to_the_reference(tmp_path):
    rows = [{"problem": f"What is {i} + {i}?", "solution": f"Adding, we get $\\boxed{{{2 * i}}}$."} for i in range(5)]
    rows.append({"problem": "What is 1?", "solution": "1"})
    path = _write(tmp_path, "math.jsonl", rows)
    with pytest.raises(
        InputError,
        match=re.escape(
            f"--field reference=solution: 5 of 6 references are worked "
            f"solutions with the answer in \\boxed{{}} (line 1 of {path}): "
            "use --format math"
        ),
    ):
        load_suite(path, fields=["prompt=problem", "reference=solution"])


def test_a_spider_list_read_as_jsonl_suggests_spider(tmp_path):
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([{"db_id": "concert", "query": "SELECT 1", "question": "one?"}] * 3, indent=2))
    with pytest.raises(
        InputError,
        match=r"dev\.json:1: invalid JSON.*3 of 3 rows have the fields db_id, query, "
        r"question, as spider rows do \(entry 1 of .*\): read it with --format spider",
    ):
        load_suite(str(path))


def test_a_suite_of_ours_is_not_flagged(tmp_path):
    rows = [
        {"prompt": "p", "reference": "72"},
        {"prompt": "q", "reference": "The answer\n#### 5"},
        {"prompt": "r", "reference": "\\frac{1}{2}"},
    ]
    assert len(load_suite(_write(tmp_path, "ours.jsonl", rows)).tasks) == 3  # one worked solution of three


def test_an_adapter_written_as_a_decorator_binds_with_its_own_parameters():
    import functools

    def two(solution_str, ground_truth):
        return 1.0

    @functools.wraps(two)
    def adapted(data_source, solution_str, ground_truth, extra_info=None):
        return two(solution_str, ground_truth)

    task = Task(id="t", domain="math", prompt="p", reference="1")
    check_calls([from_callable(adapted, "verl")], [task], "suite.jsonl")  # binds: no error
    with pytest.raises(VerifierLoadError, match=r"two\(solution_str, ground_truth\): too many positional"):
        check_calls([from_callable(two, "verl")], [task], "suite.jsonl")


def test_forged_signatures_from_the_inspecting_process_are_dropped():
    good = {"name": "f", "signature": "(a)", "params": [["a", 1, False]], "file": "", "line": 0}
    assert valid_reads([good, {"name": 1}, {"name": "g", "signature": "()", "params": [["a", "x", 0]]}, 5]) == (good,)
    assert valid_reads("junk") == ()


# Property: the check says "does not bind" exactly when the style's real call raises
# TypeError at the boundary (the function's body returns what the style expects).

_NAMES = (
    "a",
    "b",
    "completion",
    "reference",
    "task",
    "data_source",
    "solution_str",
    "ground_truth",
    "extra_info",
    "data_sources",
    "solution_strs",
    "ground_truths",
    "extra_infos",
    "completions",
    "prompts",
    "answer",
    "difficulty",
)


@st.composite
def signatures(draw):
    names = draw(st.lists(st.sampled_from(_NAMES), unique=True, max_size=5))
    kinds = [draw(st.sampled_from(("pos", "any", "kw"))) for _ in names]
    order = {"pos": 0, "any": 1, "kw": 2}
    params = sorted(zip(names, kinds), key=lambda p: order[p[1]])
    text, defaulted = [], False
    for i, (name, kind) in enumerate(params):
        if kind == "kw" and (i == 0 or params[i - 1][1] != "kw"):
            text.append("*args" if draw(st.booleans()) else "*")
        default = draw(st.booleans()) if kind == "kw" or not defaulted else True
        defaulted = defaulted or (default and kind != "kw")
        text.append(f"{name}=None" if default else name)
        if kind == "pos" and (i + 1 == len(params) or params[i + 1][1] != "pos"):
            text.append("/")
    if draw(st.booleans()):
        text.append("**kwargs")
    return ", ".join(text)


@given(signatures(), st.sampled_from(("pair", "native", "verl", "trl")))
def test_the_check_agrees_with_the_call(signature, style):
    listed = style == "trl" or (style == "verl" and "solution_strs" in signature)
    scope: dict = {}
    exec(f"def fn({signature}):\n    return {'[1.0]' if listed else '1.0'}\n", scope)  # noqa: S102 - a signature drawn by Hypothesis
    fn = scope["fn"]
    spec = from_callable(fn, style)
    task = Task(id="t", domain="math", prompt="p", reference="1")
    try:
        make_caller(fn, spec)("1", task)
        raised = False
    except TypeError:
        raised = True
    try:
        check_calls([spec], [task], "suite.jsonl")
        flagged = False
    except VerifierLoadError as exc:
        flagged = True
        assert f"style {style}, given with --style" in str(exc) and f"fn({signature})" in str(exc)
    assert flagged == raised, (signature, style)


def test_the_api_refuses_it_too():
    from verifier_audit import audit

    def f(a, b, c):
        return 1.0

    with pytest.raises(
        VerifierLoadError, match=r"style pair, picked by its signature .* its signature is f\(a, b, c\)"
    ):
        audit(f, limit=1, probe_sample=0)
