"""A report with nothing measured, for tests of what reads a report (the source line, the
checklist, renderers): every required field at its empty value, the given ones on top."""

from verifier_audit.models import GateResult, Interval, Report


def blank_report(verifier: str = "v.py:f", **fields) -> Report:
    zero = Interval(low=0.0, high=0.0)
    empty = dict(
        tool_version="test",
        verifier=verifier,
        style="pair",
        suite="math",
        seed=0,
        threshold=0.5,
        n_candidates=0,
        coverage_debt=0.0,
        coverage_debt_ci=zero,
        false_acceptance_rate=0.0,
        false_acceptance_ci=zero,
        false_rejection_rate=0.0,
        false_rejection_ci=zero,
        error_rate=0.0,
        errors=0,
        categories=[],
        gate=GateResult(passed=True),
    )
    return Report(**{**empty, **fields})
