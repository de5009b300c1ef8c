"""The names that say what a value is, before any analysis: which parameters hold model
output and which hold the reference, in the signatures RLVR reward functions use.

verl: ``compute_score(data_source, solution_str, ground_truth, extra_info)``; open-r1 and
TRL: ``accuracy_reward(completions, solution, **kwargs)``; this project: ``verify(completion,
task)`` with ``task.reference``, or ``fn(completion, reference)``. Note that ``solution`` is
the gold in open-r1 while ``solution_str`` is the model's text in verl.
"""

from __future__ import annotations

# Parameters whose value is (or holds) text the policy wrote.
MODEL_PARAMS = frozenset(
    {
        "completion",
        "completions",
        "solution_str",
        "response",
        "responses",
        "text",
        "texts",
        "output",
        "outputs",
        "model_output",
        "prediction",
        "predictions",
        "pred",
        "preds",
        "generation",
        "generations",
        "generated",
        "content",
        "contents",
        "candidate",
    }
)

# Parameters whose value is (or holds) the reference answer.
GOLD_PARAMS = frozenset(
    {
        "reference",
        "references",
        "ref",
        "ground_truth",
        "ground_truths",
        "gt",
        "solution",
        "solutions",
        "answer",
        "answers",
        "gold",
        "golds",
        "gold_answer",
        "target",
        "targets",
        "label",
        "labels",
        "expected",
        "expected_answer",
        "reference_answer",
        "correct_answer",
    }
)

# ``task.reference``, ``example.answer``: attributes that hold the reference, on an object
# that is not itself model output.
GOLD_ATTRS = frozenset(
    {
        "reference",
        "ground_truth",
        "gold",
        "gold_answer",
        "answer",
        "solution",
        "expected",
        "expected_answer",
        "reference_answer",
        "correct_answer",
    }
)

# ``extra_info["ground_truth"]``, ``message["content"]``: dictionary keys with the same meaning.
GOLD_KEYS = GOLD_ATTRS | {"label", "target"}
MODEL_KEYS = frozenset({"completion", "content", "response", "text", "output", "solution_str", "prediction"})

# Calls whose result says nothing about the text of their argument: a length, a type test.
# Model output that only flows through them is not model output any more.
OPAQUE_CALLS = frozenset({"len", "bool", "isinstance", "issubclass", "type", "id", "hash", "callable", "hasattr"})
