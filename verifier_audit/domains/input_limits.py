"""The bounds on one value read from a suite: how deep it nests, how long its strings are.

Declared here once; every reader of a suite row (``suite_files``), the tool domain's
arguments (``tool/schema.py``, ``tool/oracle.py:check_input``) and the SQL loader's entries
check them with ``over_limits``, and their messages name these numbers.

Why bounds at all: a suite is user input, and a value past them did not fail as bad input
but as a crash of the audit (exit 3). A tool argument nested 600 levels deep overflowed
Python's recursion in ``schema._canonical_any``; a 10 MB string in a reference made the
catalog's templates expand past their own 8,000,000-character bound (``domains/kit/_catalog.py``); a
line of ``[`` a million deep overflows ``json.loads`` itself. Now each is an ``InputError``
(exit 2) naming the file, the line and the limit, before anything else reads the row.

Why these numbers: the deepest row of the built-in suites and of the BFCL v4 data nests 12
levels (a function schema's properties inside the row's metadata), the longest string is
10,759 characters (a BFCL live prompt). ``MAX_DEPTH`` leaves room for nested schemas and
stays far below Python's recursion limit for every recursive reader after this one;
``MAX_STRING`` is ten times the longest real string and keeps the catalogs' expansions
(a template may repeat a reference several times) under theirs.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any

#: objects and lists nested in one another, counting the outermost (a row, an arguments object)
MAX_DEPTH = 32
#: characters of one string (an object's key included)
MAX_STRING = 100_000

LIMITS = f"objects and lists nest at most {MAX_DEPTH} levels, a string holds at most {MAX_STRING:,} characters"


def over_limits(value: Any, where: str = "") -> str | None:
    """Why ``value`` breaks a bound, naming where in it and the limit; None when it does not.

    Iterative (a value deep enough to matter would overflow a recursive walk), and it stops
    at the first level past ``MAX_DEPTH``, so a value a million levels deep costs 33 steps
    down its spine. ``where`` prefixes the path shown (``arguments``)."""
    stack: list[tuple[Any, int, str]] = [(value, 0, where)]
    while stack:
        node, depth, at = stack.pop()
        if isinstance(node, str):
            if len(node) > MAX_STRING:
                return f"{_shown(at)}a string of {len(node):,} characters, over the limit of {MAX_STRING:,}"
            continue
        if not isinstance(node, (dict, list, tuple)):
            continue
        if depth + 1 > MAX_DEPTH:
            return f"{_shown(at)}objects and lists nested deeper than the limit of {MAX_DEPTH} levels"
        if isinstance(node, dict):
            for key, item in node.items():
                if isinstance(key, str) and len(key) > MAX_STRING:
                    return f"{_shown(at)}a key of {len(key):,} characters, over the limit of {MAX_STRING:,}"
                stack.append((item, depth + 1, f"{at}.{key}" if at else str(key)))
        else:
            stack.extend((item, depth + 1, f"{at}[{i}]") for i, item in enumerate(node))
    return None


_OTHER_BYTES = bytes(b for b in range(256) if b not in b"[]{}")  # UTF-8 holds no ASCII byte in a multi-byte char
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def may_exceed(text: str) -> bool:
    """A screen on the JSON text a value was parsed from, in C loops: False when no value
    in it can break a bound, True when ``over_limits`` must walk it (and say where). No
    string in it is longer than the text, and its nesting is the deepest running count of
    its brackets outside string literals (found by cutting the text at its quotes once the
    escaped ones are gone). Reading a suite of 20,000 tool rows (the best of 5 loads):
    2.4-2.5 CPU-s with this screen against 1.9-2.1 without any check; a walk of every row
    in its place added about 1.6 s to 3.6 s (wall, on a loaded 2-core machine)."""
    if len(text) > MAX_STRING:
        return True
    if text.count("[") + text.count("{") <= MAX_DEPTH:  # too few brackets to nest deeper
        return False
    outside = "".join(text.replace("\\\\", "").replace('\\"', "").split('"')[::2])
    brackets = outside.encode("utf-8", "surrogatepass").translate(None, _OTHER_BYTES)
    return len(brackets) > 2 * MAX_DEPTH and max(accumulate(map(_STEP.__getitem__, brackets))) > MAX_DEPTH


def _shown(at: str, width: int = 60) -> str:
    if not at:
        return ""
    return (at if len(at) <= width else at[: width - 1] + "…") + ": "
