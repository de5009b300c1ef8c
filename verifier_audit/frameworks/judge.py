"""An LLM judge behind an OpenAI-compatible chat endpoint: ``--verifier http://HOST:PORT/v1 --style judge``.

Each candidate is one ``POST {base}/chat/completions`` (vLLM, SGLang, TGI, llama.cpp's
server, OpenAI itself) with ``temperature`` 0 and ``max_tokens`` (default 16): the judge
is shown the question, the reference and the response through a prompt template, and its
answer is read by a verdict parser.

Options (``--verifier-option KEY=VALUE``):

- ``model``: the served model's name; default the first of ``GET {base}/models``, else ``judge``;
- ``template=PATH``: a text file, the user message, with ``{question}``, ``{reference}`` and
  ``{response}`` placeholders (``str.format``: write a literal brace as ``{{`` / ``}}``).
  It is read in the parent (``prepare_options`` stores its text as ``template_text``),
  since a worker may not read the host's files. Default: ``DEFAULT_TEMPLATE``, the usual
  "is the response's final answer equivalent to the reference? YES or NO" prompt of the
  judges studied by Zhao et al. 2025 (One Token to Fool LLM-as-a-Judge, arXiv:2507.08794)
  and Huang et al. 2025 (Pitfalls of Rule- and Model-based Verifiers, arXiv:2505.22203);
- ``system``: a system message (the same placeholders);
- ``max_tokens`` (default 16), ``extra_body`` (a JSON object merged into the request,
  e.g. ``{"chat_template_kwargs": {"enable_thinking": false}}``);
- ``verdict=REGEX``: where the verdict is; its first match (group 1 if it has one) must be
  one of the ``yes`` words (default ``YES,CORRECT,TRUE``: 1.0) or the ``no`` words (default
  ``NO,INCORRECT,FALSE``: 0.0). Default: the first of those words anywhere in the answer
  (case-insensitive; ``[[YES]]`` counts, "not correct" is NO), after any ``<think>...</think>``;
- ``score=REGEX``: read a number instead (group 1), divided by ``score_max`` (default 1);
- ``api_key``, or ``api_key_env=NAME`` (the key read from that environment variable):
  sent as ``Authorization: Bearer ...``; ``header.NAME=VALUE``, ``header_env.NAME=ENVVAR``;
- ``timeout`` (per request, default 5 s, the whole answer included), ``retries`` (default 2),
  ``deadline`` (default 9 s); ``follow_redirects`` (default false; true follows redirects on
  the judge's own origin only, so the key never goes to another server: ``_client.py``).

An answer the parser does not read is an error verdict ("judge answered 'maybe...', which the
verdict parser does not read"), never a rejection: an audit must not count a judge's
confusion as strictness.
"""

from __future__ import annotations

import json
import os
import re
import string
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..errors import VerifierLoadError
from ..models import Task
from ._client import (
    DEFAULT_DEADLINE,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    JSONClient,
    RemoteAnswerError,
    RemoteConnectionError,
    RemoteError,
    RemoteTimeout,
    display_url,
    follow_redirects_option,
    header_options,
    number_option,
)

DEFAULT_TEMPLATE = """\
You are checking a student's answer to a math problem against the reference answer.

Question:
{question}

Reference answer:
{reference}

Student's response:
{response}

Is the final answer in the student's response equivalent to the reference answer? If the \
response gives no final answer, or is incomplete or ambiguous, it is not equivalent. \
Answer with one word: YES or NO."""

PLACEHOLDERS = ("question", "reference", "response")
DEFAULT_YES = ("YES", "CORRECT", "TRUE")
DEFAULT_NO = ("NO", "INCORRECT", "FALSE")
DEFAULT_MAX_TOKENS = 16
DEFAULT_MODEL = "judge"
_PLAIN = {
    "model",
    "template",
    "template_text",
    "template_file",
    "system",
    "max_tokens",
    "extra_body",
    "verdict",
    "yes",
    "no",
    "score",
    "score_max",
    "api_key",
    "api_key_env",
    "timeout",
    "retries",
    "deadline",
    "follow_redirects",
}
_PREFIXES = ("header.", "header_env.")
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)


# ------------------------------------------------------------------------- options


def prepare_options(options: Mapping[str, str]) -> dict[str, str]:
    """In the parent, before any worker starts: ``template=PATH`` becomes ``template_text``
    (the file's text; ``template_file`` keeps the path for messages), and every option is
    checked, so that a typo is a usage error naming the option or the file."""
    options = dict(options)
    path = options.pop("template", None)
    if path is not None and str(path).strip():
        file = Path(os.path.expanduser(path))
        try:
            text = file.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise VerifierLoadError(
                f"--verifier-option template={path}: no file at {file} (cwd: {os.getcwd()})"
            ) from None
        except IsADirectoryError:
            raise VerifierLoadError(
                f"--verifier-option template={path}: {file} is a directory, not a text file"
            ) from None
        except OSError as exc:
            raise VerifierLoadError(
                f"--verifier-option template={path}: cannot read {file}: {exc.strerror or exc}"
            ) from None
        except UnicodeDecodeError as exc:
            raise VerifierLoadError(
                f"--verifier-option template={path}: {file} is not UTF-8 text ({exc.reason})"
            ) from None
        options["template_text"] = text
        options["template_file"] = str(file.resolve())
    settings(options)
    return options


def check_template(text: str, where: str) -> None:
    """A str.format template with only the judge's placeholders; the error says how to escape."""
    if not text.strip():
        raise VerifierLoadError(f"{where}: the template is empty")
    try:
        names = [name for _, name, spec, conv in string.Formatter().parse(text) if name is not None]
        specs = [
            (name, spec, conv)
            for _, name, spec, conv in string.Formatter().parse(text)
            if name is not None and (spec or conv)
        ]
    except ValueError as exc:
        raise VerifierLoadError(f"{where}: {exc} (a literal brace is written {{{{ or }}}})") from None
    bad = sorted({n for n in names if n not in PLACEHOLDERS})
    if bad:
        shown = ", ".join("{" + n + "}" for n in bad)
        raise VerifierLoadError(
            f"{where}: unknown placeholder(s) {shown}; the placeholders are {{question}}, "
            "{reference} and {response} (a literal brace is written {{ or }})"
        )
    if specs:
        raise VerifierLoadError(
            f"{where}: placeholder {{{specs[0][0]}}} has a format spec or conversion; "
            "write the bare name (a literal brace is written {{ or }})"
        )
    if "response" not in names:
        raise VerifierLoadError(f"{where}: the template never shows the judge the {{response}}")


def _words(options: Mapping[str, str], key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    raw = options.get(key)
    if raw is None:
        return default
    words = tuple(" ".join(w.split()).upper() for w in raw.split(",") if w.strip())
    if not words:
        raise VerifierLoadError(f"--verifier-option {key}={raw}: give words separated by commas, e.g. {key}=A")
    return words


def _regex(options: Mapping[str, str], key: str) -> re.Pattern | None:
    raw = options.get(key)
    if not raw:
        return None
    try:
        return re.compile(raw, re.I | re.S)
    except re.error as exc:
        raise VerifierLoadError(f"--verifier-option {key}={raw}: not a regular expression ({exc})") from None


def settings(options: Mapping[str, str]) -> dict[str, Any]:
    unknown = sorted(k for k in options if k not in _PLAIN and not k.startswith(_PREFIXES))
    if unknown:
        raise VerifierLoadError(
            f"--style judge: unknown --verifier-option {', '.join(unknown)}; known: "
            f"{', '.join(sorted(_PLAIN - {'template_text', 'template_file'}))}, header.NAME, "
            "header_env.NAME"
        )
    if options.get("template") and "template_text" not in options:
        # make_caller reached without prepare_options (the Python API): read it here.
        options = prepare_options(options)
    where = (
        f"--verifier-option template={options['template_file']}"
        if options.get("template_file")
        else "--verifier-option template"
    )
    template = options.get("template_text") or DEFAULT_TEMPLATE
    check_template(template, where)
    system = options.get("system") or None
    if system is not None:
        check_template_fields_only(system)
    yes, no = _words(options, "yes", DEFAULT_YES), _words(options, "no", DEFAULT_NO)
    both = set(yes) & set(no)
    if both:
        raise VerifierLoadError(f"--verifier-option yes/no: {', '.join(sorted(both))} is both a yes and a no word")
    verdict, score = _regex(options, "verdict"), _regex(options, "score")
    if verdict is not None and score is not None:
        raise VerifierLoadError("--verifier-option verdict and score: give one (a verdict word or a number)")
    extra: dict = {}
    if options.get("extra_body"):
        try:
            extra = json.loads(options["extra_body"])
        except ValueError as exc:
            raise VerifierLoadError(f"--verifier-option extra_body: not JSON ({exc})") from None
        if not isinstance(extra, dict):
            raise VerifierLoadError(
                "--verifier-option extra_body: expected a JSON object, e.g. "
                '{"chat_template_kwargs": {"enable_thinking": false}}'
            )
    key_env = options.get("api_key_env")
    if key_env and key_env not in os.environ:
        raise VerifierLoadError(
            f"--verifier-option api_key_env={key_env}: the environment variable {key_env} is not set"
        )
    header_options(options, error=VerifierLoadError)  # checked here; read again in the worker
    timeout = number_option(options, "timeout", DEFAULT_TIMEOUT, high=3600, error=VerifierLoadError)
    return {
        "model": options.get("model") or None,
        "template": template,
        "system": system,
        "max_tokens": int(
            number_option(
                options, "max_tokens", DEFAULT_MAX_TOKENS, low=1, high=1_000_000, integer=True, error=VerifierLoadError
            )
        ),
        "extra": extra,
        "yes": yes,
        "no": no,
        "verdict": verdict,
        "score": score,
        "score_max": number_option(options, "score_max", 1.0, high=1e12, error=VerifierLoadError),
        "timeout": timeout,
        "deadline": number_option(
            options, "deadline", max(DEFAULT_DEADLINE, timeout), high=86400, error=VerifierLoadError
        ),
        "retries": int(
            number_option(options, "retries", DEFAULT_RETRIES, high=10, integer=True, error=VerifierLoadError)
        ),
        "api_key": options.get("api_key") or None,
        "api_key_env": key_env or None,
        "follow_redirects": follow_redirects_option(options, error=VerifierLoadError),
        "headers": options,  # read in the worker (header_env values come from its environment)
    }


def check_template_fields_only(text: str) -> None:
    try:
        bad = sorted(
            {name for _, name, _, _ in string.Formatter().parse(text) if name is not None and name not in PLACEHOLDERS}
        )
    except ValueError as exc:
        raise VerifierLoadError(f"--verifier-option system: {exc} (a literal brace is written {{{{ or }}}})") from None
    if bad:
        raise VerifierLoadError(
            f"--verifier-option system: unknown placeholder(s) {', '.join('{' + b + '}' for b in bad)}"
        )


# ------------------------------------------------------------------------- the verdict


def verdict_pattern(yes: tuple[str, ...], no: tuple[str, ...]) -> re.Pattern:
    words = sorted(set(yes) | set(no), key=len, reverse=True)  # INCORRECT before CORRECT
    alternatives = [r"NOT\s+CORRECT", r"NOT\s+EQUIVALENT"] + [r"\s+".join(map(re.escape, w.split())) for w in words]
    return re.compile(r"(?<![A-Za-z0-9])(" + "|".join(alternatives) + r")(?![A-Za-z0-9])", re.I)


def read_verdict(answer: str, conf: Mapping[str, Any], where: str) -> float:
    """1.0 / 0.0 for a verdict word, or the number ``score=`` reads; else RemoteAnswerError."""
    text = _THINK.sub(" ", answer)
    if re.search(r"<think>", text, re.I):  # a reasoning judge cut off mid-thought
        text = ""
    if conf["score"] is not None:
        m = conf["score"].search(text)
        raw = (m.group(1) if m and m.groups() else m.group(0)) if m else None
        try:
            value = float(raw) if raw is not None else None
        except ValueError:
            value = None
        if value is None or value != value:
            raise RemoteAnswerError(
                f"{where}: judge answered {_shown(answer)}, from which score={conf['score'].pattern} reads no number"
            )
        return value / conf["score_max"]
    pattern = conf["verdict"] or verdict_pattern(conf["yes"], conf["no"])
    m = pattern.search(text)
    if m is not None:
        token = m.group(1) if m.groups() and m.group(1) is not None else m.group(0)
        word = " ".join(token.split()).upper()
        if word in conf["yes"]:
            return 1.0
        if word in conf["no"] or (conf["verdict"] is None and word.startswith("NOT ")):
            return 0.0
        raise RemoteAnswerError(
            f"{where}: judge answered {_shown(answer)}; the verdict parser read {word!r}, which is "
            f"neither a yes word ({', '.join(conf['yes'])}) nor a no word ({', '.join(conf['no'])})"
        )
    hint = (
        f"verdict={conf['verdict'].pattern}"
        if conf["verdict"] is not None
        else "default: "
        + "/".join(conf["yes"][:2])
        + " or "
        + "/".join(conf["no"][:2])
        + "; set --verifier-option verdict=REGEX"
    )
    raise RemoteAnswerError(
        f"{where}: judge answered {_shown(answer)}, which the verdict parser does not read ({hint})"
    )


def _shown(answer: str, width: int = 80) -> str:
    flat = " ".join(answer.split())
    return repr(flat if len(flat) <= width else flat[:width] + "…")


# ------------------------------------------------------------------------- the caller


def endpoints(url: str) -> tuple[str, str]:
    """(chat completions URL, models URL) for a base URL (``.../v1``) or a full endpoint."""
    base = url.rstrip("/")
    if base.endswith("/chat/completions"):
        base = base[: -len("/chat/completions")]
    return f"{base}/chat/completions", f"{base}/models"


def messages_for(text: str, task: Task, conf: Mapping[str, Any]) -> list[dict[str, str]]:
    fields = {"question": task.prompt, "reference": task.reference, "response": text}
    out = []
    if conf["system"]:
        out.append({"role": "system", "content": conf["system"].format(**fields)})
    out.append({"role": "user", "content": conf["template"].format(**fields)})
    return out


def make_caller(target: Any, spec: Any) -> Callable[[str, Task], float]:
    """One client per worker; one chat request per candidate."""
    conf = settings(spec.opts)
    chat_url, models_url = endpoints(spec.spec)
    headers = header_options(conf["headers"], error=VerifierLoadError)
    key = conf["api_key"] or (os.environ.get(conf["api_key_env"]) if conf["api_key_env"] else None)
    if key:
        headers.setdefault("Authorization", f"Bearer {key}")
    client = JSONClient(
        "judge",
        timeout=conf["timeout"],
        retries=conf["retries"],
        deadline=conf["deadline"],
        headers=headers,
        follow_redirects=conf["follow_redirects"],
    )
    where = f"judge {display_url(chat_url)}"
    state = {"model": conf["model"]}

    def model() -> str:
        if state["model"] is None:
            state["model"] = discover_model(client, models_url)
        return state["model"] or DEFAULT_MODEL

    def call(text: str, task: Task) -> float:
        body = {
            **conf["extra"],
            "model": model(),
            "messages": messages_for(text, task, conf),
            "temperature": 0,
            "max_tokens": conf["max_tokens"],
        }
        answer = client.post(chat_url, body)
        return read_verdict(content_of(answer, where), conf, where)

    call.request_log = client.log  # its requests, counted per call (engine/verifier_job.py)
    return call


def discover_model(client: JSONClient, models_url: str) -> str | None:
    """The first served model, "" when the server lists none (or has no /models): the
    default name is used then. None when the server cannot be reached: ask again next call."""
    try:
        listing = client.get(models_url)
    except (RemoteConnectionError, RemoteTimeout):
        return None
    except RemoteError:
        return ""
    data = listing.get("data") if isinstance(listing, dict) else None
    if isinstance(data, list) and data and isinstance(data[0], dict) and isinstance(data[0].get("id"), str):
        return data[0]["id"]
    return ""


def content_of(answer: Any, where: str) -> str:
    try:
        message = answer["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        shown = json.dumps(answer)[:120] if not isinstance(answer, str) else answer[:120]
        raise RemoteAnswerError(f"{where}: the answer has no choices[0].message (it is {shown})") from None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        reason = answer["choices"][0].get("finish_reason") if isinstance(answer["choices"][0], dict) else None
        raise RemoteAnswerError(
            f"{where}: the judge's message has no text (finish_reason {reason!r}; a reasoning "
            "model may need a larger max_tokens)"
        )
    return content
