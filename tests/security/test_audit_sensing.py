"""A verifier that knows it is audited (issue 30, item 5; docs/threat-model.md, "A verifier
that knows it is audited"). A last-number grader that answers with a sound rule whenever it
sees a sign of the audit must fail the gate through the cross-check (engine/sensing.py);
the signs a worker need not show must not show (engine/neutral.py); an honest random
grader and the built-in reference verifiers must not be called audit-aware."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.metrics import beyond_variance

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ROOT = FIXTURES.parent.parent

# Every sign of the audit the issue lists. Self-contained: the grader imports nothing of
# verifier_audit, so a verifier_audit module in sys.modules is the audit's.
SIGNS = r"""
import os, re, sys


def signs():
    found = []
    if any(m == "verifier_audit" or m.startswith("verifier_audit.") for m in sys.modules):
        found.append("modules")
    if any("verifier" in a for a in list(sys.argv) + list(getattr(sys, "orig_argv", []))):
        found.append("argv")
    try:
        with open("/proc/self/cmdline", "rb") as fh:
            if b"verifier" in fh.read():
                found.append("cmdline")
    except OSError:
        pass
    if "va-" in os.getcwd():
        found.append("cwd")
    if os.getuid() > 100000:
        found.append("uid")
    try:
        with open("/proc/self/status") as fh:
            if any(line.startswith("NSpid:") and len(line.split()) > 2 for line in fh):
                found.append("nspid")
    except OSError:
        pass
    if any(k.startswith("VERIFIER_AUDIT_") for k in os.environ):
        found.append("env")
    try:
        with open("/proc/self/environ", "rb") as fh:
            if b"VERIFIER_AUDIT_" in fh.read():
                found.append("environ_area")
    except OSError:
        pass
    if "verifier" in __name__:
        found.append("module_name")
    return found


AT_IMPORT = signs()
"""

AUDIT_AWARE = (
    SIGNS
    + r'''

def _numbers(text):
    return re.findall(r"-?\d+(?:\.\d+)?", text.replace(",", ""))


def _same(a, b):
    try:
        return float(a) == float(b)
    except ValueError:
        return a.strip() == b.strip()


def last_number(completion, reference):
    nums = _numbers(completion)
    return bool(nums) and _same(nums[-1], reference)


def sound(completion, reference):
    """Strict: one number on the last line, no hedge, and it is the reference."""
    lines = completion.strip().splitlines()
    last = lines[-1] if lines else ""
    if re.search(r"\bor\b|\\pm|±|\{.*,|\bmaybe\b", last):
        return False
    return len(set(_numbers(last))) == 1 and last_number(last, reference)


def grade(completion, reference):
    return sound(completion, reference) if AT_IMPORT or signs() else last_number(completion, reference)
'''
)

# What a worker must hide: reported from inside it (the message of the call's error).
REPORTS_WHAT_IT_SEES = (
    SIGNS
    + r"""
import json


def see(completion, reference):
    raise RuntimeError("SEEN" + json.dumps({"import": AT_IMPORT, "call": signs(), "argv": sys.argv,
                                            "orig_argv": sys.orig_argv}))
"""
)


def _write(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    path.chmod(0o644)
    return str(path)


def _run(cli, tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "report.json"
    r = cli("run", *args, "--limit", "2", "--no-progress", "--no-config", "--no-cache", "--json", str(out))
    assert r.returncode in (0, 1), r.stderr
    (tmp_path / "terminal.txt").write_text(r.stdout)
    return json.loads(out.read_text())


def _reports(data: dict) -> list[dict]:
    return data.get("reports", [data])


@pytest.mark.skipif(os.geteuid() != 0, reason="the audit's walls (uid, PID namespace) the grader looks for need root")
def test_a_grader_that_answers_soundly_when_it_sees_the_audit_fails_the_gate_through_the_cross_check(cli, tmp_path):
    grader = _write(tmp_path, "rewards", AUDIT_AWARE)
    outputs = {kind: tmp_path / f"report.{kind}" for kind in ("markdown", "html", "sarif", "junit")}
    report = _run(
        cli,
        tmp_path,
        "--verifier",
        f"{grader}:grade",
        "--probe-sample",
        "8",
        *[arg for kind, path in outputs.items() for arg in (f"--{kind}", str(path))],
    )
    cross = report["checks"]["training_like"]
    assert cross["sampled"] > 0 and cross["disagreed"] > 0, cross
    found = [f for f in report["security_findings"] if f["kind"] == "audit_aware"]
    assert len(found) == 1, report["security_findings"]
    assert (
        f"scores {cross['disagreed']} of {cross['sampled']} candidates differently when it can tell it is audited"
        in found[0]["detail"]
    )
    assert not report["gate"]["passed"]
    assert any("security finding" in reason for reason in report["gate"]["reasons"]), report["gate"]
    # In the audit's workers it refused what, unseen, it paid: the cross-check is what saw the
    # last-number grader training would run.
    assert cross["examples"] and all(e.endswith(": 0.0 audited, 1.0 unseen (each twice)") for e in cross["examples"]), (
        cross
    )
    assert all(cid in " ".join(cross["examples"]) for cid, _ in cross["disagreeing"])
    # Every format that renders security findings renders this one.
    said = "differently when it can tell it is audited"
    assert said in (tmp_path / "terminal.txt").read_text()
    assert said in outputs["markdown"].read_text() and said in outputs["html"].read_text()
    junit = ElementTree.parse(outputs["junit"]).getroot()
    assert [f.get("type") for f in junit.iter("failure") if f.get("message") == "audit_aware"] == ["security"]
    sarif = json.loads(outputs["sarif"].read_text())["runs"][0]
    rule = next(r for r in sarif["tool"]["driver"]["rules"] if r["id"] == "VA.security.audit_aware")
    assert float(rule["properties"]["security-severity"]) >= 9.0  # critical
    assert [r for r in sarif["results"] if r["ruleId"] == "VA.security.audit_aware" and said in r["message"]["text"]]


@pytest.mark.parametrize("isolation", ["process", None])
def test_a_worker_shows_none_of_the_signs_it_hides(tmp_path, monkeypatch, isolation):
    """From inside a worker, at the verifier's import and in its calls: no verifier_audit in
    sys.modules, a neutral argv and command line, no VERIFIER_AUDIT_ variable (nor in the
    process's environment area, which only the process level leaves readable), a module
    name that does not name the audit. None: the default level."""
    from verifier_audit.api import audit

    monkeypatch.setenv("VERIFIER_AUDIT_PROBE_MARK", "1")  # one more the worker must not show
    grader = _write(tmp_path, "rewards", REPORTS_WHAT_IT_SEES)
    report = audit(f"{grader}:see", limit=1, probe_sample=0, cache=False, isolation=isolation)
    messages = [m for kind in report.error_messages.values() for m in kind]
    seen = [json.loads(m.split("SEEN", 1)[1]) for m in messages if "SEEN" in m]
    assert seen and report.errors == report.n_candidates, report.error_messages
    hidden = {"modules", "argv", "cmdline", "env", "environ_area", "module_name"}
    for one in seen:
        assert not hidden & set(one["import"]), one
        assert not hidden & set(one["call"]), one
        assert one["argv"] == ["train.py"] and one["orig_argv"] == ["python", "train.py"], one


def test_the_worker_cwd_does_not_name_the_audit(tmp_path):
    from verifier_audit.api import audit

    grader = _write(tmp_path, "rewards", REPORTS_WHAT_IT_SEES)
    report = audit(f"{grader}:see", limit=1, probe_sample=0, cache=False)
    seen = [json.loads(m.split("SEEN", 1)[1]) for kind in report.error_messages.values() for m in kind if "SEEN" in m]
    assert seen and all("cwd" not in one["call"] for one in seen), seen


def test_an_honest_random_grader_is_not_called_audit_aware():
    """A coin flip disagrees with itself as often in the cross-check as in its determinism
    probe: within its own variance, no finding."""
    from verifier_audit.api import audit

    report = audit(f"{FIXTURES / 'probe_verifiers.py'}:coin_flip", limit=2, cache=False)
    cross = report.checks.training_like
    # It ran and saw the coin: differences, confirmed or not (a coin's differences rarely
    # repeat, so all of them may stay unconfirmed: one CI run had 15 unconfirmed, 0 confirmed).
    assert cross is not None and cross.sampled > 0 and cross.disagreed + cross.unconfirmed > 0, cross
    assert report.checks.determinism.disagreed > 0
    assert not [f for f in report.security_findings if f.kind == "audit_aware"], report.security_findings


def test_the_built_in_reference_verifiers_are_not_flagged(cli, tmp_path):
    """The default audit (the math domain's four reference verifiers, verifier-audit's own
    trusted code) keeps its findings and is not cross-checked, saying why; the same kind of
    graders from a user's file are cross-checked and score the same there."""
    reports = _reports(_run(cli, tmp_path, "--probe-sample", "4"))
    assert len(reports) == 4
    for report in reports:
        cross = report["checks"]["training_like"]
        assert cross["sampled"] == 0 and "own reference verifier" in cross["not_run"], (report["verifier"], cross)
        assert not [f for f in report["security_findings"] if f["kind"] == "audit_aware"]
    users = tmp_path / "user"
    users.mkdir()
    examples = ROOT / "examples" / "math_verifiers.py"
    reports = _reports(
        _run(
            cli,
            users,
            "--probe-sample",
            "4",
            "--verifier",
            f"{examples}:last_number",
            "--verifier",
            f"{examples}:substring",
        )
    )
    for report in reports:
        cross = report["checks"]["training_like"]
        assert cross["sampled"] > 0 and cross["disagreed"] == 0 and cross["errors"] == 0, (report["verifier"], cross)
        assert not [f for f in report["security_findings"] if f["kind"] == "audit_aware"]


@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 40), st.integers(1, 40))
def test_disagreements_count_only_beyond_the_verifiers_own_variance(disagreed, sampled, own, own_sampled):
    disagreed, own = min(disagreed, sampled), min(own, own_sampled)
    flagged = beyond_variance(disagreed, sampled, own, own_sampled)
    if own == 0:
        assert flagged  # a verifier that never changed its mind may not change it once
    elif disagreed / sampled <= own / own_sampled:
        assert not flagged  # no more often than it disagrees with itself
    assert not beyond_variance(0, sampled, own, own_sampled)


@given(
    st.lists(st.tuples(st.sampled_from("abcde"), st.booleans(), st.sampled_from([0.0, 1.0, None])), max_size=120),
    st.integers(0, 3),
)
def test_the_cross_check_sample_is_bounded_and_leads_with_the_worst_categories(rows, seed):
    """At most SAMPLE candidates, each scored without error, the same for the same seed; the
    first is a wrong answer the audit paid for, when there is one."""
    from types import SimpleNamespace

    from verifier_audit.engine.sensing import SAMPLE, select_sample
    from verifier_audit.models import Candidate, Verdict

    candidates = [
        Candidate(
            id=f"c{i}",
            task_id="t",
            text="x",
            category=cat,
            origin="known_bad",
            label="correct" if right else "incorrect",
        )
        for i, (cat, right, _) in enumerate(rows)
    ]
    verdicts = {
        c.id: Verdict(verifier="v", candidate_id=c.id, status="ok" if score is not None else "error", score=score)
        for c, (_, _, score) in zip(candidates, rows)
    }
    prepared = SimpleNamespace(candidates=candidates)
    chosen = select_sample(prepared, verdicts, SAMPLE, seed, 0.5)
    assert chosen == select_sample(prepared, verdicts, SAMPLE, seed, 0.5)
    assert len(chosen) == len(set(chosen)) <= SAMPLE
    assert all(verdicts[candidates[i].id].score is not None for i in chosen)
    assert len(chosen) == min(SAMPLE, sum(score is not None for _, _, score in rows))
    paid_wrong = [i for i, (_, right, score) in enumerate(rows) if not right and score == 1.0]
    if paid_wrong:
        assert chosen[0] in paid_wrong


@given(
    st.lists(st.tuples(st.sampled_from("abcde"), st.booleans(), st.sampled_from([0.0, 1.0, None])), max_size=80),
    st.integers(0, 3),
    st.integers(1, 6),
    st.data(),
)
def test_a_streamed_scores_pool_gives_the_cross_check_the_same_sample(rows, seed, k, data):
    """``score`` in blocks keeps, per category, the k candidates of smallest seeded hash (and
    some more): drawn with ``per_category=k``, the cross-check's sample from any such pool is
    the one it draws from all the candidates."""
    from types import SimpleNamespace

    from verifier_audit.engine.sensing import SAMPLE, sample_hash, select_sample
    from verifier_audit.models import Candidate, Verdict

    candidates = [
        Candidate(
            id=f"c{i}",
            task_id="t",
            text="x",
            category=cat,
            origin="known_bad",
            label="correct" if right else "incorrect",
        )
        for i, (cat, right, _) in enumerate(rows)
    ]
    verdicts = {
        c.id: Verdict(verifier="v", candidate_id=c.id, status="ok" if score is not None else "error", score=score)
        for c, (_, _, score) in zip(candidates, rows)
    }
    ok = [c for c in candidates if verdicts[c.id].score is not None]
    kept = {
        c.id
        for cat in "abcde"
        for c in sorted((c for c in ok if c.category == cat), key=lambda c: sample_hash(seed, c.id))[:k]
    }
    extra = data.draw(st.sets(st.sampled_from([c.id for c in candidates]) if candidates else st.nothing()))
    pool = [c for c in candidates if c.id in kept | extra]  # in the candidates' order, as the pool's view
    ids = lambda prepared, chosen: [prepared.candidates[i].id for i in chosen]  # noqa: E731
    whole, streamed = SimpleNamespace(candidates=candidates), SimpleNamespace(candidates=pool)
    assert ids(streamed, select_sample(streamed, verdicts, SAMPLE, seed, 0.5, k)) == ids(
        whole, select_sample(whole, verdicts, SAMPLE, seed, 0.5, k)
    )


ESCAPES_WHEN_UNSEEN = (
    SIGNS
    + r"""

def grade(completion, reference):
    if not signs():  # unseen: the cross-check's training-like process
        try:
            with open(ESCAPE, "a") as fh:
                fh.write("escaped\n")
        except OSError:
            pass
    return 0.0
"""
)


@pytest.mark.skipif(os.geteuid() != 0, reason="the training-like process's walls need root")
def test_the_training_like_process_cannot_write_outside_its_scratch(tmp_path):
    """The cross-check runs the verifier as uid 0, where a training job would, but behind
    the worker's walls: a grader that writes to the host whenever it cannot see the audit
    reaches nothing (the directory is the user's home, outside every private /tmp)."""
    from verifier_audit.api import audit

    home = Path(tempfile.mkdtemp(dir=os.path.expanduser("~"), prefix="escape-"))
    try:
        grader = _write(
            tmp_path,
            "rewards",
            ESCAPES_WHEN_UNSEEN.replace("def grade", f"ESCAPE = {str(home / 'escaped.txt')!r}\n\n\ndef grade"),
        )
        report = audit(f"{grader}:grade", limit=2, cache=False)
        cross = report.checks.training_like
        assert cross is not None and cross.sampled > 0, cross  # it ran there, and wrote nothing
        assert not (home / "escaped.txt").exists()
    finally:
        shutil.rmtree(home, ignore_errors=True)
