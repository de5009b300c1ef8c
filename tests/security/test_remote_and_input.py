"""Remote styles and bad input (issue 30, item 10): what a hostile reward server or a hostile
suite file does to the audit itself.

- A reward server that answers ``302`` to another port: ``urllib`` followed it, POST turned
  GET, with the ``Authorization`` header, and read the reward there. Now no redirect is
  followed unless asked (``follow_redirects=true``), and never to another origin.
- A slowloris body (one byte at a time, each within the per-read timeout): it ran until the
  pool killed the worker. Now the style's ``timeout`` bounds the whole answer.
- A tool suite whose reference holds a 600-deep argument (``RecursionError`` in
  ``schema._canonical_any``, exit 3) or a 10 MB string (the catalog's expansion limit, exit
  3), and suite files that are not UTF-8: exit 2, naming the file, the line and the limit.

The servers are real (``http.server`` threads on 127.0.0.1, in this process); the audits
are the real command (the ``cli`` fixture) or ``api.audit``. No test reads a clock: the
slow server is bounded by the bytes it sends.
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier_audit import suites
from verifier_audit.domains.input_limits import MAX_DEPTH, MAX_STRING, may_exceed, over_limits
from verifier_audit.domains.suite_files import read_jsonl, tasks_from_rows
from verifier_audit.domains.tool.calls import Call
from verifier_audit.domains.tool.schema import SchemaError, normalise_call
from verifier_audit.errors import InputError
from verifier_audit.frameworks import _client
from verifier_audit.frameworks import http as http_style
from verifier_audit.frameworks import judge as judge_style
from verifier_audit.loading import VerifierSpec
from verifier_audit.models import Task

TASK = Task(id="t1", domain="math", prompt="What is $6 \\times 7$?", reference="42")
KEY = "sk-audit-secret-4242"


# ------------------------------------------------------------------------- servers


class Server:
    """A threaded HTTP server on 127.0.0.1 whose every request goes to ``respond(handler)``;
    ``seen`` records (method, path, headers) of each request it got. ``tls``: an
    ``ssl.SSLContext`` to serve HTTPS with."""

    def __init__(self, respond, tls=None):
        self.seen: list[tuple[str, str, dict]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.body = self.rfile.read(length) if length else b""
                with server.lock:
                    server.seen.append((self.command, self.path, dict(self.headers)))
                respond(self)

            do_GET = do_POST = _any

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = False  # server_close() waits for every handler: their counts are final
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.scheme = "https" if tls is not None else "http"
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def url(self, path: str = "/get_reward") -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def send_json(handler, obj, status: int = 200) -> None:
    data = json.dumps(obj).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def redirect(handler, location: str, status: int = 302) -> None:
    handler.send_response(status)
    handler.send_header("Location", location)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


@contextmanager
def thief_and_redirector(status: int = 302):
    """``thief``: pays 1.0 to anything and keeps the headers it got. ``redirector``: the
    reward server the audit is pointed at; it redirects every request to the thief."""
    with (
        Server(lambda h: send_json(h, {"rewards": [1.0], "scores": [1.0]})) as thief,
        Server(lambda h: redirect(h, thief.url("/steal"), status)) as redirector,
    ):
        yield thief, redirector


def http_caller(url: str, **options: str):
    spec = VerifierSpec(spec=url, name="t", style="http", options=tuple(sorted(options.items())))
    return http_style.make_caller(None, spec)


def judge_caller(url: str, **options: str):
    options = judge_style.prepare_options(options)
    spec = VerifierSpec(spec=url, name="t", style="judge", options=tuple(sorted(options.items())))
    return judge_style.make_caller(None, spec)


# ------------------------------------------------------------------------- redirects


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_port_is_not_followed_and_the_key_never_leaves(status):
    with thief_and_redirector(status) as (thief, redirector):
        call = http_caller(redirector.url(), **{"header.Authorization": f"Bearer {KEY}"})
        with pytest.raises(_client.RemoteHTTPError) as err:
            call("The answer is 42.", TASK)
        assert str(err.value).startswith(
            f"reward server {redirector.url()}: HTTP {status} redirect to {thief.url('/steal')}, not followed"
        )
        assert KEY not in str(err.value)
        # Asked to follow redirects, it still never goes to another origin.
        call = http_caller(redirector.url(), follow_redirects="true", **{"header.Authorization": f"Bearer {KEY}"})
        with pytest.raises(_client.RemoteHTTPError, match="redirect to another origin, .*never followed"):
            call("The answer is 42.", TASK)
        # The judge style shares the client: its key stays home too.
        with pytest.raises(_client.RemoteHTTPError, match="not followed"):
            judge_caller(redirector.url("/v1"), api_key=KEY, model="m")("42", TASK)
        assert thief.seen == []  # not one request, so neither the key nor the question got there
        assert all(h.get("Authorization") == f"Bearer {KEY}" for _, _, h in redirector.seen)


def test_a_same_origin_redirect_is_followed_only_when_asked():
    def respond(h):
        if h.path == "/old":
            redirect(h, "/get_reward", 307)  # a relative Location: the same origin
        else:
            send_json(h, {"rewards": [0.25]})

    with Server(respond) as server:
        with pytest.raises(_client.RemoteHTTPError, match="HTTP 307 redirect to .*/get_reward, not followed"):
            http_caller(server.url("/old"))("x", TASK)
        assert http_caller(server.url("/old"), follow_redirects="true")("x", TASK) == 0.25
        # 307 keeps the method and the body: the second request is the same POST.
        assert [(m, p) for m, p, _ in server.seen][-2:] == [("POST", "/old"), ("POST", "/get_reward")]
        with pytest.raises(Exception, match="follow_redirects=maybe: expected true or false"):
            http_caller(server.url("/old"), follow_redirects="maybe")


def test_an_audit_against_a_redirecting_server_gets_error_verdicts_and_no_reward_from_elsewhere(cli, tmp_path):
    out = tmp_path / "report.json"
    with thief_and_redirector(302) as (thief, redirector):
        r = cli(
            "run",
            "--verifier",
            redirector.url(),
            "--style",
            "http",
            "--verifier-option",
            f"header.Authorization=Bearer {KEY}",
            "--limit",
            "1",
            "--only",
            "known_bad",
            "--no-progress",
            "--no-config",
            "--probe-sample",
            "0",
            "--no-format-probe",
            "--json",
            str(out),
        )
        assert thief.seen == []
    assert r.returncode == 1, r.stderr  # the gate fails: no successful call
    report = json.loads(out.read_text())
    assert report["error_rate"] == 1.0
    assert report["gate"]["reasons"][0].startswith("no successful call")
    messages = json.dumps(report["error_messages"])
    assert f"HTTP 302 redirect to {thief.url('/steal')}, not followed" in messages
    assert KEY not in r.stdout + r.stderr + out.read_text()


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_the_sampling_backend_never_sends_its_key_to_where_a_redirect_points(status, tmp_path):
    """The OpenAI sampling backend went through ``urllib``, which followed a 302 to any host
    and port with the ``Authorization`` header: the thief got the key. It now uses the
    styles' client: the redirect is an error naming where it pointed, and the thief gets
    nothing at all."""
    from verifier_audit.samples.backends import Prompt
    from verifier_audit.samples.backends.openai import OpenAIBackend

    with thief_and_redirector(status) as (thief, redirector):
        backend = OpenAIBackend(tmp_path / "no-such-model", base_url=redirector.url("/v1"), api_key=KEY, retries=0)
        with pytest.raises(InputError) as err:
            backend.prepare(
                Prompt("2+2=", None, True), temperature=1.0, top_p=1.0, top_k_logprobs=1, logprobs_kind="raw", seed=0
            )
        assert f"answered HTTP {status}" in str(err.value) and thief.url("/steal") in str(err.value)
        assert "not followed" in str(err.value) and KEY not in str(err.value)
    assert thief.seen == []  # neither the key nor the question reached the other server
    assert [h.get("Authorization") for _, _, h in redirector.seen] == [f"Bearer {KEY}"]


def test_a_same_origin_redirect_keeps_the_key_and_a_cross_origin_hop_after_it_is_refused():
    """``follow_redirects=true``: a hop on the same origin carries the key (it is the same
    server); the next hop, to another port, is refused before anything is sent there."""
    with Server(lambda h: send_json(h, {"rewards": [1.0]})) as thief:

        def respond(h):
            if h.path == "/first":
                redirect(h, "/second", 307)
            else:
                redirect(h, thief.url("/steal"), 307)

        with Server(respond) as server:
            call = http_caller(
                server.url("/first"), follow_redirects="true", **{"header.Authorization": f"Bearer {KEY}"}
            )
            with pytest.raises(_client.RemoteHTTPError, match="redirect to another origin"):
                call("42", TASK)
        assert [(m, p, h.get("Authorization")) for m, p, h in server.seen] == [
            ("POST", "/first", f"Bearer {KEY}"),
            ("POST", "/second", f"Bearer {KEY}"),
        ]
    assert thief.seen == []


# ------------------------------------------------------------------------- slowloris

BODY = json.dumps({"rewards": [1.0]}).encode().ljust(400)  # valid JSON, padded with spaces
STEP = 0.05  # seconds between two bytes: far inside any per-read timeout


class Slowloris:
    """Answers 200 with a 400-byte JSON body paid out one byte per ``STEP``; counts the
    bytes it managed to send before the client hung up."""

    def __init__(self, tls=None):
        self.sent: list[int] = []
        self.server = Server(self.respond, tls)

    def respond(self, h):
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(BODY)))
        h.end_headers()
        h.wfile.flush()
        n = 0
        try:
            for byte in BODY:
                h.wfile.write(bytes([byte]))
                h.wfile.flush()
                n += 1
                time.sleep(STEP)
        except OSError:
            pass
        with self.server.lock:
            self.sent.append(n)

    def __enter__(self):
        self.server.__enter__()
        return self

    def __exit__(self, *exc):
        self.server.__exit__(*exc)


def test_a_slowloris_body_ends_at_the_styles_timeout():
    with Slowloris() as slow:
        call = http_caller(slow.server.url(), timeout="0.5", retries="0")
        with pytest.raises(_client.RemoteTimeout) as err:
            call("42", TASK)
        assert "answer not complete within 0.5 s" in str(err.value)
        assert err.value.verdict_error.startswith("timeout (")  # counted with the audit's timeouts
    # The client hung up long before the body was out: the timeout bounded the whole answer
    # (0.5 s is ~10 bytes at one per 50 ms; urllib's per-read timeout read all 400).
    assert len(slow.sent) == 1 and slow.sent[0] < len(BODY) // 2


def test_an_audit_against_a_slowloris_counts_timeouts_as_errors(cli, tmp_path):
    out = tmp_path / "report.json"
    with Slowloris() as slow:
        r = cli(
            "run",
            "--verifier",
            slow.server.url(),
            "--style",
            "http",
            "--verifier-option",
            "timeout=0.2",
            "--verifier-option",
            "retries=0",
            "--limit",
            "1",
            "--only",
            "known_bad",
            "--workers",
            "4",
            "--no-progress",
            "--no-config",
            "--probe-sample",
            "0",
            "--no-format-probe",
            "--json",
            str(out),
        )
    assert r.returncode == 1, r.stderr  # the gate fails on errors; the audit itself ran to its end
    report = json.loads(out.read_text())
    assert report["error_rate"] == 1.0
    kinds = {k for c in report["categories"] for k in c["error_kinds"]}
    assert kinds == {"timeout"}, kinds
    assert "answer not complete within 0.2 s" in json.dumps(report["error_messages"])
    # Every call hung up early: no worker sat out the pool's 10 s kill reading 400 bytes.
    assert slow.sent and max(slow.sent) < len(BODY) // 2


def test_a_policy_that_retries_timeouts_sends_again_and_counts_each():
    """The sampling backend's policy (``Retry(timeouts=True)``): a slowloris answer is a
    timeout each try, sent again, counted; the whole-answer bound holds on every try."""
    # time.sleep is not patched (the slow server paces its bytes with it): no pause instead
    client = _client.JSONClient(
        "server",
        timeout=0.3,
        retries=1,
        deadline=float("inf"),
        retry=_client.Retry(timeouts=True, pause=lambda attempt: 0.0),
    )
    with (
        Slowloris() as slow,
        pytest.raises(_client.RemoteTimeout, match=r"answer not complete within 0.3 s .* after 1 retry"),
    ):
        client.get(slow.server.url())
    assert json.loads(client.log.take().partition(":")[2]) == {
        "requests": 2,
        "retried": {"timeout": 1},
        "failed": "timeout",
    }
    assert len(slow.sent) == 2 and max(slow.sent) < len(BODY) // 2


def test_retry_after_is_honoured_only_where_the_policy_says(monkeypatch):
    pauses: list[float] = []
    monkeypatch.setattr(_client.time, "sleep", pauses.append)
    answers = iter([503, 200, 503, 200])

    def respond(h):
        status = next(answers)
        if status == 503:
            h.send_response(503)
            h.send_header("Retry-After", "7")
            h.send_header("Content-Length", "0")
            h.end_headers()
        else:
            send_json(h, {"rewards": [0.5]})

    with Server(respond) as server:
        honours = _client.JSONClient("server", retry=_client.Retry(retry_after=True, longest=5.0))
        assert honours.get(server.url()) == {"rewards": [0.5]}
        assert _client.JSONClient("reward server").get(server.url()) == {"rewards": [0.5]}
    assert pauses == [5.0, _client.BACKOFF[0]]  # capped at `longest`; the styles keep their own backoff


@pytest.fixture(scope="module")
def tls_cert(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1 (the openssl command), trusted by the client
    through SSL_CERT_FILE, which its default TLS context reads."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a certificate with")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(d / "key.pem"),
            "-out",
            str(d / "cert.pem"),
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    return d / "cert.pem", d / "key.pem"


def test_over_tls_the_answer_is_read_and_a_slowloris_body_still_ends_at_the_timeout(tls_cert, monkeypatch):
    import ssl

    cert, key = tls_cert
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with Slowloris(context) as slow, Server(lambda h: send_json(h, {"rewards": [0.75]}), context) as fine:
        assert fine.url().startswith("https://") and http_caller(fine.url())("42", TASK) == 0.75
        call = http_caller(slow.server.url(), timeout="0.5", retries="0")
        with pytest.raises(_client.RemoteTimeout, match="answer not complete within 0.5 s"):
            call("42", TASK)
    assert len(slow.sent) == 1 and slow.sent[0] < len(BODY) // 2


# ------------------------------------------------------------------------- tool suites

ROOT = Path(__file__).resolve().parents[2]
SAVE = {
    "name": "save",
    "description": "Save a value.",
    "parameters": {"type": "object", "properties": {"data": {}}, "required": ["data"]},
}


def nested(levels: int, kinds=None):
    """A value whose objects and lists nest ``levels`` deep (0: a string), built without
    recursion; ``kinds`` picks a list (True) or an object (False) per level."""
    value = "x"
    for i in range(levels):
        value = [value] if (kinds[i % len(kinds)] if kinds else False) else {"k": value}
    return value


def tool_row(task_id: str, data) -> dict:
    return {
        "id": task_id,
        "domain": "tool",
        "prompt": "Save it.",
        "metadata": {"tools": [SAVE]},
        "reference": json.dumps([{"name": "save", "arguments": {"data": data}}]),
    }


def write_suite(path: Path, rows: list[dict]) -> Path:
    """Line 1 is a real task of the built-in tool suite; then ``rows``."""
    good = (ROOT / "suites" / "tool" / "tasks.jsonl").read_text().splitlines()[0]
    path.write_text("\n".join([good, *map(json.dumps, rows)]) + "\n")
    return path


def test_a_600_deep_tool_argument_is_exit_2_naming_the_file_line_and_limit(cli, tmp_path):
    suite = write_suite(tmp_path / "deep.jsonl", [tool_row("deep", nested(600))])
    r = cli("run", "--suite", str(suite), "--no-progress", "--no-config", "--probe-sample", "0")
    assert r.returncode == 2, r.stderr[-2000:]  # was 3: RecursionError in schema._canonical_any
    assert f"{suite}:2: reference: save: arguments.data.k.k" in r.stderr
    assert f"objects and lists nested deeper than the limit of {MAX_DEPTH} levels" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_10_mb_tool_argument_is_exit_2_naming_the_file_line_and_limit(cli, tmp_path):
    suite = write_suite(tmp_path / "big.jsonl", [tool_row("big", "x" * 10_000_000)])
    r = cli("run", "--suite", str(suite), "--no-progress", "--no-config", "--probe-sample", "0")
    assert r.returncode == 2, r.stderr[-2000:]  # was 3: the catalog's templates expanded past 8,000,000
    size = len(tool_row("big", "x" * 10_000_000)["reference"])
    assert f"{suite}:2: reference: a string of {size:,} characters, over the limit of {MAX_STRING:,}" in r.stderr
    assert "Traceback" not in r.stderr


@given(levels=st.integers(min_value=1, max_value=3 * MAX_DEPTH), kinds=st.lists(st.booleans(), min_size=1, max_size=4))
def test_any_depth_past_the_limit_is_refused_and_any_within_it_accepted(levels, kinds):
    """``levels``: the arguments object's nesting, itself counted. The suite reader (with the
    tool domain's check) and the schema agree on the same bound."""
    data = nested(levels - 1, kinds)
    row = tool_row("t", data)
    call = Call("save", {"data": data})
    if levels <= MAX_DEPTH:
        assert tasks_from_rows(Path("s.jsonl"), [(7, row)])[0].id == "t"
        assert normalise_call(call, SAVE).arguments == {"data": data}
    else:
        with pytest.raises(InputError, match=rf"^s\.jsonl:7: reference: save: arguments\.data.*limit of {MAX_DEPTH} "):
            tasks_from_rows(Path("s.jsonl"), [(7, row)])
        with pytest.raises(SchemaError, match=f"deeper than the limit of {MAX_DEPTH} levels"):
            normalise_call(call, SAVE)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\[]{}é', max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='k"[}', max_size=3), inner, max_size=3)
    ),
    max_leaves=60,
)


@given(value=_JSON, wrap=st.integers(min_value=0, max_value=MAX_DEPTH + 2))
def test_the_text_screen_never_lets_a_value_past_the_bounds_through(value, wrap):
    """``may_exceed`` spares the walk only where the walk would find nothing: brackets,
    quotes and backslashes inside strings do not fool it."""
    for _ in range(wrap):
        value = [value]
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        if over_limits(value) is not None:
            assert may_exceed(text)


@given(extra=st.integers(min_value=-3, max_value=3))
def test_a_string_past_the_limit_is_refused_and_one_within_it_accepted(extra):
    text = "y" * (MAX_STRING + extra)
    call = Call("save", {"data": text})
    if extra <= 0:
        assert normalise_call(call, SAVE).arguments == {"data": text}
    else:
        with pytest.raises(SchemaError, match=f"a string of {MAX_STRING + extra:,} characters, over the limit"):
            normalise_call(call, SAVE)


def test_a_row_nested_past_json_s_own_recursion_is_refused_with_its_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "a", "prompt": "p", "reference": "1"}\n' + '{"x": ' + "[" * 200_000 + "\n")
    with pytest.raises(InputError, match=rf"s\.jsonl:2: objects and lists nested deeper than the limit of {MAX_DEPTH}"):
        read_jsonl(path)
    deep = json.dumps(nested(MAX_DEPTH))
    path.write_text(f'{{"id": "a", "prompt": "p", "reference": "1", "metadata": {{"m": {deep}}}}}\n')
    with pytest.raises(InputError, match=rf"s\.jsonl:1: metadata\.m\.k.*limit of {MAX_DEPTH} levels"):
        read_jsonl(path)


# ------------------------------------------------------------------------- UTF-8

LATIN1 = "Combien font 6 × 7 ? Réponse".encode("latin-1")  # 0xd7 and 0xe9: not UTF-8


def jsonl_with_latin1_on_line_3(path: Path) -> tuple[Path, int]:
    """Five task lines, the third written in Latin-1; (path, offset of the first bad byte)."""
    lines = [
        json.dumps({"id": f"t{i}", "prompt": f"What is {i} + {i}?", "reference": str(2 * i)}).encode() for i in range(5)
    ]
    lines[2] = b'{"id": "t2", "prompt": "' + LATIN1 + b'", "reference": "42"}'
    data = b"\n".join(lines) + b"\n"
    path.write_bytes(data)
    return path, data.index(b"\xd7")


def test_invalid_utf8_in_a_jsonl_suite_names_the_file_line_and_byte(cli, tmp_path):
    suite, offset = jsonl_with_latin1_on_line_3(tmp_path / "latin1.jsonl")
    r = cli("run", "--suite", str(suite), "--no-progress", "--no-config", "--probe-sample", "0")
    assert r.returncode == 2, r.stderr[-2000:]
    column = offset - suite.read_bytes().rindex(b"\n", 0, offset)
    assert (
        f"{suite}:3: not UTF-8 text: byte 0xd7 at byte offset {offset} (column {column} of line 3, "
        "invalid continuation byte); save the file as UTF-8"
    ) in r.stderr, r.stderr


def test_invalid_utf8_in_a_csv_file_names_the_file_line_and_byte(cli, tmp_path):
    """The CSV reader of user data (``import --format trl``: a TRL completions table)."""
    table = tmp_path / "completions.csv"
    data = b"step,prompt,completion\n1,What is 6 x 7?,42\n2,What is 6 x 7?," + LATIN1 + b"\n"
    table.write_bytes(data)
    r = cli("import", "--format", "trl", str(table), "--suite", "math", "--out", str(tmp_path / "s.jsonl"))
    assert r.returncode == 2, r.stderr[-2000:]
    offset = data.index(b"\xd7")
    assert f"{table}:3: not UTF-8 text: byte 0xd7 at byte offset {offset}" in r.stderr, r.stderr
    assert "save the file as UTF-8" in r.stderr


@pytest.mark.parametrize("fmt", [*suites.FORMATS, "humaneval.gz"])
def test_every_suite_format_decodes_through_one_function(fmt, tmp_path):
    """Each format a domain declares (and the .jsonl.gz reader) gives the same error for the
    same bad byte: its reader decodes with ``suite_files.decode_text``."""
    import gzip

    path, offset = jsonl_with_latin1_on_line_3(tmp_path / "suite.jsonl")
    if fmt == "humaneval.gz":
        fmt, path = "humaneval", path.with_suffix(".gz")
        path.write_bytes(gzip.compress((tmp_path / "suite.jsonl").read_bytes()))
    with pytest.raises(InputError) as err:
        suites.load_suite(str(path), fmt=fmt)
    assert str(err.value).startswith(f"{path}:3: not UTF-8 text: byte 0xd7 at byte offset {offset} ")
    assert "save the file as UTF-8" in str(err.value)
