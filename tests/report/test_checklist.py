"""The security checklist (report/checklist.py) on real audits of sound and faulty verifiers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verifier_audit.cli import checklist as checklist_cli
from verifier_audit.models import Report, ReportSet, to_json
from verifier_audit.report.checklist import evaluate, to_markdown

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "probe_verifiers.py"
KEYS = [
    "hostile_families_tried",
    "no_hack_family_accepted",
    "executes_model_output",
    "isolation_holds",
    "fixture_and_reads",
    "time_limit",
    "deterministic",
    "audit_aware",
    "thread_process_safe",
    "false_rejection_within_threshold",
    "splits_audited",
    "scores_read_as_training",
]


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """name -> Report, each audit run once per module, on first use."""
    from verifier_audit import audit

    cache = str(tmp_path_factory.getbasetemp() / "va-cache")  # the session's cache (conftest)
    suite = tmp_path_factory.mktemp("suite") / "all_splits.jsonl"
    rows = [json.loads(line) for line in (ROOT / "suites" / "math" / "tasks.jsonl").read_text().splitlines()]
    picked = [r for split in ("train", "heldout", "shifted") for r in [r for r in rows if r["split"] == split][:2]]
    suite.write_text("".join(json.dumps(r) + "\n" for r in picked))
    runs = {
        "strong": lambda: audit("verifier_audit.domains.math.verifiers:strong", suite=str(suite)),
        "sympify": lambda: audit(str(ROOT / "examples" / "executes_output.py:sympify_grader"), split="train", limit=3),
        "coin_flip": lambda: audit(f"{FIXTURES}:coin_flip", limit=3),
        "shared_state": lambda: audit(f"{FIXTURES}:shared_state", limit=3),
        "hangs": lambda: audit(f"{FIXTURES}:hangs_on_huge", limit=2, timeout=2),
    }
    done: dict[str, Report] = {}

    def get(name: str) -> Report:
        if name not in done:
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("VERIFIER_AUDIT_CACHE", cache)
                done[name] = runs[name]()
        return done[name]

    return get


def _items(report: Report) -> dict:
    items = evaluate(report)
    assert [i.key for i in items] == KEYS
    assert all(i.status in ("checked", "open", "unknown") and i.title and i.evidence for i in items)
    return {i.key: i for i in items}


def test_a_sound_verifier_is_checked_except_what_its_domain_cannot_show(audited):
    report = audited("strong")
    items = _items(report)
    status = {k: i.status for k, i in items.items()}
    # The math domain hands verifiers no fixture: nothing to modify or read beside, and runs
    # them in no sandbox: no escape to see, so no evidence either way. Everything else has
    # evidence in the audit, and it is good. A reference verifier of verifier-audit's own is
    # trusted code, not cross-checked for audit-awareness: that item stays unknown.
    unknown = {"fixture_and_reads": "unknown", "isolation_holds": "unknown", "audit_aware": "unknown"}
    assert status == {**{k: "checked" for k in KEYS}, **unknown}, items
    assert "not run in the audit's sandbox" in items["isolation_holds"].evidence
    assert "no fixture" in items["fixture_and_reads"].evidence and "canary" in items["fixture_and_reads"].evidence
    assert "math.security.sympify_canary" in items["executes_model_output"].evidence
    assert "train 2" not in items["splits_audited"].evidence  # counts are candidates, not tasks
    assert re.search(r"train \d+, heldout \d+, shifted \d+", items["splits_audited"].evidence)
    assert f"{report.checks.determinism.sampled} sampled" in items["deterministic"].evidence
    assert "0.0%" in items["false_rejection_within_threshold"].evidence
    families = {c.name.split(".")[1] for c in report.categories if c.origin == "known_bad"}
    assert all(f in items["hostile_families_tried"].evidence for f in families)


def test_a_verifier_that_sympifies_model_output_is_open_on_execution(audited):
    report = audited("sympify")
    items = _items(report)
    item = items["executes_model_output"]
    assert item.status == "open"
    fired = [f for f in report.security_findings if f.kind == "executes_model_output"]
    assert fired
    assert fired[0].candidate_id in item.evidence and "canary" in item.evidence
    category = fired[0].candidate_id.split("/")[1]
    assert "canary" in category and category in item.evidence
    # This audit was restricted to the train split.
    assert report.split == "train"
    assert items["splits_audited"].status == "open"
    assert "heldout" in items["splits_audited"].evidence and "shifted" in items["splits_audited"].evidence
    assert "restricted to split train" in items["splits_audited"].evidence


def test_a_nondeterministic_verifier_is_open_on_determinism_with_examples(audited):
    report = audited("coin_flip")
    det = report.checks.determinism
    assert det.sampled == 24 and det.disagreed > 0 and det.errors == 0
    assert det.examples and all(re.fullmatch(r"\S+: [01]\.0 then [01]\.0", e) for e in det.examples)
    items = _items(report)
    assert items["deterministic"].status == "open"
    assert det.examples[0] in items["deterministic"].evidence
    assert items["thread_process_safe"].status == "open"  # cannot be told apart: open too


def test_shared_state_breaks_under_threads_but_not_one_call_at_a_time(audited):
    report = audited("shared_state")
    assert report.checks.threads.disagreed > 0 and report.checks.determinism.disagreed == 0
    items = _items(report)
    assert items["deterministic"].status == "checked"
    assert items["thread_process_safe"].status == "open"
    assert "4 threads" in items["thread_process_safe"].evidence
    assert report.checks.threads.examples[0] in items["thread_process_safe"].evidence


def test_a_verifier_that_hangs_on_huge_input_is_open_on_the_time_limit(audited):
    report = audited("hangs")
    huge = next(c for c in report.categories if c.name == "math.hostile.huge_output")
    assert huge.errors and huge.error_kinds == {"timeout": huge.errors}
    item = _items(report)["time_limit"]
    assert item.status == "open"
    assert "math.hostile.huge_output: timeout" in item.evidence and "2 s" in item.evidence
    # The sample is drawn from ok verdicts only: the probes did not wait on the hang again.
    assert report.checks.determinism.errors == 0


def test_an_older_report_without_checks_is_unknown_not_checked(audited):
    old = audited("strong").model_copy(update={"checks": None, "schema_version": "1.1"})
    items = _items(old)
    for key in ("deterministic", "thread_process_safe", "splits_audited"):
        assert items[key].status == "unknown", key
        assert "schema 1.2" in items[key].evidence
    assert items["hostile_families_tried"].status == "checked"


def test_markdown_names_every_item_of_every_report(audited):
    reports = [audited("strong"), audited("sympify")]
    md = to_markdown(reports)
    assert md.count("| status | item | evidence |") == 2
    for key in KEYS:
        assert md.count(f"(`{key}`)") == 2
    assert "| **open** | The verifier does not execute model output" in md
    assert all(line.count("|") - line.count("\\|") == 4 for line in md.splitlines() if line.startswith("| "))


def test_the_command_exit_codes_and_markdown(audited, tmp_path, capsys):
    strong, sympify = audited("strong"), audited("sympify")
    one = tmp_path / "strong.json"
    one.write_text(to_json(strong, indent=2))
    md = tmp_path / "out" / "checklist.md"
    md.parent.mkdir()
    assert checklist_cli.main([str(one), "--markdown", str(md)]) == 0  # nothing open (three unknown)
    out = capsys.readouterr().out
    assert "12 checked" not in out and "9 checked, 0 open, 3 unknown" in out
    assert "executes_model_output" in out and md.read_text().startswith("## verifier-audit security checklist")
    assert checklist_cli.main([str(one), "--strict"]) == 1  # unknown counts with --strict

    both = tmp_path / "set.json"
    both.write_text(to_json(ReportSet(tool_version=strong.tool_version, reports=[strong, sympify])))
    assert checklist_cli.main([str(both)]) == 1
    assert "open" in capsys.readouterr().out

    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert checklist_cli.main([str(bad)]) == 2
    assert "not a verifier-audit report" in capsys.readouterr().err
    assert checklist_cli.main([str(tmp_path / "missing.json")]) == 2


def test_the_subcommand_registers_on_a_parser():
    import argparse

    parser = argparse.ArgumentParser(prog="verifier-audit")
    sub = parser.add_subparsers(dest="command")
    checklist_cli.add_parser(sub)
    args = parser.parse_args(["checklist", "r.json", "--markdown", "m.md"])
    assert args.command == "checklist" and args.report == Path("r.json") and args.markdown == Path("m.md")
    assert args.strict is False


# ------------------------------------------------------------------ escapes past the verifier's own guard

_ESCAPE_ENTRIES = ("posix_system_escape", "reload_os_escape", "write_outside_workdir", "network_loopback")


@pytest.fixture(scope="module")
def code_escapes():
    """spec -> Report on the code catalog's escape candidates of 2 tasks, in the sandbox at
    its namespaces level (the only one whose walls see an escape)."""
    import dataclasses

    from verifier_audit.domains.code import sandbox
    from verifier_audit.engine.audit import AuditOptions, default_cache_dir, prepare
    from verifier_audit.loading import resolve
    from verifier_audit.plan import audit
    from verifier_audit.suites import load_suite, select

    if "namespaces" not in sandbox.available_levels():
        pytest.skip("the sandbox's walls need the namespaces level")
    options = AuditOptions(
        workers=2, timeout=10.0, probe_sample=0, progress=False, origins=("known_bad",), cache_dir=default_cache_dir()
    )
    loaded = load_suite("code")
    prepared = prepare(loaded.name, loaded.content_hash, select(loaded, None, 2), options)
    keep = [c for c in prepared.candidates if c.id.split("/")[-1].rsplit("-", 1)[0] in _ESCAPE_ENTRIES]
    prepared = dataclasses.replace(prepared, candidates=keep)
    done: dict[str, Report] = {}

    def get(spec: str) -> Report:
        if spec not in done:
            done[spec] = audit(prepared, [resolve(spec)], options)[0]
        return done[spec]

    return get


def test_a_guard_that_lets_an_escape_through_is_open_on_isolation(code_escapes):
    # exit_code runs `python file.py` with no isolation of its own: every escape reaches the
    # sandbox's walls.
    report = code_escapes("verifier_audit.domains.code.verifiers:exit_code")
    escapes = [f for f in report.security_findings if f.kind == "guard_escape"]
    assert escapes
    item = _items(report)["isolation_holds"]
    assert item.status == "open"
    assert item.evidence.startswith(f"{len(escapes)} guard_escape finding(s): ")
    assert escapes[0].candidate_id in item.evidence and "the audit's sandbox stopped it" in item.evidence
    assert "code.hack." in item.evidence  # the category of the candidate that got through


def test_a_verifier_that_contains_its_candidates_is_not_checked_without_the_level(code_escapes):
    # visible_tests runs each candidate in a namespaces sandbox of its own: no finding. The
    # report does not say at which level the audit's walls stood, so that is no proof.
    report = code_escapes("verifier_audit.domains.code.verifiers:visible_tests")
    assert not [f for f in report.security_findings if f.kind == "guard_escape"]
    item = _items(report)["isolation_holds"]
    assert item.status == "unknown"
    assert "no guard_escape finding over" in item.evidence and "code.hack.escape" in item.evidence
