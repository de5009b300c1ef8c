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

import pytest
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
    with Server(lambda h: send_json(h, {"rewards": [1.0], "scores": [1.0]})) as thief:
        with Server(lambda h: redirect(h, thief.url("/steal"), status)) as redirector:
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
        assert str(err.value).startswith(f"reward server {redirector.url()}: HTTP {status} redirect to "
                                         f"{thief.url('/steal')}, not followed")
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
        r = cli("run", "--verifier", redirector.url(), "--style", "http",
                "--verifier-option", f"header.Authorization=Bearer {KEY}", "--limit", "1", "--only", "known_bad",
                "--no-progress", "--no-config", "--probe-sample", "0", "--no-format-probe", "--json", str(out))
        assert thief.seen == []
    assert r.returncode == 1, r.stderr  # the gate fails: no successful call
    report = json.loads(out.read_text())
    assert report["error_rate"] == 1.0
    assert report["gate"]["reasons"][0].startswith("no successful call")
    messages = json.dumps(report["error_messages"])
    assert f"HTTP 302 redirect to {thief.url('/steal')}, not followed" in messages
    assert KEY not in r.stdout + r.stderr + out.read_text()


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
        r = cli("run", "--verifier", slow.server.url(), "--style", "http", "--verifier-option", "timeout=0.2",
                "--verifier-option", "retries=0", "--limit", "1", "--only", "known_bad", "--workers", "4", "--no-progress",
                "--no-config", "--probe-sample", "0", "--no-format-probe", "--json", str(out))
    assert r.returncode == 1, r.stderr  # the gate fails on errors; the audit itself ran to its end
    report = json.loads(out.read_text())
    assert report["error_rate"] == 1.0
    kinds = {k for c in report["categories"] for k in c["error_kinds"]}
    assert kinds == {"timeout"}, kinds
    assert "answer not complete within 0.2 s" in json.dumps(report["error_messages"])
    # Every call hung up early: no worker sat out the pool's 10 s kill reading 400 bytes.
    assert slow.sent and max(slow.sent) < len(BODY) // 2


@pytest.fixture(scope="module")
def tls_cert(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1 (the openssl command), trusted by the client
    through SSL_CERT_FILE, which its default TLS context reads."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a certificate with")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(d / "key.pem"),
                    "-out", str(d / "cert.pem"), "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
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
