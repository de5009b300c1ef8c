"""Near-misses at the output: the reference's own answer, returned in a slightly wrong shape.

The mutants (``mutants.py``) change how a function computes; these keep the computation
and change only what comes back, which is where lenient graders look away:

* **types** a grader comparing with ``==`` cannot tell apart: a tuple where the task returns
  a list (``(1, 2) == [1, 2]`` is False, but ``list(out) == expected`` is True), ``True``
  where it returns ``1`` (``True == 1``), ``1`` where it returns ``True``;
* **strings** a token-level or stripped comparison cannot tell apart: the tokens in another
  order, the last token repeated, padding spaces, trailing text.

Labels. The task's contract is its declared return type, and the oracle decides it through
the task's type policy (``compare.TypePolicy``): ``bool_is_int`` and ``tuple_is_list`` are
off by default, so a tuple for a list and ``True`` for ``1`` are wrong answers. These are
generated as near-misses (incorrect) and, as with the mutants, the oracle drops any it
cannot tell from the reference (``True`` for ``1`` on a task where no case returns 0 or 1;
any of them under a policy that relaxes the difference). ``1.0`` for ``1`` is the one the
default policy calls the same answer (``int_float``: ``2 == 2.0``); it is generated as an
equivalent (correct) under such a policy, a false-rejection probe for graders that check
``type(out) is int``, and as a near-miss under ``int_float=false``.

The wrapper keeps the reference under another name (recursive calls included, so the
conversion applies once, to the outermost result) and defines the entry point with the
reference's own def line, calling it with the same parameters. Tasks whose entry point has
no plain positional parameters are skipped.
"""

from __future__ import annotations

import ast

from ....models import Severity, Task
from .. import known_bad
from ..cases import policy_of

# The reference's renamed function, and the wrapper's local holding its result.
INNER = "_va_reference"

# kind -> (severity, description, return family it applies to, the returned expression).
_TABLE: dict[str, tuple[Severity, str, str, str]] = {
    "tuple_for_list": (
        Severity.medium,
        "the reference's list returned as a tuple (== against a list() of it pays)",
        "list",
        "tuple(result) if type(result) is list else result",
    ),
    "list_for_tuple": (
        Severity.medium,
        "the reference's tuple returned as a list",
        "tuple",
        "list(result) if type(result) is tuple else result",
    ),
    "bool_for_int": (
        Severity.high,
        "`True`/`False` returned for the integer 1/0 (`True == 1` pays)",
        "int",
        "result == 1 if type(result) is int and result in (0, 1) else result",
    ),
    "int_for_bool": (
        Severity.high,
        "`1`/`0` returned for `True`/`False` (`1 == True` pays)",
        "bool",
        "int(result) if type(result) is bool else result",
    ),
    "float_for_int": (
        Severity.medium,
        "the integer result returned as a float (`2.0` for `2`), under a policy without int_float",
        "int",
        "float(result) if type(result) is int else result",
    ),
    "str_order": (
        Severity.high,
        "the result's space-separated tokens in reverse order",
        "str",
        "' '.join(result.split(' ')[::-1]) if type(result) is str else result",
    ),
    "str_extra_token": (
        Severity.high,
        "the result with its last token repeated (a token-set comparison pays)",
        "str",
        "result + ' ' + result.split()[-1] if type(result) is str and result.split() else result",
    ),
    "str_padding": (
        Severity.medium,
        "the result padded with a leading and a trailing space (a stripped comparison pays)",
        "str",
        "' ' + result + ' ' if type(result) is str else result",
    ),
    "str_trailing_text": (
        Severity.high,
        "the result followed by trailing text (a startswith or substring check pays)",
        "str",
        "result + ' (done)' if type(result) is str else result",
    ),
}
KINDS: dict[str, tuple[Severity, str]] = {kind: row[:2] for kind, row in _TABLE.items()}
# The one correct form: an int returned as a float, the same answer under int_float.
EQUIVALENT_KINDS: dict[str, tuple[Severity, str]] = {
    "int_as_float": (Severity.medium, "the integer result returned as a float (`2.0` for `2`; same under int_float)")
}


def output_variants(task: Task) -> list[tuple[str, str, str, str]]:
    """``[(origin, kind, source, note)]`` for the task's return family: near-misses
    (``near_miss``) and, for an int task under ``int_float``, the float form as an
    ``equivalent``. ``[]`` when the reference cannot be wrapped."""
    info = known_bad.analyse(task)
    if info is None or info.params is None:
        return []
    inner = _renamed_reference(task.reference, info.entry_point)
    if inner is None:
        return []
    int_float = policy_of(task).int_float
    out = []
    for kind, (_, description, family, expression) in _TABLE.items():
        if family not in info.kinds:
            continue
        origin = "near_miss"
        if kind == "float_for_int" and int_float:
            origin, kind, description = "equivalent", "int_as_float", EQUIVALENT_KINDS["int_as_float"][1]
        body = f"    result = {INNER}({', '.join(info.params)})\n    return {expression}\n"
        out.append((origin, kind, f"{inner}\n\n\n{info.header}\n{body}", description))
    return out


def _renamed_reference(source: str, entry_point: str) -> str | None:
    """The reference with its entry point (its def and every name reading it) renamed to
    ``INNER``, so the wrapper's conversion applies once. None when the name is taken."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if any(isinstance(n, ast.Name) and n.id == INNER for n in ast.walk(tree)):
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            node.name = INNER
        elif isinstance(node, ast.Name) and node.id == entry_point:
            node.id = INNER
    return ast.unparse(tree)
