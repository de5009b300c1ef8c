"""Call-style detection by signature first (issue 33, item 3).

DeepScaleR's ``deepscaler_reward_fn(solution_str, ground_truth, enable_llm=False)`` was
picked as verl by its parameter name ``solution_str``, so every call (verl's four
positional arguments) raised TypeError. verl's style now needs its call to bind; a
function of (solution, ground truth) is the pair style whatever its names. The graders
here are written for the test, in the shape of the public ones (agentica-project/rllm
``deepscaler/rewards/math_reward.py``); verl's own are read from the installed package.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import textwrap
from pathlib import Path

import pytest

from verifier_audit.api import audit
from verifier_audit.loading import detect_style, picked_by, resolve

REPO = Path(__file__).resolve().parents[2]
GSM = str(REPO / "examples" / "verifier-repo" / "data" / "gsm_style.jsonl")

DEEPSCALER_LIKE = textwrap.dedent("""
    import re

    def deepscaler_reward_fn(solution_str, ground_truth, enable_llm=False):
        # grades the text after the reasoning: the last number must equal the gold
        answer = solution_str.split("</think>")[-1]
        numbers = re.findall(r"-?\\d+", answer.replace(",", ""))
        return 1.0 if numbers and numbers[-1] == str(ground_truth).strip() else 0.0
""")


def _signature(text: str):
    scope: dict = {}
    exec(f"def fn({text}):\n    return 1.0\n", scope)  # noqa: S102 - a signature written in this test
    return scope["fn"]


@pytest.mark.parametrize(
    "signature,style",
    [
        ("solution_str, ground_truth, enable_llm=False", "pair"),  # DeepScaleR's
        ("solution_str, ground_truth, method='strict', format_score=0.0, score=1.0", "pair"),  # verl gsm8k's
        ("solution_str, ground_truth", "pair"),
        ("data_source, solution_str, ground_truth, extra_info=None", "verl"),
        ("data_source, solution_str, ground_truth, extra_info, step=0", "verl"),
        ("prompt, solution_str, ground_truth, extra_info=None, **kwargs", "verl"),
        ("data_sources, solution_strs, ground_truths, extra_infos, **kwargs", "verl"),
        ("*, data_sources, solution_strs, ground_truths, extra_infos", "verl"),
        ("solution_strs, ground_truths", "pair"),  # the batched names, but not verl's keyword call
    ],
)
def test_verl_needs_its_call_to_bind(signature, style):
    fn = _signature(signature)
    assert detect_style(fn) == style
    if style == "verl":
        assert picked_by(fn, style, False).startswith("picked by its signature (it takes verl's call")


def _installed(relative: str):
    """A verl grader module, loaded by path (verl's package __init__ imports Ray)."""
    found = importlib.util.find_spec("verl")
    if found is None:
        pytest.skip("verl is not installed (.ci/run installs it without its dependencies)")
    path = Path(found.submodule_search_locations[0]) / "utils" / "reward_score" / relative
    spec = importlib.util.spec_from_file_location(f"_verl_grader_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_real_verl_graders_keep_their_styles():
    # verl's routers and graders that take verl's call stay verl; its two-argument graders
    # (gsm8k, math_dapo), which the router itself calls as (solution_str, ground_truth),
    # are pair: called with four arguments they raised TypeError.
    rlla = _installed("rlla.py")
    gsm8k = _installed("gsm8k.py")
    dapo = _installed("math_dapo.py")
    assert detect_style(rlla.compute_score) == "verl"
    assert detect_style(gsm8k.compute_score) == "pair"
    assert detect_style(dapo.compute_score) == "pair"
    # default_compute_score's signature, read from the installed file without importing verl
    init = Path(inspect.getfile(rlla)).parent / "__init__.py"
    source = init.read_text(encoding="utf-8")
    start = source.index("def default_compute_score(")
    header = source[start : source.index("):", start) + 2]
    scope: dict = {}
    exec(header + "\n    return 1.0\n", scope)  # noqa: S102 - verl's own signature, body replaced
    assert detect_style(scope["default_compute_score"]) == "verl"


def test_a_deepscaler_shaped_reward_is_audited_without_errors(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    path = tmp_path / "deepscaler_like.py"
    path.write_text(DEEPSCALER_LIKE)
    spec = resolve(f"{path}:deepscaler_reward_fn")
    assert spec.style == "pair"
    report = audit(f"{path}:deepscaler_reward_fn", suite=GSM, limit=1, probe_sample=0, workers=1, cache=False)
    assert report.style == "pair"
    assert report.n_candidates > 0 and report.errors == 0 and report.error_rate == 0.0
