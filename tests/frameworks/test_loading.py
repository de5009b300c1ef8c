"""Verifier specs and call styles."""

import textwrap

import pytest

from verifier_audit.errors import VerifierLoadError
from verifier_audit.loading import detect_style, load_function, make_caller, resolve, to_score
from verifier_audit.models import Task

TASK = Task(id="t1", domain="math", prompt="1+1?", reference="2", metadata={"data_source": "gsm8k"})


@pytest.fixture
def verifiers(tmp_path):
    path = tmp_path / "my_verifiers.py"
    path.write_text(
        textwrap.dedent("""
        def native(completion, task):
            return task.reference in completion

        def pair(completion, reference):
            return completion.strip() == reference

        def compute_score(data_source, solution_str, ground_truth, extra_info=None):
            return {"score": float(solution_str == ground_truth), "source": data_source}

        def trl_reward(completions, solution, **kwargs):
            return [1.0 if c == s else 0.0 for c, s in zip(completions, solution)]

        def one_arg(x):
            return True

        NOT_CALLABLE = 3
    """)
    )
    return path


@pytest.mark.parametrize(
    "name,style", [("native", "native"), ("pair", "pair"), ("compute_score", "verl"), ("trl_reward", "trl")]
)
def test_styles_are_detected_and_called(verifiers, name, style):
    spec = resolve(f"{verifiers}:{name}")
    assert spec.style == style
    call = make_caller(load_function(spec.spec), style)
    assert to_score(call("2", TASK)) == 1.0
    assert to_score(call("3", TASK)) == 0.0


def test_forced_style(verifiers):
    assert resolve(f"{verifiers}:pair", "native").style == "native"
    with pytest.raises(VerifierLoadError, match="expected one of"):
        resolve(f"{verifiers}:pair", "weird")


def test_module_spec():
    spec = resolve("operator:eq")
    assert spec.style == "pair"


@pytest.mark.parametrize(
    "spec,message",
    [
        ("nocolon", "expected 'package.module:function'"),
        ("does/not/exist.py:f", "no file at does/not/exist.py"),
        ("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz'"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(VerifierLoadError, match=message):
        resolve(spec)


def test_missing_function_lists_what_is_there(verifiers):
    with pytest.raises(VerifierLoadError) as err:
        resolve(f"{verifiers}:nope")
    assert "callables defined there: compute_score, native, one_arg, pair, trl_reward" in str(err.value)


def test_not_callable_and_undetectable(verifiers):
    with pytest.raises(VerifierLoadError, match="not a function"):
        resolve(f"{verifiers}:NOT_CALLABLE")
    with pytest.raises(VerifierLoadError, match="pass --style"):
        detect_style(lambda x: x)


@pytest.mark.parametrize("value,score", [(True, 1.0), (False, 0.0), (0.7, 0.7), (1, 1.0), ({"score": 0.25}, 0.25)])
def test_scores(value, score):
    assert to_score(value) == score


@pytest.mark.parametrize("value", [None, "yes", float("nan"), [1.0]])
def test_non_scores_are_errors(value):
    with pytest.raises(TypeError):
        to_score(value)


COUNTED = """
import os, uuid
with open(os.environ["VA_TEST_IMPORTS"], "a") as fh:  # one line per import (each worker is PID 2 of its own)
    fh.write(f"{uuid.uuid4()}\\n")

def first(completion, reference):
    return 1.0

def second(completion, reference):
    return 0.0
"""


def test_specs_of_one_module_are_read_by_one_interpreter_and_other_modules_by_their_own(tmp_path, monkeypatch):
    """At the ``process`` level, where the import-time write that counts them reaches the
    host (at ``namespaces`` it lands in the worker's private /tmp: tests/security/)."""
    from functools import partial

    from verifier_audit.engine.inspection import resolve_many as confined

    resolve_many = partial(confined, isolation="process")

    log = tmp_path / "imports.log"
    monkeypatch.setenv("VA_TEST_IMPORTS", str(log))
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(COUNTED)
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    logged = ("VA_TEST_IMPORTS",)  # beyond the allow-list of the inspecting interpreter's environment
    specs = resolve_many(
        [(f"{a}:first", None, None), (f"{a}:second", None, None), (f"{b}:first", None, None)], pass_env=logged
    )
    assert [(s.name, s.style) for s in specs] == [("first", "pair"), ("second", "pair"), ("first", "pair")]
    pids = log.read_text().split()
    assert len(pids) == 2 and len(set(pids)) == 2  # a.py imported once for both specs, b.py apart
    # A missing name is that spec's own error, raised in order; the module's others still load.
    with pytest.raises(VerifierLoadError, match="has no 'third'"):
        resolve_many([(f"{b}:second", None, None), (f"{b}:third", None, None)], pass_env=logged)
    assert resolve(f"{b}:second").style == "pair"
