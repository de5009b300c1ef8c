"""Programs made from the reference's own output: the reference runs inside the candidate,
its stdout is caught, changed by a few lines of code, and printed. What the change does to
the output (two lines swapped, a token repeated, trailing spaces) is the candidate; each is
labelled by the oracle afterwards, so a change that does nothing on a task's cases (two
equal lines) is dropped there.

The changes are Python source run in the candidate on the variable ``_text`` (the
reference's whole stdout), which they replace; their helpers are ``_re`` and ``_sys``.
"""

from __future__ import annotations

_TEMPLATE = """import io as _io
import re as _re
import sys as _sys

_REFERENCE = {source!r}
_out, _sys.stdout = _sys.stdout, _io.StringIO()
try:
    exec(compile(_REFERENCE, "<reference>", "exec"), {{"__name__": "__main__"}})
except SystemExit:
    pass
_text, _sys.stdout = _sys.stdout.getvalue(), _out
{change}
_sys.stdout.write(_text)
"""


def wrapped(reference: str, change: str) -> str:
    """A program that prints the reference's output after ``change`` (source on ``_text``)."""
    return _TEMPLATE.format(source=reference, change=change.strip("\n"))


# Numbers written with a decimal point (the floats of an output).
FLOAT = r"-?\d+\.\d+(?:[eE][-+]?\d+)?"
