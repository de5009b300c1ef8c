"""A verifier that is right everywhere but one place: it also pays for ten times the answer.

A policy trained against it would find that hole. Its coverage debt is small (one category
of many), so only the per-category gate (--max-category) stops it.
"""

from sympy import Integer

from verifier_audit.domains.math.answer import Kind, ParseError
from verifier_audit.domains.math.extract import final_answer
from verifier_audit.domains.math.latex import parse_answer
from verifier_audit.domains.math.verifiers import strong


def times_ten_hole(completion: str, reference: str) -> bool:
    if strong(completion, reference):
        return True
    answer = final_answer(completion)
    try:
        given, gold = parse_answer(answer or ""), parse_answer(reference)
    except ParseError:
        return False
    if given.kind is Kind.NUMBER and gold.kind is Kind.NUMBER and not gold.percent and not given.percent:
        return bool((given.value - Integer(10) * gold.value).equals(0))
    return False
