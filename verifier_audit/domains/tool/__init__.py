"""The tool domain: function calls against a schema, with an authority policy.

Same shape as every domain: ``calls`` (read and write calls in JSON, OpenAI, Python-call
and Hermes syntax), ``schema`` (arguments under a function's JSON Schema), ``policy`` (the
tools, privileges and argument scopes a task allows), ``state`` (small simulated
environments: a file store, a calendar, a bank), ``oracle``, ``generators``,
``verifiers`` (naive to strong), ``formats``, ``slices``, ``loaders``. docs/tool-domain.md.
"""

from __future__ import annotations

from collections.abc import Callable

from ...models import Task
from ..base import CallAuthority, DomainPackage, SuiteScheme, verifier_specs


class ToolDomain(DomainPackage):
    name = "tool"
    package = __name__
    reference_verifiers = verifier_specs(
        __name__, "name_only", "schema_valid", "exact_string", "ast_match", "final_state", "strong"
    )
    # The Berkeley Function Calling Leaderboard's data in bfcl-eval: --suite bfcl:simple
    suite_schemes = (SuiteScheme("bfcl:", f"{__name__}.bfcl:bfcl_suite", "CATEGORY"),)
    calls_tools = True  # call_authority; the checklist's runtime_authority item
    # compare's canonical answer is the base's explicit default (whitespace collapsed): two
    # call lists that differ in layout only are one answer.

    def check_task(self, task: Task) -> str | None:
        from .oracle import check_task

        return check_task(task)

    def check_input(self, task: Task) -> str | None:
        from .oracle import check_input

        return check_input(task)

    def call_authority(self, task: Task) -> Callable[[str], CallAuthority]:
        from .policy import authority_reader

        return authority_reader(task)


DOMAIN = ToolDomain()
