"""One small JSON-over-HTTP client for the remote styles (``http``, ``judge``): stdlib only.

Each verifier call is one request, made from the worker that scores the candidate, so the
audit's ``--workers`` bounds how many requests are in flight at once. A request has its own
timeout (default 5 s, below the pool's hard per-call timeout, default 10 s, so a slow
server is reported as a timeout of *this* request rather than as a killed worker), and a
deadline over all its attempts. Connection errors and 5xx answers are retried a few times
with a growing pause; a 4xx answer is the caller's mistake and is never retried; a timeout
is not retried either (the server has the request: sending it again doubles its load and
would overrun the pool's timeout).

Every failure is a ``RemoteError`` whose message names the server (scheme, host, port and
path -- never the query string, user info or header values, which may hold keys) and what
happened: ``reward server http://127.0.0.1:5000/get_reward: HTTP 500 after 2 retries: <body
head>``. The audit records it as an error verdict and goes on; its error gate fails when
errors exceed ``--max-error-rate``.
"""

from __future__ import annotations

import http.client
import json
import math
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Iterable, Mapping, Optional
from urllib.parse import urlsplit, urlunsplit

DEFAULT_TIMEOUT = 5.0
DEFAULT_RETRIES = 2
#: all attempts of one call together, including the pauses; below the pool's default 10 s
DEFAULT_DEADLINE = 9.0
BACKOFF = (0.2, 0.5, 1.0, 2.0)  # seconds before retry 1, 2, 3, 4...
BODY_HEAD = 200  # characters of an error body quoted in a message
MAX_ANSWER_BYTES = 16 * 1024 * 1024


class RemoteError(Exception):
    """A remote verifier call that did not give a score; an error verdict, never a score."""


class RemoteHTTPError(RemoteError):
    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


class RemoteConnectionError(RemoteError):
    """The server could not be reached (refused, reset, unknown host)."""


class RemoteTimeout(RemoteError):
    """No answer within the request's timeout; counted with the audit's other timeouts."""

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


class JSONClient:
    """Requests to one server: ``post(url, body)`` / ``get(url)`` -> the decoded JSON answer.

    ``what`` names the server in messages ("reward server", "judge"); ``headers`` go on
    every request and their values are never shown, even when the server echoes them."""

    def __init__(self, what: str, *, timeout: float = DEFAULT_TIMEOUT, retries: int = DEFAULT_RETRIES,
                 deadline: float = DEFAULT_DEADLINE, headers: Optional[Mapping[str, str]] = None):
        self.what, self.timeout, self.retries, self.deadline = what, float(timeout), int(retries), float(deadline)
        self.headers = {"Content-Type": "application/json", "Accept": "application/json",
                        "User-Agent": "verifier-audit", **dict(headers or {})}
        self._secrets = [v for k, v in self.headers.items()
                         if k.lower() not in ("content-type", "accept", "user-agent")]
        # One "Bearer KEY" header: the key alone is a secret too.
        self._secrets += [v.split(None, 1)[1] for v in self._secrets if " " in v]
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # the server is named: no proxy

    def post(self, url: str, body: Any) -> Any:
        # ASCII JSON, as requests and aiohttp send it: a lone surrogate travels as \ud800.
        return self.request("POST", url, json.dumps(body, allow_nan=False).encode("utf-8"))

    def get(self, url: str) -> Any:
        return self.request("GET", url, None)

    def request(self, method: str, url: str, data: Optional[bytes]) -> Any:
        where = f"{self.what} {display_url(url)}"
        start = time.monotonic()
        attempt = 0
        while True:
            left = self.deadline - (time.monotonic() - start)
            try:
                raw = self._once(method, url, data, max(0.05, min(self.timeout, left)), where)
                return self._decode(raw, where)
            except _Retryable as exc:
                pause = BACKOFF[min(attempt, len(BACKOFF) - 1)]
                left = self.deadline - (time.monotonic() - start)
                if attempt >= self.retries or left < pause + 0.1:
                    tries = f" after {attempt} retr{'y' if attempt == 1 else 'ies'}" if attempt else ""
                    gave_up = "" if attempt >= self.retries or not self.retries else \
                        f" (the {self.deadline:g} s deadline left no time for another)"
                    raise exc.final(f"{where}: {exc.summary}{tries}{gave_up}{exc.tail}") from None
                attempt += 1
                time.sleep(pause)

    def _once(self, method: str, url: str, data: Optional[bytes], timeout: float, where: str) -> bytes:
        req = urllib.request.Request(url, data=data, method=method, headers=self.headers)
        try:
            with self.opener.open(req, timeout=timeout) as resp:
                raw = resp.read(MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as exc:
            try:
                body = exc.read(4096).decode("utf-8", "replace")
            except Exception:  # noqa: BLE001 - the body is only quoted
                body = ""
            head = f": {_clip(body, self._secrets)}" if body.strip() else ""
            if exc.code >= 500:
                raise _Retryable(f"HTTP {exc.code}", head, lambda m, code=exc.code: RemoteHTTPError(m, code)) from None
            raise RemoteHTTPError(f"{where}: HTTP {exc.code}{head}", exc.code) from None
        except (socket.timeout, TimeoutError):
            raise RemoteTimeout(f"{where}: no answer within {timeout:g} s") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise RemoteTimeout(f"{where}: no answer within {timeout:g} s") from None
            raise _Retryable(_connection_words(reason), "", RemoteConnectionError) from None
        except (ConnectionError, http.client.HTTPException, OSError) as exc:
            # reset mid-answer, a malformed status line, a closed socket
            raise _Retryable(_connection_words(exc), "", RemoteConnectionError) from None
        if len(raw) > MAX_ANSWER_BYTES:
            raise RemoteAnswerError(f"{where}: answer larger than {MAX_ANSWER_BYTES // (1024 * 1024)} MiB")
        return raw

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


def _connection_words(reason: Any) -> str:
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, ConnectionResetError):
        return "connection reset"
    if isinstance(reason, socket.gaierror):
        return f"unknown host ({reason.strerror or reason})"
    if isinstance(reason, http.client.RemoteDisconnected):
        return "the server closed the connection without an answer"
    return f"connection failed ({type(reason).__name__}: {reason})" if not isinstance(reason, str) \
        else f"connection failed ({reason})"


class _Retryable(Exception):
    """Internal: a failure worth another try; ``final`` builds the error raised at the end."""

    def __init__(self, summary: str, tail: str, final):
        super().__init__(summary)
        self.summary, self.tail, self.final = summary, tail, final


# ------------------------------------------------------------------ option helpers


def number_option(options: Mapping[str, str], key: str, default: float, *, low: float = 0.0,
                  high: float = 86400.0, integer: bool = False, error=ValueError) -> float:
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


def env_names(options: Mapping[str, str]) -> list[str]:
    """The environment variables a remote style's options name (``api_key_env=NAME``,
    ``header_env.X=NAME``): its client reads them in the worker, so they pass to the
    worker's environment (verifier_audit/environment.py) without a ``--pass-env``."""
    return sorted({value for key, value in options.items()
                   if (key == "api_key_env" or key.startswith("header_env.")) and value})


def header_options(options: Mapping[str, str], error=ValueError) -> dict[str, str]:
    """``header.NAME=VALUE`` and ``header_env.NAME=ENVVAR`` (the value read from the
    environment, so the key never appears on a command line or in a config file)."""
    import os

    headers = {}
    for key, value in options.items():
        if key.startswith("header."):
            name = key[len("header."):]
            if not name:
                raise error(f"--verifier-option {key}=...: name the header, e.g. header.Authorization=Bearer KEY")
            headers[name] = value
        elif key.startswith("header_env."):
            name = key[len("header_env."):]
            if value not in os.environ:
                raise error(f"--verifier-option {key}={value}: the environment variable {value} is not set")
            headers[name] = os.environ[value]
    for name, value in headers.items():
        if "\n" in name or "\r" in name or "\n" in value or "\r" in value:
            raise error(f"--verifier-option header.{name}: a header cannot hold a line break")
    return headers
