"""reasoning-gym (frameworks/reasoning_gym.py, docs/reasoning-gym.md): its datasets as
suites (``--suite reasoning-gym:NAME``), labelled by the math oracle; its own
``score_answer`` as a verifier (the ``reasoning-gym`` style); and the ``<answer>`` format
its scorers read, added last to the math formats."""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("reasoning_gym")

from reasoning_gym.utils import extract_answer  # noqa: E402

from verifier_audit.api import audit  # noqa: E402
from verifier_audit.domains import get_domain  # noqa: E402
from verifier_audit.domains.kit import rng_for  # noqa: E402
from verifier_audit.domains.math.extract import final_answer  # noqa: E402
from verifier_audit.domains.math.formats import FORMATS, format_of  # noqa: E402
from verifier_audit.domains.math.generators import near_miss  # noqa: E402
from verifier_audit.domains.math.generators._common import boxed_completion  # noqa: E402
from verifier_audit.domains.math.oracle import answers_equivalent, label_completion  # noqa: E402
from verifier_audit.errors import InputError, VerifierLoadError  # noqa: E402
from verifier_audit.frameworks import reasoning_gym as rg  # noqa: E402
from verifier_audit.loading import VerifierSpec  # noqa: E402
from verifier_audit.models import Task  # noqa: E402
from verifier_audit.suites import load_suite  # noqa: E402

SIZE = 20
SPEC = VerifierSpec(spec="reasoning-gym", name="reasoning-gym", style="reasoning-gym")
TAG = {f.name: f for f in FORMATS}["answer_tag"]


@pytest.fixture(scope="module")
def score():
    return rg.make_caller(None, SPEC)


# ------------------------------------------------------------------------- the suites


@pytest.mark.parametrize("name", list(rg.SUPPORTED))
def test_every_supported_dataset_is_labelled_by_the_math_oracle(name):
    tasks = rg.load_tasks(name, size=SIZE, seed=0)
    assert [t.id for t in tasks] == [f"rg-{name}-{i}" for i in range(SIZE)]
    assert {t.split for t in tasks} == {"train", "heldout"} and tasks[4].split == "heldout"
    domain = get_domain("math")
    with_near_misses = 0
    for i, task in enumerate(tasks):
        meta = task.metadata
        assert task.domain == "math" and task.prompt
        assert (meta["source"], meta["dataset"], meta["seed"], meta["size"], meta["index"]) == (
            "reasoning-gym",
            name,
            0,
            SIZE,
            i,
        )
        json.dumps(meta, allow_nan=False)  # JSON-safe, entry metadata included
        assert domain.check_task(task) is None, task.reference
        assert answers_equivalent(task.reference, task.reference), task.reference
        right = boxed_completion(task.reference, rng_for(0, task.id, "test"))
        assert domain.label(right, task).label == "correct", task.reference
        wrong = [
            c
            for c in near_miss.generate(task, rng_for(0, task.id, "near_miss"))
            if domain.label(c.text, task).label == "incorrect"
        ]
        with_near_misses += bool(wrong)
    # Most tasks: the near-miss generator writes none for a gold of 0 (number_sequence: 5 in 20).
    assert with_near_misses >= 0.7 * SIZE, f"{name}: near-misses on {with_near_misses}/{SIZE} tasks"


def test_tasks_rebuild_from_their_metadata():
    import reasoning_gym

    task = rg.load_tasks("gcd", size=8, seed=3)[5]
    meta = task.metadata
    entry = reasoning_gym.create_dataset(meta["dataset"], size=meta["size"], seed=meta["seed"])[meta["index"]]
    assert (entry["question"], str(entry["answer"])) == (task.prompt, task.reference)


def test_the_suite_spec_and_its_hash():
    suite = load_suite("reasoning-gym:chain_sum")
    assert suite.name == "reasoning-gym:chain_sum" and len(suite.tasks) == rg.DEFAULT_SIZE
    assert suite.domain == "math" and suite.path.name == "chain_sum.py"
    again = load_suite("reasoning-gym:chain_sum?size=50&seed=0")
    assert again.content_hash == suite.content_hash and again.name == suite.name
    other = load_suite("reasoning-gym:chain_sum?size=6&seed=1")
    assert other.name == "reasoning-gym:chain_sum?size=6&seed=1" and len(other.tasks) == 6
    assert other.content_hash != suite.content_hash
    assert load_suite("reasoning-gym:chain_sum?size=6").content_hash != other.content_hash  # the seed counts


def test_an_unsupported_dataset_lists_the_supported_ones():
    with pytest.raises(InputError) as info:
        load_suite("reasoning-gym:NOPE")
    message = str(info.value)
    assert "'NOPE'" in message and all(name in message for name in rg.SUPPORTED)
    assert "not labelled by the math oracle" in message
    with pytest.raises(InputError, match="'sudoku' is not one the math oracle can label"):
        load_suite("reasoning-gym:sudoku")  # a real reasoning-gym dataset, with no oracle here
    with pytest.raises(InputError, match="did you mean 'chain_sum'"):
        load_suite("reasoning-gym:chainsum")


@pytest.mark.parametrize(
    "spec, says",
    [
        ("reasoning-gym:", "name a reasoning-gym dataset"),
        ("reasoning-gym:gcd?size=x", "size='x' is not an integer"),
        ("reasoning-gym:gcd?size=0", "must be at least 1"),
        ("reasoning-gym:gcd?sze=5", "unknown setting 'sze'"),
        ("reasoning-gym:gcd?size=999999", "size must be an integer from 1"),
    ],
)
def test_a_bad_suite_spec_says_what_to_fix(spec, says):
    with pytest.raises(InputError, match=says.replace("?", r"\?")):
        load_suite(spec)


def test_file_options_are_refused_for_a_generated_suite():
    with pytest.raises(InputError, match="--field"):
        load_suite("reasoning-gym:gcd", fields=["prompt=question"])
    with pytest.raises(InputError, match="--format gsm8k"):
        load_suite("reasoning-gym:gcd", fmt="gsm8k")


def test_without_reasoning_gym_the_error_says_what_to_install(monkeypatch):
    for module in ("reasoning_gym", "reasoning_gym.utils", "reasoning_gym.factory"):
        monkeypatch.setitem(sys.modules, module, None)  # importing it now fails
    monkeypatch.setattr(rg, "_DATASETS", {})
    with pytest.raises(InputError, match=r"pip install 'verifier-audit\[reasoning-gym\]'"):
        load_suite("reasoning-gym:gcd")
    with pytest.raises(VerifierLoadError, match=r"pip install 'verifier-audit\[reasoning-gym\]'"):
        rg.make_caller(None, SPEC)


# ------------------------------------------------------------------------ the verifier


@pytest.mark.parametrize("name", list(rg.SUPPORTED))
def test_score_answer_pays_the_reference_in_tags_and_not_a_wrong_answer(name, score):
    for task in rg.load_tasks(name, size=3, seed=0):
        assert score(f"Some reasoning.\n<answer>{task.reference}</answer>", task) == 1.0
        assert score(f"<answer>{task.reference}</answer> then <answer>987654321.5</answer>", task) < 1.0  # the last tag
        assert score(f"The final answer is $\\boxed{{{task.reference}}}$.", task) < 0.5  # no tag, no answer


def test_measured_partial_credit(score):
    """What reasoning-gym's scorers pay for near-misses (docs/reasoning-gym.md)."""
    gcd = rg.load_tasks("gcd", size=2)[1]  # reference "1": the default scorer's substring credit
    assert gcd.reference == "1"
    assert score("<answer>10</answer>", gcd) == score("<answer>-1</answer>", gcd) == 0.5  # accepted at 0.5
    gsm = rg.load_tasks("gsm_symbolic", size=2)[1]  # the first number in the tag, sign ignored
    assert score(f"<answer>-{gsm.reference}</answer>", gsm) == 1.0
    assert score(f"<answer>{gsm.reference}0</answer>", gsm) == 0.01


def test_extract_answer_reads_what_the_answer_tag_format_writes(score):
    task = rg.load_tasks("basic_arithmetic", size=2)[1]
    text = TAG.rewrite(boxed_completion(task.reference, rng_for(0, "t")))
    assert text.endswith(f"<answer>{task.reference}</answer>") and extract_answer(text) == task.reference
    assert score(text, task) == 1.0
    assert label_completion(text, task.reference).label == "correct"  # the oracle reads the sentence


def test_a_task_not_from_reasoning_gym_is_an_error(score):
    plain = Task(id="t1", domain="math", prompt="1+1", reference="2")
    with pytest.raises(ValueError, match="not from reasoning-gym"):
        score("<answer>2</answer>", plain)
    task = rg.load_tasks("gcd", size=2)[0]
    changed = task.model_copy(update={"prompt": task.prompt + " (edited)"})
    with pytest.raises(ValueError, match="another reasoning-gym version"):
        score("<answer>2</answer>", changed)


# ----------------------------------------------------------------- the answer_tag format


def test_the_answer_tag_format_comes_last_and_leaves_the_others_alone():
    names = [f.name for f in FORMATS]
    assert names[-1] == "answer_tag" and names.count("answer_tag") == 1
    assert names[:-1] == [
        "boxed",
        "minerva",
        "gsm8k",
        "gsm8k_period",
        "answer_colon",
        "answer_colon_period",
        "sentence_period",
        "sentence",
        "bold",
        "bold_period",
        "last_line",
        "last_line_period",
    ]
    hedge = "First attempt: $\\boxed{12}$. Checking again: $\\boxed{13}$.\nNot sure."
    written = TAG.rewrite(hedge)
    assert written == (
        "First attempt:\nThe final answer is 12.\n<answer>12</answer>\nChecking again:\n"
        "The final answer is 13.\n<answer>13</answer>\nNot sure."
    )
    assert format_of(written) == "answer_tag" and extract_answer(written) == "13"
    assert label_completion(written, "13").label == "incorrect"  # still a hedge to the oracle
    assert TAG.rewrite("The answer is $\\boxed{</answer>1}$.") is None  # a tag in the answer
    frac = TAG.rewrite("So the final answer is\n$$\\boxed{\\frac{1}{2}}$$")
    assert frac == "The final answer is $\\frac{1}{2}$.\n<answer>\\frac{1}{2}</answer>"
    assert final_answer(frac) == "\\frac{1}{2}"


# ---------------------------------------------------------------------- a real audit


def exact(completion: str, task: Task) -> bool:
    """A native verifier: the oracle's extraction, compared as text."""
    return final_answer(completion) == task.reference


def test_an_audit_through_the_python_api(tmp_path):
    report = audit(
        exact,
        suite="reasoning-gym:basic_arithmetic",
        limit=5,
        cache=False,
        probe_sample=0,
        workers=2,
        results=tmp_path / "results.jsonl",
    )
    assert report.suite == "reasoning-gym:basic_arithmetic"
    assert report.n_candidates > 0 and report.formats.audited_in is None  # it reads \boxed{}
    assert report.false_acceptance_rate == 0.0
