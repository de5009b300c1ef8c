"""Inspect AI scorers as verifiers: Inspect's own built-in scorers and a user's @scorer."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from verifier_audit.api import audit  # noqa: E402
from verifier_audit.loading import make_caller, resolve, to_score  # noqa: E402
from verifier_audit.models import Task  # noqa: E402

GSM = str(Path(__file__).resolve().parents[2] / "examples" / "verifier-repo" / "data" / "gsm_style.jsonl")

TASK = Task(id="t1", domain="math", prompt="What is 6 x 7?", reference="42", metadata={"unit": "apples"})


@pytest.fixture(autouse=True)
def _own_import_path(monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))  # a loaded file's folder stays out of later tests' path


def _scores(spec, texts):
    call = make_caller(spec.load(), spec)
    return [to_score(call(text, TASK)) for text in texts]


def test_builtin_match_is_detected_and_pays_a_suffix():
    spec = resolve("inspect_ai.scorer:match")
    assert spec.style == "inspect"
    # match() compares the end of the answer: 142 ends with 42 (a real hole of the default).
    assert _scores(spec, ["The answer is 42", "not 42 but 43", "The answer is 142"]) == [1.0, 0.0, 1.0]


def test_factory_arguments_come_from_options():
    anywhere = resolve("inspect_ai.scorer:match", options=["arg.location=any"])
    assert _scores(anywhere, ["not 42 but 43"]) == [1.0]
    numeric = resolve("inspect_ai.scorer:match", options=["arg.numeric=true"])
    assert _scores(numeric, ["The answer is 142"]) == [0.0]


def test_user_scorer_sees_the_sample_and_dict_values_need_a_key(tmp_path):
    path = tmp_path / "my_scorers.py"
    path.write_text(
        textwrap.dedent("""
        from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
        from inspect_ai.solver import TaskState

        @scorer(metrics=[accuracy()])
        def exact_with_unit():
            async def score(state: TaskState, target: Target) -> Score:
                ok = state.output.completion.strip() == f"{target.text} {state.metadata['unit']}"
                return Score(value=CORRECT if ok else INCORRECT, answer=state.output.completion)
            return score

        @scorer(metrics={"right": [accuracy()], "short": [accuracy()]})
        def two_values():
            async def score(state, target):
                return Score(value={"right": float(target.text in state.output.completion), "short": 1.0})
            return score
    """)
    )
    spec = resolve(f"{path}:exact_with_unit")
    assert spec.style == "inspect"
    assert _scores(spec, ["42 apples", "42"]) == [1.0, 0.0]
    with pytest.raises(TypeError, match="key=NAME"):
        _scores(resolve(f"{path}:two_values"), ["42"])
    assert _scores(resolve(f"{path}:two_values", options=["key=right"]), ["41", "42"]) == [0.0, 1.0]


def test_a_plain_function_is_never_taken_for_a_scorer(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("async def score(state, target):\n    return 1\n")
    assert resolve(f"{path}:score").style == "pair"  # two parameters: a plain pair-style function
    assert resolve(f"{path}:score", "inspect").style == "inspect"  # unless forced


@pytest.mark.slow
def test_inspects_match_scorer_audited_pays_hedges_that_end_on_the_answer():
    report = audit("inspect_ai.scorer:match", suite=GSM, limit=6, probe_sample=0, workers=2, cache=False)
    by_name = {c.name: c for c in report.categories}
    assert report.style == "inspect" and report.error_rate == 0.0
    assert by_name["math.near_miss.reciprocal"].accepted == by_name["math.near_miss.reciprocal"].n > 0
    assert by_name["math.hedge.or"].accepted > 0
    assert not report.gate.passed
