"""Tool-call answer formats: the syntaxes a policy writes its calls in (``calls.SYNTAXES``).

==========  ==================================================  ==============================
name        the calls written as                                read by
==========  ==================================================  ==============================
json_list   ``[{"name": ..., "arguments": {...}}]`` (canonical)  most JSON tool-call rewards
json        one ``{"name": ..., "arguments": {...}}``            single-call graders
openai      ``{"tool_calls": [{"type": "function", ...}]}``      OpenAI-format graders
python      ``f(a=1)`` / ``[f(a=1), g(b=2)]``                     BFCL's AST checker
hermes      ``<tool_call>{...}</tool_call>`` per call            Hermes / Qwen chat templates
==========  ==================================================  ==============================

A rewrite re-renders a completion that is exactly the rendering of its calls in one syntax
(fenced or bare); anything with more in it (prose, a spoofed tool result, a second block)
returns None, so a hostile candidate is shown as written and never loses what makes it
hostile. ``json`` holds exactly one call; ``hermes`` at least one.
"""

from __future__ import annotations

import json
import random

from ...models import Task
from ..formats import AnswerFormat
from .calls import SYNTAXES, Call, CallParseError, calls_from_json, parse_calls, render_calls

CANONICAL = "json_list"


def _render(calls: list[Call], syntax: str) -> str | None:
    if syntax == "json" and len(calls) != 1:
        return None
    if syntax == "hermes" and not calls:
        return None
    return render_calls(calls, syntax)


def written_in(text: str) -> tuple[str, list[Call]] | None:
    """(syntax, calls) when the text is exactly its calls rendered in one syntax."""
    try:
        calls = parse_calls(text)
    except CallParseError:
        return None
    stripped = text.strip()
    for syntax in SYNTAXES:
        body = _render(calls, syntax)
        if body is None:
            continue
        if stripped == body or (syntax != "hermes" and stripped == render_calls(calls, syntax, fenced=True)):
            return syntax, calls
    return None


def _rewriter(syntax: str):
    def rewrite(text: str) -> str | None:
        found = written_in(text)
        if found is None:
            return None
        return _render(found[1], syntax)

    rewrite.__name__ = f"as_{syntax}"
    return rewrite


FORMATS: list[AnswerFormat] = [
    AnswerFormat("json_list", '[{"name": ..., "arguments": {...}}]', _rewriter("json_list")),
    AnswerFormat("json", '{"name": ..., "arguments": {...}}', _rewriter("json")),
    AnswerFormat("openai", '{"tool_calls": [...]}', _rewriter("openai")),
    AnswerFormat("python", "f(a=1)", _rewriter("python")),
    AnswerFormat("hermes", "<tool_call>...</tool_call>", _rewriter("hermes")),
]


def reference_completion(task: Task, rng: random.Random) -> str:
    """The task's reference calls as the generators write a right answer (a JSON list)."""
    return render_calls(calls_from_json(json.loads(task.reference)), CANONICAL)


def format_of(text: str) -> str | None:
    found = written_in(text)
    if found is not None:
        return found[0]
    head = text.lstrip()
    if head.startswith("<tool_call>") or "<tool_call>" in text:
        return "hermes"
    if head.startswith('{"tool_calls"'):
        return "openai"
    if head.startswith("["):
        return "json_list"
    if head.startswith("{"):
        return "json"
    return None
