"""Equivalent programs of a program task: the reference's own output written another way
that the task's checker accepts (``wrap.py``): trailing spaces on every line, no final
newline, ``\\r\\n`` line ends, a blank line at the end, a debug line on stderr; and on
tasks with a float tolerance the floats written in scientific notation with more digits
(``1.500000000000e+00`` for ``1.50``: the same number). An exact-string or a
tolerance-free token checker rejects them: false rejections. Plus the task's
``alternatives`` (other right programs; on a special-judge task, other right answers).
The oracle confirms each; one it finds different is dropped.
"""

from __future__ import annotations

import random

from .....models import Candidate, Severity, Task
from ....kit import make_candidates
from ..cases import float_tolerance
from .wrap import FLOAT, wrapped

# kind -> (change on ``_text``, severity, description)
CHANGES: dict[str, tuple[str, Severity, str]] = {
    "trailing_spaces": (
        """
_text = "\\n".join(_line + "  " if _line else _line for _line in _text.split("\\n"))
""",
        Severity.medium,
        "two spaces after every line",
    ),
    "no_final_newline": (
        """
_text = _text.rstrip("\\n")
""",
        Severity.medium,
        "the final newline left out",
    ),
    "crlf": (
        """
_text = _text.replace("\\n", "\\r\\n")
""",
        Severity.low,
        "lines ended with \\r\\n",
    ),
    "blank_line_after": (
        """
_text = _text + "\\n"
""",
        Severity.low,
        "an empty line after the output",
    ),
    "stderr_debug": (
        """
print("debug: printed", len(_text.split()), "tokens", file=_sys.stderr)
""",
        Severity.low,
        "a debug line on stderr (a grader that reads stderr with stdout rejects it)",
    ),
    "float_format": (
        f"""
_text = _re.sub(r"{FLOAT}", lambda _m: "%.12e" % float(_m.group()), _text)
""",
        Severity.medium,
        "floats in scientific notation with more digits (the same numbers)",
    ),
}

KINDS: dict[str, tuple[Severity, str]] = {
    "reference": (Severity.low, "the reference program itself"),
    "alternative": (Severity.medium, "another right program (on a special-judge task: another right answer)"),
    **{kind: (severity, what) for kind, (_, severity, what) in CHANGES.items()},
}


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    chosen = [
        (kind, wrapped(task.reference, change), what)
        for kind, (change, _, what) in CHANGES.items()
        if kind != "float_format" or float_tolerance(task) is not None
    ]
    chosen.insert(0, ("reference", task.reference, "the reference itself"))
    for number, program in enumerate(task.metadata.get("alternatives", []), 1):
        chosen.append(("alternative", program, f"another right program of the task (alternative {number})"))
    return make_candidates("program", task.id, chosen, origin="equivalent", label="correct", kinds=KINDS)
