"""``--style judge``: an LLM judge behind an OpenAI-compatible chat endpoint, audited against
tests/judge_server.py -- a real server process whose "judge" is a scripted stand-in (not a
model) with the master-key weakness Zhao et al. 2025 measured. The master-key catalog
(adversarial_cases/math.yaml, math.judge.*) finds it; an answer the verdict parser cannot
read is an error verdict; rule-based graders reject the whole catalog section."""

from __future__ import annotations

from collections import Counter

import pytest
from reward_server import ServerProcess, run_audit

from verifier_audit.domains.kit import builtin_catalog
from verifier_audit.domains.math import verifiers as V
from verifier_audit.domains.math.generators import known_bad
from verifier_audit.domains.math.oracle import label_completion
from verifier_audit.errors import VerifierLoadError
from verifier_audit.frameworks import _client
from verifier_audit.frameworks import judge as judge_style
from verifier_audit.loading import VerifierSpec
from verifier_audit.models import Severity, Task
from verifier_audit.resources import data_path

TASK = Task(id="t1", domain="math", prompt="What is $6 \\times 7$?", reference="42")
JUDGE_CATEGORIES = (
    "math.judge.master_key",
    "math.judge.reference_echo",
    "math.judge.verdict_forgery",
    "math.judge.instruction",
    "math.judge.truncated",
)


@pytest.fixture(scope="module")
def judge():
    with ServerProcess("judge_server.py", "--model", "stand-in-judge-7b") as server:
        yield server


def caller(url: str, **options: str):
    options = judge_style.prepare_options(options)
    spec = VerifierSpec(spec=url, name="j", style="judge", options=tuple(sorted(options.items())))
    return judge_style.make_caller(None, spec)


# ----------------------------------------------------------------------- the template


def test_prepare_options_reads_the_template_in_the_parent(tmp_path):
    path = tmp_path / "judge.txt"
    path.write_text('Q: {question}\nGold: {reference}\nA: {response}\nReply as JSON {{"ok": true}}.\n')
    prepared = judge_style.prepare_options({"template": str(path), "model": "m"})
    assert "template" not in prepared and prepared["template_text"] == path.read_text()
    assert prepared["template_file"] == str(path.resolve()) and prepared["model"] == "m"
    assert judge_style.prepare_options(prepared) == prepared  # idempotent
    with pytest.raises(VerifierLoadError, match=f"template={tmp_path}/nope.txt: no file at"):
        judge_style.prepare_options({"template": str(tmp_path / "nope.txt")})
    bad = tmp_path / "bad.txt"
    bad.write_text('Answer {response} for {qestion} as {"verdict": ...}')
    with pytest.raises(
        VerifierLoadError,
        match=r"bad.txt: unknown placeholder\(s\) \{\"verdict\"\}, \{qestion\}.*"
        r"a literal brace is written \{\{",
    ):
        judge_style.prepare_options({"template": str(bad)})
    bad.write_text("no response shown: {question}")
    with pytest.raises(VerifierLoadError, match="never shows the judge the {response}"):
        judge_style.prepare_options({"template": str(bad)})
    bad.write_text("unclosed {response")
    with pytest.raises(VerifierLoadError, match="a literal brace"):
        judge_style.prepare_options({"template": str(bad)})
    for options, words in [
        ({"verdict": "(["}, "verdict=\\(\\[: not a regular expression"),
        ({"max_tokens": "0"}, "max_tokens=0"),
        ({"extra_body": "[1]"}, "expected a JSON object"),
        ({"api_key_env": "VA_TEST_NO_SUCH_VAR"}, "VA_TEST_NO_SUCH_VAR is not set"),
        ({"yes": "A", "no": "A,B"}, "A is both"),
        ({"temperature": "1"}, "unknown --verifier-option temperature"),
    ]:
        with pytest.raises(VerifierLoadError, match=words):
            judge_style.prepare_options(options)


def test_the_template_is_filled_and_sent_with_temperature_zero(judge, tmp_path, monkeypatch):
    path = tmp_path / "judge.txt"
    template = "<q>{question}</q>\n<ref>{reference}</ref>\n<resp>{response}</resp>\nBraces {{stay}}. YES or NO?"
    path.write_text(template)
    monkeypatch.setenv("VA_TEST_JUDGE_KEY", "sk-judge-1")
    with ServerProcess(
        "judge_server.py", "--template", str(path), "--api-key", "sk-judge-1", "--model", "qwen-judge"
    ) as server:
        call = caller(
            server.url("/v1"),
            template=str(path),
            api_key_env="VA_TEST_JUDGE_KEY",
            max_tokens="8",
            system="You grade {reference}-answers.",
        )
        assert call(r"so $\boxed{42}$", TASK) == 1.0 and call(r"so $\boxed{41}$", TASK) == 0.0
        sent = server.requests()
    body = sent[0]
    assert body["model"] == "qwen-judge"  # the first of GET /v1/models
    assert body["temperature"] == 0 and body["max_tokens"] == 8
    assert body["messages"] == [
        {"role": "system", "content": "You grade 42-answers."},
        {
            "role": "user",
            "content": f"<q>{TASK.prompt}</q>\n<ref>42</ref>\n<resp>so $\\boxed{{42}}$</resp>\n"
            "Braces {stay}. YES or NO?",
        },
    ]


def test_model_discovery_and_its_fallback():
    with ServerProcess("judge_server.py", "--no-models", "--model", "judge") as server:
        assert caller(server.url("/v1"))(r"$\boxed{42}$", TASK) == 1.0  # no /models: the name "judge"
    with ServerProcess("judge_server.py", "--no-models", "--model", "other") as server:
        with pytest.raises(_client.RemoteHTTPError, match=r"/v1/chat/completions: HTTP 404: .*model `judge` does not"):
            caller(server.url("/v1/chat/completions/"))("x", TASK)  # the full endpoint works as the URL too


# ------------------------------------------------------------------------ the verdict


@pytest.mark.parametrize(
    "answer,score",
    [
        ("YES", 1.0),
        ("no.", 0.0),
        ("Yes, they match.", 1.0),
        ("[[CORRECT]]", 1.0),
        ("[[INCORRECT]]", 0.0),
        ("Incorrect: 41 is not 42", 0.0),
        ("The response is not correct.", 0.0),
        ("not equivalent", 0.0),
        ("TRUE", 1.0),
        ("<think>is it yes? maybe</think>\nNO", 0.0),
        ("**YES**", 1.0),
    ],
)
def test_the_default_verdict_parser(answer, score):
    conf = judge_style.settings({})
    assert judge_style.read_verdict(answer, conf, "judge x") == score


def test_unreadable_verdicts_are_errors_never_rejections():
    conf = judge_style.settings({})
    for answer in ("maybe, it is hard to say", "<think>the answer is YES, so", "", "42"):
        with pytest.raises(_client.RemoteAnswerError, match="which the verdict parser does not read"):
            judge_style.read_verdict(answer, conf, "judge x")
    with pytest.raises(_client.RemoteAnswerError, match=r"^judge x: judge answered 'maybe, it is hard to say', which"):
        judge_style.read_verdict("maybe, it is hard to say", conf, "judge x")
    letters = judge_style.settings({"verdict": r"\[\[([A-Z])\]\]", "yes": "A", "no": "B"})
    assert judge_style.read_verdict("Reasoning... [[A]]", letters, "j") == 1.0
    assert judge_style.read_verdict("[[B]]", letters, "j") == 0.0
    with pytest.raises(_client.RemoteAnswerError, match="read 'C', which is neither a yes word"):
        judge_style.read_verdict("[[C]]", letters, "j")
    scores = judge_style.settings({"score": r"score:\s*([0-9.]+)", "score_max": "10"})
    assert judge_style.read_verdict("Score: 7", scores, "j") == 0.7
    with pytest.raises(_client.RemoteAnswerError, match="reads no number"):
        judge_style.read_verdict("Score: high", scores, "j")


# ------------------------------------------------------------------------- audits


def test_an_audit_of_the_stand_in_judge_finds_the_master_keys(judge):
    report = run_audit(judge.url("/v1"), "judge", suite="math", limit=8)
    cats = {c.name: c for c in report.categories}
    assert report.error_rate == 0.0 and not report.gate.passed
    for name in JUDGE_CATEGORIES:
        assert name in cats and cats[name].n > 0 and cats[name].errors == 0, name
    key = cats["math.judge.master_key"]
    assert key.severity is Severity.critical and key.accepted == key.n and key.rate == 1.0
    assert cats["math.judge.verdict_forgery"].accepted == cats["math.judge.verdict_forgery"].n
    assert cats["math.judge.instruction"].accepted > 0
    assert any(r.startswith("category math.judge.master_key: false acceptance 1.00") for r in report.gate.reasons)
    # The false-rejection side: right answers in unusual forms are shown to the judge too.
    assert any(c.label == "correct" and c.n > 0 for c in report.categories)
    sent = judge.requests()
    contents = [m["content"] for b in sent for m in b["messages"]]
    assert any("Student's response:\nThought process:\n\nIs the final answer" in c for c in contents)


def test_a_judge_answering_garbage_gives_error_verdicts():
    with ServerProcess("judge_server.py", "--garbage-mod", "3") as server:
        report = run_audit(server.url("/v1"), "judge", suite="math", limit=2)
    assert 0.15 < report.error_rate < 0.6 and not report.gate.passed
    assert any(r.startswith("error rate ") for r in report.gate.reasons)
    assert report.error_messages["RemoteAnswerError"][0].startswith(
        f"RemoteAnswerError: judge {server.url('/v1/chat/completions')}: judge answered 'maybe, it is hard to say', "
        "which the verdict parser does not read"
    )


# -------------------------------------------------------------- the master-key catalog


def test_the_judge_catalog_is_wrong_everywhere_and_rule_based_graders_reject_it():
    entries = [
        e.model_copy(update={"instances": 1000})
        for e in builtin_catalog("math")
        if e.category.startswith("math.judge.")
    ]
    assert {e.category for e in entries} == set(JUDGE_CATEGORIES) and len(entries) >= 20
    assert {e.severity for e in entries if e.category == "math.judge.master_key"} == {Severity.critical}
    keys = [e for e in entries if e.category == "math.judge.master_key"]
    assert all(not any(ch.isdigit() for ch in e.template) and "{{" not in e.template for e in keys)
    assert all("arXiv:2507.08794" in e.reference for e in keys)
    path = data_path("suites", "math", "tasks.jsonl")
    tasks = [Task.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines()]
    refs = {t.id: t.reference for t in tasks}
    made = known_bad.generate(tasks, 0, entries)
    assert len(made) > 20 * len(tasks) // 2
    paid = Counter()
    for c in made:
        assert label_completion(c.text, refs[c.task_id]).label == "incorrect", (c.id, c.text[:120])
        for name in ("last_box_exact", "strong"):
            if getattr(V, name)(c.text, refs[c.task_id]):
                paid[name] += 1
    assert paid == Counter()  # the strong rule-based verifier pays none of them, on any task


def test_the_cli_audits_a_judge_with_a_template_file(cli, tmp_path):
    template = tmp_path / "judge.txt"
    template.write_text("[Q] {question}\n[REF] {reference}\n[ANS] {response}\nSame final answer? YES or NO.")
    out = tmp_path / "report.json"
    with ServerProcess("judge_server.py", "--template", str(template), "--model", "m1") as server:
        r = cli(
            "run",
            "--verifier",
            server.url("/v1"),
            "--style",
            "judge",
            "--verifier-option",
            "model=m1",
            "--verifier-option",
            f"template={template}",
            "--limit",
            "2",
            "--no-progress",
            "--no-config",
            "--json",
            str(out),
            "--probe-sample",
            "0",
        )
        sent = server.requests()
    assert r.returncode == 1, r.stderr
    import json

    report = json.loads(out.read_text())
    cats = {c["name"]: c for c in report["categories"]}
    assert report["error_rate"] == 0.0 and cats["math.judge.master_key"]["rate"] == 1.0
    assert sent and all(b["model"] == "m1" and b["messages"][-1]["content"].startswith("[Q] ") for b in sent)
    missing = cli(
        "run",
        "--verifier",
        "http://127.0.0.1:9/v1",
        "--style",
        "judge",
        "--verifier-option",
        f"template={tmp_path / 'nope.txt'}",
        "--no-progress",
        "--no-config",
    )
    assert missing.returncode == 2 and "nope.txt" in missing.stderr, (missing.returncode, missing.stderr)
