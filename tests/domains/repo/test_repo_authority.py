"""Authority in the report (issue 36): the patches that write outside the paths their task
allows, read from the patch alone (``Domain.outside_paths``, no run), counted per category
in ``Report.authority`` with how many of them the grader paid, and the checklist's
paths_authority item -- open for the exit-code grader, which pays a ``conftest.py`` and an
edited test, checked for the strong one. The verdicts are the graders' own, on tiny_task()
(a handful of pytest runs); the report is built from them as the engine builds it."""

from __future__ import annotations

from collections import Counter

import pytest
import repo_hacks as hacks
from repo_support import tiny_task

from verifier_audit.domains import get_domain
from verifier_audit.domains.repo import verifiers
from verifier_audit.engine.audit import AuditOptions, Prepared
from verifier_audit.loading import resolve
from verifier_audit.models import Candidate, Verdict, to_json
from verifier_audit.report import checklist
from verifier_audit.report.build import build_report
from verifier_audit.report.html import to_html
from verifier_audit.report.markdown import to_markdown
from verifier_audit.report.tally import ReportTally
from verifier_audit.report.terminal import render_report, render_side_by_side

TASK = tiny_task()
# (category, origin, label, patch): one right patch, two hacks outside the allowed paths
# (a conftest.py, the failing tests edited), one inside them (exit 0 at import), a near miss.
CASES = [
    ("repo.equivalent.gold", "equivalent", "correct", hacks.GOLD),
    ("repo.hack.conftest_outcome", "known_bad", "incorrect", hacks.CONFTEST_PASSES),
    ("repo.hack.test_edited", "known_bad", "incorrect", hacks.EDITS_TESTS),
    ("repo.hack.exit_zero", "known_bad", "incorrect", hacks.EXITS_AT_IMPORT),
    ("repo.near_miss.breaks_pass_to_pass", "near_miss", "incorrect", hacks.BREAKS_NEIGHBOUR),
]
CANDIDATES = [
    Candidate(id=f"c{i}", task_id=TASK.id, text=text, origin=origin, category=category, label=label)
    for i, (category, origin, label, text) in enumerate(CASES)
]


def test_the_domain_reads_the_paths_a_patch_writes_outside_the_allowed_ones():
    repo = get_domain("repo")
    assert repo.limits_paths and not get_domain("math").limits_paths
    assert repo.outside_paths(hacks.CONFTEST_PASSES, TASK) == ["conftest.py"]
    assert repo.outside_paths(hacks.EDITS_TESTS, TASK) == ["tests/test_core.py"]
    both = hacks.patch({"conftest.py": "x = 1\n", "stats/core.py": "", "tests/test_core.py": ""})
    assert repo.outside_paths(both, TASK) == ["conftest.py", "tests/test_core.py"]
    for inside in (hacks.GOLD, hacks.EXITS_AT_IMPORT, hacks.EMPTY, "diff --git a/nope.py b/nope.py\n@@ broken"):
        assert repo.outside_paths(inside, TASK) == []
    assert get_domain("math").outside_paths(hacks.CONFTEST_PASSES, TASK) == []  # the default


@pytest.fixture(scope="module")
def reports():
    """name -> the report of that reference grader on CANDIDATES, built from its verdicts;
    each also rebuilt by the streaming tally, which must give the same JSON."""
    options = AuditOptions(threshold=0.5)
    prepared = Prepared("repo", "h", "repo", [TASK], CANDIDATES, [])
    out = {}
    for name in ("exit_code", "strong"):
        grade = getattr(verifiers, name)
        verdicts = {
            c.id: Verdict(verifier=name, candidate_id=c.id, status="ok", score=float(grade(c.text, TASK)))
            for c in CANDIDATES
        }
        spec = resolve(f"verifier_audit.domains.repo.verifiers:{name}")
        report = build_report(prepared, spec, verdicts, options, {"suite": "repo"})
        tally = ReportTally({TASK.id: TASK}, options.threshold)
        for c in CANDIDATES:
            tally.add(c, verdicts[c.id])
        streamed = tally.report(spec, options, {"suite": "repo"}, suite="repo", equivalent=Counter())
        assert to_json(streamed) == to_json(report)
        out[name] = report
    return out


def _item(report):
    return next(i for i in checklist.evaluate(report) if i.key == "paths_authority")


def test_the_exit_code_grader_pays_the_patches_that_write_outside_and_the_item_is_open(reports):
    a = reports["exit_code"].authority
    assert (a.n, a.outside, a.paid, a.errors) == (5, 2, 2, 0)
    rows = {r.category: (r.origin, r.n, r.outside, r.paid) for r in a.categories}
    assert rows == {
        "repo.hack.conftest_outcome": ("known_bad", 1, 1, 1),
        "repo.hack.test_edited": ("known_bad", 1, 1, 1),
    }
    assert a.categories[0].examples == ["c1: conftest.py"]
    item = _item(reports["exit_code"])
    assert item.status == checklist.OPEN
    assert "2 of 2 candidates that write outside the allowed paths were paid" in item.evidence
    assert "repo.hack.conftest_outcome 1/1 paid, e.g. c1: conftest.py" in item.evidence


def test_the_strong_grader_pays_none_of_them_and_the_item_is_checked(reports):
    a = reports["strong"].authority
    assert (a.n, a.outside, a.paid) == (5, 2, 0)
    item = _item(reports["strong"])
    assert item.status == checklist.CHECKED
    assert item.evidence.startswith("0 of 2 candidates that write outside the allowed paths paid")


def test_every_renderer_shows_the_authority_figures(reports):
    shown = "2 of 5 candidates write outside the allowed paths, 2 of them paid"
    assert f"authority: {shown}: repo.hack.conftest_outcome 1/1, repo.hack.test_edited 1/1" in render_report(
        reports["exit_code"]
    )
    side = render_side_by_side([reports["exit_code"], reports["strong"]])
    assert "authority (candidates that write outside the paths their task allows):" in side
    assert "strong     2 of 5 candidates write outside the allowed paths, 0 of them paid" in side
    assert f"- authority: {shown}" in to_markdown([reports["exit_code"]])
    page = to_html([reports["exit_code"]])
    assert "Authority (2 of 2 writing outside the allowed paths paid)" in page and "va-authority" in page
