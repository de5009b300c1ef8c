"""Reference tool-call verifiers, weakest first, each a native ``(completion, task)`` function.

They are demos of how function-call graders go wrong; the audit runs them side by side.

* ``name_only``: the completion calls the reference's functions (the same multiset of
  names), whatever the arguments: what a "did it call the right tool" reward checks.
* ``schema_valid``: the completion parses and every call meets its function's JSON Schema
  (any values); it must state at least one call unless the reference states none.
  Structured-output rewards that only validate are this.
* ``exact_string``: the completion's JSON equals the reference's JSON after
  ``json.dumps(sort_keys=True)`` (a single object counts as a one-call list) — brittle: any
  other syntax, a reordering of parallel calls, a default given or omitted is rejected.
* ``ast_match``: the Berkeley Function Calling Leaderboard's AST check, re-implemented
  (gorilla ``berkeley-function-call-leaderboard``, ``bfcl_eval/eval_checker/ast_eval/
  ast_checker.py``): per call, the function name; no unexpected parameter; every required
  one present; each value of the right Python type (an int is accepted for a float, as
  BFCL does) and among the possible answers (the reference's value, an alternative's, or
  omitted/the default for an optional one); strings compared after BFCL's
  ``standardize_string`` (lowercased, spaces and ``,./-_*^`` removed); parallel calls
  matched in any order. It ignores the task's policy and scopes.
* ``final_state``: on a task with a state, run the calls and compare the final state with
  the reference's (any tool of the schema, no policy); elsewhere the oracle's call
  equivalence without the policy. What an environment-outcome reward checks.
* ``strong``: the oracle's label, policy and scopes included. The only one fit to pay.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from ...models import Task
from .calls import Call, CallParseError, parse_calls
from .oracle import TaskError, alternative_calls, label_completion, outcome_equivalent, reference_calls
from .policy import tool_schemas
from .schema import parameters_of, validate_call


def _calls(completion: str) -> list[Call] | None:
    try:
        return parse_calls(completion)
    except CallParseError:
        return None


def _reference(task: Task) -> list[Call] | None:
    try:
        return reference_calls(task)
    except TaskError:
        return None


def name_only(completion: str, task: Task) -> bool:
    """The same function names as the reference (any arguments)."""
    ref = _reference(task)
    calls = _calls(completion)
    if ref is None:
        return False
    if calls is None:
        calls = []
    return Counter(c.name for c in calls) == Counter(c.name for c in ref)


def schema_valid(completion: str, task: Task) -> bool:
    """Parses, and every call meets the task's schemas (any values)."""
    ref = _reference(task)
    calls = _calls(completion)
    if ref is None or calls is None:
        return False
    if not calls and ref:
        return False
    schemas = tool_schemas(task)
    return all(validate_call(c, schemas) is None for c in calls)


def exact_string(completion: str, task: Task) -> bool:
    """The completion's JSON text equals the reference's after json.dumps(sort_keys=True)."""
    try:
        got = json.loads(completion.strip())
        want = json.loads(task.reference)
    except (json.JSONDecodeError, TypeError, ValueError, RecursionError):
        return False
    if isinstance(got, dict):
        got = [got]
    if isinstance(want, dict):
        want = [want]
    try:
        return json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    except RecursionError:
        return False


# ----------------------------------------------------------------------------- BFCL-style AST

_BFCL_STRIP = re.compile(r"[ \,\.\/\-\_\*\^]")
_PY_TYPES = {
    "integer": (int,),
    "int": (int,),
    "number": (int, float),
    "float": (int, float),
    "string": (str,),
    "str": (str,),
    "boolean": (bool,),
    "bool": (bool,),
    "array": (list,),
    "list": (list,),
    "tuple": (list,),
    "object": (dict,),
    "dict": (dict,),
}
_OMITTED = object()


def standardize_string(text: str) -> str:
    """BFCL's string normalisation: lowercase, no spaces or ``,./-_*^``, ' as "."""
    return _BFCL_STRIP.sub("", text).lower().replace("'", '"')


def _bfcl_equal(value: Any, want: Any) -> bool:
    if isinstance(want, str) and isinstance(value, str):
        return standardize_string(value) == standardize_string(want)
    if isinstance(want, list) and isinstance(value, list):
        return len(value) == len(want) and all(_bfcl_equal(v, w) for v, w in zip(value, want))
    if isinstance(want, dict) and isinstance(value, dict):
        return value.keys() == want.keys() and all(_bfcl_equal(value[k], want[k]) for k in want)
    if isinstance(want, bool) or isinstance(value, bool):
        return type(value) is type(want) and value == want
    return value == want


def _type_ok(value: Any, schema: dict) -> bool:
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    allowed: tuple = ()
    for k in kinds:
        if k is None or k == "any":
            return True
        allowed += _PY_TYPES.get(str(k), ())
    if not allowed:
        return True
    if isinstance(value, bool):
        return bool in allowed
    return isinstance(value, allowed)


def _possible_answers(task: Task) -> list[list[tuple[str, dict[str, list]]]]:
    """One possible answer per acceptable call list (the reference, each alternative): per
    call, its name and param -> acceptable values (``_OMITTED``: "may be left out")."""
    schemas = tool_schemas(task)
    answers = [_reference(task) or []]
    try:
        answers += alternative_calls(task)
    except TaskError:
        pass
    out = []
    for calls in answers:
        slots = []
        for call in calls:
            params = parameters_of(schemas.get(call.name, {}))
            props = params.get("properties") or {}
            required = set(params.get("required") or [])
            possible = {}
            for name, prop in props.items():
                values = [call.arguments[name]] if name in call.arguments else []
                if name not in required:
                    default = prop.get("default", _OMITTED) if isinstance(prop, dict) else _OMITTED
                    if name not in call.arguments:
                        values += [_OMITTED] + ([default] if default is not _OMITTED else [])
                    elif default is not _OMITTED and call.arguments[name] == default:
                        values.append(_OMITTED)
                possible[name] = values
            slots.append((call.name, possible))
        out.append(slots)
    return out


def _call_matches(call: Call, possible: dict[str, list], schema: dict) -> bool:
    params = parameters_of(schema)
    props = params.get("properties") or {}
    for name, value in call.arguments.items():
        if name not in possible:
            return False  # unexpected parameter
        if name in props and isinstance(props[name], dict) and not _type_ok(value, props[name]):
            return False
        if not any(w is not _OMITTED and _bfcl_equal(value, w) for w in possible[name]):
            return False
    for name, values in possible.items():
        if name not in call.arguments and _OMITTED not in values:
            return False  # a required parameter (or one the answer gives) is missing
    return True


def ast_match(completion: str, task: Task) -> bool:
    """BFCL's AST checker: names, parameters, types and possible answers; parallel calls in
    any order; no policy."""
    ref = _reference(task)
    calls = _calls(completion)
    if ref is None:
        return False
    if not ref:  # irrelevance: BFCL passes an output it cannot decode into calls
        return not calls
    if calls is None or len(calls) != len(ref):
        return False
    schemas = tool_schemas(task)
    for slots in _possible_answers(task):
        if len(slots) != len(calls):
            continue
        # As BFCL's parallel checker: each possible answer takes the first unused model call
        # that matches it; every model call must be taken.
        used: set[int] = set()
        for name, possible in slots:
            hit = next(
                (
                    i
                    for i, call in enumerate(calls)
                    if i not in used and call.name == name and _call_matches(call, possible, schemas.get(name, {}))
                ),
                None,
            )
            if hit is None:
                break
            used.add(hit)
        else:
            return True
    return False


def final_state(completion: str, task: Task) -> bool:
    """The outcome only: the final state on a state task (no policy), call equivalence elsewhere."""
    return outcome_equivalent(completion, task)


def strong(completion: str, task: Task) -> bool:
    """The oracle: equivalent calls under the schema, inside the task's policy and scopes."""
    return label_completion(completion, task).label == "correct"
