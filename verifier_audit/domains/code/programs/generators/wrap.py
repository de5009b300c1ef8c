"""Programs made from the reference's own output: the reference runs inside the candidate,
its stdout is caught, changed by a few lines of code, and printed. What the change does to
the output (two lines swapped, a token repeated, trailing spaces) is the candidate; each is
labelled by the oracle afterwards, so a change that does nothing on a task's cases (two
equal lines) is dropped there.

The changes are Python source run in the candidate on the variable ``_text`` (the
reference's whole stdout), which they replace; their helpers are ``_re`` and ``_sys``.
The catalog's programs (``known_bad``) call the same ``_reference_output()``.
"""

from __future__ import annotations

# The definition of ``_reference_output()``: the reference run on the program's stdin,
# its stdout handed back (a sys.exit in it ends the reference only).
_RUNNER = """def _reference_output():
    import io
    import sys

    saved, sys.stdout = sys.stdout, io.StringIO()
    try:
        exec(compile({source!r}, "<reference>", "exec"), {{"__name__": "__main__"}})
    except SystemExit:
        pass
    finally:
        text, sys.stdout = sys.stdout.getvalue(), saved
    return text
"""

_TEMPLATE = """import re as _re
import sys as _sys

{runner}

_text = _reference_output()
{change}
_sys.stdout.write(_text)
"""


def reference_output(reference: str) -> str:
    """Source defining ``_reference_output()``, which runs ``reference`` and returns its stdout."""
    return _RUNNER.format(source=reference)


def wrapped(reference: str, change: str) -> str:
    """A program that prints the reference's output after ``change`` (source on ``_text``)."""
    return _TEMPLATE.format(runner=reference_output(reference), change=change.strip("\n"))


# Numbers written with a decimal point (the floats of an output).
FLOAT = r"-?\d+\.\d+(?:[eE][-+]?\d+)?"
