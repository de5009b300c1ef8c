"""The trl and verl styles: rewards called and combined the way their frameworks do.

The TRL acceptance case: two reward functions, each sound alone at the default threshold,
whose weighted sum (``GRPOConfig.reward_weights``, read from a real ``trl.GRPOConfig``)
pays wrong answers. The verl cases: the batched ``compute_score`` form, ``extra_info``,
``data_source`` routing, and verl's own GSM8K grader loaded from the installed package.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import textwrap
from pathlib import Path

import pytest

from verifier_audit.api import audit, audit_parts
from verifier_audit.errors import VerifierLoadError
from verifier_audit.loading import from_callable, make_caller, resolve, to_score, with_parts
from verifier_audit.models import Task

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_REPO = REPO / "examples" / "verifier-repo"
GSM = str(EXAMPLE_REPO / "data" / "gsm_style.jsonl")
TASK = Task(
    id="t1",
    domain="math",
    prompt="What is 40 + 2?",
    reference="42",
    split="train",
    metadata={"data_source": "openai/gsm8k", "level": 3},
)


@pytest.fixture(autouse=True)
def _own_import_path(monkeypatch):
    """Loading a file's verifier here puts its folder on sys.path (as a script's would be);
    verl's grader folder holds a math_verify.py that must not shadow the real package for
    the tests that run after these in the same process."""
    monkeypatch.setattr(sys, "path", list(sys.path))


def _call(spec, text, task=TASK):
    return make_caller(spec.load(), spec)(text, task)


@pytest.fixture(scope="module")
def grpo_module(tmp_path_factory):
    """The example repository's two rewards, with weights from a real GRPOConfig."""
    pytest.importorskip("trl")
    path = tmp_path_factory.mktemp("grpo") / "train_rewards.py"
    path.write_text(
        textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(EXAMPLE_REPO)!r})
        from trl import GRPOConfig
        from grpo_rewards import accuracy_reward, format_reward

        CONFIG = {{"reward_funcs": [accuracy_reward, format_reward],
                   "args": GRPOConfig(output_dir="unused", reward_weights=[1.0, 0.5], use_cpu=True, bf16=False,
                                      report_to="none")}}
    """)
    )
    return path


def test_grpo_config_weights_are_read_and_combined(grpo_module):
    spec = resolve(f"{grpo_module}:CONFIG")
    assert spec.style == "trl" and spec.parts == ("accuracy_reward", "format_reward")
    whole, accuracy, fmt = with_parts(spec)
    assert (whole.name, accuracy.name, fmt.name) == ("CONFIG", "CONFIG[accuracy_reward]", "CONFIG[format_reward]")
    assert to_score(_call(whole, r"so \boxed{42}")) == pytest.approx(1.0 + 0.5 * 0.45)
    assert to_score(_call(whole, r"so \boxed{41}")) == pytest.approx(0.3 + 0.5 * 0.45)
    assert to_score(_call(accuracy, r"so \boxed{41}")) == pytest.approx(0.3)
    assert to_score(_call(fmt, r"so \boxed{41}")) == pytest.approx(0.45)


@pytest.mark.slow
def test_combined_reward_hole_is_found_though_each_function_alone_pays_no_wrong_answer():
    # The example's REWARDS (the same functions and weights as the GRPOConfig above), so the
    # workers need not import trl.
    spec = f"{EXAMPLE_REPO / 'grpo_rewards.py'}:REWARDS"
    reports = audit_parts(spec, suite=GSM, limit=10, probe_sample=0, workers=2, cache=False)
    whole = reports[spec]
    alone = [reports[f"{spec}[accuracy_reward]"], reports[f"{spec}[format_reward]"]]
    for report in alone:  # neither pays a wrong answer at the default threshold
        assert report.false_acceptance_rate == 0.0 and report.coverage_debt == 0.0
    by_name = {c.name: c for c in whole.categories}
    for name in ("math.near_miss.off_by_one", "math.near_miss.sign_flip"):  # boxed wrong integers: 0.525
        assert by_name[name].n and by_name[name].accepted == by_name[name].n
    assert whole.coverage_debt > 0.05 and not whole.gate.passed
    assert any("near_miss" in r for r in whole.gate.reasons)


def test_none_means_not_applicable_and_all_none_is_unscorable(tmp_path):
    path = tmp_path / "mixed.py"
    path.write_text(
        textwrap.dedent("""
        def math_only(completions, domain, **kw):
            return [None if d != "math" else float("42" in c) for c, d in zip(completions, domain)]

        def code_only(completions, domain, **kw):
            return [None if d != "code" else 1.0 for c, d in zip(completions, domain)]

        REWARDS = [math_only, code_only]
    """)
    )
    whole = resolve(f"{path}:REWARDS")
    assert to_score(_call(whole, "42")) == 1.0  # code_only's None adds nothing (nansum)
    sql_task = TASK.model_copy(update={"domain": "sql"})
    with pytest.raises(TypeError, match="every reward function returned None"):
        _call(whole, "42", sql_task)
    code_alone = with_parts(whole)[2]
    with pytest.raises(TypeError, match="returned None"):
        _call(code_alone, "42")


def test_conversational_completions_are_chat_messages(tmp_path):
    path = tmp_path / "chat.py"
    path.write_text(
        textwrap.dedent("""
        def chat_reward(prompts, completions, answer, **kw):
            assert prompts[0][-1]["role"] == "user"
            return [float(c[0]["role"] == "assistant" and a in c[0]["content"]) for c, a in zip(completions, answer)]
    """)
    )
    spec = resolve(f"{path}:chat_reward", options=["conversational=true"])
    assert spec.opts == {"conversational": "true"}
    assert to_score(_call(spec, "it is 42")) == 1.0


def test_weights_option_and_its_errors(tmp_path):
    path = tmp_path / "two.py"
    path.write_text(
        "def a(completions, **kw):\n    return [1.0]\n\ndef b(completions, **kw):\n    return [1.0]\n\nBOTH = [a, b]\n"
    )
    assert to_score(_call(resolve(f"{path}:BOTH", options=["weights=2,0.25"]), "x")) == 2.25
    with pytest.raises(VerifierLoadError, match="2 reward weights for 3|3 reward weights for 2"):
        resolve(f"{path}:BOTH", options=["weights=1,1,1"])
    with pytest.raises(VerifierLoadError, match="expected KEY=VALUE"):
        resolve(f"{path}:BOTH", options=["weights"])


def test_async_reward_function_is_awaited():
    async def reward(completions, solution, **kw):
        return [float(c.strip() == s) for c, s in zip(completions, solution)]

    spec = from_callable(reward)
    assert spec.style == "trl" and to_score(_call(spec, "42")) == 1.0


# ------------------------------------------------------------------------------- verl


def test_verl_batched_form_gets_lists_and_extra_info(tmp_path):
    path = tmp_path / "batched.py"
    path.write_text(
        textwrap.dedent("""
        def compute_score(data_sources, solution_strs, ground_truths, extra_infos, **kw):
            return [{"score": float(s.endswith(g)), "src": d, "level": e["level"]}
                    for d, s, g, e in zip(data_sources, solution_strs, ground_truths, extra_infos)]
    """)
    )
    spec = resolve(f"{path}:compute_score")
    assert spec.style == "verl"
    out = _call(spec, "it is 42")
    assert out["src"] == "openai/gsm8k" and out["level"] == 3 and to_score(out) == 1.0


def test_verl_data_source_routes_as_the_reward_manager_sends_it(tmp_path):
    path = tmp_path / "routed.py"
    path.write_text(
        textwrap.dedent("""
        def compute_score(data_source, solution_str, ground_truth, extra_info=None):
            if data_source == "lenient":
                return float(ground_truth in solution_str)
            if data_source == "openai/gsm8k":
                return float(solution_str.strip().endswith("#### " + ground_truth))
            raise NotImplementedError(data_source)
    """)
    )
    task = TASK.model_copy(update={"metadata": {}})
    strict = resolve(f"{path}:compute_score", options=["data_source=openai/gsm8k"])
    lenient = resolve(f"{path}:compute_score", options=["data_source=lenient"])
    assert to_score(_call(strict, "not 42 but 43", task)) == 0.0
    assert to_score(_call(lenient, "not 42 but 43", task)) == 1.0
    assert to_score(_call(strict, "not 42 but 43")) == 0.0  # the task's own data_source wins


@pytest.mark.slow
def test_verls_own_gsm8k_grader_is_audited_from_the_installed_package():
    found = importlib.util.find_spec("verl")
    if found is None:
        pytest.skip("verl is not installed (.ci/run installs it without its dependencies)")
    grader = Path(found.submodule_search_locations[0]) / "utils" / "reward_score" / "gsm8k.py"
    # verl's package __init__ imports Ray; the grader itself is plain Python, read by path.
    spec = resolve(f"{grader}:compute_score", "pair")
    assert to_score(_call(spec, "so #### 42")) == 1.0
    report = audit(f"{grader}:compute_score", style="pair", suite=GSM, probe_sample=0, workers=2, cache=False, limit=8)
    assert report.n_candidates > 0 and report.error_rate == 0.0
    assert not math.isnan(report.coverage_debt)
