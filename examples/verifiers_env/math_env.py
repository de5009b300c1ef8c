"""A Prime Intellect ``verifiers`` environment written the way most on the Hub are: a
single-turn chat env whose parser reads the last ``\\boxed{}``, and a rubric of two
weighted reward functions -- exact match of the parsed answer (weight 1.0) and a format
bonus for writing a box at all (weight 0.2, ``env.format_weight=...``).

Audit its rubric as training would pay it (the whole, then each function alone):

    verifier-audit run --verifier examples/verifiers_env/math_env.py:load_environment --style verifiers

or on the environment's own dataset as the suite:

    verifier-audit run --verifier examples/verifiers_env/math_env.py:load_environment \\
        --suite verifiers:examples/verifiers_env/math_env.py:load_environment

What the audit finds (docs/frameworks-verifiers.md): the exact string match refuses right
answers written differently (``\\frac{1}{2}`` for ``1/2``, ``2107.0``), and the format
bonus alone pays any boxed answer; combined with weight 0.2 it stays under the 0.5
threshold, so the whole reward does not pay wrong answers -- until someone raises the
weight past 0.5.

The classic API (``vf.SingleTurnEnv``, ``vf.Rubric``) is in verifiers 0.1.x to 0.3.x;
``math_taskset.py`` beside this file is the same environment in the v1 API (0.3.x, 0.4.x).
"""

from __future__ import annotations

import verifiers as vf
from datasets import Dataset
from problems import PROBLEMS, SYSTEM_PROMPT  # beside this file
from verifiers.utils.data_utils import extract_boxed_answer


def correct_answer(parser, completion, answer, **kwargs) -> float:
    """1 when the parsed final answer is the reference, character for character."""
    response = parser.parse_answer(completion) or ""
    return 1.0 if response.strip() == str(answer).strip() else 0.0


def boxed_format(parser, completion, **kwargs) -> float:
    """1 when the reply writes its answer in a box (whatever the answer is)."""
    if isinstance(completion, str):
        text = completion
    else:
        replies = [m["content"] for m in completion if m["role"] == "assistant"]
        text = replies[-1] if replies else ""
    return 1.0 if "\\boxed{" in str(text or "") else 0.0


def load_environment(num_examples: int = -1, format_weight: float = 0.2, **kwargs) -> vf.Environment:
    rows = PROBLEMS if num_examples < 0 else PROBLEMS[:num_examples]
    parser = vf.Parser(extract_fn=extract_boxed_answer)
    rubric = vf.Rubric(funcs=[correct_answer, boxed_format], weights=[1.0, format_weight], parser=parser)
    return vf.SingleTurnEnv(
        dataset=Dataset.from_list(rows), system_prompt=SYSTEM_PROMPT, parser=parser, rubric=rubric, **kwargs
    )
