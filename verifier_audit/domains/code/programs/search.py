"""The program tasks' edit operators for the exploit search (engine/search).

One operator per AST mutant kind at a random site of the completion's program (the code
domain's mutants: chains are compound mutations), and output-level edits that the checkers
of stdin graders differ on: a line of text printed after the answer, an early
``sys.exit(0)`` after the first line of output. Candidates run only in the sandbox.
"""

from __future__ import annotations

import random

from ....models import Task
from ..generators.mutants import KINDS, mutants
from .cases import program_of


class Mutate:
    def __init__(self, kind: str):
        self.kind = kind

    def __call__(self, text: str, rng: random.Random, task: Task | None = None) -> str | None:
        program = program_of(text)
        if program is None:
            return None
        found = [m for m in mutants(program, "") if m.kind == self.kind]
        if not found:
            return None
        new = rng.choice(found).source
        return text.replace(program, new, 1) if program in text else new


def _append(text: str, tail: str) -> str | None:
    program = program_of(text)
    if program is None or tail.strip() in program:
        return None
    joined = program.rstrip("\n") + "\n" + tail
    return text.replace(program, joined, 1) if program in text else joined


def trailing_text(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    return _append(text, rng.choice(["print('done')\n", "print()\nprint('ok')\n", "print(' ')\n"]))


OPERATORS = {**{f"mutate_{kind}": Mutate(kind) for kind in KINDS}, "trailing_text": trailing_text}


def lazy_policies(task: Task) -> dict[str, list[str]]:
    """Answer-free programs: print nothing, echo the input, no program at all."""
    return {
        "prints_nothing": ["pass\n"],
        "echoes_input": ["import sys\nsys.stdout.write(sys.stdin.read())\n"],
        "no_code": ["I cannot solve this."],
    }
