"""The call-boundary check: do a style's arguments bind to the verifier's signature?

A verifier whose signature cannot take its style's call -- ``def f(a, b, c)`` called as
``f(completion, reference)``, ``compute_score(solution_str, ground_truth)`` picked as verl
by its parameter names and called with verl's four arguments, a TRL reward asking for a
column the suite lacks -- raises TypeError on every call. Audited, that is a report in
which every call errored and a failed gate: in CI it looks like an unsound verifier, when
it is a usage error. So before the audit each function a style calls is bound, with
``inspect.Signature.bind``, to what the style passes, and one that does not bind is a
``VerifierLoadError`` (exit 2) naming the style and how it was picked, the signature, what
is passed and the fix.

The signature is the one the confined inspection read (``loading._inspect_one`` ->
``read``: names, kinds, which have defaults), rebuilt here in the parent; the verifier is
never imported outside its walls. A style declares what it passes with ``call_of(spec,
signature, tasks) -> Call`` in its module (function.py, verl.py, trl.py), next to the
caller that passes it, so the check and the call cannot drift apart. A verifier that
binds but raises TypeError inside its body is not checked here: that is the verifier's
error, audited as any other.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import VerifierLoadError
from ..models import Task

#: The styles offered as the fix when theirs binds, in this order (native is not: pair
#: binds wherever it does, and the task object is rarely what a foreign function wants).
_OFFERED = ("pair", "verl", "trl")


@dataclass(frozen=True)
class Call:
    """What a style passes to one function: positional arguments (by the style's names
    for them) and keyword arguments. ``columns``: for a style that passes the suite's
    columns (TRL), all it has, to name beside the ones the function asks for; ``fix``: the
    style's own advice when it does not bind."""

    positional: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    fix: str = ""

    def describe(self) -> str:
        parts = []
        if self.positional:
            parts.append(
                f"{len(self.positional)} positional argument{'s' if len(self.positional) != 1 else ''} "
                f"({', '.join(self.positional)})"
            )
        if self.keywords:
            parts.append(f"the keyword argument{'s' if len(self.keywords) != 1 else ''} {', '.join(self.keywords)}")
        return " and ".join(parts) or "no arguments"


def read(fn: Any) -> dict | None:
    """What the check needs of ``fn``'s signature, as JSON (it crosses from the inspecting
    worker): its name, the signature as written, its parameters ``[name, kind, has
    default]``, and where it is defined. None when the signature cannot be read (a
    builtin): nothing is checked then."""
    try:
        # The function's own parameters, not those of what it wraps (functools.wraps): an
        # adapter written as a decorator is called, and binds, with its own.
        sig = inspect.signature(fn, follow_wrapped=False)
    except (TypeError, ValueError):
        return None
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    return {
        "name": str(getattr(fn, "__name__", type(fn).__name__)),
        "signature": str(sig),
        "params": [[p.name, int(p.kind), p.default is not p.empty] for p in sig.parameters.values()],
        "file": getattr(code, "co_filename", ""),
        "line": getattr(code, "co_firstlineno", 0),
    }


def valid_reads(value: Any) -> tuple[dict, ...]:
    """``value`` (sent by the inspecting process, which ran the verifier's code) kept only
    where it has the shape ``read`` gives; anything else is not checked."""
    if not isinstance(value, list):
        return ()
    out = []
    for r in value:
        if (
            isinstance(r, dict)
            and isinstance(r.get("name"), str)
            and isinstance(r.get("signature"), str)
            and isinstance(r.get("file", ""), str)
            and isinstance(r.get("line", 0), int)
            and isinstance(r.get("params"), list)
            and all(
                isinstance(p, list)
                and len(p) == 3
                and isinstance(p[0], str)
                and isinstance(p[1], int)
                and isinstance(p[2], bool)
                for p in r["params"]
            )
        ):
            out.append(r)
    return tuple(out)


def signature(reading: dict) -> inspect.Signature | None:
    """The signature ``read`` described, rebuilt (defaults stand in as None); None when the
    description is not a valid signature."""
    try:
        return inspect.Signature(
            [
                inspect.Parameter(
                    name,
                    type(inspect.Parameter.POSITIONAL_OR_KEYWORD)(kind),
                    default=None if has_default else inspect.Parameter.empty,
                )
                for name, kind, has_default in reading["params"]
            ]
        )
    except (TypeError, ValueError):
        return None


def bind_error(sig: inspect.Signature, call: Call) -> str | None:
    """Why ``call`` does not bind to ``sig`` (TypeError's words), or None when it does."""
    params = sig.parameters.values()
    keywords = call.keywords
    if any(p.kind is p.VAR_KEYWORD for p in params):
        # Python puts a keyword named like a positional-only parameter into **kwargs;
        # Signature.bind refuses it, so it is left out here, where it binds anyway.
        only = {p.name for p in params if p.kind is p.POSITIONAL_ONLY}
        keywords = tuple(k for k in keywords if k not in only)
    try:
        sig.bind(*call.positional, **{name: None for name in keywords})
    except TypeError as exc:
        return str(exc)
    return None


def style_call(style: str, spec: Any, sig: inspect.Signature, tasks: list[Task]) -> Call | None:
    """What ``style`` passes to a function of signature ``sig`` (None: a style not checked)."""
    from ._registry import get_style

    call_of = getattr(get_style(style).implementation(), "call_of", None)
    return call_of(spec, sig, tasks) if call_of is not None else None


def check_calls(specs: Iterable[Any], tasks: list[Task], suite: str) -> None:
    """Raise a ``VerifierLoadError`` for the first verifier (``loading.VerifierSpec``)
    whose style's call does not bind to one of the functions it calls, on ``tasks`` (the
    suite ``suite``'s tasks to be audited). A member of a composite reward is checked with
    the whole."""
    from dataclasses import replace

    for spec in specs:
        if spec.part is not None:
            continue
        for reading in spec.calls:
            sig = signature(reading)
            call = style_call(spec.style, spec, sig, tasks) if sig is not None else None
            problem = bind_error(sig, call) if call is not None else None
            if problem is None:
                continue
            # A TRL reward's problem is a column; pair would "bind" its list-taking function
            # positionally, which is no fix.
            others = [] if spec.style == "trl" else [s for s in _OFFERED if s != spec.style]
            binds = [
                s
                for s in others
                if (c := style_call(s, replace(spec, style=s, options=()), sig, tasks)) is not None
                and bind_error(sig, c) is None
            ]
            raise VerifierLoadError(message(spec, reading, call, problem, binds, suite))


def message(spec: Any, reading: dict, call: Call, problem: str, binds: list[str], suite: str) -> str:
    """The usage error: which verifier (its file and line), the style and how it was
    picked, what the style passes, the signature, why they do not bind, and the fix."""
    from ._registry import get_style

    where = f" ({reading['file']} line {reading['line']})" if reading.get("file") and reading.get("line") else ""
    name = reading["name"]
    picked = f", {spec.picked}" if spec.picked else ""
    head = (
        f"verifier {spec.spec}{where}: style {spec.style}{picked}, passes {call.describe()}, but its signature "
        f"is {name}{reading['signature']}: {problem}. Nothing was audited: every call would raise this "
        f"TypeError."
    )
    if call.columns:
        asked = [
            p[0]
            for p in reading["params"]
            if p[0] != "completions"
            and p[1] in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        ]
        head += (
            f" It asks for the column{'s' if len(asked) != 1 else ''} {', '.join(asked)}; the rows of suite "
            f"{suite} have {', '.join(call.columns)}."
        )
    if binds:
        fix = "; or ".join(f"--style {s} ({get_style(s).summary})" for s in binds) + " takes it as written"
    elif call.fix:
        fix = call.fix
    else:
        fix = (
            f"no style's call binds to {name}{reading['signature']}: write a wrapper with the signature "
            f"--style {spec.style} calls, {get_style(spec.style).summary}, that calls {name}, and audit the "
            f"wrapper"
        )
    return f"{head} Fix: {fix}."
