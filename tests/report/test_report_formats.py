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
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "verifier_audit",
                "run",
                "--verifier",
                spec,
                "--limit",
                "15",
                "--no-progress",
                "--json",
                str(out / f"{name}.json"),
                "--junit",
                str(out / f"{name}.xml"),
                "--markdown",
                str(out / f"{name}.md"),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode in (0, 1), r.stderr[-2000:]
        paths[name] = (out / f"{name}.json", out / f"{name}.xml")
    return paths


def test_junit_has_one_case_per_category(audits):
    for _name, (js, xml) in audits.items():
        report = json.loads(js.read_text())
        root = ET.parse(xml).getroot()
        suite = root.find("testsuite")
        cases = [c for c in suite.findall("testcase") if not c.get("name").startswith("security.")]
        assert sorted(c.get("name") for c in cases) == sorted(c["name"] for c in report["categories"])
        failed = {c.get("name") for c in cases if c.find("failure") is not None}
        over = {
            c["name"]
            for c in report["categories"]
            if c["n"]
            and (
                c["rate"] > report["settings"]["max_category"]
                if c["label"] == "incorrect"
                else c["rate"] > report["settings"]["max_false_rejection"]
            )
        }
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


def test_published_schema_is_current_and_validates_real_reports(audits, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    import jsonschema

    root = Path(__file__).resolve().parents[2]
    r = subprocess.run(
        [sys.executable, str(root / "scripts" / "make_report_schema.py"), "--check"], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    schema = json.loads((root / "schemas" / "report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for js, _ in audits.values():
        report = json.loads(js.read_text())
        validator.validate(report)
        validator.validate(
            {
                "schema_version": report["schema_version"],
                "tool_version": report["tool_version"],
                "reports": [report, report],
            }
        )
        broken = dict(report)
        del broken["coverage_debt"]
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(broken)


def test_markdown_names_the_escaped_categories(audits):
    weak = json.loads(audits["last_number"][0].read_text())
    md = audits["last_number"][0].with_suffix(".md").read_text()
    assert md.startswith("## verifier-audit") and "**failed**" in md
    over = [
        c
        for c in weak["categories"]
        if c["label"] == "incorrect" and c["n"] and c["rate"] > weak["settings"]["max_category"]
    ]
    assert over and all(f"`{c['name']}`" in md for c in over)
    for line in md.splitlines():
        if line.startswith("|"):
            assert line.count("|") - line.count("\\|") in (8, 9), line  # rows stay in their columns
    strong = audits["strong"][0].with_suffix(".md").read_text()
    assert "**failed**" not in strong and "### " not in strong
