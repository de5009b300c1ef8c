"""One JSON-over-HTTP client, on httpx: the remote styles (``http``, ``judge``) and the OpenAI
sampling backend (``samples/backends/openai.py``) send every request through ``JSONClient``.

Each verifier call is one request, made from the worker that scores the candidate, so the
audit's ``--workers`` bounds how many requests are in flight at once. A request has its own
timeout (default 5 s, below the pool's hard per-call timeout, default 10 s, so a slow
server is reported as a timeout of *this* request rather than as a killed worker), and a
deadline over all its attempts. Connection errors (refused, reset, unknown host), 5xx
answers and 429 (too many requests) are retried a few times with a growing pause; any other
4xx answer is the caller's mistake and is never retried; a timeout is not retried either
(the server has the request: sending it again doubles its load and would overrun the pool's
timeout). The sampling backend widens this policy (``Retry``: 408/409/425 too, timeouts,
``Retry-After``, no deadline) but shares the loop, the redirect rule and the messages.

A retry that succeeds hides a sick server from the error rate, so every request is counted
(``RequestLog``): the verifier's job takes the count of each call after it ends and sends it
to the parent as one ``remote:{...}`` entry beside the call's security findings
(engine/verifier_job.py), and the report adds them up (``Report.remote``, gated by
``--max-retry-rate``).

The ``timeout`` bounds the whole exchange of one attempt -- connecting, the TLS handshake,
sending, the status line, the headers and the body -- not each read: httpx's timeouts are
per operation, so its connections are made by a network backend whose every read and write
waits only for what is left of the attempt (``_DeadlineStream``). A server that sends one
byte a second forever (a slowloris body; a per-read timeout never fires) ends at the timeout
as a ``RemoteTimeout``, an error verdict, rather than at the pool's kill of the worker.

Redirects are not followed (httpx's ``follow_redirects=False``): the reward is what the URL
the user named answers. A 3xx is an error verdict naming where it pointed.
``--verifier-option follow_redirects=true`` follows up to ``MAX_REDIRECTS`` of them on the
same origin (scheme, host and port), never to another one: ``urllib`` (this client before,
and the sampling backend until issue 32) followed a 302 to any host and port with every
header, the ``Authorization`` key included, and read the answer from whatever answered
there; ``requests`` and httpx drop the key on an origin change but still take the other
server's answer. Here neither the key nor the question leaves the origin, and no other
server's answer is read. No proxy, ``.netrc`` or other setting from the environment is used
(``trust_env=False``: the server is named), and TLS trusts the system's certificates
(``ssl.create_default_context``, which reads ``SSL_CERT_FILE``), not certifi's.

Every failure is a ``RemoteError`` whose message names the server (scheme, host, port and
path -- never the query string, user info or header values, which may hold keys) and what
happened: ``reward server http://127.0.0.1:5000/get_reward: HTTP 500 after 2 retries: <body
head>``. The audit records it as an error verdict and goes on; its error gate fails when
errors exceed ``--max-error-rate``.
"""

from __future__ import annotations

import json
import math
import socket
import ssl
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

DEFAULT_TIMEOUT = 5.0
DEFAULT_RETRIES = 2
#: all attempts of one call together, including the pauses; below the pool's default 10 s
DEFAULT_DEADLINE = 9.0
BACKOFF = (0.2, 0.5, 1.0, 2.0)  # seconds before retry 1, 2, 3, 4...
BODY_HEAD = 200  # characters of an error body quoted in a message
MAX_ANSWER_BYTES = 16 * 1024 * 1024
#: redirects followed on one origin with follow_redirects=true (requests allows 30)
MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)
#: the end of the message of a redirect not followed (the sampling backend names its own way out)
REDIRECT_HINT = (
    "(the reward is read from the URL given; --verifier-option follow_redirects=true follows "
    "redirects on the same origin)"
)
#: 4xx answers worth another try: the server is busy, not the request wrong
_RETRIED_4XX = (429,)
#: the kind of a verdict's security entry that carries its call's requests (not a finding)
REMOTE = "remote"


class RemoteError(Exception):
    """A remote verifier call that did not give a score; an error verdict, never a score."""

    #: what its last request got, as ``RequestLog`` counts it ("HTTP 503", "timeout"); None: an answer
    counted: str | None = None


class RemoteHTTPError(RemoteError):
    """An HTTP status that is not an answer; ``detail``: the head of its body (up to 4 KiB,
    keys masked), for a caller that reads the server's own error message from it."""

    def __init__(self, message: str, status: int, detail: str = ""):
        super().__init__(message)
        self.status, self.detail = status, detail
        self.counted = f"HTTP {status}"


class RemoteConnectionError(RemoteError):
    """The server could not be reached (refused, reset, unknown host)."""

    counted = "connection failed"


class RemoteTimeout(RemoteError):
    """No answer within the request's timeout; counted with the audit's other timeouts."""

    counted = "timeout"

    @property
    def verdict_error(self) -> str:  # engine/pool.py reports this string; "timeout..." is its kind
        return f"timeout ({self})"


class RemoteAnswerError(RemoteError):
    """An answer that holds no score: not JSON, no reward field, NaN, an unread judge verdict."""


def display_url(url: str) -> str:
    """The URL as errors show it: no user info, no query string, no fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _clip(text: str, secrets: Iterable[str], width: int = BODY_HEAD) -> str:
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width] + "…"


def _styles_backoff(attempt: int) -> float:
    return BACKOFF[min(attempt, len(BACKOFF) - 1)]


@dataclass(frozen=True)
class Retry:
    """Which failures a ``JSONClient`` sends again, and how long it waits first. 5xx answers
    and connection failures are always retried; ``statuses`` adds 4xx ones; ``timeouts``
    retries a request that got no answer in time; ``retry_after`` waits what the server's
    ``Retry-After`` header asks (in seconds, up to ``longest``) instead of ``pause(attempt)``."""

    statuses: frozenset = frozenset(_RETRIED_4XX)
    timeouts: bool = False
    pause: Callable[[int], float] = _styles_backoff
    retry_after: bool = False
    longest: float = math.inf


#: the remote styles' policy (the module docstring says why a timeout is not retried)
STYLES = Retry()


class JSONClient:
    """Requests to one server: ``post(url, body)`` / ``get(url)`` -> the decoded JSON answer.

    ``what`` names the server in messages ("reward server", "judge"); ``headers`` go on
    every request and their values are never shown, even when the server echoes them.
    ``follow_redirects``: follow 3xx answers on the URL's own origin (never to another);
    ``redirect_hint`` ends the message of a redirect not followed. ``retry``: the policy
    (``STYLES`` for the remote styles); ``max_bytes``: the largest answer read."""

    def __init__(
        self,
        what: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        deadline: float = DEFAULT_DEADLINE,
        headers: Mapping[str, str] | None = None,
        follow_redirects: bool = False,
        retry: Retry = STYLES,
        max_bytes: int = MAX_ANSWER_BYTES,
        redirect_hint: str = REDIRECT_HINT,
    ):
        self.what, self.timeout, self.retries, self.deadline = what, float(timeout), int(retries), float(deadline)
        self.follow_redirects, self.retry, self.max_bytes = bool(follow_redirects), retry, int(max_bytes)
        self.redirect_hint = redirect_hint
        self.headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "verifier-audit",
            **dict(headers or {}),
            "Connection": "close",
            "Accept-Encoding": "identity",
        }  # the body as sent: MAX_ANSWER_BYTES bounds what is held
        self._secrets = [
            v
            for k, v in self.headers.items()
            if k.lower() not in ("content-type", "accept", "user-agent", "connection", "accept-encoding")
        ]
        # One "Bearer KEY" header: the key alone is a secret too.
        self._secrets += [v.split(None, 1)[1] for v in self._secrets if " " in v]
        self._http = None  # the httpx.Client, made on the first request (httpx loads only then)
        self._made = threading.Lock()
        self.log = RequestLog()

    def post(self, url: str, body: Any) -> Any:
        # ASCII JSON, as requests and aiohttp send it: a lone surrogate travels as \ud800.
        return self.request("POST", url, json.dumps(body, allow_nan=False).encode("utf-8"))

    def get(self, url: str) -> Any:
        return self.request("GET", url, None)

    def request(self, method: str, url: str, data: bytes | None) -> Any:
        where = f"{self.what} {display_url(url)}"
        start = time.monotonic()
        attempt = 0
        while True:
            left = self.deadline - (time.monotonic() - start)
            try:
                raw = self._once(method, url, data, max(0.05, min(self.timeout, left)), where)
            except _Retryable as exc:
                pause = self.retry.pause(attempt) if exc.wait is None else min(exc.wait, self.retry.longest)
                left = self.deadline - (time.monotonic() - start)
                if attempt >= self.retries or left < pause + 0.1:
                    self.log.record(exc.counted)
                    tries = f" after {attempt} retr{'y' if attempt == 1 else 'ies'}" if attempt else ""
                    gave_up = (
                        ""
                        if attempt >= self.retries or not self.retries
                        else f" (the {self.deadline:g} s deadline left no time for another)"
                    )
                    raise exc.final(f"{where}: {exc.summary}{tries}{gave_up}{exc.tail}") from None
                self.log.record(exc.counted, retried=True)
                attempt += 1
                time.sleep(pause)
                continue
            except RemoteError as exc:
                self.log.record(exc.counted)
                raise
            self.log.record(None)
            return self._decode(raw, where)

    def _once(self, method: str, url: str, data: bytes | None, timeout: float, where: str) -> bytes:
        """One attempt, redirects included, all of it within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        for hop in range(MAX_REDIRECTS + 1):
            status, headers, body = self._exchange(method, url, data, deadline, timeout, where)
            if status not in _REDIRECTS:
                break
            location = headers.get("location", "")
            target = urljoin(url, location) if location else ""
            shown = display_url(target) if target else "nowhere (no Location header)"
            if not target or not self.follow_redirects:
                why = f" {self.redirect_hint}" if target and self.redirect_hint else ""
                raise RemoteHTTPError(f"{where}: HTTP {status} redirect to {shown}, not followed{why}", status)
            if origin(target) != origin(url):
                raise RemoteHTTPError(
                    f"{where}: HTTP {status} redirect to another origin, {shown}: never followed "
                    "(neither the request's headers nor its body leave the origin named, and no "
                    "other server's answer is a reward); name that URL as the verifier instead",
                    status,
                )
            if hop == MAX_REDIRECTS:
                raise RemoteHTTPError(f"{where}: more than {MAX_REDIRECTS} redirects (the last to {shown})", status)
            if status == 303 or (status in (301, 302) and method == "POST"):
                method, data = "GET", None  # what browsers, requests, httpx and urllib do
            url = target
        if status >= 400:
            text = body.decode("utf-8", "replace")
            head = f": {_clip(text, self._secrets)}" if text.strip() else ""
            detail = _clip(text, self._secrets, len(text))
            if status >= 500 or status in self.retry.statuses:
                raise _Retryable(
                    f"HTTP {status}",
                    head,
                    lambda m, code=status, d=detail: RemoteHTTPError(m, code, d),
                    f"HTTP {status}",
                    self._retry_after(headers),
                )
            raise RemoteHTTPError(f"{where}: HTTP {status}{head}", status, detail)
        if status >= 300 or status < 200:
            raise RemoteHTTPError(f"{where}: HTTP {status}, not an answer", status)
        if len(body) > self.max_bytes:
            raise RemoteAnswerError(f"{where}: answer larger than {self.max_bytes // (1024 * 1024)} MiB")
        return body

    def _retry_after(self, headers: Mapping[str, str]) -> float | None:
        """The pause a 429/503 asks for (``Retry-After: SECONDS``), where the policy honours it."""
        if not self.retry.retry_after:
            return None
        try:
            wait = float(headers.get("retry-after", ""))
        except ValueError:
            return None
        return max(0.0, wait) if math.isfinite(wait) else None

    def _client(self):
        with self._made:
            if self._http is None:
                self._http = _httpx_client()
            return self._http

    def _exchange(
        self, method: str, url: str, data: bytes | None, deadline: float, timeout: float, where: str
    ) -> tuple[int, Mapping[str, str], bytes]:
        """(status, headers, body) of one request; the body of a redirect is not read, that
        of an error only its head. Every read and write waits until ``deadline`` at most."""
        import httpx

        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RemoteConnectionError(f"{where}: not an http(s) URL")
        try:
            _ = parts.port  # urlsplit reads the port only when asked
        except ValueError:
            raise RemoteConnectionError(f"{where}: the URL's port is not a number") from None
        received = None
        _DEADLINE.at = deadline
        try:
            with self._client().stream(method, url, content=data, headers=self.headers, timeout=timeout) as resp:
                received = 0
                if resp.status_code in _REDIRECTS:
                    return resp.status_code, resp.headers, b""
                limit = 4096 if resp.status_code >= 400 else self.max_bytes + 1
                chunks = []
                for chunk in resp.iter_raw():
                    chunks.append(chunk)
                    received += len(chunk)
                    if received >= limit:
                        break
                return resp.status_code, resp.headers, b"".join(chunks)[:limit]
        except httpx.TimeoutException:
            words = (
                f"no answer within {timeout:g} s"
                if received is None
                else f"answer not complete within {timeout:g} s ({received} bytes of its body received; the timeout "
                "bounds the whole answer)"
            )
            if self.retry.timeouts:
                raise _Retryable(words, "", RemoteTimeout, RemoteTimeout.counted, None) from None
            raise RemoteTimeout(f"{where}: {words}") from None
        except (httpx.TransportError, OSError) as exc:
            # refused, reset mid-answer, a malformed status line, a closed socket, an unknown host
            kind, words = _connection_failure(exc)
            raise _Retryable(words, "", RemoteConnectionError, kind, None) from None
        except httpx.InvalidURL as exc:
            raise RemoteConnectionError(f"{where}: not a URL httpx reads ({exc})") from None
        finally:
            _DEADLINE.at = math.inf

    def _decode(self, raw: bytes, where: str) -> Any:
        try:
            return json.loads(raw.decode("utf-8"), parse_constant=_constant)
        except (UnicodeDecodeError, ValueError):
            text = raw.decode("utf-8", "replace")
            shown = f": {_clip(text, self._secrets)!r}" if text.strip() else ": empty body"
            raise RemoteAnswerError(f"{where}: answer is not JSON{shown}") from None


def _constant(name: str) -> float:
    # NaN / Infinity are not JSON, but Python's encoder writes them; keep them as floats so
    # that the caller can say "the reward is NaN" rather than "not JSON".
    return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name]


def _reason(exc: BaseException) -> BaseException:
    """What an httpx error stands for: the ``OSError`` it was raised from (httpx raises from
    httpcore, which raises from the socket's error), else the error itself."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return exc


def _closed_early(exc: BaseException) -> bool:
    """httpx's word for a server that closed the connection before its answer; http.client
    called it ``RemoteDisconnected``, a ``ConnectionResetError``, and so does this client."""
    return type(exc).__name__ == "RemoteProtocolError" and "disconnected" in str(exc).lower()


def _connection_failure(exc: BaseException) -> tuple[str, str]:
    """(kind, words): the few words a ``RequestLog`` counts a connection failure under (no
    host, no port), and the words its error says, with the detail the kind leaves out."""
    reason = _reason(exc)
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused", "connection refused"
    if isinstance(reason, ConnectionResetError) or _closed_early(reason):
        return "connection reset", "connection reset"
    if isinstance(reason, socket.gaierror):
        return "unknown host", f"unknown host ({reason.strerror or reason})"
    return "connection failed", f"connection failed ({type(reason).__name__}: {reason})"


class _Retryable(Exception):
    """Internal: a failure worth another try; ``final`` builds the error raised at the end,
    ``counted`` is what ``RequestLog`` counts it as, ``wait`` the pause the server asked for."""

    def __init__(self, summary: str, tail: str, final, counted: str, wait: float | None):
        super().__init__(summary)
        self.summary, self.tail, self.final, self.counted, self.wait = summary, tail, final, counted, wait


class RequestLog:
    """What the requests of one verifier call got: how many were sent, which were retried
    and why ("HTTP 500", "HTTP 429", "connection refused", "connection reset", ...), and
    what the last one got when the call ended without an answer ("timeout", "HTTP 404").
    ``take`` hands that over as one verdict entry and starts the next call's count. A lock,
    since the thread probe calls one client from several threads at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests, self._retried, self._failed = 0, Counter(), None

    def record(self, got: str | None, *, retried: bool = False) -> None:
        """One request sent: ``got`` None for an answer, else what it got instead."""
        with self._lock:
            self._requests += 1
            if retried:
                self._retried[got] += 1
            else:  # the call's outcome is its last request's (a judge's model lookup may 404 first)
                self._failed = got

    def take(self) -> str | None:
        """``remote:{"requests": n, "retried": {...}, "failed": ...}`` for the requests since
        the last take (None when there were none), and a fresh count."""
        with self._lock:
            record = {"requests": self._requests, "retried": dict(sorted(self._retried.items()))}
            if self._failed is not None:
                record["failed"] = self._failed
            self._requests, self._retried, self._failed = 0, Counter(), None
        if not record["requests"]:
            return None
        return f"{REMOTE}:{json.dumps(record, sort_keys=True, separators=(',', ':'))}"


def read_requests(entry: str) -> dict | None:
    """The record of a ``remote:`` entry (``RequestLog.take``), checked, or None when the
    entry is not one or is malformed: it crossed the worker's pipe."""
    kind, _, detail = entry.partition(":")
    if kind != REMOTE:
        return None
    try:
        record = json.loads(detail)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    requests, retried, failed = record.get("requests"), record.get("retried", {}), record.get("failed")
    if (
        type(requests) is not int
        or requests < 1
        or not isinstance(retried, dict)
        or len(retried) > 20
        or not all(isinstance(k, str) and len(k) <= 60 and type(n) is int and n >= 0 for k, n in retried.items())
        or not (failed is None or isinstance(failed, str) and len(failed) <= 60)
    ):
        return None
    return {"requests": requests, "retried": retried, "failed": failed}


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a URL, the port made explicit: what a redirect may not change."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme, 0)


class _Deadline(threading.local):
    """The instant (``time.monotonic()``) the current thread's request attempt must end by:
    set around each exchange, read when its connection is made (one connection per request:
    no keep-alive), so the remote styles' thread probe and the sampling backend's threads
    each have their own."""

    at = math.inf


_DEADLINE = _Deadline()


def _httpx_client():
    """An httpx client with no redirects, no environment (proxies, .netrc), the system's
    certificates and connections whose every read and write ends at the attempt's deadline.

    httpx takes no network backend, while httpcore's pool (which httpx's transport wraps)
    does: the transport's pool is swapped for one with ``_DeadlineBackend``, keeping httpx's
    own request building, exception mapping and streaming."""
    import httpcore
    import httpx

    tls = ssl.create_default_context()
    transport = httpx.HTTPTransport(verify=tls, trust_env=False)
    if not isinstance(getattr(transport, "_pool", None), httpcore.ConnectionPool):  # say so, never go without it
        raise TypeError(
            f"httpx {httpx.__version__} keeps no httpcore pool in its transport: the remote client's "
            "per-try deadline cannot be set (install the httpx of pyproject.toml's bound)"
        )
    transport._pool = httpcore.ConnectionPool(
        ssl_context=tls, max_connections=None, max_keepalive_connections=0, network_backend=_deadline_backend()
    )
    return httpx.Client(transport=transport, follow_redirects=False, trust_env=False)


def _deadline_backend():
    import httpcore

    def left(deadline: float, timeout: float | None, error) -> float:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise error("the request's timeout has passed")
        return remaining if timeout is None else min(timeout, remaining)

    class _DeadlineStream(httpcore.NetworkStream):
        """A connection whose reads and writes wait only until its request's deadline, so
        a peer that trickles bytes cannot stretch one request past it."""

        def __init__(self, stream, deadline: float):
            self.stream, self.deadline = stream, deadline

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self.stream.read(max_bytes, left(self.deadline, timeout, httpcore.ReadTimeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self.stream.write(buffer, left(self.deadline, timeout, httpcore.WriteTimeout))

        def close(self) -> None:
            self.stream.close()

        def start_tls(self, ssl_context, server_hostname=None, timeout=None):
            tls = self.stream.start_tls(
                ssl_context, server_hostname, left(self.deadline, timeout, httpcore.ConnectTimeout)
            )
            return _DeadlineStream(tls, self.deadline)

        def get_extra_info(self, info: str) -> Any:
            return self.stream.get_extra_info(info)

    class _DeadlineBackend(httpcore.SyncBackend):
        def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
            deadline = _DEADLINE.at
            stream = super().connect_tcp(
                host, port, left(deadline, timeout, httpcore.ConnectTimeout), local_address, socket_options
            )
            return _DeadlineStream(stream, deadline)

    return _DeadlineBackend()


# ------------------------------------------------------------------ option helpers


def number_option(
    options: Mapping[str, str],
    key: str,
    default: float,
    *,
    low: float = 0.0,
    high: float = 86400.0,
    integer: bool = False,
    error=ValueError,
) -> float:
    """``--verifier-option key=N`` checked: a number in (low, high] (>= low for integers)."""
    raw = options.get(key)
    if raw is None or str(raw).strip() == "":
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        raise error(f"--verifier-option {key}={raw}: expected {'an integer' if integer else 'a number'}") from None
    ok = (low <= value <= high) if integer else (low < value <= high and math.isfinite(value))
    if not ok:
        span = f"[{low:g}, {high:g}]" if integer else f"({low:g}, {high:g}]"
        raise error(f"--verifier-option {key}={raw}: must be in {span}")
    return value


def follow_redirects_option(options: Mapping[str, str], error=ValueError) -> bool:
    """``--verifier-option follow_redirects=true|false`` (default false): whether a 3xx on
    the server's own origin is followed (one to another origin never is)."""
    raw = str(options.get("follow_redirects", "")).strip().lower()
    if raw in ("", "false", "no", "0"):
        return False
    if raw in ("true", "yes", "1"):
        return True
    raise error(f"--verifier-option follow_redirects={options['follow_redirects']}: expected true or false")


def env_names(options: Mapping[str, str]) -> list[str]:
    """The environment variables a remote style's options name (``api_key_env=NAME``,
    ``header_env.X=NAME``): its client reads them in the worker, so they pass to the
    worker's environment (verifier_audit/environment.py) without a ``--pass-env``."""
    return sorted(
        {value for key, value in options.items() if (key == "api_key_env" or key.startswith("header_env.")) and value}
    )


def header_options(options: Mapping[str, str], error=ValueError) -> dict[str, str]:
    """``header.NAME=VALUE`` and ``header_env.NAME=ENVVAR`` (the value read from the
    environment, so the key never appears on a command line or in a config file)."""
    import os

    headers = {}
    for key, value in options.items():
        if key.startswith("header."):
            name = key[len("header.") :]
            if not name:
                raise error(f"--verifier-option {key}=...: name the header, e.g. header.Authorization=Bearer KEY")
            headers[name] = value
        elif key.startswith("header_env."):
            name = key[len("header_env.") :]
            if value not in os.environ:
                raise error(f"--verifier-option {key}={value}: the environment variable {value} is not set")
            headers[name] = os.environ[value]
    for name, value in headers.items():
        if "\n" in name or "\r" in name or "\n" in value or "\r" in value:
            raise error(f"--verifier-option header.{name}: a header cannot hold a line break")
    return headers
