"""Function calls as a policy writes them, read into one form and written back out.

A completion states zero or more calls. We read the syntaxes real tool-calling models and
graders use:

- JSON: one call ``{"name": ..., "arguments": {...}}`` (``"parameters"`` also read), a
  list of calls, OpenAI's ``{"tool_calls": [{"type": "function", "function": {"name",
  "arguments": "<JSON text>"}}]}`` and the older ``{"function_call": {...}}``;
- Python-call syntax, as the Berkeley Function Calling Leaderboard prompts for:
  ``get_weather(city="Paris")`` or ``[f(a=1), g(b=2)]``, keyword arguments with literal
  values (dotted names such as ``math.factorial`` allowed);
- either one inside a Markdown fence (```json, ```python, or bare), or inside Hermes /
  Qwen ``<tool_call>...</tool_call>`` tags (one call per tag).

Anything else is a ``CallParseError`` with the reason: the oracle and the strong verifier
treat an unreadable completion as no answer. Parsing never evaluates the text (Python
calls are read with ``ast``, values with ``ast.literal_eval``), so hostile input costs
nothing but a parse.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..base import UnreadableCalls

MAX_TEXT = 200_000  # longer completions are not parsed (a policy does not need more)
SYNTAXES = ("json", "json_list", "openai", "python", "hermes")

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)\n?```", re.DOTALL)
_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


class CallParseError(UnreadableCalls):
    """The completion states no call we can read; the message says why (a ValueError: the
    contract's ``UnreadableCalls``, which samples/authority.py counts as unreadable)."""


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments}

    def key(self) -> str:
        """A canonical text of the call (sorted keys): equal calls, equal keys."""
        return json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False)


def calls_from_json(value: Any) -> list[Call]:
    """Calls from a parsed JSON value (a reference, a dataset row, a completion's JSON)."""
    if isinstance(value, dict) and "tool_calls" in value:
        value = value["tool_calls"] or []
    elif isinstance(value, dict) and "function_call" in value:
        value = [value["function_call"]]
    items = value if isinstance(value, list) else [value]
    return [_one_json_call(item) for item in items]


def _one_json_call(item: Any) -> Call:
    if not isinstance(item, dict):
        raise CallParseError(f"a call must be a JSON object, not {type(item).__name__}")
    if "function" in item and isinstance(item["function"], dict):  # OpenAI's tool_calls entry
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise CallParseError("a call has no function name")
    args = item.get("arguments", item.get("parameters", {}))
    if isinstance(args, str):  # OpenAI sends the arguments as JSON text
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as exc:
            raise CallParseError(f"{name}: arguments are not JSON ({exc.msg})") from None
    if not isinstance(args, dict):
        raise CallParseError(f"{name}: arguments must be an object, not {type(args).__name__}")
    return Call(name, args)


def _python_calls(text: str) -> list[Call]:
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise CallParseError(f"not a Python call ({type(exc).__name__})") from None
    body = tree.body
    nodes = body.elts if isinstance(body, (ast.List, ast.Tuple)) else [body]
    calls = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            raise CallParseError("a Python-syntax answer must be calls: f(a=1) or [f(a=1), g(b=2)]")
        if node.args:
            raise CallParseError(f"{_dotted(node.func)}: positional arguments (name every argument)")
        args = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise CallParseError(f"{_dotted(node.func)}: **kwargs is not a value")
            try:
                args[kw.arg] = ast.literal_eval(kw.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                raise CallParseError(f"{_dotted(node.func)}: argument {kw.arg} is not a literal") from None
        calls.append(Call(_dotted(node.func), _jsonable(args)))
    return calls


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    raise CallParseError("a call's function must be a name")


def _jsonable(value: Any) -> Any:
    """Tuples and sets from ``literal_eval`` as lists: the JSON form of the same value."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v) for v in value), key=repr)
    if isinstance(value, complex) or isinstance(value, bytes):
        raise CallParseError("complex numbers and bytes are not JSON values")
    return value


def _from_body(body: str) -> list[Call]:
    body = body.strip()
    if not body:
        raise CallParseError("empty answer")
    if body[0] in "{[":
        try:
            return calls_from_json(json.loads(body))
        except json.JSONDecodeError:
            if body[0] == "{":
                raise CallParseError("malformed JSON") from None
            # "[f(a=1)]" is a Python list of calls, not JSON
    return _python_calls(body)


def parse_calls(text: str) -> list[Call]:
    """The calls a completion states, in order; ``[]`` for an explicit empty list."""
    if not isinstance(text, str):
        raise CallParseError("not text")
    if len(text) > MAX_TEXT:
        raise CallParseError(f"longer than {MAX_TEXT} characters")
    try:
        return _parse(text)
    except (RecursionError, MemoryError):
        raise CallParseError("nested too deeply") from None


def _parse(text: str) -> list[Call]:
    tagged = _HERMES.findall(text)
    if tagged:
        return [call for body in tagged for call in _from_body(body)]
    fenced = _FENCE.findall(text)
    if len(fenced) > 1:
        raise CallParseError("several fenced blocks: which one is the answer?")
    if fenced:
        return _from_body(fenced[0][1])
    return _from_body(text)


def _json(value: Any) -> str:
    """JSON text in which no string can open a fence or a Hermes tag: ``<`` and a backtick
    are written as ``\\u`` escapes (outside strings JSON has neither)."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace("`", "\\u0060")


def render_calls(calls: Iterable[Call], syntax: str = "json_list", *, fenced: bool = False) -> str:
    """The calls written in one of ``SYNTAXES`` (what a policy might emit), optionally fenced.
    Whatever the strings hold, ``parse_calls`` reads the same calls back."""
    calls = list(calls)
    if syntax == "json":
        if len(calls) != 1:
            raise ValueError("the json syntax holds exactly one call; use json_list")
        body, lang = _json(calls[0].to_json()), "json"
    elif syntax == "json_list":
        body, lang = _json([c.to_json() for c in calls]), "json"
    elif syntax == "openai":
        body = _json(
            {
                "tool_calls": [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
                    }
                    for i, c in enumerate(calls)
                ]
            }
        )
        lang = "json"
    elif syntax == "python":
        parts = [f"{c.name}({', '.join(f'{k}={_py(v)}' for k, v in c.arguments.items())})" for c in calls]
        body, lang = (parts[0] if len(parts) == 1 else f"[{', '.join(parts)}]"), "python"
    elif syntax == "hermes":
        return "\n".join(f"<tool_call>\n{_json(c.to_json())}\n</tool_call>" for c in calls)
    else:
        raise ValueError(f"syntax {syntax!r}: expected one of {', '.join(SYNTAXES)}")
    return f"```{lang}\n{body}\n```" if fenced else body


def _py(value: Any) -> str:
    """A JSON value as a Python literal (true -> True, null -> None). ``<`` and backticks can
    only be inside string literals there, and are written as ``\\x`` escapes."""
    return repr(value).replace("<", "\\x3c").replace("`", "\\x60")
