"""``--style http``: a reward server audited over HTTP (tests/reward_server.py, a real
process on 127.0.0.1). OpenRLHF's protocol and a generic JSON shape; a server's hole is
found; its failures (5xx, timeouts, refused connections, answers without a reward) are
error verdicts that the error gate counts, never a stopped audit."""

from __future__ import annotations

import socket
from collections import Counter

import pytest
from reward_server import ServerProcess, run_audit

from verifier_audit.domains.math import verifiers as V
from verifier_audit.errors import VerifierLoadError
from verifier_audit.frameworks import _client, get_style
from verifier_audit.frameworks import http as http_style
from verifier_audit.loading import VerifierSpec, resolve
from verifier_audit.models import Task

TASK = Task(id="t1", domain="math", prompt="What is $6 \\times 7$?", reference="42")


@pytest.fixture(scope="module")
def naive():
    with ServerProcess("reward_server.py", "--rule", "naive") as server:
        yield server


@pytest.fixture(scope="module")
def strict():
    with ServerProcess(
        "reward_server.py", "--rule", "strict", "--api-key", "sk-test-secret-123", "--fail-every", "3"
    ) as server:
        yield server


def caller(url: str, **options: str):
    spec = VerifierSpec(spec=url, name="t", style="http", options=tuple(sorted(options.items())))
    return http_style.make_caller(None, spec)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------------- the protocol


def test_openrlhf_shape_sends_query_prompts_labels_and_reads_rewards(naive):
    before = len(naive.requests())
    call = caller(naive.url("/get_reward"))
    assert call(r"The answer is $\boxed{42}$.", TASK) == 1.0
    assert call(r"The answer is $\boxed{41}$.", TASK) == 0.0
    body = naive.requests()[before]
    # OpenRLHF's body: one sample, query = prompt + response, labels = the reference.
    assert body == {"query": [TASK.prompt + r"The answer is $\boxed{42}$."], "prompts": [TASK.prompt], "labels": ["42"]}


def test_reading_an_openrlhf_answer():
    conf = http_style.settings({})
    read = lambda answer: http_style.read_score(answer, conf, "reward server x")  # noqa: E731
    assert read({"rewards": [0.25], "scores": [1.0]}) == 0.25  # rewards is what training pays
    assert read({"scores": [1.0]}) == 1.0 and read({"rewards": 0.5}) == 0.5 and read([1]) == 1.0
    assert read({"rewards": [True]}) == 1.0
    with pytest.raises(_client.RemoteAnswerError, match="no 'rewards'"):
        read({"reward": 1})
    with pytest.raises(_client.RemoteAnswerError, match="returned nan; a score is a finite number") as err:
        read({"rewards": [float("nan")]})
    assert err.value.verdict_error.startswith("ScoreOutOfRange: reward server x: ")  # counted as out of range
    with pytest.raises(_client.RemoteAnswerError, match="list of 2 values"):
        read({"rewards": [1, 0]})
    with pytest.raises(_client.RemoteAnswerError, match=r"returned a str \('high'\); return a number"):
        read({"rewards": ["high"]})


def test_json_shape_maps_fields_and_reads_a_dotted_score(naive):
    before = len(naive.requests())
    call = caller(
        naive.url("/score"),
        **{
            "shape": "json",
            "field.completion": "response",
            "field.reference": "gold",
            "field.prompt": "question",
            "field.task_id": "id",
            "const.data_source": "math",
            "score": "result.reward",
        },
    )
    assert call("so it is 42", TASK) == 1.0 and call("so it is 41", TASK) == 0.0
    assert naive.requests()[before] == {
        "data_source": "math",
        "response": "so it is 42",
        "gold": "42",
        "question": TASK.prompt,
        "id": "t1",
    }
    # The default score paths: score, reward, rewards[0], scores[0], a bare number.
    conf = http_style.settings({"shape": "json"})
    for answer in ({"score": 1}, {"reward": 1.0}, {"rewards": [1]}, {"scores": [1]}, 1, {"score": {"score": 1}}):
        assert http_style.read_score(answer, conf, "x") == 1.0, answer
    assert http_style.lookup({"a": [{"b": 2}]}, "a[0].b") == 2 == http_style.lookup({"a": [{"b": 2}]}, "a.0.b")
    nested = http_style.body_for(
        "t",
        TASK,
        http_style.settings(
            {"shape": "json", "field.completion": "input.text", "field.prompt": "", "field.task_id": ""}
        ),
    )
    assert nested == {"input": {"text": "t"}, "reference": "42"}


def test_options_are_checked_before_any_call():
    for options, words in [
        ({"timout": "3"}, "unknown --verifier-option timout"),
        ({"shape": "grpc"}, "shape=grpc"),
        ({"field.completion": "x"}, "shape=json"),
        ({"shape": "json", "field.answer": "x"}, "no field 'answer'"),
        ({"score": "a..b"}, "empty step"),
        ({"timeout": "0"}, "timeout=0: must be in"),
        ({"retries": "-1"}, "retries=-1"),
        ({"header_env.Authorization": "VA_TEST_NO_SUCH_VAR"}, "VA_TEST_NO_SUCH_VAR is not set"),
    ]:
        with pytest.raises(VerifierLoadError, match=words.replace("(", r"\(").replace(".", r"\.")):
            http_style.prepare_options(options)
    assert resolve("http://127.0.0.1:1/get_reward", "http", ["timeout=2"]).remote
    assert get_style("http").remote and get_style("judge").remote


# ------------------------------------------------------------------- failures, one call


def test_transient_5xx_are_retried_and_the_key_is_sent(strict, monkeypatch):
    monkeypatch.setenv("VA_TEST_KEY", "sk-test-secret-123")
    call = caller(strict.url("/get_reward"), **{"header_env.Authorization": "VA_TEST_KEY"})
    with pytest.raises(VerifierLoadError):
        caller(strict.url("/get_reward"), **{"header_env.Authorization": "VA_TEST_NOT_SET"})
    monkeypatch.setenv("VA_TEST_KEY", "Bearer sk-test-secret-123")
    call = caller(strict.url("/get_reward"), **{"header_env.Authorization": "VA_TEST_KEY"})
    before = len(strict.requests())
    scores = [call(r"$\boxed{42}$" if i % 2 else r"$\boxed{4 2}$" if i % 3 else "42", TASK) for i in range(6)]
    assert scores == [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]  # "42" unboxed pays nothing on the strict rule
    assert len(strict.requests()) - before > 6  # every 3rd request failed with a 500 and was sent again


def test_a_4xx_is_not_retried_and_header_values_never_show(strict):
    before = len(strict.requests())
    call = caller(strict.url("/get_reward"), **{"header.Authorization": "Bearer sk-wrong-key-456"})
    with pytest.raises(_client.RemoteHTTPError) as err:
        call("42", TASK)
    message = str(err.value)
    assert message.startswith(f"reward server {strict.url('/get_reward')}: HTTP 401: ")
    assert "retr" not in message and "sk-wrong-key-456" not in message and "***" in message  # the echo is masked
    assert len(strict.requests()) == before  # refused before it was recorded; one request sent


def test_a_persistent_500_says_how_often_it_was_tried(monkeypatch):
    pauses = []
    with ServerProcess("reward_server.py", "--fail-mod", "1") as server:
        monkeypatch.setattr(_client.time, "sleep", pauses.append)  # the backoff, recorded, not waited
        call = caller(server.url("/get_reward?token=abc"), retries="2")
        with pytest.raises(_client.RemoteHTTPError) as err:
            call("42", TASK)
        assert pauses == [0.2, 0.5]  # one backoff before each retry
        assert str(err.value) == (
            f"reward server {server.url('/get_reward')}: HTTP 500 after 2 retries: "
            "<html>injected failure 500: scorer crashed</html>"
        )  # no query string shown
        assert len(server.requests()) == 3


def test_timeouts_garbage_missing_and_nan_raise_with_clear_messages():
    with ServerProcess("reward_server.py", "--slow-s", "2", "--slow-mod", "1") as slow:
        call = caller(slow.url("/get_reward"), timeout="0.5")
        with pytest.raises(_client.RemoteTimeout) as err:
            call("42", TASK)
        assert len(slow.requests()) == 1  # a timeout is not retried (the server has the request)
        assert err.value.verdict_error == f"timeout (reward server {slow.url('/get_reward')}: no answer within 0.5 s)"
    for knob, error, words in [
        ("--garbage-mod", _client.RemoteAnswerError, "answer is not JSON: '<html>Internal proxy"),
        ("--missing-mod", _client.RemoteAnswerError, "no 'rewards' (nor 'scores')"),
        ("--nan-mod", _client.RemoteAnswerError, "'rewards' returned nan"),
    ]:
        with ServerProcess("reward_server.py", knob, "1") as server:
            with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
                caller(server.url("/get_reward"))("42", TASK)


def test_connection_refused_is_retried_then_named():
    url = f"http://127.0.0.1:{free_port()}/get_reward"
    with pytest.raises(_client.RemoteConnectionError) as err:
        caller(url, retries="1")("42", TASK)
    assert str(err.value) == f"reward server {url}: connection refused after 1 retry"


# ------------------------------------------------------------------------- audits


def test_an_audit_finds_the_substring_hole_of_a_naive_server(naive):
    report = run_audit(naive.url("/get_reward"), "http", suite="math", limit=8)
    cats = {c.name: c for c in report.categories}
    assert report.error_rate == 0.0 and not report.gate.passed
    # The server pays when the gold appears anywhere: every hedge that writes it is paid.
    assert cats["math.hedge.two_boxes"].rate == 1.0 and cats["math.hedge.or"].rate == 1.0
    assert cats["math.trap.denial"].rate == 1.0
    # ... and no master key (they hold no digit): the rule-based hole is elsewhere.
    assert cats["math.judge.master_key"].n > 0 and cats["math.judge.master_key"].accepted == 0
    assert any(r.startswith("category math.hedge") and "> max-category" in r for r in report.gate.reasons)
    # What the server paid is what the same rule pays locally: the protocol carried the
    # response, cut off from its prompt, and the label.
    from verifier_audit.engine.audit import AuditOptions, prepare
    from verifier_audit.suites import load_suite, select

    loaded = load_suite("math")
    prepared = prepare(loaded.name, loaded.content_hash, select(loaded, None, 8), AuditOptions(progress=False))
    refs = {t.id: t.reference for t in prepared.tasks}
    local = Counter(c.category for c in prepared.candidates if V.substring(c.text, refs[c.task_id]))
    assert {name: c.accepted for name, c in cats.items() if c.accepted} == dict(local)


def test_a_failing_server_gives_error_verdicts_and_fails_the_error_gate(tmp_path):
    results = tmp_path / "results.jsonl"
    with ServerProcess(
        "reward_server.py", "--rule", "strict", "--fail-mod", "9", "--slow-mod", "13", "--slow-s", "3"
    ) as server:
        report = run_audit(
            server.url("/get_reward"), "http", {"timeout": "1", "retries": "1"}, suite="math", limit=3, results=results
        )
    assert 0 < report.error_rate < 0.5
    kinds = Counter()
    for c in report.categories:
        kinds.update(c.error_kinds)
    assert kinds["RemoteHTTPError"] > 0 and kinds["timeout"] > 0, kinds
    messages = " ".join(m for ms in report.error_messages.values() for m in ms)
    assert "HTTP 500 after 1 retry: <html>injected failure 500" in messages
    assert "no answer within 1 s" in messages
    # The audit went on: every candidate has a verdict, scored or errored.
    verdicts = [line for line in results.read_text().splitlines() if '"candidate_id"' in line]
    assert len(verdicts) == report.n_candidates
    assert sum(c.n + c.errors for c in report.categories) == report.n_candidates
    assert not report.gate.passed
    assert any(r.startswith("error rate ") and "> max-error-rate 0.05" in r for r in report.gate.reasons)
    # Below the limit the errors do not fail the gate by themselves.
    assert not any(r.startswith("error rate ") for r in run_audit_reasons(report, max_error_rate=0.5))


def run_audit_reasons(report, **gate):
    from verifier_audit.metrics import gate as gate_fn
    from verifier_audit.models import GateConfig

    errors = sum(c.errors for c in report.categories)
    return gate_fn(
        report.coverage_debt,
        report.categories,
        report.false_rejection_rate,
        0,
        GateConfig(**gate),
        errors=errors,
        calls=report.n_candidates,
    ).reasons


def test_a_server_that_is_not_there_errors_every_call_and_fails_the_gate():
    url = f"http://127.0.0.1:{free_port()}/get_reward"
    report = run_audit(url, "http", {"retries": "0"}, suite="math", limit=1)
    assert report.error_rate == 1.0 and not report.gate.passed
    reason = report.gate.reasons[0]
    assert reason.startswith("no successful call") and f"reward server {url}: connection refused" in reason


def test_the_cli_audits_a_reward_server(naive, cli, tmp_path):
    out = tmp_path / "report.json"
    r = cli(
        "run",
        "--verifier",
        naive.url("/score"),
        "--style",
        "http",
        "--verifier-option",
        "shape=json",
        "--verifier-option",
        "field.completion=response",
        "--verifier-option",
        "field.reference=gold",
        "--verifier-option",
        "score=result.reward",
        "--limit",
        "2",
        "--no-progress",
        "--no-config",
        "--json",
        str(out),
        "--probe-sample",
        "0",
    )
    assert r.returncode == 1, r.stderr  # the gate fails: the substring hole
    import json

    report = json.loads(out.read_text())
    assert report["error_rate"] == 0.0 and report["verifier"] == naive.url("/score")
    assert {c["name"]: c["rate"] for c in report["categories"]}["math.hedge.two_boxes"] == 1.0
    assert "gate FAILED" in r.stderr
    bad = cli(
        "run",
        "--verifier",
        naive.url("/score"),
        "--style",
        "http",
        "--verifier-option",
        "shape=grpc",
        "--no-progress",
        "--no-config",
    )
    assert bad.returncode == 2 and "shape=grpc" in bad.stderr, (bad.returncode, bad.stderr)
