"""The checklist's paths_authority item (issue 36) from the report alone: listed only for a
domain whose tasks limit the paths a completion may change (repo), never a 'checked'
without candidates that write outside them judged; for a math audit it does not apply."""

from __future__ import annotations

from report_support import blank_report

from verifier_audit.models import Authority, CategoryAuthority, CategoryResult, Interval
from verifier_audit.report import checklist


def _category(name: str) -> CategoryResult:
    zero = Interval(low=0.0, high=0.0)
    return CategoryResult(
        name=name, origin="known_bad", severity="high", label="incorrect", n=1, accepted=0, rate=0.0, ci=zero
    )


def _keys(report) -> list[str]:
    return [i.key for i in checklist.evaluate(report)]


def _item(report):
    return next(i for i in checklist.evaluate(report) if i.key == "paths_authority")


def test_a_math_audit_has_no_paths_authority_item():
    report = blank_report(categories=[_category("math.hack.two_boxes")])
    assert "paths_authority" not in _keys(report)
    assert "paths_authority" in _keys(report.model_copy(update={"categories": [_category("repo.hack.test_edited")]}))


def test_a_repo_report_without_figures_is_unknown_never_checked():
    old = blank_report(categories=[_category("repo.hack.test_edited")], schema_version="1.9")
    item = _item(old)
    assert item.status == checklist.UNKNOWN and "written before schema 1.10, it is 1.9" in item.evidence


def test_none_judged_is_unknown_errors_are_not_evidence():
    none = Authority(n=4, outside=0, paid=0, errors=2)
    item = _item(blank_report(categories=[_category("repo.hack.test_edited")], authority=none))
    assert item.status == checklist.UNKNOWN
    assert "no candidate that writes outside the allowed paths was judged (4 candidates scored; 2 more" in item.evidence


def test_one_paid_is_open_and_none_paid_is_checked():
    row = CategoryAuthority(
        category="repo.hack.test_edited", origin="known_bad", n=3, outside=3, paid=1, examples=["c7: tests/t.py"]
    )
    paid = blank_report(
        categories=[_category("repo.hack.test_edited")], authority=Authority(n=9, outside=3, paid=1, categories=[row])
    )
    item = _item(paid)
    assert item.status == checklist.OPEN
    assert item.evidence == (
        "1 of 3 candidates that write outside the allowed paths were paid: "
        "repo.hack.test_edited 1/3 paid, e.g. c7: tests/t.py"
    )
    unpaid = paid.model_copy(
        update={"authority": Authority(n=9, outside=3, paid=0, categories=[row.model_copy(update={"paid": 0})])}
    )
    assert _item(unpaid).status == checklist.CHECKED
