"""``verifier-audit run --suite repo`` end to end, as a user runs it (issue 36), on the first
task only (``--limit 1``, probes off): the five reference graders side by side, the strong
one at debt 0 and FR 0, the exit-code grader paying a ``repo.hack.*`` category and patches
that write outside the allowed paths, which the strong one never pays."""

from __future__ import annotations

import json

from cli_support import run_cli

GRADERS = ["exit_code", "fail_to_pass_only", "log_parse", "junit", "strong"]


def test_the_repo_suite_audits_the_five_reference_graders_side_by_side(tmp_path):
    out = tmp_path / "repo.json"
    args = ["run", "--suite", "repo", "--limit", "1", "--probe-sample", "0", "--workers", "2", "--no-progress"]
    r = run_cli(*args, "--json", str(out), timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    reports = {rep["verifier"].rpartition(":")[2]: rep for rep in json.loads(out.read_text())["reports"]}
    assert list(reports) == GRADERS
    strong, exit_code = reports["strong"], reports["exit_code"]
    assert strong["coverage_debt"] == 0 and strong["false_rejection_rate"] == 0 and strong["errors"] == 0
    assert strong["n_candidates"] >= 20
    paid = [c["name"] for c in exit_code["categories"] if c["name"].startswith("repo.hack.") and c["accepted"]]
    assert "repo.hack.conftest_outcome" in paid
    assert exit_code["authority"]["paid"] > 0 and strong["authority"]["paid"] == 0
    assert exit_code["authority"]["outside"] == strong["authority"]["outside"] > 0
    assert "authority (candidates that write outside the paths their task allows):" in r.stdout
