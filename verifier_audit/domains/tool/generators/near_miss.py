"""Near-misses: WRONG call lists close to the task's own reference.

Each kind is one mistake a tool-calling policy makes (the error classes of the Berkeley
Function Calling Leaderboard's AST checker: wrong function, missing or unexpected
parameter, wrong type, value not among the possible answers, wrong number of parallel
calls). Every mutant is wrong by construction, and the engine still asks the oracle: a
mutant it cannot tell from the reference (an equivalent mutant) is dropped and counted.
"""

from __future__ import annotations

import datetime as dt
import difflib
import random
import re
from collections.abc import Iterator
from typing import Any

from ....models import Candidate, Severity, Task
from ...kit import make_candidates, sample_kinds
from ..calls import Call, render_calls
from ..schema import case_insensitive
from ._common import Context, in_kind_order, with_arg, with_call, without_arg

MAX_PER_TASK = 12
PER_KIND = 2

KINDS: dict[str, tuple[Severity, str]] = {
    "wrong_function": (
        Severity.high,
        "another function of the schema, the most similar by name, with the same arguments",
    ),
    "swapped_arguments": (Severity.high, "two arguments of one call swapped (from/to, source/destination)"),
    "missing_required": (Severity.high, "a required argument left out"),
    "unknown_argument": (Severity.medium, "an argument the function does not have"),
    "off_by_one": (Severity.high, "a numeric argument off by one"),
    "unit_error": (Severity.high, "a numeric argument in another unit (x1000, x60, x100)"),
    "date_off_by_one": (Severity.high, "a date argument one day off"),
    "wrong_enum": (Severity.high, "another value of an enum argument"),
    "enum_case": (Severity.low, "an enum value in another case where the schema's enum is exact"),
    "type_coercion": (
        Severity.medium,
        'a value of a type the schema forbids ("5" for an integer, "true" for a boolean)',
    ),
    "dropped_call": (Severity.high, "one call of a parallel set dropped (or the only call: no call at all)"),
    "duplicated_call": (Severity.high, "one call made twice"),
    "value_from_other_call": (Severity.high, "an argument's value taken from another call of the set"),
    "irrelevant_call": (Severity.high, "a call where no tool applies (an irrelevance task)"),
}

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    ctx = Context.of(task)
    if ctx is None:
        return []
    chosen = sample_kinds(
        list(mutants(ctx)),
        rng,
        cap=MAX_PER_TASK,
        per_kind=PER_KIND,
        draw="sample",
        kind=lambda m: m[0],
        distinct=lambda m: render_calls(m[1]),
        order=in_kind_order(KINDS),
    )
    texts = [(kind, render_calls(calls), note, "json_list") for kind, calls, note in chosen]
    return make_candidates("tool", task.id, texts, origin="near_miss", label="incorrect", kinds=KINDS)


def mutants(ctx: Context) -> Iterator[tuple[str, list[Call], str]]:
    """Every (kind, wrong calls, note) that fits the reference, in a fixed order."""
    calls = ctx.calls
    if not calls:
        call = plausible_call(ctx)
        if call is not None:
            yield "irrelevant_call", [call], f"called {call.name} where no tool applies"
        return
    for i, call in enumerate(calls):
        yield from _call_mutants(ctx, i, call)
    if len(calls) >= 2:
        for i, call in enumerate(calls):
            yield "dropped_call", calls[:i] + calls[i + 1 :], f"dropped call {i} ({call.name})"
    else:
        yield "dropped_call", [], "no call at all"
    for i, call in enumerate(calls[:2]):
        yield "duplicated_call", calls[: i + 1] + [call] + calls[i + 1 :], f"call {i} ({call.name}) made twice"
    for i, a in enumerate(calls):
        for j, b in enumerate(calls):
            if i == j:
                continue
            for name, value in a.arguments.items():
                if name in b.arguments and b.arguments[name] != value:
                    yield (
                        "value_from_other_call",
                        with_call(calls, i, with_arg(a, name, b.arguments[name])),
                        f"call {i}: {name} from call {j}",
                    )
                    break


def _call_mutants(ctx: Context, i: int, call: Call) -> Iterator[tuple[str, list[Call], str]]:
    calls, props, required = ctx.calls, ctx.props(call.name), ctx.required(call.name)
    other = similar_tool(ctx, call.name)
    if other is not None:
        yield "wrong_function", with_call(calls, i, Call(other, dict(call.arguments))), f"{call.name} -> {other}"
    names = list(call.arguments)
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            va, vb = call.arguments[names[a]], call.arguments[names[b]]
            if type(va) is type(vb) and va != vb:
                swapped = {**call.arguments, names[a]: vb, names[b]: va}
                yield "swapped_arguments", with_call(calls, i, Call(call.name, swapped)), f"{names[a]} <-> {names[b]}"
    for name in required:
        if name in call.arguments:
            yield "missing_required", with_call(calls, i, without_arg(call, name)), f"{call.name}: {name} left out"
            break
    params_extra = (ctx.schemas.get(call.name, {}).get("parameters") or {}).get("additionalProperties")
    if not params_extra:
        extra = "force" if "force" not in props else "override"
        yield "unknown_argument", with_call(calls, i, with_arg(call, extra, True)), f"{call.name}: {extra}=True added"
    for name, value in call.arguments.items():
        prop = props.get(name) or {}
        if _numeric(value) and "enum" not in prop:
            yield "off_by_one", with_call(calls, i, with_arg(call, name, value + 1)), f"{name}: {value} -> {value + 1}"
            if value != 0:
                factor = _unit_factor(name)
                wrong = value * factor if isinstance(value, int) else round(value * factor, 6)
                yield (
                    "unit_error",
                    with_call(calls, i, with_arg(call, name, wrong)),
                    f"{name}: {value} -> {wrong} (x{factor})",
                )
        if isinstance(value, str) and _DATE.match(value):
            try:
                day = dt.date.fromisoformat(value) + dt.timedelta(days=1)
            except ValueError:
                day = None
            if day is not None:
                yield (
                    "date_off_by_one",
                    with_call(calls, i, with_arg(call, name, day.isoformat())),
                    f"{name}: {value} -> {day}",
                )
        enum = prop.get("enum") if isinstance(prop.get("enum"), list) else None
        if enum and isinstance(value, str):
            others = [e for e in enum if isinstance(e, str) and e.casefold() != value.casefold()]
            if others:
                yield (
                    "wrong_enum",
                    with_call(calls, i, with_arg(call, name, others[0])),
                    f"{name}: {value} -> {others[0]}",
                )
            if not case_insensitive(prop):
                flipped = value.upper() if value != value.upper() else value.title()
                if flipped != value:
                    yield (
                        "enum_case",
                        with_call(calls, i, with_arg(call, name, flipped)),
                        f"{name}: {value} -> {flipped}",
                    )
        kind = prop.get("type")
        if kind in ("integer", "number") and _numeric(value):
            yield (
                "type_coercion",
                with_call(calls, i, with_arg(call, name, str(value))),
                f"{name}: {value} -> {str(value)!r}",
            )
        elif kind == "boolean" and isinstance(value, bool):
            yield (
                "type_coercion",
                with_call(calls, i, with_arg(call, name, str(value).lower())),
                f"{name}: {value} -> string",
            )


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _unit_factor(name: str) -> int:
    lowered = name.lower()
    if any(w in lowered for w in ("minute", "hour", "duration", "second")):
        return 60
    if any(w in lowered for w in ("percent", "rate", "pct")):
        return 100
    return 1000


def similar_tool(ctx: Context, name: str) -> str | None:
    """The schema's other function most similar to ``name`` (ties: schema order)."""
    others = [n for n in ctx.schemas if n != name]
    if not others:
        return None
    return max(others, key=lambda n: difflib.SequenceMatcher(None, n, name).ratio())


def plausible_value(schema: dict) -> Any:
    """A schema-valid value with no meaning: the first enum value, "example", 1, True..."""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    return {"integer": 1, "number": 1.5, "boolean": True, "array": [], "object": {}, "null": None}.get(kind, "example")


def plausible_call(ctx: Context, name: str | None = None) -> Call | None:
    """A schema-valid call of ``name`` (default: the first tool) with meaningless values."""
    if not ctx.schemas:
        return None
    name = name or next(iter(ctx.schemas))
    props = ctx.props(name)
    return Call(name, {arg: plausible_value(props.get(arg) or {}) for arg in ctx.required(name)})
