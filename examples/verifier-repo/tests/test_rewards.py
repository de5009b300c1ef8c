"""The reward functions' tests. The verifier-audit pytest plugin comes with the package:
the `verifier_audit` fixture and marker audit a reward function on the suite and gate that
[tool.verifier_audit] in pyproject.toml configures."""

import pytest
from rewards import accuracy_reward, last_number_reward


def test_accuracy_reward_examples():
    assert accuracy_reward("6 * 7 = 42, so the answer is $\\boxed{42}$.", "42") == 1.0
    assert accuracy_reward("$\\boxed{41}$", "42") == 0.0


def test_accuracy_reward_passes_the_audit(verifier_audit):
    report = verifier_audit.assert_coverage("rewards.py:accuracy_reward")
    assert report.false_rejection_rate <= 0.10


@pytest.mark.verifier_audit("rewards.py:last_number_reward")
def test_last_number_reward_passes_the_audit():
    """Fails: the audit finds the hole (a wrong boxed answer followed by the right number)."""
    assert last_number_reward("The answer is $\\boxed{42}$.", "42") == 1.0
