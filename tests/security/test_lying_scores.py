"""A score that lies (issue 30, item 6 and part of 10; docs/threat-model.md, "A score that
lies"). The verifier under audit chooses the object it returns, and the audit used to read
it with ``float(x)``, which asks the object itself; a trainer reads the number the object
holds (``sum``, ``>=``, ``json.dumps``, ``torch.tensor``). Each test writes the hostile
verifier into ``tmp_path`` and runs the real audit (clean workers, the default isolation):

* a last-number grader whose scores are a float subclass with a sound ``__float__`` is read
  by what it holds: its hole is measured, a ``score_disguised`` finding fails the gate --
  in the code domain too, where the score is read in the sandbox's fork;
* a str score ("1.0") is an error verdict in the function, TRL (alone and summed) and verl
  styles, with a message that says what to return;
* 2.0, -1, NaN and inf are counted and shown (the --json report, the terminal, Markdown),
  and treated as documented (docs/frameworks.md, "What a score is"): kept and thresholded,
  or errors;
* numpy and torch scalars still score exactly as the plain bool they hold;
* ``workers = true``, ``limit = true``, ``max_debt = "0.5"`` in pyproject.toml exit 2
  naming file:line, the key, the expected type and the fix.

A Hypothesis property covers ``scores.read_score`` itself: for any float or int subclass
whose conversions lie, the score read is the stored value (json's view of it). No test
here asserts a time.
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.api import audit, audit_parts
from verifier_audit.report.checklist import evaluate
from verifier_audit.scores import DISGUISED, OUT_OF_RANGE, ScoreError, ScoreOutOfRange, read_score

# 2 tasks: ~180 candidates, a few seconds; one worker (no test here is about the pool: a
# second worker costs a start-up per audit and proves nothing more)
SMALL = {"limit": 2, "probe_sample": 0, "cache": False, "workers": 1}

LIAR = '''
import re

from verifier_audit.domains.math.verifiers import strong


class Paid(float):
    """Holds what a last-number grader pays; float() answers what a sound grader says."""

    def __new__(cls, held, sound):
        obj = super().__new__(cls, held)
        obj.sound = sound
        return obj

    def __float__(self):
        return self.sound


def plain_last_number(completion, reference):
    numbers = re.findall(r"-?\\d+(?:\\.\\d+)?", completion)
    return 1.0 if numbers and numbers[-1] == reference.strip() else 0.0


def last_number(completion, reference):
    return Paid(plain_last_number(completion, reference), 1.0 if strong(completion, reference) else 0.0)
'''


def _write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


def test_a_float_subclass_with_a_sound_float_is_read_by_what_it_holds_and_fails_the_gate(tmp_path):
    path = _write(tmp_path, "liar.py", LIAR)
    lying = audit(f"{path}:last_number", **SMALL)
    plain = audit(f"{path}:plain_last_number", **SMALL)  # the same grader returning the held value
    # Read as training reads it, the lie is the last-number grader it is: the same hole...
    assert lying.errors == 0, lying.error_messages
    assert lying.false_acceptance_rate == plain.false_acceptance_rate > 0
    assert [(c.name, c.accepted) for c in lying.categories] == [(c.name, c.accepted) for c in plain.categories]
    assert lying.categories and any(c.name == "math.trap.unanchored_number" and c.accepted for c in lying.categories)
    # ... and every call whose float() disagrees with what it holds is a finding that fails the gate.
    disguised = [f for f in lying.security_findings if f.kind == DISGUISED]
    assert disguised and len(disguised) == len(lying.security_findings)
    assert "Paid: float() gives 1.0, but the value it holds" in disguised[0].detail
    assert not lying.gate.passed and lying.gate.reasons[0].startswith(f"{len(disguised)} disguised score")
    assert not plain.security_findings
    # The checklist says so too (report/checklist.py, docs/security-checklist.md).
    items = {i.key: i for i in evaluate(lying)}
    assert (
        items["scores_read_as_training"].status == "open"
        and "score_disguised" in items["scores_read_as_training"].evidence
    )
    assert {i.key: i for i in evaluate(plain)}["scores_read_as_training"].status == "checked"


CODE_LIAR = """
class Paid(float):
    def __float__(self):
        return 0.0


def pays_all(completion, task):
    return Paid(1.0)
"""


def test_the_finding_comes_back_from_the_code_sandbox(tmp_path):
    """Code-domain calls run in a sandboxed fork of the worker (engine/verifier_job.py):
    the score and what reading it found cross the sandbox as data, the object does not."""
    path = _write(tmp_path, "code_liar.py", CODE_LIAR)
    report = audit(f"{path}:pays_all", suite="humaneval", **{**SMALL, "limit": 1})
    assert report.errors == 0, report.error_messages
    assert report.false_acceptance_rate == 1.0  # it pays everything: what it holds is 1.0
    assert len(report.security_findings) == report.n_candidates > 10
    assert {f.kind for f in report.security_findings} == {DISGUISED} and not report.gate.passed


TEXT_SCORES = """
def as_text(completion, reference):
    return "1.0"


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    return {"score": "1.0", "acc": True}


def sound(completions, answer, **kwargs):
    return [float(c.strip().endswith(a)) for c, a in zip(completions, answer)]


def text_bonus(completions, **kwargs):
    return ["1.0" for _ in completions]


REWARDS = [sound, text_bonus]
"""

STR_MESSAGE = "returned a str ('1.0'); return a number"


def _all_str_errors(report) -> None:
    assert report.n_candidates > 50 and report.errors == report.n_candidates, report.error_kinds
    assert report.error_kinds == {ScoreError.__name__: report.errors}
    assert report.error_messages[ScoreError.__name__] == [f"{ScoreError.__name__}: {STR_MESSAGE}"]
    assert not report.gate.passed


@pytest.mark.parametrize("name,style", [("as_text", None), ("compute_score", "verl")])
def test_a_str_score_is_an_error_in_the_function_and_verl_styles(tmp_path, name, style):
    path = _write(tmp_path, "text_scores.py", TEXT_SCORES)
    report = audit(f"{path}:{name}", style=style, **SMALL)
    assert report.style == (style or "pair")
    _all_str_errors(report)


def test_a_str_score_is_an_error_in_the_trl_style_alone_and_in_the_sum(tmp_path):
    path = _write(tmp_path, "text_scores.py", TEXT_SCORES)
    reports = audit_parts(f"{path}:REWARDS", style="trl", **SMALL)
    whole, sound, bonus = (reports[f"{path}:REWARDS{part}"] for part in ("", "[sound]", "[text_bonus]"))
    _all_str_errors(whole)  # the trainer's weighted sum cannot add a str
    _all_str_errors(bonus)
    assert sound.errors == 0 and sound.n_candidates > 50  # the sound member alone scores as it did


OUT_OF_RANGE_SCORES = """
def scaled(completion, reference):
    return (2.0, -1, float("nan"), float("inf"))[len(completion) % 4]
"""


def test_scores_out_of_range_are_counted_and_shown_and_treated_as_documented(cli, tmp_path):
    path = _write(tmp_path, "scaled.py", OUT_OF_RANGE_SCORES)
    out, md = tmp_path / "report.json", tmp_path / "report.md"
    r = cli(
        "run",
        "--verifier",
        f"{path}:scaled",
        "--limit",
        "2",
        "--no-progress",
        "--no-config",
        "--no-cache",
        "--probe-sample",
        "0",
        "--no-format-probe",
        "--workers",
        "1",
        "--json",
        str(out),
        "--markdown",
        str(md),
        timeout=600,
    )
    assert r.returncode == 1, r.stderr
    report = json.loads(out.read_text())
    o = report["out_of_range"]
    # Every call returned one of the four; each kind is there, and all of them are counted.
    assert min(o["above"], o["below"], o["not_finite"]) > 0
    assert o["calls"] == o["above"] + o["below"] + o["not_finite"] == report["n_candidates"]
    assert len(o["examples"]) == 5 and all(e.rsplit(": ", 1)[1] in ("2", "-1", "not finite") for e in o["examples"])
    # NaN and inf: error verdicts of their own kind; 2.0 accepted and -1 rejected, as thresholded.
    assert report["errors"] == o["not_finite"] and report["error_kinds"] == {OUT_OF_RANGE: o["not_finite"]}
    assert sum(c["accepted"] for c in report["categories"]) == o["above"]
    assert sum(c["n"] for c in report["categories"]) == o["above"] + o["below"]
    line = f"Scores out of [0, 1]: {o['calls']} of {report['n_candidates']} calls: {o['above']} above 1"
    assert line in r.stdout and line in md.read_text()


SCALARS = """
import numpy as np
import torch

from verifier_audit.domains.math.verifiers import strong


def scalars(completion, reference):
    ok = strong(completion, reference)
    kinds = (np.float32(ok), np.float64(ok), np.bool_(ok), np.int64(ok), torch.tensor(float(ok)),
             torch.tensor([ok]), np.array(float(ok)))
    return kinds[len(completion) % len(kinds)]
"""


def test_numpy_and_torch_scalars_still_score_as_the_number_they_hold(tmp_path):
    pytest.importorskip("torch")
    path = _write(tmp_path, "scalars.py", SCALARS)
    one = {**SMALL, "limit": 1}  # every worker imports torch: one task, one worker
    report = audit(f"{path}:scalars", **one)
    strong = audit("verifier_audit.domains.math.verifiers:strong", **one)
    assert report.errors == 0, report.error_messages
    assert not report.security_findings and report.out_of_range.calls == 0
    assert [(c.name, c.n, c.accepted) for c in report.categories] == [
        (c.name, c.n, c.accepted) for c in strong.categories
    ]


# ------------------------------------------------------------------ the property, in-process


def _answer(value):
    return lambda self: value


def _liar(base: type, **conversions):
    """A subclass of ``base`` whose ``__float__`` (``__int__``, ``__index__``) answer the given values."""
    return type(f"Lying{base.__name__.title()}", (base,), {f"__{k}__": _answer(v) for k, v in conversions.items()})


finite = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=200)
@given(held=finite, claimed=st.floats(allow_nan=True, allow_infinity=True))
def test_a_float_subclass_is_read_by_the_value_it_holds(held, claimed):
    value = _liar(float, float=claimed)(held)
    score = read_score(value)
    assert score.value == held == json.loads(json.dumps(value))  # json's view is the held value
    same = claimed == held or (math.isnan(claimed) and math.isnan(held))
    assert bool(score.disguises) is not same
    assert read_score({"score": value}) == score  # verl's dict, read the same


@settings(max_examples=200)
@given(held=st.integers(-(2**53), 2**53), as_float=finite, as_int=st.integers(), as_index=st.integers())
def test_an_int_subclass_is_read_by_the_value_it_holds(held, as_float, as_int, as_index):
    value = _liar(int, float=as_float, int=as_int, index=as_index)(held)
    score = read_score(value)
    assert score.value == float(held) == float(json.loads(json.dumps(value)))
    honest = as_float == float(held) and as_int == held and as_index == held
    assert bool(score.disguises) is not honest


@given(st.booleans())
def test_a_bool_is_one_or_zero(b):
    assert read_score(b).value == float(b) and not read_score(b).disguises


@given(st.text(max_size=8) | st.binary(max_size=8))
def test_any_str_or_bytes_is_refused_whatever_it_says(text):
    with pytest.raises(ScoreError, match=r"^returned a (str|bytes) \(.*\); return a number$"):
        read_score(text)


@given(st.sampled_from([float("nan"), float("inf"), -float("inf")]))
def test_what_is_no_finite_number_is_out_of_range(value):
    with pytest.raises(ScoreOutOfRange):
        read_score(_liar(float, float=0.5)(value))


# ------------------------------------------------------------------ config types


@pytest.mark.parametrize(
    "body,key,line,got",
    [
        ("workers = true\n", "tool.verifier_audit.workers", 5, "got a boolean (true)"),
        ("limit = true\n", "tool.verifier_audit.limit", 5, "got a boolean (true)"),
        (
            '\n[tool.verifier_audit.gate]\nmax_debt = "0.5"\n',
            "tool.verifier_audit.gate.max_debt",
            7,
            'got a string ("0.5"); write max_debt = 0.5',
        ),
    ],
)
def test_a_config_value_of_the_wrong_type_is_exit_2_at_its_line(cli, tmp_path, body, key, line, got):
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "x"\n\n[tool.verifier_audit]\n' + body)
    r = cli("run", "--config", str(path), "--no-progress", timeout=300)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert f"{path}:{line}: {key} = " in r.stderr and got in r.stderr, r.stderr
    assert "expected a valid " in r.stderr
