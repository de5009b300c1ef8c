"""OpenAI-compatible ``/v1/completions`` backend: vLLM, SGLang, TGI or any server that
speaks the legacy completions API. Its requests go through the package's one HTTP client
(``frameworks/_client.JSONClient``, on httpx).

What is sent, per request: the templated prompt (its token ids when a local tokenizer is
there, else its text), ``n``, ``temperature``, ``top_p``, ``max_tokens``, ``logprobs=K``,
``echo=false``, ``seed`` (unless ``server_seed=False``) and vLLM's
``return_tokens_as_token_ids`` (dropped, once and for all, if the server refuses it). What
is read: ``choices[].text``, ``choices[].logprobs.tokens / token_logprobs /
top_logprobs``, ``choices[].finish_reason``.

**Requests and seeds.** By default each sample is its own request (``n=1``) with seed
``backends.request_seed(seed, task, index)``: any server that honours ``seed`` then gives a
sample the same draws whatever the batch. ``samples_per_request=N`` asks for up to N
samples of one task in one request (``n=N``, the seed of the first): the same draws on
vLLM V1, which seeds the children ``seed + j``, but not on servers that reuse one seed for
all ``n`` (old vLLM returned ``n`` identical samples). Without seeds
(``server_seed=False``: servers that reject ``seed``; nothing is reproducible then),
requests carry up to ``prompts_per_request`` prompts. The requests of a batch are sent
``concurrency`` at a time; the server batches them.

**Token ids.** From the server when it returns ``token_id:N`` tokens (vLLM's
``return_tokens_as_token_ids``, asked for in every request). Otherwise, when ``--model`` is
a local directory, each returned token string is looked up in the local tokenizer's
vocabulary (as is, or byte-level encoded, or with SentencePiece's ``▁``); a string that is
not there is an error, never a guess. Otherwise the ids are unavailable: the samples are
written with empty ``token_ids``, ``logprobs`` and ``top_logprobs`` (the format ties
logprobs to token ids) and a warning. ``versions["token_ids"]`` records which.

**Logprobs kind.** A server decides it, not the request: vLLM returns raw logprobs unless
started with ``--logprobs-mode processed_logprobs``. The kind recorded is the one the run
asks for (``--logprobs``, default raw), which is therefore a statement about the server.

**Errors.** 408, 409, 425, 429, 5xx, connection errors and timeouts are retried ``retries``
times with exponential backoff (``Retry-After`` honoured); other 4xx answers, and a server
still failing or unreachable after the retries, are ``InputError`` (exit 2) naming the URL.
A redirect is an error too, never followed: the ``Authorization`` key would go wherever it
pointed (``urllib``, used here before issue 32, sent it to any host and port).
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError
from ...frameworks._client import JSONClient, RemoteAnswerError, RemoteError, RemoteHTTPError, Retry, display_url
from . import Generation, Prompt, SampleRequest, request_seed

TOKEN_ID_PREFIX = "token_id:"
RETRY_STATUSES = frozenset({408, 409, 425, 429})  # and every 5xx
NEG_INF_FLOOR = -9999.0  # vLLM writes -inf as -9999.0 in JSON
EXTRA_FIELDS = ("return_tokens_as_token_ids",)  # vLLM extensions, dropped when a server refuses them
LOGPROB_DIGITS = 6
MAX_ANSWER_BYTES = 1024 * 1024 * 1024  # a batch's logprobs can be large; the styles' 16 MiB is for one reward


def _round(x: float) -> float:
    return round(min(float(x), 0.0), LOGPROB_DIGITS) + 0.0


def normalize_base_url(url: str) -> str:
    """``http://host:8000`` and ``http://host:8000/v1/`` both become ``http://host:8000/v1``."""
    url = url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise InputError(f"--base-url {url!r}: expected http://HOST:PORT or http://HOST:PORT/v1")
    return url if url.endswith("/v1") else url + "/v1"


@dataclass
class _Call:
    """One HTTP request: prompts (each with n samples), and where each choice goes."""

    prompts: list[Prompt]
    n: int
    seed: int | None
    positions: list[list[int]]  # positions[p][j]: the batch position of prompt p's sample j


def _byte_level_table() -> dict[int, str]:
    """GPT-2's byte-to-character table (byte-level BPE vocabularies are written with it)."""
    keep = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    )
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


class OpenAIBackend:
    name = "openai"

    def __init__(
        self,
        model_path,
        *,
        base_url: str,
        api_key: str | None = None,
        served_model: str | None = None,
        samples_per_request: int = 1,
        prompts_per_request: int = 16,
        server_seed: bool = True,
        concurrency: int = 32,
        request_timeout: float = 600.0,
        retries: int = 5,
        retry_base_s: float = 0.5,
        retry_max_s: float = 30.0,
    ):
        self.base_url = normalize_base_url(base_url)
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or None
        self.samples_per_request = max(1, int(samples_per_request))
        self.prompts_per_request = max(1, int(prompts_per_request))
        self.server_seed = bool(server_seed)
        self.concurrency = max(1, int(concurrency))
        self.timeout = float(request_timeout)
        self.retries = max(0, int(retries))
        self.retry_base_s, self.retry_max_s = float(retry_base_s), float(retry_max_s)
        self.device = "server"
        self.dtype_name = ""
        self.model_id = str(model_path)
        self.served_model = served_model or str(model_path)
        local = Path(model_path)
        self.model_dir: Path | None = local if local.is_dir() else None
        self.tokenizer = self._load_tokenizer(local) if self.model_dir is not None else None
        self.versions: dict[str, str] = {"api": "v1/completions", "served_model": self.served_model}
        self._extras = set(EXTRA_FIELDS)  # extension fields still sent
        self._token_ids = "unknown"  # "server" | "local-vocab" | "unavailable", set by prepare
        self._vocab: dict[str, int] | None = None
        self._lock = threading.Lock()
        self._json: JSONClient | None = None  # made on the first request

    # -- local tokenizer ------------------------------------------------------------------------

    @staticmethod
    def _load_tokenizer(path: Path):
        try:
            import transformers
        except ImportError:
            print(
                f"verifier-audit: transformers is not installed: no local tokenizer for {path}; prompts are "
                "sent as text and token ids must come from the server",
                file=sys.stderr,
            )
            return None
        try:
            return transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        except (OSError, ValueError) as exc:
            raise InputError(f"--model {path}: a local directory, but its tokenizer does not load: {exc}") from None

    def encode(self, text: str, *, add_special_tokens: bool) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"])

    def text_of(self, gen: Generation) -> str:
        return gen.text or ""

    def _piece_id(self, piece: str) -> int | None:
        """A token string the server returned, as an id of the local vocabulary, or None."""
        if piece.startswith(TOKEN_ID_PREFIX):
            try:
                return int(piece[len(TOKEN_ID_PREFIX) :])
            except ValueError:
                return None
        if self.tokenizer is None:
            return None
        if self._vocab is None:
            self._vocab = dict(self.tokenizer.get_vocab())
            self._bytes = _byte_level_table()
        vocab = self._vocab
        # The string as the vocabulary writes it (a raw token), or as text (vLLM decodes
        # tokens): byte-level encoded, or with SentencePiece's word marker. When two of
        # these readings name different tokens the string is ambiguous: no id, not a guess.
        # A replacement character is a partial UTF-8 token: no reading of it is reliable.
        if "\ufffd" in piece:
            return None
        readings = (piece, "".join(self._bytes[b] for b in piece.encode("utf-8")), piece.replace(" ", "\u2581"))
        found = {int(vocab[r]) for r in readings if r in vocab}
        return found.pop() if len(found) == 1 else None

    # -- HTTP -------------------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _client(self) -> JSONClient:
        """The one HTTP client of the package (frameworks/_client.py, on httpx), with this
        backend's policy: more statuses and timeouts retried, exponential backoff,
        ``Retry-After`` honoured, no deadline over the attempts. Redirects are never followed:
        the key would go wherever the server pointed (``urllib`` sent it along)."""
        if self._json is None:

            def pause(attempt: int) -> float:
                return min(self.retry_max_s, self.retry_base_s * 2**attempt)

            retry = Retry(
                statuses=RETRY_STATUSES, timeouts=True, pause=pause, retry_after=True, longest=self.retry_max_s
            )
            self._json = JSONClient(
                "server",
                timeout=self.timeout,
                retries=self.retries,
                deadline=math.inf,
                headers=self._headers(),
                retry=retry,
                max_bytes=MAX_ANSWER_BYTES,
                redirect_hint="(redirects are not followed: name the URL it points to as --base-url)",
            )
        return self._json

    def _http(self, method: str, path: str, body: dict | None = None) -> dict:
        """One call with retries: the decoded JSON answer, or InputError."""
        url = f"{self.base_url}{path}"
        data = json.dumps(body).encode("utf-8") if body is not None else None
        tries = f"{self.retries + 1} attempt{'s' if self.retries else ''}"
        try:
            return self._client().request(method, url, data)
        except RemoteHTTPError as exc:
            message = self._error_message(exc)
            if exc.status in RETRY_STATUSES or exc.status >= 500:
                raise InputError(f"the server at {url} kept failing (HTTP {exc.status}: {message}; {tries})") from None
            raise _ClientError(url, exc.status, message) from None
        except RemoteAnswerError as exc:
            raise InputError(f"{exc}; is --base-url an OpenAI-compatible server?") from None
        except RemoteError as exc:  # refused, reset, unknown host, timed out
            raise InputError(
                f"cannot reach the server at {url} ({self._words(exc, url)}; {tries}); is it running, "
                "and is --base-url right?"
            ) from None

    @staticmethod
    def _words(exc: RemoteError, url: str) -> str:
        """What happened, without the client's "server URL: " prefix (the message names the URL)."""
        return str(exc).partition(f"{display_url(url)}: ")[2] or str(exc)

    @classmethod
    def _error_message(cls, exc: RemoteHTTPError) -> str:
        """The server's own words (an OpenAI error object's message), else the client's."""
        raw = exc.detail
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            return raw.strip()[:300] or cls._words(exc, "")
        err = obj.get("error", obj) if isinstance(obj, dict) else obj
        if isinstance(err, dict):
            return str(err.get("message") or err.get("detail") or err)[:500]
        return str(err)[:500]

    # -- preparing: the server, the model, the parameters ------------------------------------------

    def prepare(
        self, prompt: Prompt, *, temperature: float, top_p: float, top_k_logprobs: int, logprobs_kind: str, seed: int
    ) -> None:
        """Check the server once before any file is written: it answers, serves the model,
        takes these parameters; learn where token ids come from."""
        try:
            listed = self._http("GET", "/models")
        except _ClientError as exc:
            if exc.status != 404:  # some servers have no /v1/models: skip the check
                raise InputError(str(exc)) from None
            listed = None
        if isinstance(listed, dict) and isinstance(listed.get("data"), list):
            ids = [str(m.get("id")) for m in listed["data"] if isinstance(m, dict)]
            if ids and self.served_model not in ids:
                raise InputError(
                    f"the server at {self.base_url} does not serve {self.served_model!r}; it serves: "
                    f"{', '.join(ids)}. Pass --served-model NAME (and keep --model for the local "
                    "tokenizer), or --model NAME"
                )
        call = _Call(
            [prompt], 1, request_seed(seed, "verifier-audit/preflight", 0) if self.server_seed else None, [[0]]
        )
        answer = self._complete(call, temperature=temperature, top_p=top_p, max_tokens=1, k=top_k_logprobs)
        choice = (answer.get("choices") or [None])[0]
        tokens = ((choice or {}).get("logprobs") or {}).get("tokens") or []
        if tokens and all(isinstance(t, str) and t.startswith(TOKEN_ID_PREFIX) for t in tokens):
            self._token_ids = "server"
        elif self.tokenizer is not None:
            self._token_ids = "local-vocab"
        else:
            self._token_ids = "unavailable"
            print(
                f"verifier-audit: warning: the server at {self.base_url} returns token strings, not ids, and "
                "--model is not a local directory with a tokenizer: samples are written without token_ids "
                "and logprobs. Use vLLM (it returns ids), or give --model the local model directory and "
                "--served-model the server's name for it",
                file=sys.stderr,
            )
        self.versions["token_ids"] = self._token_ids
        self.versions["seeded"] = "yes" if self.server_seed else "no"

    def _body(self, call: _Call, *, temperature: float, top_p: float, max_tokens: int, k: int) -> dict:
        payload = [list(p.token_ids) if p.token_ids is not None else p.text for p in call.prompts]
        body = {
            "model": self.served_model,
            "prompt": payload[0] if len(payload) == 1 else payload,
            "n": call.n,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_p": top_p,
            "logprobs": k,
            "echo": False,
            "stream": False,
        }
        if call.seed is not None:
            body["seed"] = call.seed
        with self._lock:
            for field in self._extras:
                body[field] = True
        return body

    def _complete(self, call: _Call, *, temperature: float, top_p: float, max_tokens: int, k: int) -> dict:
        while True:
            body = self._body(call, temperature=temperature, top_p=top_p, max_tokens=max_tokens, k=k)
            try:
                answer = self._http("POST", "/completions", body)
            except _ClientError as exc:
                refused = [f for f in EXTRA_FIELDS if f in body and f in exc.message]
                if exc.status in (400, 422) and refused:
                    with self._lock:
                        self._extras.difference_update(refused)
                    continue  # the same request without the extension
                if exc.status in (400, 422) and "seed" in body and "seed" in exc.message.lower():
                    raise InputError(
                        f"{exc}. The server does not take `seed`: rerun with --no-server-seed "
                        "(the samples will not be reproducible)"
                    ) from None
                raise InputError(str(exc)) from None
            if not isinstance(answer, dict) or not isinstance(answer.get("choices"), list):
                raise InputError(
                    f"{self.base_url}/completions: the answer has no choices list: {json.dumps(answer)[:300]}"
                )
            return answer

    # -- sampling ---------------------------------------------------------------------------------

    def _plan(self, requests: Sequence[SampleRequest], seed: int) -> list[_Call]:
        """The batch's requests as HTTP calls: runs of consecutive samples of one task, up to
        ``samples_per_request`` long; without seeds, runs of equal length share a call, up
        to ``prompts_per_request`` prompts."""
        runs: list[tuple[SampleRequest, list[int]]] = []
        for pos, r in enumerate(requests):
            if runs:
                first, positions = runs[-1]
                last = requests[positions[-1]]
                if (
                    last.task_id == r.task_id
                    and r.sample_index == last.sample_index + 1
                    and r.prompt == first.prompt
                    and len(positions) < self.samples_per_request
                ):
                    positions.append(pos)
                    continue
            runs.append((r, [pos]))
        if self.server_seed:
            return [
                _Call([first.prompt], len(pos), request_seed(seed, first.task_id, first.sample_index), [pos])
                for first, pos in runs
            ]
        calls: list[_Call] = []
        for first, pos in runs:
            if calls and calls[-1].n == len(pos) and len(calls[-1].prompts) < self.prompts_per_request:
                calls[-1].prompts.append(first.prompt)
                calls[-1].positions.append(pos)
            else:
                calls.append(_Call([first.prompt], len(pos), None, [pos]))
        return calls

    def sample(
        self,
        requests: Sequence[SampleRequest],
        *,
        seed: int,
        temperature: float,
        top_p: float,
        max_tokens: int,
        top_k_logprobs: int,
        logprobs_kind: str,
    ) -> list[Generation]:
        if self._token_ids == "unknown":
            raise RuntimeError("OpenAIBackend.prepare() must run before sample()")
        calls = self._plan(requests, seed)
        out: list[Generation | None] = [None] * len(requests)
        kw = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens, "k": top_k_logprobs}
        pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(calls)) or 1)
        failed = True
        try:
            futures = [pool.submit(self._complete, call, **kw) for call in calls]
            for call, fut in zip(calls, futures):
                answer = fut.result()
                choices = answer["choices"]
                if len(choices) != len(call.prompts) * call.n:
                    raise InputError(
                        f"{self.base_url}/completions: {len(choices)} choices for "
                        f"{len(call.prompts)} prompt(s) x n={call.n}"
                    )
                for order, choice in enumerate(choices):
                    index = choice.get("index", order) if isinstance(choice, dict) else order
                    p, j = divmod(int(index), call.n)
                    if not (0 <= p < len(call.prompts)):
                        raise InputError(f"{self.base_url}/completions: choice index {index} out of range")
                    pos = call.positions[p][j]
                    req = requests[pos]
                    out[pos] = self._generation(choice, top_k_logprobs, f"{req.task_id!r} #{req.sample_index}")
            failed = False
        finally:  # on an error or an interrupt, do not wait for the requests still in flight
            pool.shutdown(wait=not failed, cancel_futures=True)
        missing = [i for i, g in enumerate(out) if g is None]
        if missing:
            raise InputError(f"{self.base_url}/completions: no choice for {len(missing)} sample(s) of the batch")
        return out  # type: ignore[return-value]

    def _generation(self, choice, k: int, what: str) -> Generation:
        where = f"{self.base_url}/completions, sample {what}"
        if not isinstance(choice, dict):
            raise InputError(f"{where}: a choice is not an object")
        finish = choice.get("finish_reason")
        if finish not in ("stop", "length"):
            raise InputError(f"{where}: finish_reason {finish!r} (expected 'stop' or 'length')")
        text = choice.get("text")
        if not isinstance(text, str):
            raise InputError(f"{where}: no text")
        lp = choice.get("logprobs")
        if not isinstance(lp, dict) or not isinstance(lp.get("tokens"), list):
            raise InputError(f"{where}: no logprobs in the answer (does the server support `logprobs`?)")
        if self._token_ids == "unavailable":
            return Generation([], [], [], finish, text=text)
        tokens, values = lp["tokens"], lp.get("token_logprobs") or []
        tops = lp.get("top_logprobs") or []
        if len(values) != len(tokens) or (k and len(tops) != len(tokens)):
            raise InputError(f"{where}: {len(tokens)} tokens, {len(values)} token_logprobs, {len(tops)} top_logprobs")
        ids, logprobs, top = [], [], []
        for i, (piece, value) in enumerate(zip(tokens, values)):
            tid = self._piece_id(piece) if isinstance(piece, str) else None
            if tid is None:
                raise InputError(
                    f"{where}: token {i} {piece!r} is not in the local tokenizer's vocabulary, so "
                    "its id is unknown. Use a server that returns token ids (vLLM: "
                    "return_tokens_as_token_ids)"
                )
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= NEG_INF_FLOOR:
                raise InputError(f"{where}: token {i} has logprob {value!r}")
            ids.append(tid)
            logprobs.append(_round(value))
            if k:
                entry = tops[i] or {}
                pairs = []
                for key, v in entry.items():
                    kid = self._piece_id(key)
                    if kid is None or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= NEG_INF_FLOOR:
                        continue  # an unknown string, or -inf (outside a processed nucleus)
                    pairs.append((kid, float(v)))
                pairs.sort(key=lambda kv: -kv[1])  # stable: the server's order among ties
                best: dict[int, float] = {}
                for kid, v in pairs:
                    if len(best) == k:
                        break
                    best.setdefault(kid, _round(v))
                top.append(best)
        return Generation(ids, logprobs, top, finish, text=text)


class _ClientError(Exception):
    """A 4xx answer that retrying will not fix."""

    def __init__(self, url: str, status: int, message: str):
        self.url, self.status, self.message = url, status, message
        super().__init__(f"the server at {url} answered HTTP {status}: {message}")
