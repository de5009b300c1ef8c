"""JUnit XML for CI dashboards: one test suite per verifier, one test case per category,
failed when the category is over its allowance; security findings are failed cases too; a
category whose calls all errored (not measured) is an error case.

Allowances are the audit's gate settings, read from the report: an attack or near-miss
category fails over ``max_category`` false acceptance (unless waived), an equivalent
category over ``max_false_rejection`` false rejection.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..models import Report


def _suite(report: Report) -> ET.Element:
    s = report.settings
    max_cat, max_fr = float(s.get("max_category", 0.5)), float(s.get("max_false_rejection", 0.1))
    waived = set(s.get("waived_categories") or ())
    name = report.verifier
    suite = ET.Element("testsuite", name=name)
    failures = errors = 0
    for c in report.categories:
        case = ET.SubElement(suite, "testcase", classname=name, name=c.name)
        what = "false acceptance" if c.label == "incorrect" else "false rejection"
        limit = max_cat if c.label == "incorrect" else max_fr
        ET.SubElement(case, "system-out").text = (
            f"{what} {c.rate:.3f} ({c.accepted if c.label == 'incorrect' else c.n - c.accepted}/{c.n}), "
            f"95% CI [{c.ci.low:.3f}, {c.ci.high:.3f}], severity {c.severity.value}, errors {c.errors}"
        )
        if not c.measured and c.name not in waived:
            # An error, not a skip: a dashboard must not show an unmeasured hole as benign.
            errors += 1
            ET.SubElement(case, "error", message=f"not measured: all {c.errors} calls errored", type="not_measured")
        elif c.n == 0:
            ET.SubElement(case, "skipped", message="nothing judged")
        elif c.rate > limit and c.name not in waived:
            failures += 1
            example = next(iter(c.examples), None)
            detail = (
                f"\nexample ({example.candidate_id}):\n{example.text[:2000]}\nreference:\n{example.reference[:500]}"
                if example
                else ""
            )
            ET.SubElement(
                case, "failure", message=f"{what} {c.rate:.3f} > {limit:g}", type=c.origin
            ).text = f"{c.name}: {what} {c.rate:.3f} over the allowance {limit:g}{detail}"
    for f in report.security_findings:
        failures += 1
        case = ET.SubElement(suite, "testcase", classname=name, name=f"security.{f.kind}.{f.candidate_id}")
        ET.SubElement(case, "failure", message=f.kind, type="security").text = f.detail
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", str(len(suite.findall("testcase/skipped"))))
    return suite


def to_junit(reports: list[Report]) -> str:
    root = ET.Element("testsuites", name="verifier-audit")
    for r in reports:
        root.append(_suite(r))
    ET.indent(root)
    # XML 1.0 cannot hold most control characters, which hostile candidates are full of.
    text = ET.tostring(root, encoding="unicode")
    text = "".join(ch if ch in "\t\n\r" or ch >= " " and not 0xD800 <= ord(ch) <= 0xDFFF else "\ufffd" for ch in text)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n"
