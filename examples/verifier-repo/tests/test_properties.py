"""Property tests with the package's Hypothesis strategies: every draw is a candidate whose
truth the audit's oracle confirmed, and a failure shrinks to the simplest one of its kind."""

from pathlib import Path

from hypothesis import given, settings
from rewards import accuracy_reward

from verifier_audit.strategies import equivalent, known_bad, near_miss, tasks

TASK = tasks(str(Path(__file__).parent.parent / "data" / "gsm_style.jsonl"))[0]


@settings(max_examples=30, deadline=None)
@given(near_miss(TASK))
def test_accuracy_reward_rejects_near_misses(candidate):
    assert accuracy_reward(candidate.text, TASK.reference) == 0.0


@settings(max_examples=30, deadline=None)
@given(known_bad(TASK))
def test_accuracy_reward_rejects_known_hacks(candidate):
    assert accuracy_reward(candidate.text, TASK.reference) == 0.0


@settings(max_examples=30, deadline=None)
@given(equivalent(TASK))
def test_accuracy_reward_accepts_equivalent_answers(candidate):
    assert accuracy_reward(candidate.text, TASK.reference) == 1.0
