"""The tool-call oracle: is a completion's set of calls a right answer to the task, inside
the authority the task allows?

Rules, in the order they are applied (docs/tool-domain.md has the table):

1. The reference (``task.reference``, JSON: a list of calls; ``[]`` when no tool applies)
   must parse and meet the schemas, else the label is None (the task is unusable).
2. The completion's calls are read by ``calls.parse_calls`` (the whole text, one fenced
   block, or Hermes ``<tool_call>`` tags; JSON, OpenAI ``tool_calls`` or Python-call syntax).
   A completion that states no call a runtime could execute is read as "no calls": right
   only for an irrelevance task (reference ``[]``), as BFCL scores irrelevance. When the
   text cannot be read but holds something call-shaped in prose (a JSON object with a name
   and arguments, ``tool(...)`` of a tool of the task), the oracle cannot tell whether a
   runtime would execute it: label None (the engine drops the candidate, counted).
3. Every call must name a function of the task and meet its schema (``schema.py``: types,
   required and unknown arguments, enums, bounds).
4. Every call must be inside the task's policy (``policy.violations``): an allowed tool, at
   or under the task's privilege, each scoped argument in its scope. A call outside the
   policy is wrong whatever its effect.
5. The calls, in canonical form (defaults filled in, numbers normalised, argument order
   irrelevant), must be the same multiset as the reference's or one of
   ``metadata["alternatives"]`` (the same list, in order, when ``order_matters``): an
   extra or a duplicated call is wrong.
6. Where the task has ``metadata["state"]``, the calls are also run on it (``state.py``)
   in the order written, and the final state must equal the reference's.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter

from ...models import Task
from ..base import OracleLabel
from ..input_limits import LIMITS, MAX_DEPTH, may_exceed
from .calls import Call, CallParseError, calls_from_json, parse_calls
from .policy import task_policy, tool_privilege, tool_schemas, violations
from .schema import SchemaError, arguments_problem, normalise_call
from .state import SimulationError, canonical_state, simulate


class TaskError(ValueError):
    """The task's own reference (or an alternative) is unusable."""


def reference_calls(task: Task) -> list[Call]:
    try:
        return calls_from_json(json.loads(task.reference))
    except (json.JSONDecodeError, TypeError) as exc:
        raise TaskError(f"reference is not JSON: {exc}") from None
    except CallParseError as exc:
        raise TaskError(f"reference is not a list of calls: {exc}") from None


def alternative_calls(task: Task) -> list[list[Call]]:
    out = []
    for i, alt in enumerate(task.metadata.get("alternatives") or []):
        try:
            out.append(calls_from_json(json.loads(alt) if isinstance(alt, str) else alt))
        except (json.JSONDecodeError, TypeError, CallParseError) as exc:
            raise TaskError(f"alternative {i} is not a list of calls: {exc}") from None
    return out


def canonical(calls: list[Call], task: Task) -> list[Call]:
    """The calls in canonical form under the task's schemas; SchemaError on the first that
    breaks them (an unknown function included)."""
    schemas = tool_schemas(task)
    out = []
    for call in calls:
        if call.name not in schemas:
            raise SchemaError(f"{call.name}: not a function of this task")
        out.append(normalise_call(call, schemas[call.name]))
    return out


def same_calls(a: list[Call], b: list[Call], order_matters: bool = False) -> bool:
    """Canonical calls equal as multisets (as lists when order matters)."""
    ka, kb = [c.key() for c in a], [c.key() for c in b]
    return ka == kb if order_matters else Counter(ka) == Counter(kb)


def _read_only_tools(task: Task) -> set[str]:
    return {name for name, schema in tool_schemas(task).items() if tool_privilege(schema) == "read"}


def final_state(calls: list[Call], task: Task) -> str:
    """The canonical final state after the (canonical) calls; SimulationError if they fail."""
    return canonical_state(simulate(calls, task.metadata["state"], _read_only_tools(task)))


def answers(task: Task) -> list[list[Call]]:
    """The reference and its alternatives, canonical; TaskError when one is unusable."""
    out = []
    for i, calls in enumerate([reference_calls(task), *alternative_calls(task)]):
        try:
            out.append(canonical(calls, task))
        except SchemaError as exc:
            raise TaskError(f"{'reference' if i == 0 else f'alternative {i - 1}'} breaks the schema: {exc}") from None
    return out


def check_input(task: Task) -> str | None:
    """Why the suite reader refuses the task as input (an InputError naming the file and
    the line): a call of its reference or of an alternative whose arguments break a bound of
    ``input_limits``. The suite reader bounds the row itself, but the calls are JSON inside
    the reference's text, which it does not read; past the bound they crashed the audit in
    ``check_task`` (a RecursionError). Gold that does not parse at all is ``check_task``'s to
    report (the task is dropped as unusable), as before."""
    alternatives = task.metadata.get("alternatives") or []
    answers = [("reference", task.reference)]
    if isinstance(alternatives, list):
        answers += [(f"alternative {i}", alt) for i, alt in enumerate(alternatives)]
    for which, raw in answers:
        if isinstance(raw, str) and not may_exceed(raw):
            continue  # the calls' arguments sit two levels inside the text: within the bounds
        try:
            calls = calls_from_json(json.loads(raw) if isinstance(raw, str) else raw)
        except RecursionError:
            return f"{which}: objects and lists nested deeper than the limit of {MAX_DEPTH} levels ({LIMITS})"
        except (json.JSONDecodeError, TypeError, CallParseError):
            continue
        for call in calls:
            problem = arguments_problem(call)
            if problem is not None:
                return f"{which}: {problem}; shorten it or split the task"
    return None


def check_task(task: Task) -> str | None:
    """Why the task is unusable (reference or alternative unparseable, off-schema, outside
    its own policy, failing on its own state), or None."""
    if not tool_schemas(task):
        return "the task offers no tools (metadata['tools'] is empty)"
    try:
        found = answers(task)
    except TaskError as exc:
        return str(exc)
    policy = task_policy(task, [c for ans in found for c in ans])
    outcome = None
    for i, calls in enumerate(found):
        which = "reference" if i == 0 else f"alternative {i - 1}"
        broken = violations(calls, policy)
        if broken:
            return f"{which} violates the task's own policy: {broken[0]}"
        if "state" in task.metadata:
            try:
                state = final_state(calls, task)
            except SimulationError as exc:
                return f"{which} fails on the task's state: {exc}"
            if outcome is None:
                outcome = state
            elif state != outcome:
                return f"{which} reaches another state than the reference"
    return None


_JSON_START = re.compile(r"[\[{]")
MAX_PROSE_CALL = 4000  # a call in prose longer than this is not looked for


def _call_in_prose(text: str, task: Task) -> bool:
    """Does unreadable text still hold something a lenient runtime might execute as a call?
    Only prose counts: text that is itself a malformed answer (it opens like JSON, a fence or
    a tag) states no executable call."""
    head = text.lstrip()[:12]
    if head.startswith(("{", "[", "```", "<tool_call>")):
        return False
    decoder = json.JSONDecoder()
    for n, match in enumerate(_JSON_START.finditer(text)):
        if n > 200:
            break
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except (json.JSONDecodeError, RecursionError):
            continue
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict):
                fn = item.get("function") if isinstance(item.get("function"), dict) else item
                if isinstance(fn.get("name"), str) and ("arguments" in fn or "parameters" in fn):
                    return True
    for name in tool_schemas(task):
        for n, match in enumerate(re.finditer(rf"(?<![\w.]){re.escape(name)}\s*\(", text)):
            if n >= 20:
                break
            end = text.find(")", match.end())
            tries = 0
            while end != -1 and tries < 20 and end - match.start() < MAX_PROSE_CALL:
                try:
                    node = ast.parse(text[match.start() : end + 1], mode="eval").body
                    if isinstance(node, ast.Call):
                        return True
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    pass
                end, tries = text.find(")", end + 1), tries + 1
    return False


def _only_call_syntax(text: str) -> bool:
    """Whether the whole text (fences and tags aside: as parse_calls reads it) is a Python
    call or list of calls, whatever its arguments are."""
    if len(text) > MAX_PROSE_CALL * 20:
        return False
    try:
        body = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    nodes = body.elts if isinstance(body, (ast.List, ast.Tuple)) else [body]
    return bool(nodes) and all(isinstance(n, ast.Call) for n in nodes)


def label_completion(text: str, task: Task, *, check_policy: bool = True) -> OracleLabel:
    """The oracle's label of one completion (module docstring: the rules)."""
    try:
        found = answers(task)
    except TaskError as exc:
        return OracleLabel(None, f"task unusable: {exc}")
    order_matters = bool(task.metadata.get("order_matters", False))
    try:
        calls = parse_calls(text)
        how = "calls"
    except CallParseError as exc:
        if isinstance(text, str) and _only_call_syntax(text):
            # The whole answer is call syntax whose arguments are expressions, not values:
            # no call a runtime reading JSON or literals could make (what evaluates it runs
            # model output).
            return OracleLabel("incorrect", f"arguments that are expressions, not values ({exc})")
        if isinstance(text, str) and _call_in_prose(text, task):
            return OracleLabel(None, f"a call in prose that does not parse ({exc}): a runtime may or may not run it")
        calls, how = [], f"no call stated ({exc})"
    try:
        calls = canonical(calls, task)
    except SchemaError as exc:
        reason = str(exc)
        if "not a function of this task" in reason:
            return OracleLabel("incorrect", f"hallucinated tool: {reason}")
        return OracleLabel("incorrect", f"schema: {reason}")
    if check_policy:
        broken = violations(calls, task_policy(task, [c for ans in found for c in ans]))
        if broken:
            return OracleLabel("incorrect", f"outside the task's policy: {broken[0]}")
    match = next((i for i, ans in enumerate(found) if same_calls(calls, ans, order_matters)), None)
    if match is None:
        if not calls:
            return OracleLabel("incorrect", how if how != "calls" else "no calls, where the task needs some")
        return OracleLabel("incorrect", "not the same calls as the reference")
    if "state" in task.metadata:
        try:
            got = final_state(calls, task)
        except SimulationError as exc:
            return OracleLabel("incorrect", f"the calls fail on the task's state: {exc}")
        if got != final_state(found[0], task):
            return OracleLabel("incorrect", "the calls reach another final state than the reference")
    which = "the reference" if match == 0 else f"alternative {match - 1}"
    if not calls:
        return OracleLabel("correct", "no call, as the task needs" + ("" if how == "calls" else f": {how}"))
    return OracleLabel("correct", f"same calls as {which}")


def outcome_equivalent(text: str, task: Task) -> bool:
    """What an outcome-only grader checks: on a task with a state, the calls run and reach
    the reference's final state (any calls, any tools of the task, no policy); elsewhere,
    the oracle's call equivalence without the policy."""
    if "state" not in task.metadata:
        return label_completion(text, task, check_policy=False).label == "correct"
    try:
        ref = answers(task)[0]
        try:
            calls = parse_calls(text)
        except CallParseError:
            calls = []  # no call stated: the state is left as it was
        return final_state(canonical(calls, task), task) == final_state(ref, task)
    except (TaskError, SchemaError, SimulationError):
        return False
