"""The kind table and the entry point. A kind's output is kept only if it compiles,
differs from the input and leaves the entry point callable the same way: callers and
tests pass arguments by name and position, so the signature (not the hints) is fixed."""

from __future__ import annotations

import ast
import random
from collections.abc import Callable

from .....models import Severity
from ..mutants import normalise
from . import additions, comprehensions, docstrings, hints, layout, names, structure
from .helpers import entry

# kind -> (severity, description). Severity of a false rejection of this form.
KINDS: dict[str, tuple[Severity, str]] = {
    "reformat": (Severity.high, "reformatted: ast.unparse layout, other quotes, blank lines"),
    "comments": (Severity.high, "explanatory comments added"),
    "rename_locals": (Severity.high, "local variables renamed (parameters and function names kept)"),
    "rename_fresh": (
        Severity.high,
        "locals and comprehension variables renamed to names that contain none of the reference's (`total` -> `v0`)",
    ),
    "docstring_strip": (Severity.medium, "docstrings removed"),
    "docstring_replace": (Severity.medium, "the entry point's docstring replaced by another one"),
    "type_hints_strip": (Severity.medium, "type annotations removed"),
    "type_hints_add": (Severity.medium, "type annotations added (parameters, return, locals)"),
    "debug_print": (Severity.medium, "a debug print() to stdout at the start of the entry point"),
    "unused_import": (Severity.medium, "an unused import and an unused module-level constant"),
    "result_variable": (Severity.high, "`return e` written as `result = e; return result`"),
    "invert_if": (Severity.high, "an if/else with the test negated and the branches swapped"),
    "loop_to_comprehension": (Severity.high, "an append loop written as a list comprehension"),
    "comprehension_to_loop": (Severity.high, "a list comprehension written as an append loop"),
    "genexp_to_list": (Severity.medium, "the generator argument of list/tuple/sorted/join made a list comprehension"),
    "nested_helper": (Severity.medium, "the body moved into a nested helper whose result is returned"),
    "delegate": (Severity.medium, "the entry point renamed to a private function and called from a thin wrapper"),
}


def rewrites(source: str, entry_point: str, rng: random.Random) -> list[tuple[str, str]]:
    """``[(kind, new_source)]``, at most one per kind, in ``KINDS`` order; kinds that do
    not apply to ``source`` are left out, and so is everything when it does not parse."""
    try:
        original = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    base = rng.getrandbits(64)
    canon = normalise(source)
    signature = _signature(entry(original, entry_point))
    out = []
    for kind, make in _MAKERS.items():
        try:
            new = make(source, entry_point, random.Random(f"{base}:{kind}"))
        except (SyntaxError, ValueError, RecursionError):
            new = None
        if new is None or new == source or not _valid(new, entry_point, signature):
            continue
        if kind in _COSMETIC and normalise(new) != canon:
            continue  # meant to leave the program alone, and did not
        out.append((kind, new))
    return out


def _valid(source: str, entry_point: str, signature: str | None) -> bool:
    """Compiles, and the entry point (if the original had one) takes the same parameters."""
    try:
        tree = ast.parse(source)
        compile(tree, "<rewrite>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError):
        return False
    return signature is None or _signature(entry(tree, entry_point)) == signature


def _signature(fn) -> str | None:
    """Parameter names, kinds and defaults (annotations may change)."""
    if fn is None:
        return None
    a = fn.args
    return repr(
        (
            [p.arg for p in a.posonlyargs],
            [p.arg for p in a.args],
            a.vararg and a.vararg.arg,
            [p.arg for p in a.kwonlyargs],
            a.kwarg and a.kwarg.arg,
            [ast.dump(d) for d in a.defaults],
            [d and ast.dump(d) for d in a.kw_defaults],
            isinstance(fn, ast.AsyncFunctionDef),
        )
    )


_MAKERS: dict[str, Callable[[str, str, random.Random], str | None]] = {
    "reformat": layout.reformat,
    "comments": additions.comments,
    "rename_locals": names.rename_locals,
    "rename_fresh": names.rename_fresh,
    "docstring_strip": docstrings.docstring_strip,
    "docstring_replace": docstrings.docstring_replace,
    "type_hints_strip": hints.type_hints_strip,
    "type_hints_add": hints.type_hints_add,
    "debug_print": additions.debug_print,
    "unused_import": additions.unused_import,
    "result_variable": structure.result_variable,
    "invert_if": structure.invert_if,
    "loop_to_comprehension": comprehensions.loop_to_comprehension,
    "comprehension_to_loop": comprehensions.comprehension_to_loop,
    "genexp_to_list": comprehensions.genexp_to_list,
    "nested_helper": structure.nested_helper,
    "delegate": structure.delegate,
}
assert list(_MAKERS) == list(KINDS)


# Kinds that must not change the program at all (normalise ignores docstrings and layout).
_COSMETIC = {"reformat", "comments", "docstring_strip", "docstring_replace"}
