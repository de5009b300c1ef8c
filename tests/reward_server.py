"""A real reward server for the tests of ``--style http``: its own process, 127.0.0.1, a
free port, ``http.server.ThreadingHTTPServer`` (one thread per request, so every audit
worker is answered at once).

    python tests/reward_server.py --port 0 [--rule naive|strict] [knobs]    # prints "PORT <n>"

Routes:

- ``POST /get_reward`` (and ``/reward``): OpenRLHF's remote reward model protocol, as its
  ``openrlhf/cli/serve_rm.py`` serves it: ``{"query": [...], "prompts": [...], "labels":
  [...]}`` -> ``{"rewards": [...], "scores": [...], "extra_logs": {...}}``. The response is
  the query with its prompt cut off, as OpenRLHF's ``examples/python/math_reward_func.py``
  does (``--keep-prompt``: not cut off, a server bug that pays when the gold is in the
  question);
- ``POST /score``: a generic JSON server reading ``response``, ``gold`` (and ``question``,
  ``id``) and answering ``{"result": {"reward": r}}``;
- ``GET /_requests``: every scoring request body so far (for the tests), ``GET /_health``.

Scoring rules (``--rule``): ``naive`` pays 1.0 when the gold text appears anywhere in the
response (the substring hole: ``2, 3, 5, ... 1000`` pays for any small integer);
``strict`` compares the last ``\\boxed{...}`` with the gold, ignoring spaces.

Failure knobs, each for the tests of the error gate. ``--fail-every K``: every K-th scoring
request answers ``--fail-status`` (default 500), a transient fault the client's retries
absorb. The ``*-mod K`` knobs pick candidates by a hash of the response text, so that the
same candidate fails on every retry: ``--fail-mod`` (the status), ``--slow-mod`` (sleeps
``--slow-s`` before answering: beyond the client's timeout), ``--garbage-mod`` (an answer
that is not JSON), ``--nan-mod`` (a NaN reward), ``--missing-mod`` (no reward field).
``--api-key KEY`` requires ``Authorization: Bearer KEY`` (a 401 otherwise, whose body
echoes the header it got, as debugging servers do).

``ServerProcess`` starts a server script as a subprocess and reads its port (the judge
server uses it too).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------------- scoring


def last_box(text: str) -> str | None:
    """The content of the last \\boxed{...}, braces balanced."""
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    i, depth = start + len("\\boxed{"), 1
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i:j]
    return None


def score(rule: str, response: str, gold: str) -> float:
    gold = gold.strip()
    if rule == "naive":
        return 1.0 if gold and gold in response else 0.0
    box = last_box(response)
    return 1.0 if box is not None and "".join(box.split()) == "".join(gold.split()) else 0.0


def bucket(text: str, k: int) -> bool:
    """Whether this text is one of the 1-in-k picked for a knob (stable across runs)."""
    return k > 0 and int(hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16) % k == 0


# ---------------------------------------------------------------------------------- server


def quiet_handler(get, post) -> type[BaseHTTPRequestHandler]:
    """A keep-alive request handler that logs nothing and hands each request to ``get`` or
    ``post`` (the test servers' own methods)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            get(self)

        def do_POST(self):
            post(self)

    return Handler


class RewardServer:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.requests: list[dict] = []
        self.count = 0
        self.lock = threading.Lock()

    def handler(self):
        return quiet_handler(self.get, self.post)

    def get(self, h) -> None:
        if h.path == "/_requests":
            with self.lock:
                return self.send(h, 200, list(self.requests))
        if h.path == "/_health":
            return self.send(h, 200, {"ok": True})
        self.send(h, 404, {"error": f"no route GET {h.path}"})

    def send(self, h, status: int, obj, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(obj).encode("utf-8")  # NaN goes out as NaN, as Python writes it
        h.send_response(status)
        h.send_header("Content-Type", "application/json" if raw is None else "text/html")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def post(self, h) -> None:
        a = self.args
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        if a.api_key is not None and h.headers.get("Authorization") != f"Bearer {a.api_key}":
            # Echoes what it got, as debugging servers do: the client must not repeat it.
            return self.send(h, 401, {"error": f"wrong API key: got {h.headers.get('Authorization')!r}"})
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return self.send(h, 400, {"error": "invalid JSON body"})
        path = h.path.split("?", 1)[0]
        if path in ("/get_reward", "/reward"):
            if not isinstance(body, dict) or not isinstance(body.get("query"), list):
                return self.send(h, 400, {"error": "expected {query: [...], prompts: [...], labels: [...]}"})
            queries, prompts, labels = body["query"], body.get("prompts") or [], body.get("labels") or []
            responses = []
            for i, q in enumerate(queries):
                p = prompts[i] if i < len(prompts) else ""
                responses.append(q[len(p) :] if (p and q.startswith(p) and not a.keep_prompt) else q)
            golds = [str(x) for x in labels]
            shape = "openrlhf"
        elif path == "/score":
            if not isinstance(body, dict) or "response" not in body or "gold" not in body:
                return self.send(h, 400, {"error": "expected {response, gold}"})
            responses, golds, shape = [str(body["response"])], [str(body["gold"])], "json"
        else:
            return self.send(h, 404, {"error": f"no route POST {h.path}"})
        with self.lock:
            self.count += 1
            n = self.count
            self.requests.append(body)
        text = responses[0] if responses else ""
        if a.fail_every and n % a.fail_every == 0:
            return self.send(
                h, a.fail_status, None, f"<html>injected transient failure {a.fail_status}</html>".encode()
            )
        if bucket(text, a.fail_mod):
            return self.send(
                h, a.fail_status, None, f"<html>injected failure {a.fail_status}: scorer crashed</html>".encode()
            )
        if bucket(text, a.slow_mod):
            time.sleep(a.slow_s)
        if bucket(text, a.garbage_mod):
            return self.send(h, 200, None, b"<html>Internal proxy page</html>")
        rewards = [score(a.rule, r, g) for r, g in zip(responses, golds)]
        if bucket(text, a.nan_mod):
            rewards = [float("nan")] * len(rewards)
        if bucket(text, a.missing_mod):
            return self.send(h, 200, {"status": "ok"})
        if shape == "openrlhf":
            return self.send(h, 200, {"rewards": rewards, "scores": rewards, "extra_logs": {"n": [n] * len(rewards)}})
        return self.send(h, 200, {"result": {"reward": rewards[0], "rule": a.rule}})


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--rule", choices=("naive", "strict"), default="naive")
    ap.add_argument("--keep-prompt", action="store_true")
    ap.add_argument("--fail-every", type=int, default=0)
    ap.add_argument("--fail-status", type=int, default=500)
    ap.add_argument("--fail-mod", type=int, default=0)
    ap.add_argument("--slow-mod", type=int, default=0)
    ap.add_argument("--slow-s", type=float, default=3.0)
    ap.add_argument("--garbage-mod", type=int, default=0)
    ap.add_argument("--nan-mod", type=int, default=0)
    ap.add_argument("--missing-mod", type=int, default=0)
    ap.add_argument("--api-key", default=None)
    args = ap.parse_args(argv)
    serve(RewardServer(args).handler(), args.port)


def serve(handler, port: int) -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
    httpd.daemon_threads = True
    print(f"PORT {httpd.server_address[1]}", flush=True)
    try:
        httpd.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass


# ------------------------------------------------------------------------ for the tests


class ServerProcess:
    """``with ServerProcess("reward_server.py", "--rule", "naive") as s: s.url("/get_reward")``"""

    def __init__(self, script: str, *args: str, startup_s: float = 20.0):
        self.script, self.args, self.startup_s = Path(__file__).with_name(script), [str(a) for a in args], startup_s
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None

    def __enter__(self) -> ServerProcess:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.stderr = tempfile.TemporaryFile(mode="w+")  # a pipe nobody reads could fill and block the server
        self.proc = subprocess.Popen(
            [sys.executable, str(self.script), "--port", "0", *self.args],
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            env=env,
        )
        ready, _, _ = select.select([self.proc.stdout], [], [], self.startup_s)
        line = self.proc.stdout.readline() if ready else ""
        m = re.match(r"PORT (\d+)", line)
        if not m:
            self.__exit__()
            raise RuntimeError(f"{self.script.name} did not start: {line!r} {self.errors()[-2000:]}")
        self.port = int(m.group(1))
        return self

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()

    def errors(self) -> str:
        """What the server wrote on stderr (tracebacks of its handler threads)."""
        self.stderr.seek(0)
        return self.stderr.read()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def requests(self) -> list:
        """Every scoring (or chat) request body the server received so far."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(self.url("/_requests"), timeout=10) as resp:
            return json.loads(resp.read())


if __name__ == "__main__":
    main()


def run_audit(url: str, style: str, options: dict | None = None, **kw):
    """``verifier_audit.api.audit`` of a remote verifier with ``--verifier-option``s.

    The style's ``prepare_options`` runs first, as the CLI's resolve does for remote specs
    (idempotent: a template already read is kept). Until ``api.audit`` takes ``options=``,
    this does what it does, with the options. The isolation is the default: the workers of
    a remote style keep the host's network (engine/verifier_job.py), which these tests need."""
    import inspect

    from verifier_audit import api
    from verifier_audit.frameworks import get_style

    prepare = getattr(get_style(style).implementation(), "prepare_options", None)
    options = prepare(dict(options or {})) if prepare is not None else dict(options or {})
    kw.setdefault("probe_sample", 0)
    if "options" in inspect.signature(api.audit).parameters:
        return api.audit(url, style=style, options=options, **kw)
    from verifier_audit.engine.audit import AuditOptions, default_cache_dir
    from verifier_audit.engine.audit import prepare as prepare_candidates
    from verifier_audit.loading import resolve
    from verifier_audit.models import GateConfig
    from verifier_audit.plan import audit as engine_audit
    from verifier_audit.suites import load_suite, select

    spec = resolve(url, style, options)
    gate_keys = ("max_debt", "max_category", "max_false_rejection", "max_error_rate")
    gate = GateConfig(**{k: kw.pop(k) for k in gate_keys if k in kw})
    suite, split, limit = kw.pop("suite", "math"), kw.pop("split", None), kw.pop("limit", None)
    audit_options = AuditOptions(gate=gate, cache_dir=default_cache_dir(), progress=False, **kw)
    loaded = load_suite(suite)
    prepared = prepare_candidates(
        loaded.name, loaded.content_hash, select(loaded, split, limit), audit_options, split=split, limit=limit
    )
    return engine_audit(prepared, [spec], audit_options)[0]
