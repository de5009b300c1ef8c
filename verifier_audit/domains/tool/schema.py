"""Arguments checked and normalised under a function's JSON Schema.

``normalise_call(call, schema)`` returns the call's canonical form, or raises
``SchemaError`` saying what the schema forbids. Two calls are the same call when their
canonical forms are equal (``Call.key()``). The rules:

* **Required** arguments must be present; an **unknown** argument is an error unless the
  object schema sets ``additionalProperties`` (true, or a schema the value must meet).
* **Types** are JSON Schema's: ``integer`` takes an int, or a float with an integral value
  (``5.0`` is 5); ``number`` takes an int or a float; ``string``, ``boolean``, ``array``,
  ``object``, ``null`` take only themselves. A **coercion the schema forbids** is an
  error: ``"5"`` for an integer, ``"true"`` for a boolean, ``1`` for a boolean, ``5`` for a
  string. A type list (``["string", "null"]``) takes any of its types. The Python-style names
  of BFCL's schemas are read as their JSON Schema names (``dict`` object, ``float`` number,
  ``int`` integer, ``str`` string, ``bool`` boolean, ``list``/``tuple`` array, ``any``).
* **Numbers** are normalised: an integral float becomes an int, so ``1 == 1.0``.
* **Enums** are exact. An enum (or any string) is compared case-insensitively only when
  its schema says ``"x-case-insensitive": true`` (our extension: JSON Schema has no such
  keyword); the value is then normalised to its enum spelling (or lowercased).
* **Defaults**: an omitted optional argument with a ``default`` is filled with it, so
  omitting it and giving it explicitly are the same call. An omitted optional argument
  without a default stays absent.
* **Strings** are compared exactly, whitespace included: a path, an e-mail body or a
  search query with a leading space is another value to the tool that receives it, and a
  grader that trims would hide an argument that a real API treats differently. Equivalent
  writings of the *same* string (JSON escapes, Python quotes) are undone by the parser, not
  here.
* ``minimum``/``maximum``/``exclusiveMinimum``/``exclusiveMaximum``, ``minItems``/
  ``maxItems`` and ``minLength``/``maxLength`` are checked when present.
* Nested objects and arrays are checked and normalised recursively (``items``,
  ``properties``, ``required``, ``additionalProperties``, ``default`` at every level).
* **Bounds** (``domains/input_limits.py``, declared there once): the arguments object and
  what it holds nest at most ``MAX_DEPTH`` levels, a string is at most ``MAX_STRING``
  characters. ``normalise_call`` checks them first, without recursion, so that a call 600
  levels deep is a SchemaError naming the limit, not a RecursionError; the recursive walk
  below counts one level per object or list (``depth``) and stops at the same bound.

Pure and deterministic; never evaluates anything.
"""

from __future__ import annotations

import math
from typing import Any

from ..input_limits import LIMITS, MAX_DEPTH, MAX_STRING, over_limits  # noqa: F401 - MAX_* are this module's too
from .calls import Call

_ALIASES = {
    "dict": "object",
    "float": "number",
    "double": "number",
    "int": "integer",
    "long": "integer",
    "str": "string",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
    "any": "any",
    "none": "null",
    "NoneType": "null",
}


class SchemaError(ValueError):
    """The arguments do not meet the schema; the message names the argument."""


def _types(schema: dict) -> list[str]:
    given = schema.get("type")
    if given is None:
        if "properties" in schema:
            return ["object"]
        if "items" in schema:
            return ["array"]
        return ["any"]
    names = given if isinstance(given, list) else [given]
    return [_ALIASES.get(str(t), str(t)) for t in names]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def normalise_number(value: Any) -> Any:
    """An integral float as an int (1.0 -> 1); other values unchanged."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def case_insensitive(schema: dict) -> bool:
    return bool(schema.get("x-case-insensitive"))


def normalise_value(value: Any, schema: dict | None, where: str = "value", depth: int = 0) -> Any:
    """``value`` checked against ``schema`` and in canonical form; SchemaError otherwise."""
    if depth > MAX_DEPTH:
        raise SchemaError(f"{where}: nested too deeply")
    if not isinstance(schema, dict) or not schema:
        return _canonical_any(value, where, depth)
    if "anyOf" in schema or "oneOf" in schema:
        problems = []
        for option in schema.get("anyOf") or schema.get("oneOf") or []:
            try:
                return normalise_value(value, option, where, depth)  # the same value: a finite schema bounds it
            except SchemaError as exc:
                problems.append(str(exc))
        raise SchemaError(f"{where}: matches none of its alternatives ({'; '.join(problems[:3])})")
    types = _types(schema)
    errors = []
    for kind in types:
        try:
            out = _as_type(value, kind, schema, where, depth)
        except SchemaError as exc:
            errors.append(str(exc))
            continue
        _check_enum_and_bounds(out, schema, where)
        return _enum_spelling(out, schema)
    if len(errors) == 1:
        raise SchemaError(errors[0])
    raise SchemaError(f"{where}: {_show(value)} is none of {', '.join(types)}")


def _canonical_any(value: Any, where: str, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise SchemaError(f"{where}: nested too deeply (more than {MAX_DEPTH} levels)")
    if isinstance(value, dict):
        return {str(k): _canonical_any(v, f"{where}.{k}", depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical_any(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise SchemaError(f"{where}: {value} is not a JSON number")
    return normalise_number(value)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _as_type(value: Any, kind: str, schema: dict, where: str, depth: int) -> Any:
    if kind == "any":
        return _canonical_any(value, where, depth)
    if kind == "integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return int(value)
        raise SchemaError(f"{where}: {_show(value)} is not an integer")
    if kind == "number":
        if _is_number(value) and (not isinstance(value, float) or math.isfinite(value)):
            return normalise_number(value)
        raise SchemaError(f"{where}: {_show(value)} is not a number")
    if kind == "string":
        if isinstance(value, str):
            return value
        raise SchemaError(f"{where}: {_show(value)} is not a string")
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        raise SchemaError(f"{where}: {_show(value)} is not a boolean")
    if kind == "null":
        if value is None:
            return None
        raise SchemaError(f"{where}: {_show(value)} is not null")
    if kind == "array":
        if not isinstance(value, list):
            raise SchemaError(f"{where}: {_show(value)} is not an array")
        items = schema.get("items")
        out = [
            normalise_value(v, items if isinstance(items, dict) else None, f"{where}[{i}]", depth + 1)
            for i, v in enumerate(value)
        ]
        if "minItems" in schema and len(out) < schema["minItems"]:
            raise SchemaError(f"{where}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(out) > schema["maxItems"]:
            raise SchemaError(f"{where}: more than {schema['maxItems']} items")
        return out
    if kind == "object":
        if not isinstance(value, dict):
            raise SchemaError(f"{where}: {_show(value)} is not an object")
        return normalise_object(value, schema, where, depth)  # its items are one level down
    raise SchemaError(f"{where}: the schema's type {kind!r} is not one we know")


def normalise_object(value: dict, schema: dict, where: str = "arguments", depth: int = 0) -> dict:
    """An object's properties checked, defaults filled in, unknown keys refused unless allowed.
    ``depth``: how many objects and lists hold this one."""
    props = schema.get("properties") or {}
    required = schema.get("required") or []
    extra = schema.get("additionalProperties", not props if "properties" not in schema else False)
    out = {}
    for key, item in value.items():
        key = str(key)
        if key in props:
            out[key] = normalise_value(item, props[key], f"{where}.{key}" if where != "arguments" else key, depth + 1)
        elif extra is True or (isinstance(extra, dict)):
            out[key] = normalise_value(item, extra if isinstance(extra, dict) else None, key, depth + 1)
        else:
            raise SchemaError(f"{key}: not an argument of this function")
    for key in required:
        if key not in out:
            raise SchemaError(f"{key}: required argument missing")
    for key, prop in props.items():
        if key not in out and isinstance(prop, dict) and "default" in prop:
            try:
                out[key] = normalise_value(
                    prop["default"], {k: v for k, v in prop.items() if k != "default"}, key, depth + 1
                )
            except SchemaError:
                out[key] = _canonical_any(prop["default"], key, depth + 1)
    return dict(sorted(out.items()))


def _check_enum_and_bounds(value: Any, schema: dict, where: str) -> None:
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        if case_insensitive(schema) and isinstance(value, str):
            if value.casefold() not in {str(e).casefold() for e in enum if isinstance(e, str)}:
                raise SchemaError(f"{where}: {_show(value)} is not one of {enum}")
        elif not any(_same(value, normalise_number(e)) for e in enum):
            raise SchemaError(f"{where}: {_show(value)} is not one of {enum}")
    if _is_number(value):
        for key, ok in (
            ("minimum", lambda v, b: v >= b),
            ("maximum", lambda v, b: v <= b),
            ("exclusiveMinimum", lambda v, b: v > b),
            ("exclusiveMaximum", lambda v, b: v < b),
        ):
            bound = schema.get(key)
            if _is_number(bound) and not ok(value, bound):
                raise SchemaError(f"{where}: {value} breaks {key} {bound}")
    if isinstance(value, str):
        if isinstance(schema.get("minLength"), int) and len(value) < schema["minLength"]:
            raise SchemaError(f"{where}: shorter than {schema['minLength']}")
        if isinstance(schema.get("maxLength"), int) and len(value) > schema["maxLength"]:
            raise SchemaError(f"{where}: longer than {schema['maxLength']}")


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b or (_is_number(a) and _is_number(b) and a == b)


def _enum_spelling(value: Any, schema: dict) -> Any:
    if not (case_insensitive(schema) and isinstance(value, str)):
        return value
    for e in schema.get("enum") or []:
        if isinstance(e, str) and e.casefold() == value.casefold():
            return e
    return value.casefold()


def parameters_of(fn_schema: dict) -> dict:
    params = fn_schema.get("parameters")
    if not isinstance(params, dict):
        return {"type": "object", "properties": {}}
    return params if "type" in params else {"type": "object", **params}


def arguments_problem(call: Call) -> str | None:
    """Why the call's arguments break a bound of ``input_limits`` (where, and the limit), or None."""
    problem = over_limits(call.arguments, "arguments")
    return f"{call.name}: {problem} ({LIMITS})" if problem is not None else None


def normalise_call(call: Call, fn_schema: dict) -> Call:
    """The call in canonical form under its function's schema (SchemaError if it breaks it)."""
    problem = arguments_problem(call)
    if problem is not None:
        raise SchemaError(problem)
    params = parameters_of(fn_schema)
    try:
        args = normalise_object(call.arguments, params)
    except SchemaError as exc:
        raise SchemaError(f"{call.name}: {exc}") from None
    return Call(call.name, args)


def validate_call(call: Call, schemas: dict[str, dict]) -> str | None:
    """Why the call breaks the task's schemas (unknown function included), or None."""
    schema = schemas.get(call.name)
    if schema is None:
        return f"{call.name}: not a function of this task"
    try:
        normalise_call(call, schema)
    except SchemaError as exc:
        return str(exc)
    return None
