"""Program tasks: whole programs that read stdin and write stdout, graded case by case.

Most code RL datasets (APPS, TACO, CodeContests, LiveCodeBench) grade this way, and their
graders fail at the output level first (a token checker that ignores order, a tolerance too
wide, only the visible cases run). This is the code domain's second task kind. It is
registered as a domain of its own, ``program`` (its categories are ``program.*``), because
its reference verifiers, candidates and oracle are all different from the function tasks'
(``verifier-audit run --suite programs`` audits these verifiers side by side, not the
function graders); it shares the code domain's sandbox (``Sandbox.run_program``), program
extraction and AST mutants, and every verifier call is isolated the same way.

Modules: ``cases`` (the task's layout, running a program on cases), ``checker`` (how an
output is compared: exact, tokens, a float tolerance, a token set), ``oracle``,
``generators`` (mutants, output near-misses, equivalents), ``verifiers`` (naive to strong),
``loaders`` (``--format apps``, ``codecontests``, ``lcb``).
"""

from __future__ import annotations

from ....models import Task
from ... import code as _code
from ...base import DomainPackage, FormatSign, suite_formats, verifier_specs


class ProgramDomain(DomainPackage):
    name = "program"
    package = __name__
    reference_verifiers = verifier_specs(
        __name__, "exact_string", "tokens", "token_set", "visible_only", "float_wide", "strong"
    )
    # Public stdin/stdout datasets, each in its own row layout (loaders.py).
    suite_formats = suite_formats(__name__, apps="apps_suite", codecontests="codecontests_suite", lcb="lcb_suite")
    suite_signs = {
        "apps": FormatSign(("question", "solutions", "input_output")),
        "codecontests": FormatSign(("description", "public_tests", "private_tests", "solutions")),
        "lcb": FormatSign(("question_content", "public_test_cases", "private_test_cases")),
    }
    # A verifier runs a program once per case (up to 0.5 s of CPU time each; a hang ends
    # at its first case): longer than the function tasks' one batched run.
    default_timeout = 8.0
    # The demo run lists surviving mutants per task for this one: the task's own visible cases.
    survival_verifier = "visible_only"
    sandboxes_calls = True  # isolate_verifier_calls: verifiers under audit run the program

    def check_task(self, task: Task) -> str | None:
        from .cases import check_layout

        return check_layout(task)

    # The same isolation as the function tasks': each call in a fresh fork of a zygote
    # forked from the calling worker (one definition, the code domain's).
    isolate_verifier_calls = _code.CodeDomain.isolate_verifier_calls


DOMAIN = ProgramDomain()
