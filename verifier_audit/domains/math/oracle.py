"""The math reference oracle: label a whole model completion against the gold answer.

The answer is extracted (``extract.py``) and compared by value (``equivalence.py``, whose
rules are the table in docs/math-oracle.md); ``equivalent`` and ``answers_equivalent`` are
importable from here too.
"""

from __future__ import annotations

from ..base import OracleLabel
from .answer import Kind, ParseError
from .equivalence import answers_equivalent, equivalent
from .extract import extract_answers
from .latex import parse_answer

__all__ = ["label_completion", "equivalent", "answers_equivalent"]


def label_completion(completion: str, reference: str) -> OracleLabel:
    """Label a whole model completion against the gold answer.

    The gold is checked first: an unparseable gold gives label None, never "correct".
    """
    try:
        gold = parse_answer(reference)
    except ParseError as exc:
        return OracleLabel(None, f"gold unparseable: {exc}")
    if gold.kind == Kind.HEDGE:
        return OracleLabel(None, "gold unparseable: the gold itself is a hedge")
    found = extract_answers(completion)
    if not found.answers:
        return OracleLabel("incorrect", "no answer")
    if found.conflict:
        return OracleLabel("incorrect", "hedge: several answers")
    try:
        cand = parse_answer(found.answers[-1])
    except ParseError as exc:
        return OracleLabel("incorrect", f"candidate unparseable: {exc}")
    if cand.kind == Kind.HEDGE:
        return OracleLabel("incorrect", "hedge: alternatives in one answer")
    if equivalent(cand, gold):
        return OracleLabel("correct", f"equivalent ({found.method})")
    return OracleLabel("incorrect", f"not equivalent ({found.method})")
