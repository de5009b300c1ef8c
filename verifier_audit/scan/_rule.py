"""The shape of a rule: what it is called, how bad it is, why, what in an audit would
confirm it, and the function over a parsed function that finds it."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..models import Severity
from ._facts import FunctionInfo, ModuleInfo


@dataclass(frozen=True)
class Hit:
    """One match of a rule, before it becomes a SourceFinding (the scanner adds the file,
    the line text, the rule's title and categories)."""

    node: ast.AST  # where: its line and column
    message: str
    severity: Severity | None = None  # None: the rule's own
    confidence: str = "high"


Check = Callable[[FunctionInfo, ModuleInfo], Iterable[Hit]]


@dataclass(frozen=True)
class Rule:
    id: str  # "exec-model-output"
    title: str  # one line
    severity: Severity
    why: str  # why reviewers look for it, with the public sources that say so
    check: Check
    # What in an audit report would confirm it (``_confirm.py``):
    categories: tuple[str, ...] = ()  # category prefixes; a misjudged one confirms
    security_kinds: tuple[str, ...] = ()  # a security finding of one of these kinds confirms
    probe: str | None = None  # "threads": report.checks.threads disagreeing confirms
    # False when paying for a category's candidates is not the evidence (a canary scores 0:
    # what shows execution is the canary firing, a security finding).
    accepted_confirms: bool = True
    unmeasured: str = ""  # why nothing behavioural confirms it, when nothing above applies
