"""The verifiers style: a Prime Intellect environment scored by its own parser and rubric.

Classic API (``vf.SingleTurnEnv``, ``vf.Rubric``: verifiers 0.1.x to 0.3.x) and v1
(``verifiers.v1`` Taskset with ``@vf.reward``: 0.3.x, 0.4.x); each test skips where the
installed verifiers lacks its API. The environments are real: real datasets, parsers,
rubrics, states made by the env's own ``init_state``; expected scores come from calling
the rubric directly.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

vf = pytest.importorskip("verifiers")

from verifier_audit.api import audit, audit_parts  # noqa: E402
from verifier_audit.engine.store import read_verified  # noqa: E402
from verifier_audit.errors import VerifierLoadError  # noqa: E402
from verifier_audit.frameworks import verifiers_env  # noqa: E402
from verifier_audit.loading import from_callable, load_function, make_caller, resolve, to_score, with_parts  # noqa: E402
from verifier_audit.models import Task  # noqa: E402


def _has_classic() -> bool:
    try:
        return isinstance(vf.Rubric, type) and isinstance(vf.SingleTurnEnv, type)
    except (AttributeError, ImportError):
        return False


CLASSIC = _has_classic()


def _has_v1() -> bool:
    if importlib.util.find_spec("verifiers.v1") is None:
        return False
    from verifiers.v1.taskset import Taskset

    return hasattr(Taskset, "task_type")  # 0.2.x ships a pre-release verifiers.v1


V1 = _has_v1()
classic = pytest.mark.skipif(not CLASSIC, reason=f"verifiers {vf.__version__} has no classic API (0.1.x-0.3.x)")
v1 = pytest.mark.skipif(not V1, reason=f"verifiers {vf.__version__} has no verifiers.v1 (0.3.0 on)")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "verifiers_env"
TASK = Task(id="t1", domain="math", prompt="What is 40 + 2?", reference="42", metadata={"info": {"level": 1}})

CLASSIC_ENV = """
import verifiers as vf
from datasets import Dataset
from verifiers.utils.data_utils import extract_boxed_answer

SYSTEM = "Reason, then box the final answer."
FEW_SHOT = [{"role": "user", "content": "What is 1 + 1?"}, {"role": "assistant", "content": "\\\\boxed{2}"}]


def correct_answer(parser, completion, answer, **kwargs) -> float:
    got = (parser.parse_answer(completion) or "").strip()
    try:
        return 1.0 if float(got.replace(",", "")) == float(answer) else 0.0
    except ValueError:
        return 1.0 if got == str(answer).strip() else 0.0


def boxed_format(completion, **kwargs) -> float:
    text = completion if isinstance(completion, str) else completion[-1]["content"]
    return 1.0 if "\\\\boxed{" in (text or "") else 0.0


def load_environment(format_weight: float = 0.2, **kwargs):
    parser = vf.Parser(extract_fn=extract_boxed_answer)
    rubric = vf.Rubric(funcs=[correct_answer, boxed_format], weights=[1.0, format_weight], parser=parser)
    rows = [{"question": "What is 40 + 2?", "answer": "42", "info": {"level": 1}},
            {"question": "What is 7 * 6 - 1?", "answer": "41", "info": {"level": 2}},
            {"question": "What is 3 * 3?", "answer": "9", "info": {"level": 1}}]
    return vf.SingleTurnEnv(dataset=Dataset.from_list(rows), system_prompt=SYSTEM, few_shot=FEW_SHOT, parser=parser,
                            rubric=rubric, **kwargs)
"""

V1_ENV = """
import verifiers.v1 as vf


class QA(vf.TaskData):
    answer: str


class QATask(vf.Task[QA]):
    @vf.reward(weight=1.0)
    async def correct_answer(self, trace) -> float:
        return 1.0 if vf.extract_boxed_answer(trace.last_reply, strict=True).strip() == self.data.answer else 0.0

    @vf.reward(weight=0.2)
    async def boxed_format(self, task, trace) -> float:
        assert task is self.data and trace.messages[0].role == "system"
        return 1.0 if "\\\\boxed{" in trace.last_reply else 0.0


class QATaskset(vf.Taskset[QATask]):
    def load(self):
        for q, a in [("What is 40 + 2?", "42"), ("What is 7 * 6 - 1?", "41")]:
            yield QATask(QA(prompt=q, answer=a, system_prompt="Box the answer."), self.config.task)


def load_taskset():
    return QATaskset(vf.TasksetConfig())


__all__ = ["QATaskset"]
"""


@pytest.fixture(scope="module")
def classic_env(tmp_path_factory):
    if not CLASSIC:
        pytest.skip(f"verifiers {vf.__version__} has no classic API (0.1.x-0.3.x)")
    path = tmp_path_factory.mktemp("vfenv") / "qa_env.py"
    path.write_text(CLASSIC_ENV)
    return path


@pytest.fixture(scope="module")
def v1_env(tmp_path_factory):
    if not V1:
        pytest.skip(f"verifiers {vf.__version__} has no verifiers.v1 (0.3.0 on)")
    path = tmp_path_factory.mktemp("vfv1") / "qa_taskset.py"
    path.write_text(V1_ENV)
    return path


def _score(spec, text, task=TASK):
    return to_score(make_caller(spec.load(), spec)(text, task))


def _rubric_reward(env, prompt, text, answer, info=None):
    """What the env's rubric pays for this rollout, asked directly (a state as its rollout
    leaves it: the input row, the prompt, one assistant turn)."""
    import inspect

    completion = [{"role": "assistant", "content": text}]
    params = inspect.signature(env.rubric.score_rollout).parameters
    if "prompt" in params:  # <= 0.1.8: the pieces in, the score out
        timing = {"generation_ms": 0.0, "scoring_ms": 0.0, "total_ms": 0.0}
        out = asyncio.run(env.rubric.score_rollout(prompt, completion, answer, {"timing": timing}, info=info or {}))
        return out["reward"] if isinstance(out, dict) else out.reward
    state = vf.State(input={"prompt": prompt, "answer": answer, "info": info or {}, "example_id": 0})
    state.update(prompt=prompt, completion=completion, task={}, trajectory=[], reward=None, metrics=None)

    async def score():
        if "score_sem" in params:  # 0.1.9
            state["timing"] = {"generation_ms": 0.0, "scoring_ms": 0.0, "total_ms": 0.0, "start_time": 0.0}
            await env.rubric.score_rollout(state, asyncio.Semaphore(1))
        else:
            await env.rubric.score_rollout(state)

    asyncio.run(score())
    return state["reward"]


# ------------------------------------------------------------------------ classic


def test_detect_reads_objects_without_calling_anything():
    calls = []

    def load_environment():
        calls.append(1)
        raise AssertionError("detect must not call load_environment")

    def build_env():
        raise AssertionError("nor any other function")

    assert verifiers_env.detect(load_environment) and not verifiers_env.detect(build_env) and not calls
    assert not verifiers_env.detect(lambda completion, reference: 1.0) and not verifiers_env.detect([len])


@classic
def test_resolve_detects_the_environment_and_lists_its_reward_functions(classic_env):
    spec = resolve(f"{classic_env}:load_environment")
    assert spec.style == "verifiers" and spec.parts == ("correct_answer", "boxed_format")
    assert [s.name for s in with_parts(spec)] == [
        "load_environment",
        "load_environment[correct_answer]",
        "load_environment[boxed_format]",
    ]


@classic
def test_scores_match_the_rubric_called_directly(classic_env):
    load_environment = load_function(f"{classic_env}:load_environment")
    whole, correct, fmt = with_parts(from_callable(load_environment))
    env = load_environment()
    prompt = [{"role": "system", "content": env.system_prompt}, *env.few_shot, {"role": "user", "content": TASK.prompt}]
    cases = {
        r"so \boxed{42}": (1.0, 1.0),
        r"so \boxed{41}": (0.0, 1.0),
        "42": (1.0, 0.0),
        r"\boxed{42.0}": (1.0, 1.0),
        "no answer": (0.0, 0.0),
    }
    for text, (right, boxed) in cases.items():
        expected = _rubric_reward(env, prompt, text, "42", {"level": 1})
        assert expected == pytest.approx(1.0 * right + 0.2 * boxed), text
        assert _score(whole, text) == pytest.approx(expected), text
        assert _score(correct, text) == right and _score(fmt, text) == boxed, text
    # env.KEY=VALUE goes to load_environment: a format weight that pays wrong answers alone
    heavy = from_callable(load_environment, "verifiers", ["env.format_weight=0.6"])
    assert _score(heavy, r"so \boxed{41}") == pytest.approx(0.6)


@classic
def test_the_prompt_is_the_environments_own_formatting(classic_env):
    env = load_function(f"{classic_env}:load_environment")()
    caller = verifiers_env._ClassicCaller(env, {}, None)
    row = env.get_dataset()[0]
    plain = Task(id="x", domain="math", prompt=row["question"], reference=row["answer"])
    assert caller.prompt(plain) == verifiers_env._plain(row["prompt"])  # system, few-shot, user
    tasks = verifiers_env.load_env_tasks(f"{classic_env}:load_environment")
    assert [(t.prompt, t.reference) for t in tasks] == [(r["question"], r["answer"]) for r in env.get_dataset()]
    assert tasks[1].metadata["info"] == {"level": 2} and caller.prompt(tasks[0]) == caller.prompt(plain)
    assert caller.rollout_input("x", tasks[1])["info"] == {"level": 2}


@classic
def test_a_raising_reward_function_is_the_rubrics_zero_unless_errors_raise(tmp_path):
    path = tmp_path / "broken_env.py"
    path.write_text(
        textwrap.dedent("""
        import verifiers as vf
        from datasets import Dataset

        def fragile(completion, answer, **kwargs):
            if "boom" in completion[-1]["content"]:
                raise ValueError("cannot parse")
            return 1.0

        def load_environment():
            return vf.SingleTurnEnv(dataset=Dataset.from_list([{"question": "q", "answer": "a"}]),
                                    rubric=vf.Rubric(funcs=[fragile]))
    """)
    )
    load_environment = load_function(f"{path}:load_environment")
    spec = from_callable(load_environment)
    assert spec.style == "verifiers" and spec.parts == () and _score(spec, "fine") == 1.0
    assert _score(spec, "boom") == 0.0  # what training pays: the rubric logs and scores 0
    strict = from_callable(load_environment, "verifiers", ["errors=raise"])
    with pytest.raises(RuntimeError, match="cannot parse"):
        _score(strict, "boom")


@classic
def test_the_frameworks_own_math_rubric_scores_through_the_env(tmp_path):
    path = tmp_path / "math_rubric_env.py"
    path.write_text(
        textwrap.dedent("""
        import verifiers as vf
        from datasets import Dataset

        def load_environment():
            rubric = vf.MathRubric()  # math-verify behind the rubric's own parser, as the Hub's math envs use
            return vf.SingleTurnEnv(dataset=Dataset.from_list([{"question": "q", "answer": "42"}]),
                                    system_prompt="Box it.", parser=rubric.parser, rubric=rubric)
    """)
    )
    spec = from_callable(load_function(f"{path}:load_environment"))
    assert spec.style == "verifiers" and spec.parts == ()  # one paid function: nothing to split
    think = "<think>\n40 plus 2\n</think>\n"  # its parser reads after the reasoning (0.1.x: ThinkParser needs it)
    assert _score(spec, think + r"so \boxed{42}") == 1.0 and _score(spec, think + r"so $\boxed{\frac{84}{2}}$") == 1.0
    assert _score(spec, think + r"so \boxed{41}") == 0.0 and _score(spec, think + "so 42") == 0.0  # no box: no answer


@classic
@pytest.mark.slow
def test_audit_finds_the_format_bonus_pays_wrong_answers_alone_and_the_weights_hold(classic_env, tmp_path):
    # The environment given as an object: its workers fork from here, with verifiers already
    # imported (the spec-string path, clean workers importing it each, is the example's test).
    results = tmp_path / "results.jsonl"
    load_environment = load_function(f"{classic_env}:load_environment")
    reports = audit_parts(
        load_environment, style="verifiers", limit=3, probe_sample=0, workers=1, cache=False, results=results
    )
    by_name = {name.rpartition(":")[2]: report for name, report in reports.items()}
    whole, correct, fmt = (by_name[f"load_environment{p}"] for p in ("", "[correct_answer]", "[boxed_format]"))
    assert whole.style == "verifiers" and whole.error_rate == 0.0 and fmt.error_rate == 0.0
    assert not whole.security_findings

    def near_miss_fa(report):
        cats = [c for c in report.categories if c.origin == "near_miss" and c.n]
        return sum(c.accepted for c in cats) / sum(c.n for c in cats)

    assert near_miss_fa(fmt) > 0.9  # any boxed wrong answer earns the format bonus: 1.0 alone
    assert near_miss_fa(whole) < near_miss_fa(fmt) and near_miss_fa(whole) <= near_miss_fa(correct)
    assert fmt.coverage_debt > 0.5 and whole.coverage_debt < fmt.coverage_debt
    verdicts = read_verified(results)
    scores = {}
    for (verifier, candidate), verdict in verdicts.items():
        part = verifier.rpartition("[")[2].rstrip("]") if "[" in verifier else ""
        scores.setdefault(candidate, {})[part] = verdict.score
    both = [s for s in scores.values() if {"", "correct_answer", "boxed_format"} <= set(s)]
    assert len(both) > 50
    for s in both:  # the rubric's weighted sum, call by call
        assert s[""] == pytest.approx(1.0 * s["correct_answer"] + 0.2 * s["boxed_format"])
    assert {round(s[""], 6) for s in both} <= {0.0, 0.2, 1.0, 1.2}


# ------------------------------------------------------------------------ v1


@v1
def test_v1_taskset_rewards_are_read_and_scored(v1_env):
    load_taskset = load_function(f"{v1_env}:load_taskset")
    spec = from_callable(load_taskset, "verifiers")
    assert spec.style == "verifiers" and spec.parts == ("boxed_format", "correct_answer")
    taskset_class = load_function(f"{v1_env}:QATaskset")
    assert verifiers_env.detect(taskset_class) and verifiers_env.detect(load_taskset())  # by what they are
    assert not verifiers_env.detect(load_taskset)  # a function not named load_environment: --style verifiers
    assert from_callable(taskset_class).parts == spec.parts
    whole, fmt, correct = with_parts(spec)
    for text, (right, boxed) in {r"so \boxed{42}": (1, 1), r"so \boxed{41}": (0, 1), "42": (0, 0)}.items():
        assert _score(whole, text) == pytest.approx(1.0 * right + 0.2 * boxed), text
        assert (_score(correct, text), _score(fmt, text)) == (right, boxed), text
    tasks = verifiers_env.load_env_tasks(f"{v1_env}:load_taskset")
    assert [(t.id, t.reference) for t in tasks] == [("qa_taskset-0", "42"), ("qa_taskset-1", "41")]
    assert tasks[0].metadata["vf_task_data"]["system_prompt"] == "Box the answer."
    assert _score(whole, r"\boxed{41}", tasks[1]) == pytest.approx(1.2)


def test_missing_verifiers_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "verifiers", None)

    def load_environment():
        return None

    with pytest.raises(VerifierLoadError, match=r"pip install 'verifier-audit\[verifiers\]'"):
        verifiers_env.build(load_environment)


# ------------------------------------------------------------------------ the example


@pytest.mark.slow
def test_the_example_environment_loads_and_audits(tmp_path):
    spec = f"{EXAMPLES / 'math_env.py'}:load_environment" if CLASSIC else f"{EXAMPLES / 'math_taskset.py'}:load_taskset"
    if not CLASSIC and not V1:
        pytest.skip("no verifiers API to load the examples with")
    resolved = resolve(spec, style="verifiers")
    assert resolved.parts and set(resolved.parts) == {"correct_answer", "boxed_format"}
    suite = verifiers_env.env_suite(spec, limit=3)
    assert len(suite.tasks) == 3 and suite.tasks[0].reference == "2107" and suite.name == f"verifiers:{spec}"
    # the environment's own dataset as the suite, as --suite verifiers:SPEC loads it
    report = audit(spec, suite=f"verifiers:{spec}", style="verifiers", limit=2, probe_sample=0, workers=1, cache=False)
    assert report.error_rate == 0.0 and report.n_candidates > 20 and not report.security_findings
    by_origin = {}
    for c in report.categories:
        if c.n:
            by_origin.setdefault(c.origin, []).append(c)
    # the format bonus (0.2) alone stays under the threshold: no near-miss is paid ...
    assert all(c.accepted == 0 for c in by_origin["near_miss"])
    # ... and the exact string match refuses right answers written another way
    assert any(c.rate > 0 for c in by_origin["equivalent"])
