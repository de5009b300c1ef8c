"""swallowed-exception: an error in the scoring code becomes a positive reward."""

from __future__ import annotations

from collections.abc import Iterator

from ...models import Severity
from .._facts import FunctionInfo, ModuleInfo
from .._handlers import against_gold, is_broad, pays_after, try_statements
from .._rule import Hit, Rule


def check(fn: FunctionInfo, module: ModuleInfo) -> Iterator[Hit]:
    for try_node in try_statements(fn):
        for handler in try_node.handlers:
            if not is_broad(handler):
                continue  # a named exception is a decision; a blanket one catches what nobody expected
            paid = pays_after(handler, try_node, fn, against_gold(fn))
            if paid is None:
                continue
            where, how = paid
            caught = "a bare except" if handler.type is None else "an except of everything"
            yield Hit(
                where,
                f"{caught} (line {handler.lineno}) in {fn.display} {how}: any completion that makes "
                "the try body raise (malformed, huge, hostile text) is paid",
            )


RULE = Rule(
    id="swallowed-exception",
    title="an exception in the scoring code becomes a positive reward",
    severity=Severity.high,
    why=(
        "The cheapest input for a policy to find is one that crashes the grader. When a blanket except returns "
        "(or leaves) a positive score, every crash pays; the error never reaches the trainer's error rate either. "
        "Python's documentation on exceptions: a bare except (or BaseException) also catches SystemExit and "
        "KeyboardInterrupt; code verifiers are gamed through it with sys.exit(0) (the code.hack.exit and "
        "code.hack.base_exception catalog entries)."
    ),
    check=check,
    categories=(
        "math.hostile",
        "math.format",
        "sql.format",
        "sql.syntax",
        "code.hack.exit",
        "code.hack.base_exception",
    ),
)
