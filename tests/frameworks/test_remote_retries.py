"""Retries of the remote styles are counted and gated (issue 31, item 8): a reward server
that answers HTTP 500 to one request in seven was retried silently -- every call ended with
a score, the error rate said 0.000, and nothing said the server was sick.

Now every request a remote style's client sends is counted by what it got
(``frameworks/_client.RequestLog``), carried from the worker with each verdict, added up in
``Report.remote`` and shown ("remote: HTTP 500 on 14% of requests (32 of 224), retried; 0
calls failed after retries"), and ``--max-retry-rate`` (default 0.05) gates the share
retried. Real servers on 127.0.0.1 (tests/reward_server.py, tests/judge_server.py, and a
socket that resets every connection), the real command line."""

from __future__ import annotations

import json
import socket
import struct
import threading

import pytest
from cli_support import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from reward_server import ServerProcess

from verifier_audit.config import load_config
from verifier_audit.frameworks import _client
from verifier_audit.frameworks import http as http_style
from verifier_audit.frameworks import judge as judge_style
from verifier_audit.loading import VerifierSpec
from verifier_audit.metrics import gate, remote_words
from verifier_audit.models import GateConfig, RemoteHealth, Report, Task, Verdict
from verifier_audit.plan import audit_options
from verifier_audit.report.build import RemoteTally
from verifier_audit.report.html import to_html
from verifier_audit.report.terminal import render_side_by_side

TASK = Task(id="t1", domain="math", prompt="What is $6 \\times 7$?", reference="42")
LOOSE = ("--max-debt", "1", "--max-category", "1", "--max-false-rejection", "1")  # only the retries gate


def caller(url: str, style=http_style, **options: str):
    spec = VerifierSpec(
        spec=url, name="t", style=style.__name__.rpartition(".")[2], options=tuple(sorted(options.items()))
    )
    return style.make_caller(None, spec)


def taken(call) -> dict | None:
    """The record of the requests ``call`` sent since the last look, as the parent reads it."""
    entry = call.request_log.take()
    return None if entry is None else _client.read_requests(entry)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------- the client's count


def test_one_request_in_seven_failing_is_counted_per_call():
    with ServerProcess("reward_server.py", "--rule", "strict", "--fail-every", "7") as server:
        call = caller(server.url("/get_reward"))
        records = []
        for _ in range(14):
            assert call(r"The answer is $\boxed{42}$.", TASK) == 1.0  # every call gets its score...
            records.append(taken(call))
        served = len(server.requests())
    # ...and requests 7 and 14 (of 16) got an HTTP 500 that a retry answered.
    assert sum(r["requests"] for r in records) == 16 == served
    assert [r for r in records if r["retried"]] == [{"requests": 2, "retried": {"HTTP 500": 1}, "failed": None}] * 2
    assert taken(call) is None  # taking starts the next call's count


class _Resetting:
    """A server on 127.0.0.1 that accepts each connection and resets it (SO_LINGER 0)."""

    def __enter__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.recv(65536)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    def __exit__(self, *exc):
        self.sock.close()


@pytest.mark.parametrize(
    "knobs, expected",
    [
        # 429 is the server asking to slow down: retried, as 5xx are
        (
            ("--fail-every", "1", "--fail-status", "429"),
            {"requests": 3, "retried": {"HTTP 429": 2}, "failed": "HTTP 429"},
        ),
        (
            ("--fail-every", "1", "--fail-status", "503"),
            {"requests": 3, "retried": {"HTTP 503": 2}, "failed": "HTTP 503"},
        ),
        # the caller's mistake: not retried
        (("--fail-every", "1", "--fail-status", "404"), {"requests": 1, "retried": {}, "failed": "HTTP 404"}),
        # the server has the request: not sent again, but counted
        (("--slow-mod", "1", "--slow-s", "2"), {"requests": 1, "retried": {}, "failed": "timeout"}),
    ],
)
def test_each_status_is_counted_under_its_name(knobs, expected):
    with ServerProcess("reward_server.py", *knobs) as server:
        call = caller(server.url("/get_reward"), timeout="0.5")
        with pytest.raises(_client.RemoteError):
            call("The answer is 42.", TASK)
        assert taken(call) == expected


def test_refused_and_reset_connections_are_counted():
    refused = caller(f"http://127.0.0.1:{free_port()}/get_reward")
    with pytest.raises(_client.RemoteConnectionError):
        refused("42", TASK)
    assert taken(refused) == {"requests": 3, "retried": {"connection refused": 2}, "failed": "connection refused"}
    with _Resetting() as server:
        reset = caller(f"http://127.0.0.1:{server.port}/get_reward", retries="1")
        with pytest.raises(_client.RemoteConnectionError):
            reset("42", TASK)
    assert taken(reset) == {"requests": 2, "retried": {"connection reset": 1}, "failed": "connection reset"}


def test_a_judge_counts_its_model_lookup_and_ends_with_its_answer():
    with ServerProcess("judge_server.py", "--no-models", "--model", "judge") as server:
        call = caller(server.url("/v1"), style=judge_style)
        call(r"The answer is $\boxed{42}$.", TASK)
        # GET /v1/models is a 404 (the model falls back to "judge"), the chat request answers:
        # two requests, none retried, and the call did not fail.
        assert taken(call) == {"requests": 2, "retried": {}, "failed": None}


# -------------------------------------------------------------- entries, tally and gate

STATUSES = st.sampled_from(["HTTP 500", "HTTP 502", "HTTP 429", "connection refused", "connection reset"])
# one call: its retried requests, then an answer (None) or what its last request got
CALLS = st.lists(st.tuples(st.lists(STATUSES, max_size=3), st.none() | STATUSES | st.just("timeout")), max_size=30)


@settings(max_examples=60, deadline=None)
@given(CALLS, st.floats(0, 1))
def test_the_tally_adds_up_what_the_log_recorded(calls, limit):
    log, tally = _client.RequestLog(), RemoteTally()
    for retried, last in calls:
        for status in retried:
            log.record(status, retried=True)
        log.record(last)
        entry = log.take()
        v = Verdict(
            verifier="v",
            candidate_id="c",
            status="ok" if last is None else "error",
            score=1.0,
            security=[entry, "unobserved:something else"],
        )
        tally.count(v)
    health = tally.result()
    n_retried = sum(len(r) for r, _ in calls)
    assert health.calls == len(calls)
    assert health.requests == n_retried + len(calls)
    assert sum(health.retried.values()) == n_retried
    assert sum(health.failed.values()) == sum(last is not None for _, last in calls)
    assert 0 <= health.retry_rate <= 1
    words = remote_words(health)
    assert all(status in words for status in [*health.retried, *health.failed])
    reasons = gate(0.0, [], 0.0, 0, GateConfig(max_retry_rate=limit), remote=health).reasons
    assert bool(reasons) == (health.retry_rate > limit)
    if reasons:
        assert all(f"{status} {n:,}" in reasons[0] for status, n in health.retried.items())


@pytest.mark.parametrize(
    "entry",
    [
        "remote:",
        "remote:[]",
        'remote:{"requests": 0}',
        'remote:{"requests": 2, "retried": {"HTTP 500": -1}}',
        'remote:{"requests": true}',
        'remote:{"requests": 1, "failed": 5}',
        "unobserved:x",
        "score_disguised:x",
    ],
)
def test_a_malformed_entry_is_not_counted(entry):
    assert _client.read_requests(entry) is None


def test_the_terminal_words():
    sick = RemoteHealth(
        calls=1264, requests=1797, retried={"HTTP 500": 251, "connection reset": 3}, failed={}, retry_rate=254 / 1797
    )
    assert remote_words(sick) == (
        "HTTP 500 on 14% of requests (251 of 1,797), connection reset on <1% (3), retried; 0 calls failed after retries"
    )
    failing = RemoteHealth(
        calls=10, requests=12, retried={"HTTP 503": 2}, failed={"HTTP 503": 1, "timeout": 2}, retry_rate=2 / 12
    )
    assert remote_words(failing).endswith("; 3 calls failed after retries (timeout 2, HTTP 503 1)")
    assert remote_words(RemoteHealth(calls=5, requests=5)) == "5 requests for 5 calls, none retried; 0 calls failed"


def test_the_config_key_and_the_flag(tmp_path):
    project = tmp_path / "pyproject.toml"
    project.write_text("[tool.verifier_audit.gate]\nmax_retry_rate = 0.5\n")
    config = load_config(project)
    assert audit_options({}, config)[0].gate.max_retry_rate == 0.5
    assert audit_options({"max_retry_rate": 0.2}, config)[0].gate.max_retry_rate == 0.2  # the flag wins
    assert audit_options({}, None)[0].gate.max_retry_rate == 0.05  # the default


# ------------------------------------------------------------------ the command line


@pytest.fixture(scope="module")
def sick(tmp_path_factory):
    """One audit (--limit 2) of a server answering HTTP 500 to every 7th request, then the
    same results resumed with --max-retry-rate 0.5."""
    out = tmp_path_factory.mktemp("sick")
    with (
        pytest.MonkeyPatch.context() as mp,
        ServerProcess("reward_server.py", "--rule", "strict", "--fail-every", "7") as server,
    ):
        mp.setenv("VERIFIER_AUDIT_CACHE", str(tmp_path_factory.getbasetemp() / "va-cache"))
        args = [
            "run",
            "--verifier",
            server.url("/get_reward"),
            "--style",
            "http",
            "--limit",
            "2",
            "--no-progress",
            "--probe-sample",
            "0",
            "--no-format-probe",
            "--results",
            str(out / "results.jsonl"),
            *LOOSE,
        ]
        failed = run_cli(*args, "--json", str(out / "a.json"), "--markdown", str(out / "a.md"))
        passed = run_cli(*args, "--resume", "--max-retry-rate", "0.5", "--json", str(out / "b.json"))
        served = len(server.requests())
    return failed, passed, json.loads((out / "a.json").read_text()), out, served


def test_a_sick_server_is_counted_shown_and_gated(sick):
    run, _, report, out, served = sick
    remote = report["remote"]
    assert remote["calls"] == report["n_candidates"] > 0
    assert remote["requests"] == served  # every request the server got, none other
    # Every 7th request the server got failed; each was retried, or was a call's last.
    assert sum(remote["retried"].values()) + remote["failed"].get("HTTP 500", 0) == served // 7
    assert set(remote["retried"]) == {"HTTP 500"} and report["errors"] == sum(remote["failed"].values())
    k, n = remote["retried"]["HTTP 500"], remote["requests"]
    assert remote["retry_rate"] == round(k / n, 6) and 0.12 < remote["retry_rate"] < 0.15
    assert f"remote: HTTP 500 on {k / n:.0%} of requests ({k} of {n}), retried; " in run.stdout
    assert run.returncode == 1, run.stderr[-2000:]
    assert report["gate"]["reasons"] == [
        (
            f"retry rate {k / n:.3f} ({k} of {n} requests retried: HTTP 500 {k}) > max-retry-rate 0.05: the server "
            "failed requests that only the retries answered"
        )
    ]
    assert report["settings"]["max_retry_rate"] == 0.05
    assert f"- remote: HTTP 500 on {k / n:.0%} of requests ({k} of {n})" in (out / "a.md").read_text()
    assert f"remote: HTTP 500 on {k / n:.0%} of requests ({k} of {n})" in to_html([Report.model_validate(report)])
    # several verifiers side by side: one line each
    side = render_side_by_side([Report.model_validate(report)] * 2)
    assert side.count(f"  HTTP 500 on {k / n:.0%} of requests ({k} of {n}), retried; ") == 2


def test_a_higher_max_retry_rate_passes_and_a_resume_keeps_the_count(sick):
    _, run, report, out, _ = sick
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    resumed = json.loads((out / "b.json").read_text())
    assert resumed["remote"] == report["remote"] and resumed["gate"]["passed"]


def test_a_healthy_server_shows_no_retry_and_passes(cli, tmp_path):
    with ServerProcess("reward_server.py", "--rule", "strict") as server:
        run = cli(
            "run",
            "--verifier",
            server.url("/get_reward"),
            "--style",
            "http",
            "--limit",
            "2",
            "--no-progress",
            "--probe-sample",
            "0",
            "--no-format-probe",
            "--results",
            str(tmp_path / "r.jsonl"),
            *LOOSE,
            "--json",
            str(tmp_path / "r.json"),
        )
        served = len(server.requests())
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    remote = json.loads((tmp_path / "r.json").read_text())["remote"]
    assert remote == {"calls": served, "requests": served, "retried": {}, "failed": {}, "retry_rate": 0.0}
    assert f"remote: {served} requests for {served} calls, none retried; 0 calls failed" in run.stdout
