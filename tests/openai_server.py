"""A small OpenAI-compatible server for tests: ``/v1/completions`` and ``/v1/models`` on
127.0.0.1 (a random free port), answered by our ``hf`` backend on a local model, so it is
deterministic.

It mimics vLLM where the ``openai`` backend relies on vLLM's behaviour:

- a request's ``seed`` s with ``n`` gives child j the seed s + j (vLLM V1's parallel
  sampling), and seed s means the ``hf`` backend's key (s mod 2**32, s div 2**32): so a
  sample equals ``HFBackend.generate(prompt, [key_of(s + j)])``; without a seed the key
  is random;
- a list of prompts gives choices ``index = prompt * n + j``, each prompt with the same seed;
- ``logprobs=K``: ``token_logprobs`` of the sampled tokens and ``top_logprobs`` with the K
  best plus the sampled token; ``return_tokens_as_token_ids`` writes tokens as
  ``token_id:N``, otherwise as raw vocabulary strings (``tokens_as="vocab"``) or decoded
  text (``tokens_as="text"``, as vLLM does);
- a text prompt is tokenized with special tokens unless ``add_special_tokens`` is false;
  a list of ints is a prompt of token ids; logprobs are ``raw`` unless the server was made
  with ``logprobs_kind="processed"`` (vLLM's ``--logprobs-mode``).

Knobs for tests: ``fail_next(count, status)`` answers the next ``count`` completion
requests with that status; ``accept_extra=False`` refuses ``return_tokens_as_token_ids``
(400, as OpenAI's own API refuses unknown arguments); ``accept_seed=False`` refuses
``seed``; ``delay_s`` slows every completion; ``api_key`` requires that bearer token;
``requests`` records every completion request body.
"""

from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from verifier_audit.samples.seeding import MASK32


def key_of(seed: int) -> tuple[int, int]:
    return seed & MASK32, (seed >> 32) & MASK32


class TinyOpenAIServer:
    def __init__(
        self,
        backend,
        *,
        model_id: str = "tiny-llama",
        logprobs_kind: str = "raw",
        tokens_as: str = "vocab",
        accept_extra: bool = True,
        accept_seed: bool = True,
        delay_s: float = 0.0,
        api_key: str | None = None,
        list_models: bool = True,
    ):
        self.backend, self.model_id, self.logprobs_kind = backend, model_id, logprobs_kind
        self.tokens_as, self.accept_extra, self.accept_seed = tokens_as, accept_extra, accept_seed
        self.delay_s, self.api_key, self.list_models = delay_s, api_key, list_models
        self.requests: list[dict] = []
        self._failures: list[tuple[int, str | None]] = []
        self._lock = threading.Lock()  # one request on the model at a time, as one GPU would
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> TinyOpenAIServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                server._handle(self, "GET")

            def do_POST(self):
                server._handle(self, "POST")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join(timeout=5)
            self._httpd = None

    def __enter__(self) -> TinyOpenAIServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def fail_next(self, count: int, status: int = 503, retry_after: str | None = None) -> None:
        with self._lock:
            self._failures.extend([(status, retry_after)] * count)

    # -- HTTP -----------------------------------------------------------------------------------

    def _send(self, h: BaseHTTPRequestHandler, status: int, obj: dict, headers: dict | None = None) -> None:
        data = json.dumps(obj).encode("utf-8")
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _error(self, h, status: int, message: str, headers: dict | None = None) -> None:
        self._send(h, status, {"error": {"message": message, "type": "invalid_request_error", "code": status}}, headers)

    def _handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        if self.api_key is not None and h.headers.get("Authorization") != f"Bearer {self.api_key}":
            return self._error(h, 401, "Incorrect API key provided")
        if method == "GET" and h.path == "/v1/models" and self.list_models:
            return self._send(
                h,
                200,
                {
                    "object": "list",
                    "data": [{"id": self.model_id, "object": "model", "owned_by": "tests", "max_model_len": 2048}],
                },
            )
        if method == "POST" and h.path == "/v1/completions":
            try:
                body = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                return self._error(h, 400, "invalid JSON body")
            with self._lock:
                self.requests.append(body)
                failure = self._failures.pop(0) if self._failures else None
            if failure is not None:
                status, retry_after = failure
                return self._error(
                    h, status, f"injected failure {status}", {"Retry-After": retry_after} if retry_after else None
                )
            try:
                answer = self._complete(body)
            except _Refused as exc:
                return self._error(h, exc.status, str(exc))
            return self._send(h, 200, answer)
        return self._error(h, 404, f"no route {method} {h.path}")

    # -- completions ------------------------------------------------------------------------------

    def _complete(self, body: dict) -> dict:
        if body.get("model") != self.model_id:
            raise _Refused(404, f"The model `{body.get('model')}` does not exist.")
        if not self.accept_extra and "return_tokens_as_token_ids" in body:
            raise _Refused(400, "Unrecognized request argument supplied: return_tokens_as_token_ids")
        if not self.accept_seed and "seed" in body:
            raise _Refused(400, "Unrecognized request argument supplied: seed")
        if body.get("echo"):
            raise _Refused(400, "echo is not supported here")
        prompt = body.get("prompt")
        if isinstance(prompt, str) or (isinstance(prompt, list) and prompt and isinstance(prompt[0], int)):
            prompts = [prompt]
        elif isinstance(prompt, list) and prompt:
            prompts = prompt
        else:
            raise _Refused(400, "prompt must be a string, a list of token ids, or a list of those")
        special = body.get("add_special_tokens", True)
        ids = [p if isinstance(p, list) else self.backend.encode(p, add_special_tokens=special) for p in prompts]
        n = int(body.get("n", 1))
        k = body.get("logprobs")
        seed = body.get("seed")
        as_ids = bool(body.get("return_tokens_as_token_ids"))
        rows, keys = [], []
        for p in ids:
            for j in range(n):
                rows.append(p)
                keys.append(key_of(seed + j) if seed is not None else key_of(int.from_bytes(os.urandom(8), "little")))
        if self.delay_s:
            time.sleep(self.delay_s)
        with self._lock:
            gens = self.backend.generate(
                rows,
                keys,
                temperature=float(body.get("temperature", 1.0)),
                top_p=float(body.get("top_p", 1.0)),
                max_tokens=int(body.get("max_tokens", 16)),
                top_k_logprobs=int(k or 0),
                logprobs_kind=self.logprobs_kind,
            )
        choices = []
        for index, gen in enumerate(gens):
            choice = {
                "index": index,
                "text": self.backend.text_of(gen),
                "finish_reason": gen.finish_reason,
                "logprobs": None,
            }
            if k is not None:
                top = []
                for tid, lp, best in zip(gen.token_ids, gen.logprobs, gen.top_logprobs or [{}] * len(gen.token_ids)):
                    entry = {self._token(t, as_ids): v for t, v in best.items()}
                    entry.setdefault(self._token(tid, as_ids), lp)  # vLLM adds the sampled token
                    top.append(entry)
                choice["logprobs"] = {
                    "tokens": [self._token(t, as_ids) for t in gen.token_ids],
                    "token_logprobs": list(gen.logprobs),
                    "top_logprobs": top,
                    "text_offset": [0] * len(gen.token_ids),
                }
            choices.append(choice)
        completion_tokens = sum(len(g.token_ids) for g in gens)
        return {
            "id": f"cmpl-{len(self.requests)}",
            "object": "text_completion",
            "created": int(time.time()),
            "model": self.model_id,
            "choices": choices,
            "usage": {
                "prompt_tokens": sum(len(p) for p in ids) * n,
                "completion_tokens": completion_tokens,
                "total_tokens": sum(len(p) for p in ids) * n + completion_tokens,
            },
        }

    def _token(self, tid: int, as_ids: bool) -> str:
        if as_ids:
            return f"token_id:{tid}"
        tok = self.backend.tokenizer
        if self.tokens_as == "text":
            return tok.decode([tid])
        return tok.convert_ids_to_tokens(tid)


class _Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
