"""Type strings (``int``, ``list[int]``, ``Optional[Tuple[int, str]]``, ...) as small tuple
trees: parsed from annotations (``parse_type``), checked against visible values (``_fits``)
and inferred from them where the annotation is missing (``infer_type``)."""

from __future__ import annotations

import ast
from typing import Any

from .helper import _callee_name

# A type is a small tuple tree: ("int",) ("list", elem) ("tuple", (e1, e2)) ("tuplev", elem)
# ("dict", key, value) ("set", elem) ("union", (a, b)) ("any",) or ("any", "Name") for a
# name that was not understood.
INT, FLOAT, BOOL, STR, NONE, BYTES, ANY = ("int",), ("float",), ("bool",), ("str",), ("none",), ("bytes",), ("any",)

_SCALARS = {
    "int": INT,
    "float": FLOAT,
    "bool": BOOL,
    "str": STR,
    "bytes": BYTES,
    "None": NONE,
    "NoneType": NONE,
    "Any": ANY,
    "object": ANY,
}
_LISTS = {"list", "List", "Sequence", "MutableSequence", "Iterable", "Collection"}
_TUPLES = {"tuple", "Tuple"}
_DICTS = {"dict", "Dict", "Mapping", "MutableMapping"}
_SETS = {"set", "Set", "frozenset", "FrozenSet", "AbstractSet"}


def parse_type(text: str) -> tuple:
    text = (text or "").strip() if isinstance(text, str) else ""
    if not text:
        return ANY
    try:
        return _type_from_ast(ast.parse(text, mode="eval").body, 0)
    except Exception:  # noqa: BLE001 - never raise on task data
        return ("any", text)


def _type_from_ast(node: ast.AST, depth: int) -> tuple:
    if depth > 20:
        return ANY
    if isinstance(node, ast.Constant):
        if node.value is None:
            return NONE
        if isinstance(node.value, str):
            return parse_type(node.value) if depth < 5 else ANY
        return ("any", repr(node.value))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([_type_from_ast(node.left, depth + 1), _type_from_ast(node.right, depth + 1)])
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = _callee_name(node)
        if name in _SCALARS:
            return _SCALARS[name]
        if name in _LISTS:
            return ("list", ANY)
        if name in _TUPLES:
            return ("tuplev", ANY)
        if name in _DICTS:
            return ("dict", ANY, ANY)
        if name in _SETS:
            return ("set", ANY)
        return ("any", name)
    if isinstance(node, ast.Subscript):
        name = _callee_name(node.value)
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        sub = lambda n: _type_from_ast(n, depth + 1)
        if name in _LISTS:
            return ("list", sub(items[0]))
        if name in _SETS:
            return ("set", sub(items[0]))
        if name in _DICTS and len(items) == 2:
            return ("dict", sub(items[0]), sub(items[1]))
        if name in _TUPLES:
            if len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is Ellipsis:
                return ("tuplev", sub(items[0]))
            if len(items) == 1 and isinstance(items[0], ast.Tuple) and not items[0].elts:
                return ("tuple", ())
            return ("tuple", tuple(sub(i) for i in items))
        if name == "Optional":
            return _union([sub(items[0]), NONE])
        if name == "Union":
            return _union([sub(i) for i in items])
        return ("any", ast.unparse(node))
    return ("any", ast.unparse(node))


def _union(parts: list[tuple]) -> tuple:
    flat: list[tuple] = []
    for p in parts:
        for q in p[1] if p[0] == "union" else (p,):
            if q not in flat:
                flat.append(q)
    return flat[0] if len(flat) == 1 else ("union", tuple(flat))


def unhandled_types(type_str: str) -> list[str]:
    """Names in a type string that ``parse_type`` did not understand (they fall back to
    inference from examples); for reports."""
    out: list[str] = []

    def walk(t: Any) -> None:
        if not isinstance(t, tuple) or not t:
            return
        if t[0] == "any" and len(t) > 1:
            out.append(t[1])
        for part in t[1:]:
            if isinstance(part, tuple):
                if part and isinstance(part[0], str):
                    walk(part)
                else:
                    for q in part:
                        walk(q)

    walk(parse_type(type_str))
    return out


def _fits(t: tuple, v: Any, depth: int = 0) -> bool:
    """Whether a visible value has the shape of type ``t`` (so it may seed that type)."""
    if depth > 30:
        return False
    kind, tv = t[0], type(v)
    if kind == "any":
        return True
    if kind == "int":
        return tv is int
    if kind == "float":
        return tv in (int, float)
    if kind == "bool":
        return tv is bool
    if kind == "str":
        return tv is str
    if kind == "bytes":
        return tv is bytes
    if kind == "none":
        return v is None
    if kind == "list":
        return tv is list and all(_fits(t[1], x, depth + 1) for x in v)
    if kind == "tuplev":
        return tv is tuple and all(_fits(t[1], x, depth + 1) for x in v)
    if kind == "tuple":
        return tv is tuple and len(v) == len(t[1]) and all(_fits(e, x, depth + 1) for e, x in zip(t[1], v))
    if kind == "set":
        return tv in (set, frozenset) and all(_fits(t[1], x, depth + 1) for x in v)
    if kind == "dict":
        return tv is dict and all(_fits(t[1], k, depth + 1) and _fits(t[2], x, depth + 1) for k, x in v.items())
    if kind == "union":
        return any(_fits(alt, v, depth + 1) for alt in t[1])
    return False


def infer_type(values: list, depth: int = 0) -> tuple:
    """The type tree of visible values (a union when they differ); ANY when there are none."""
    if depth > 20:
        return ANY
    found: list[tuple] = []
    by_kind: dict[str, list] = {}
    for v in values:
        by_kind.setdefault(type(v).__name__, []).append(v)
    for kind, vs in by_kind.items():  # first-seen order: deterministic
        if kind in ("bool", "int", "float", "str", "bytes"):
            found.append(_SCALARS[kind])
        elif kind == "NoneType":
            found.append(NONE)
        elif kind == "list":
            found.append(("list", infer_type([x for v in vs for x in v], depth + 1)))
        elif kind in ("set", "frozenset"):
            found.append(("set", infer_type([x for v in vs for x in v], depth + 1)))
        elif kind == "dict":
            found.append(
                (
                    "dict",
                    infer_type([k for v in vs for k in v], depth + 1),
                    infer_type([x for v in vs for x in v.values()], depth + 1),
                )
            )
        elif kind == "tuple":
            lengths = {len(v) for v in vs}
            if len(lengths) == 1:
                n = lengths.pop()
                found.append(("tuple", tuple(infer_type([v[i] for v in vs], depth + 1) for i in range(n))))
            else:
                found.append(("tuplev", infer_type([x for v in vs for x in v], depth + 1)))
    return _union(found) if found else ANY
