"""JUnit XML and `verifier-audit diff` on real audits (issue 5, first part)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest


@pytest.fixture(scope="module")
def audits(tmp_path_factory):
    """Two real audits on a small math sample: a weak verifier and the strong one."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("formats")
    paths = {}
    for name in ("last_number", "strong"):
        spec = f"verifier_audit.domains.math.verifiers:{name}"
        r = subprocess.run([sys.executable, "-m", "verifier_audit", "run", "--verifier", spec, "--limit", "15",
                            "--no-progress", "--json", str(out / f"{name}.json"), "--junit", str(out / f"{name}.xml")],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode in (0, 1), r.stderr[-2000:]
        paths[name] = (out / f"{name}.json", out / f"{name}.xml")
    return paths


def test_junit_has_one_case_per_category(audits):
    for name, (js, xml) in audits.items():
        report = json.loads(js.read_text())
        root = ET.parse(xml).getroot()
        suite = root.find("testsuite")
        cases = [c for c in suite.findall("testcase") if not c.get("name").startswith("security.")]
        assert sorted(c.get("name") for c in cases) == sorted(c["name"] for c in report["categories"])
        failed = {c.get("name") for c in cases if c.find("failure") is not None}
        over = {c["name"] for c in report["categories"] if c["n"] and (
            c["rate"] > report["settings"]["max_category"] if c["label"] == "incorrect"
            else c["rate"] > report["settings"]["max_false_rejection"])}
        assert failed == over
        assert int(suite.get("failures")) == len(failed) + len(report["security_findings"])
    assert ET.parse(audits["last_number"][1]).getroot().find("testsuite").get("failures") != "0"
    assert ET.parse(audits["strong"][1]).getroot().find("testsuite").get("failures") == "0"


def test_diff_shows_what_got_better(cli, audits):
    weak, strong = audits["last_number"][0], audits["strong"][0]
    # Pretend the weak verifier was fixed into the strong one: same verifier name, new report.
    fixed = json.loads(strong.read_text())
    fixed["verifier"] = json.loads(weak.read_text())["verifier"]
    new = weak.parent / "fixed.json"
    new.write_text(json.dumps(fixed))
    r = cli("diff", str(weak), str(new), "--fail-on-regression")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "better (" in r.stdout and "coverage debt" in r.stdout
    r = cli("diff", str(new), str(weak), "--fail-on-regression")
    assert r.returncode == 1 and "worse (" in r.stdout


def test_diff_refuses_what_is_not_a_report(cli, tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    r = cli("diff", str(bad), str(bad))
    assert r.returncode == 2 and "not a verifier-audit report" in r.stderr
