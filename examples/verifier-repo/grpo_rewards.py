"""The rewards of a TRL GRPO run: an accuracy reward and a format bonus, combined with
``reward_weights`` as ``GRPOTrainer`` combines them::

    from trl import GRPOConfig, GRPOTrainer
    trainer = GRPOTrainer(model=..., reward_funcs=REWARDS["reward_funcs"],
                          args=GRPOConfig(reward_weights=REWARDS["reward_weights"], ...), train_dataset=...)

Audit what training pays (the weighted sum) and each function alone::

    verifier-audit run --verifier grpo_rewards.py:REWARDS --suite data/gsm_style.jsonl

Alone, neither function pays a wrong answer at the default threshold (0.5):
``accuracy_reward`` gives one only its partial credit (0.3), and ``format_reward`` is a
small bonus (0.45) that no answer passes on by itself. Their weighted sum pays every
boxed wrong answer 0.3 + 0.5 x 0.45 = 0.525: the hole exists only in the combination.
"""

from rewards import _final_answer  # the repository's own answer reader (rewards.py)


def accuracy_reward(completions, solution, **kwargs):
    """1.0 for the right final answer; 0.3 partial credit for committing to a wrong one
    (shaping that rewards answering at all); 0.0 with no readable answer."""
    scores = []
    for completion, gold in zip(completions, solution):
        given = _final_answer(completion)
        scores.append(0.0 if given is None else 1.0 if given == int(gold) else 0.3)
    return scores


def format_reward(completions, **kwargs):
    """A bonus of 0.45 for an answer given in \\boxed{}."""
    return [0.45 if "\\boxed{" in completion else 0.0 for completion in completions]


REWARDS = {"reward_funcs": [accuracy_reward, format_reward], "reward_weights": [1.0, 0.5]}
