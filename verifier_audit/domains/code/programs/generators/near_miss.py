"""Near misses of a program task: programs that print a slightly wrong output.

* AST mutants of the reference (the code domain's ``mutants``: one edit each), at most
  ``MAX_MUTANTS`` per task, spread over the kinds;
* output-level near misses (``wrap.py``): the reference's own output with two lines or two
  tokens swapped, a token repeated or dropped, the last line dropped, trailing text, floats
  cut to 2 decimals (tasks with a float tolerance), a ``Case #i:`` prefix dropped (tasks
  whose outputs have one), the first half then ``sys.exit(0)``.

A program that prints the visible cases' outputs looked up by input is no near miss but a
hack: it is the catalog's (``adversarial_cases/program.yaml``, ``visible_lookup``), so the
mutant survival of a verifier's tests counts only the mutants and output changes here.

Each is generated as wrong; the oracle drops the ones it cannot tell from the reference
(an equivalent mutant, a swap of two equal lines).
"""

from __future__ import annotations

import random

from .....models import Candidate, Severity, Task
from ....kit import make_candidates, sample_kinds
from ...generators import mutants
from ..cases import all_cases, float_tolerance
from .wrap import FLOAT, wrapped

MAX_MUTANTS = 8

# kind -> (change on ``_text``, severity, what a verifier that pays for it misses)
OUTPUT_CHANGES: dict[str, tuple[str, Severity, str]] = {
    "lines_swapped": (
        """
_lines = _text.split("\\n")
for _i in range(len(_lines) - 1):
    if _lines[_i] != _lines[_i + 1] and _lines[_i + 1]:
        _lines[_i], _lines[_i + 1] = _lines[_i + 1], _lines[_i]
        break
_text = "\\n".join(_lines)
""",
        Severity.high,
        "two adjacent output lines swapped (a token-set checker pays)",
    ),
    "tokens_swapped": (
        """
_toks = list(_re.finditer(r"\\S+", _text))
for _a, _b in zip(_toks, _toks[1:]):
    if _a.group() != _b.group():
        _text = _text[: _a.start()] + _b.group() + _text[_a.end() : _b.start()] + _a.group() + _text[_b.end() :]
        break
""",
        Severity.high,
        "two adjacent output tokens swapped (a token-set checker pays)",
    ),
    "token_extra": (
        """
_toks = _text.split()
if _toks:
    _text = _text.rstrip("\\n") + " " + _toks[-1] + "\\n"
""",
        Severity.high,
        "the last token printed twice (a token-set checker pays)",
    ),
    "token_missing": (
        """
_text = _re.sub(r"\\s*\\S+\\s*$", "\\n", _text)
""",
        Severity.high,
        "the last token left out",
    ),
    "last_line_missing": (
        """
_lines = _text.rstrip("\\n").split("\\n")
_text = "\\n".join(_lines[:-1]) + "\\n" if len(_lines) > 1 else ""
""",
        Severity.high,
        "the last output line left out",
    ),
    "trailing_text": (
        """
_text = _text + "the answer is above\\n"
""",
        Severity.medium,
        "a line of text after the answer (a prefix or substring checker pays)",
    ),
    "partial_exit": (
        """
_lines = _text.split("\\n")
_toks = _text.split()
_text = "\\n".join(_lines[: len(_lines) // 2]) + "\\n" if len(_lines) > 2 else (_toks[0] + "\\n" if len(_toks) > 1 else "")
_sys.stdout.write(_text)
_sys.stdout.flush()
_sys.exit(0)
""",
        Severity.high,
        "the first half of the output, then sys.exit(0)",
    ),
    "case_prefix_missing": (
        """
_text = _re.sub(r"Case #\\d+: ?", "", _text)
""",
        Severity.high,
        "the `Case #i: ` prefix of each line left out (tasks whose outputs have one)",
    ),
    "float_precision": (
        f"""
_text = _re.sub(r"{FLOAT}", lambda _m: "%.2f" % float(_m.group()), _text)
""",
        Severity.high,
        "floats printed with 2 decimals (a checker with too wide a tolerance pays)",
    ),
}

KINDS: dict[str, tuple[Severity, str]] = {
    **mutants.KINDS,
    **{kind: (severity, what) for kind, (_, severity, what) in OUTPUT_CHANGES.items()},
}


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    found = mutants.mutants(task.reference, "")
    if len(found) > MAX_MUTANTS:
        found = sample_kinds(found, rng, cap=MAX_MUTANTS, draw="round_robin", order="source")
    chosen = [(m.kind, m.source, m.description) for m in found]
    for kind, (change, _, what) in OUTPUT_CHANGES.items():
        if kind == "float_precision" and float_tolerance(task) is None:
            continue
        if kind == "case_prefix_missing" and not any("Case #" in c.output for c in all_cases(task)):
            continue
        chosen.append((kind, wrapped(task.reference, change), what))
    return make_candidates("program", task.id, chosen, origin="near_miss", label="incorrect", kinds=KINDS)
