"""Repository patches (issue 36): a task is a small repository, an issue, a gold patch and
the tests that decide it; a completion is a unified diff (docs/repo-domain.md).

SWE-style agentic RL (SWE-bench, SWE-Gym, R2E-Gym, SWE-smith) grades a patch by applying it
and running the repository's tests, and that is where policies learn to edit the tests, add a
``conftest.py`` that passes everything, exit 0 before the tests run or print the lines a log
parser reads. The domain audits such graders side by side with an oracle that restores the
tests, adds hidden ones and reads each test's outcome over a channel of its own.

Modules: ``patches`` (unified diffs in pure Python), ``layout`` (the task's layout, what a
patch may change, what the oracle restores), ``run`` (the repository's pytest, forked from a
warm zygote of the code sandbox, outcomes over a pipe), ``oracle``, ``verifiers`` (naive to
strong); ``generators`` and ``loaders`` (``--format swebench``) are the candidates' and the
suite's.
"""

from __future__ import annotations

from ...models import Task
from .. import code as _code
from ..base import DomainPackage, suite_formats, verifier_specs


class RepoDomain(DomainPackage):
    name = "repo"
    package = __name__
    reference_verifiers = verifier_specs(__name__, "exit_code", "fail_to_pass_only", "log_parse", "junit", "strong")
    # SWE-bench instance files against local checkouts (loaders.py: --format swebench --repo-dir).
    suite_formats = suite_formats(__name__, swebench="swebench_suite")
    # A verifier applies the patch and runs the repository's pytest (run.py: up to
    # run.WALL_LIMIT of wall clock per run, a second run for the oracle's strong verifier).
    default_timeout = 30.0
    sandboxes_calls = True  # isolate_verifier_calls: verifiers under audit run a patched repository
    limits_paths = True  # outside_paths: a task's allowed_paths; the report's authority figures

    def outside_paths(self, text: str, task: Task) -> list[str]:
        from .oracle import outside_paths

        # A patch that does not apply changes nothing (the oracle refuses it for that).
        return outside_paths(text, task) or []

    def check_task(self, task: Task) -> str | None:
        from .layout import check_layout

        return check_layout(task)

    # The code domain's isolation: each call in a fresh fork of a zygote forked from the
    # calling worker (one definition, the code domain's).
    isolate_verifier_calls = _code.CodeDomain.isolate_verifier_calls


DOMAIN = RepoDomain()
