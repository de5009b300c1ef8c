"""Equivalents: RIGHT call lists written differently from the reference.

What a strict grader trips on (exact match on the JSON text, one syntax only) while the
calls are the same: argument order, defaults given or omitted, integral numbers as floats,
another syntax (a single JSON object, OpenAI ``tool_calls``, Python-call syntax, Hermes
tags), whitespace and quoting, a Markdown fence with a sentence before it, parallel calls
in another order. The engine asks the oracle about each; one it finds different is dropped.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

from ....models import Candidate, Severity, Task
from ...kit import make_candidates, sample_kinds
from ..calls import Call, CallParseError, calls_from_json, render_calls
from ._common import Context, in_kind_order, with_arg, with_call, without_arg

MAX_PER_TASK = 10

KINDS: dict[str, tuple[Severity, str]] = {
    "argument_order": (Severity.medium, "the arguments in another order"),
    "default_given": (Severity.medium, "an omitted optional argument given explicitly with its default"),
    "default_omitted": (Severity.medium, "an argument equal to its default left out"),
    "number_form": (Severity.low, "an integral number written as a float (5 -> 5.0)"),
    "single_object": (Severity.medium, "one call as a JSON object instead of a one-element list"),
    "openai_syntax": (Severity.medium, "OpenAI tool_calls format (arguments as JSON text)"),
    "python_syntax": (Severity.medium, "Python-call syntax, as BFCL prompts for: f(a=1)"),
    "hermes_syntax": (Severity.medium, "Hermes / Qwen <tool_call> tags"),
    "whitespace": (Severity.low, "pretty-printed JSON (newlines and indentation)"),
    "quoting": (Severity.low, "Python syntax with double-quoted strings, or JSON with \\u escapes"),
    "fenced": (Severity.low, "in a ```json fence after a sentence"),
    "parallel_reordered": (Severity.high, "parallel calls in another order"),
    "no_call_prose": (Severity.medium, "an irrelevance task answered in words, with no call"),
    "alternative": (Severity.high, "another acceptable answer the task lists (metadata alternatives)"),
}


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    ctx = Context.of(task)
    if ctx is None:
        return []
    chosen = sample_kinds(
        list(rewrites(ctx)), rng, cap=MAX_PER_TASK, draw="sample", kind=lambda r: r[0], order=in_kind_order(KINDS)
    )
    return make_candidates("tool", task.id, chosen, origin="equivalent", label="correct", kinds=KINDS)


def _py_double(calls: list[Call]) -> str:
    parts = [f"{c.name}({', '.join(f'{k}={_py_value(v)}' for k, v in c.arguments.items())})" for c in calls]
    return parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"


def _py_value(v) -> str:
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_py_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {_py_value(x)}" for k, x in v.items()) + "}"
    return repr(v)


def rewrites(ctx: Context) -> Iterator[tuple[str, str, str, str]]:
    """Every (kind, text, note, format) that fits the reference, in a fixed order."""
    calls = ctx.calls
    if not calls:
        yield (
            "no_call_prose",
            "None of the available functions can answer this request, so I will not call any.",
            "no call, in words",
            None,
        )
        yield "whitespace", "[ ]", "an empty list with a space", "json_list"
        return
    for i, call in enumerate(calls):
        if len(call.arguments) >= 2:
            flipped = Call(call.name, dict(reversed(list(call.arguments.items()))))
            yield (
                "argument_order",
                render_calls(with_call(calls, i, flipped)),
                f"call {i}: arguments reversed",
                "json_list",
            )
            break
    for i, call in enumerate(calls):
        props = ctx.props(call.name)
        given = [
            n
            for n, p in props.items()
            if isinstance(p, dict) and "default" in p and n not in call.arguments and n not in ctx.required(call.name)
        ]
        if given:
            name = given[0]
            yield (
                "default_given",
                render_calls(with_call(calls, i, with_arg(call, name, props[name]["default"]))),
                f"call {i}: {name}={props[name]['default']!r} given",
                "json_list",
            )
        same = [
            n
            for n, p in props.items()
            if isinstance(p, dict)
            and "default" in p
            and n in call.arguments
            and call.arguments[n] == props[n]["default"]
            and n not in ctx.required(call.name)
        ]
        if same:
            yield (
                "default_omitted",
                render_calls(with_call(calls, i, without_arg(call, same[0]))),
                f"call {i}: {same[0]} (the default) left out",
                "json_list",
            )
    for i, call in enumerate(calls):
        ints = [n for n, v in call.arguments.items() if isinstance(v, int) and not isinstance(v, bool)]
        if ints:
            text = render_calls(with_call(calls, i, with_arg(call, ints[0], float(call.arguments[ints[0]]))))
            yield "number_form", text, f"call {i}: {ints[0]} as a float", "json_list"
            break
    if len(calls) == 1:
        yield "single_object", render_calls(calls, "json"), "one JSON object", "json"
    yield "openai_syntax", render_calls(calls, "openai"), "OpenAI tool_calls", "openai"
    yield "python_syntax", render_calls(calls, "python"), "Python-call syntax", "python"
    yield "hermes_syntax", render_calls(calls, "hermes"), "Hermes tags", "hermes"
    yield "whitespace", json.dumps([c.to_json() for c in calls], indent=2, ensure_ascii=False), "indented JSON", None
    if any(isinstance(v, str) for c in calls for v in c.arguments.values()):
        yield "quoting", _py_double(calls), "Python syntax, double quotes", None
    if any(not s.isascii() for c in calls for v in c.arguments.values() for s in [json.dumps(v, ensure_ascii=False)]):
        yield "quoting", json.dumps([c.to_json() for c in calls]), "JSON with \\u escapes", None
    yield (
        "fenced",
        "I'll call the tool"
        + ("s" if len(calls) > 1 else "")
        + " for this.\n\n"
        + render_calls(calls, "json_list", fenced=True),
        "fenced after a sentence",
        None,
    )
    for alt in (ctx.task.metadata.get("alternatives") or [])[:2]:
        try:
            alt_calls = calls_from_json(json.loads(alt) if isinstance(alt, str) else alt)
        except (ValueError, TypeError, CallParseError):
            continue
        yield "alternative", render_calls(alt_calls), "an alternative answer the task lists", "json_list"
    if len(calls) >= 2 and not ctx.order_matters:
        yield "parallel_reordered", render_calls(list(reversed(calls))), "calls reversed", "json_list"
        if len(calls) >= 3:
            yield "parallel_reordered", render_calls(calls[1:] + calls[:1]), "calls rotated", "json_list"
