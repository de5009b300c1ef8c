"""Hold a finding read from the code against what an audit measured of the same verifier.

``confirmed`` is True only on evidence: a category of the finding's misjudged, a security
finding of the rule's kind, a probe that disagreed. False when the audit measured that
behaviour and the verifier held. None when nothing measured bears on it, or when the
report audits another verifier than the code the finding is in: what was not observed is
unknown, never "checked".
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..models import CategoryResult, Report, SourceFinding
from ._rule import Rule
from ._rules import RULES_BY_ID

Part = tuple[bool | None, str]  # (verdict, evidence) from one kind of evidence


def confirm(findings: list[SourceFinding], report: Report) -> list[SourceFinding]:
    """Copies of ``findings`` with ``confirmed`` and ``evidence`` set from ``report``."""
    return [_confirm_one(f, report) for f in findings]


def _confirm_one(finding: SourceFinding, report: Report) -> SourceFinding:
    elsewhere = audits_elsewhere(report, finding)
    rule = RULES_BY_ID.get(finding.rule)
    if elsewhere is not None:
        verdict, evidence = None, f"unknown: {elsewhere}"
    elif rule is None:
        verdict, evidence = None, f"unknown: no rule {finding.rule!r} in this version of verifier-audit"
    else:
        verdict, evidence = _combine(_parts(rule, finding, report), rule)
    return finding.model_copy(update={"confirmed": verdict, "evidence": evidence})


def _parts(rule: Rule, finding: SourceFinding, report: Report) -> list[Part]:
    parts = []
    if rule.security_kinds:
        parts.append(_security(rule, finding, report))
    if rule.probe == "threads":
        parts.append(_threads(report))
    if finding.categories and rule.accepted_confirms:
        parts.append(_categories(finding.categories, report))
    return parts


def _combine(parts: list[Part], rule: Rule) -> Part:
    if not parts:
        return None, f"unknown: {rule.unmeasured or 'no behavioural check measures this'}"
    for wanted in (True, False):
        chosen = [text for verdict, text in parts if verdict is wanted]
        if chosen:
            return wanted, "; ".join(chosen)
    return None, "; ".join(text for _, text in parts)


# --------------------------------------------------------------------------- evidence


def matches(name: str, prefixes: list[str] | tuple[str, ...]) -> bool:
    """``math.hedge`` covers ``math.hedge.two_boxes``; a full name covers itself."""
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _shown(prefixes) -> str:
    return ", ".join(p if p.count(".") >= 2 else p + ".*" for p in prefixes)


def _wrong(report: Report, prefixes) -> list[CategoryResult]:
    """The report's categories of wrong answers among ``prefixes`` that have a judged call."""
    return [c for c in report.categories if c.label == "incorrect" and matches(c.name, prefixes) and c.n > 0]


def _categories(prefixes: list[str], report: Report) -> Part:
    measured = _wrong(report, prefixes)
    if not measured:
        return None, f"unknown: the report measured none of {_shown(prefixes)}"
    paid = sorted((c for c in measured if c.accepted > 0), key=lambda c: (-c.rate, c.name))
    if paid:
        shown = ", ".join(f"{c.name} accepted {c.accepted}/{c.n}" for c in paid[:4])
        more = f" and {len(paid) - 4} more categories" if len(paid) > 4 else ""
        return True, f"confirmed: {shown}{more}"
    total = sum(c.n for c in measured)
    return False, f"not confirmed: {_shown(prefixes)} all rejected (0/{total} over {len(measured)} categories)"


def _security(rule: Rule, finding: SourceFinding, report: Report) -> Part:
    fired = [s for s in report.security_findings if s.kind in rule.security_kinds]
    if fired:
        # The candidate id is "task/category/entry": say which categories fired.
        by_category = Counter(s.candidate_id.split("/")[1] if s.candidate_id.count("/") >= 2 else "?" for s in fired)
        shown = ", ".join(f"{name} {n}" for name, n in by_category.most_common(4))
        seen = "a canary fired" if fired[0].kind == "executes_model_output" else "the audit's walls caught it"
        return True, f"confirmed: {fired[0].kind} on {len(fired)} candidate(s) ({shown}): {seen}"
    measured = _wrong(report, finding.categories)
    if measured:
        return False, (
            f"not confirmed: no canary fired over {sum(c.n for c in measured)} candidates in "
            f"{_shown(finding.categories)}"
        )
    if report.security_findings:  # never "unknown" beside findings the reader can see (issue 31)
        kinds = Counter(s.kind for s in report.security_findings)
        return None, (
            f"not checked by a finding of its kind ({', '.join(rule.security_kinds)}); the audit's "
            f"{len(report.security_findings)} security finding(s) are of other kinds "
            f"({', '.join(f'{k} {n}' for k, n in kinds.most_common())})"
        )
    return None, f"unknown: no canary category ({_shown(finding.categories)}) was audited"


def _threads(report: Report) -> Part:
    probe = report.checks.threads if report.checks is not None else None
    if probe is None or probe.sampled == 0:
        return None, "unknown: no thread probe ran (report.checks.threads is empty: run with --probe-sample > 0)"
    k = report.checks.thread_count
    if probe.disagreed:
        errors = f", {probe.errors} of them errors" if probe.errors else ""
        return True, (
            f"confirmed: scored from {k} threads at once, {probe.disagreed} of {probe.sampled} candidates "
            f"disagreed with the audit{errors}"
        )
    return False, f"not confirmed: {probe.sampled} candidates scored from {k} threads at once agreed with the audit"


# --------------------------------------------------------------------------- same verifier?


def audits_elsewhere(report: Report, finding: SourceFinding) -> str | None:
    """Why the report cannot speak for this finding's code, or None when it can: the report
    audits a function in the finding's file whose call runs that code. Code the scan
    reached through imports (``finding.via``: "reward.py:score") is held against the
    target's file and function that led there."""
    file, scope = finding.file, finding.scope
    if finding.via:
        where, sep, top = finding.via.rpartition(":")
        file, scope = (where, [top]) if sep and not finding.via.endswith(".py") else (finding.via, [])
    target, sep, name = report.verifier.rpartition(":")
    if not sep or not target:
        return f"the report audits {report.verifier!r}, which names no Python function"
    if target.endswith(".py") or "/" in target:
        same = _same_file(target, file)
    elif target.replace(".", "").replace("_", "").isalnum():
        same = _module_is_file(target, file)
    else:
        return f"the report audits {report.verifier!r}, which names no Python file"
    if not same:
        return f"the report audits {report.verifier}, not code in {file}"
    top = name.split(".")[0]
    if scope and top not in scope:
        where = f"{finding.function}()" if finding.function else "this code"
        return f"the report audits {name}(), and {where} is neither in it nor in a function it calls"
    return None


def _same_file(a: str, b: str) -> bool:
    pa, pb = Path(a), Path(b)
    try:
        if pa.resolve() == pb.resolve():
            return True
    except OSError:
        pass
    # A report written elsewhere (CI) names the file by another absolute path: the
    # relative one must be the other's tail.
    ra, rb = [p for p in pa.parts if p != "."], [p for p in pb.parts if p != "."]
    if not pb.is_absolute():
        return ra[-len(rb) :] == rb
    if not pa.is_absolute():
        return rb[-len(ra) :] == ra
    return False


def _module_is_file(module: str, file: str) -> bool:
    parts = module.split(".")
    resolved = list(Path(file).resolve().parts)
    as_module = [*parts[:-1], parts[-1] + ".py"]
    as_package = [*parts, "__init__.py"]
    return resolved[-len(as_module) :] == as_module or resolved[-len(as_package) :] == as_package
