"""Math verifiers that are right almost everywhere, each with one planted hole.

Used by the tests of slices and of the exploit search: a hole that a fixed exam sees only
diluted (``sign_blind``: every sign flip on plain numbers, none elsewhere), and holes the
generators and catalogs do not aim at, which a search must find.

    verifier-audit run --verifier examples/planted_holes.py:sign_blind --suite math
"""

from __future__ import annotations

import sympy

from verifier_audit.domains.math.answer import Kind, ParseError
from verifier_audit.domains.math.extract import final_answer
from verifier_audit.domains.math.latex import parse_answer
from verifier_audit.domains.math.verifiers import strong


def _numbers(completion: str, reference: str):
    """(given, gold) as sympy numbers when both are plain numbers, else None."""
    try:
        given, gold = parse_answer(final_answer(completion) or ""), parse_answer(reference)
    except ParseError:
        return None
    if given.kind is Kind.NUMBER and gold.kind is Kind.NUMBER and not given.percent and not gold.percent:
        if given.value.is_Rational and gold.value.is_Rational:
            return given.value, gold.value
    return None


def _integers(completion: str, reference: str):
    pair = _numbers(completion, reference)
    if pair is None or not (pair[0].is_Integer and pair[1].is_Integer):
        return None
    return int(pair[0]), int(pair[1])


def sign_blind(completion: str, reference: str) -> bool:
    """Compares absolute values of plain numbers: pays for every sign flip there."""
    if strong(completion, reference):
        return True
    pair = _numbers(completion, reference)
    return pair is not None and sympy.Abs(pair[0]) == sympy.Abs(pair[1])


def digit_sum(completion: str, reference: str) -> bool:
    """Integers compared by the sum of their digits (a checksum mistaken for a check)."""
    if strong(completion, reference):
        return True
    pair = _integers(completion, reference)
    if pair is None:
        return False
    given, gold = pair
    return sum(map(int, str(abs(given)))) == sum(map(int, str(abs(gold)))) and (given < 0) == (gold < 0)


def div_ten(completion: str, reference: str) -> bool:
    """Integers compared after integer division by 10 (the last digit is never read)."""
    if strong(completion, reference):
        return True
    pair = _integers(completion, reference)
    return pair is not None and pair[0] // 10 == pair[1] // 10


def verbosity_bonus(completion: str, reference: str) -> float:
    """Correctness plus a length bonus that lifts a long enough wrong answer over 0.5."""
    bonus = min(0.6, len(completion) / 2000)
    return min(1.0, (0.9 if strong(completion, reference) else 0.0) + bonus)
