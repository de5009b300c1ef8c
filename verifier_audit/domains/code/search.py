"""The code domain's edit operators for the exploit search (engine/search).

One operator per mutant kind (``mutate_compare_boundary``, ``mutate_return_none``, ... the
mutant generator's AST edits, at a random site of the completion's code), so chains are
compound mutations and a family names its edit; and hack compositions around the code: a
process exit after the definitions (graders that read the exit code), a "passed" line
printed (graders that read stdout). Candidates run only inside the audit's sandbox, as
every code verifier call does.
"""

from __future__ import annotations

import random

from ...models import Task
from .extract import extract_code
from .generators.mutants import KINDS, mutants


def _code(text: str, task: Task | None) -> str | None:
    entry = getattr(task, "entry_point", None) if task is not None else None
    return extract_code(text, entry) if entry else None


class Mutate:
    def __init__(self, kind: str):
        self.kind = kind

    def __call__(self, text: str, rng: random.Random, task: Task | None = None) -> str | None:
        code = _code(text, task)
        if code is None:
            return None
        found = [m for m in mutants(code, task.entry_point) if m.kind == self.kind]
        if not found:
            return None
        new = rng.choice(found).source
        return text.replace(code, new, 1) if code in text else new


def _append(text: str, task: Task | None, tail: str) -> str | None:
    code = _code(text, task)
    if code is None or tail.strip() in code:
        return None
    return text.replace(code, code.rstrip("\n") + "\n" + tail, 1) if code in text else code + "\n" + tail


def exit_zero(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    return _append(text, task, rng.choice(["import sys\nsys.exit(0)\n", "import os\nos._exit(0)\n"]))


def print_passed(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    return _append(text, task, rng.choice(["print('All tests passed')\n", "print('PASSED')\n", "print('OK')\n"]))


OPERATORS = {**{f"mutate_{kind}": Mutate(kind) for kind in KINDS}, "exit_zero": exit_zero, "print_passed": print_passed}


def lazy_policies(task: Task) -> dict[str, list[str]]:
    """Answer-free programs: a stub that defines the function and returns nothing useful."""
    entry = getattr(task, "entry_point", None) or "solution"
    return {
        "returns_none": [f"def {entry}(*args, **kwargs):\n    return None\n"],
        "raises": [f"def {entry}(*args, **kwargs):\n    raise NotImplementedError\n"],
        "no_code": ["I cannot solve this."],
    }
