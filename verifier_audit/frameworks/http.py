"""A reward server over HTTP: ``--verifier http://HOST:PORT/PATH --style http``.

Two request shapes (``--verifier-option shape=...``):

``openrlhf`` (default): OpenRLHF's remote reward model protocol. OpenRLHF POSTs
``{"query": [...], "prompts": [...], "labels": [...]}`` -- ``query`` is the prompt and the
response decoded together (prompt + response, one string per sample), ``labels`` the
dataset's label column -- and reads ``rewards`` (the reward of the advantage) and
``scores`` (dynamic filtering; ``rewards`` when absent) from the JSON answer
(OpenRLHF/OpenRLHF ``openrlhf/utils/agent.py``, ``SingleTurnAgentExecutor._fetch_rewards_via_http``;
before 2026 ``openrlhf/utils/remote_rm_utils.py``; the example server
``openrlhf/cli/serve_rm.py`` answers ``{"rewards": r, "scores": r, "extra_logs": ...}`` on
``/get_reward``). We send one sample per request, ``query = prompt + separator +
completion`` (``separator`` defaults to nothing, as OpenRLHF's decoded tokens have none
beyond what the chat template wrote), and read ``rewards`` -- a list of one number, or a
number -- then ``scores``, then a bare JSON list of one number.

``json``: a generic JSON POST. ``field.completion=response`` puts the completion under
``response`` (a dotted name nests: ``field.completion=input.text``); the fields are
``completion``, ``prompt``, ``reference``, ``task_id`` (each sent under its own name unless
mapped; ``field.prompt=`` with no value leaves it out), and ``query`` (prompt +
completion), ``split``, ``metadata`` (sent only when mapped). ``const.NAME=VALUE`` adds a
fixed string field (``const.data_source=math``). The score is read at ``score=PATH``, a
dotted path into the answer (``result.reward``, ``rewards[0]``, ``rewards.0``); by default
``score``, then ``reward``, ``rewards[0]``, ``scores[0]``, or a bare number.

Other options: ``timeout`` (seconds per request, default 5, the whole answer included: a
body still arriving then is a timeout; keep it below the audit's ``--timeout``), ``retries`` (default 2: connection errors, 5xx and 429 only; each
counted in the report's ``remote``), ``deadline``
(all attempts of one call, default 9 s), ``header.NAME=VALUE`` and
``header_env.NAME=ENVVAR`` (e.g. an API key; never shown in errors), ``follow_redirects``
(default false: a 3xx is an error; true follows redirects on the server's own origin, never
to another one, where the key would go: ``_client.py``). Anything the server
does wrong -- a timeout, a 5xx, a refused connection, an answer that is not JSON, lacks the
reward, or holds NaN -- raises, and the audit records an error verdict (docs/frameworks-remote.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import VerifierLoadError
from ..models import Task
from ..report.text import article
from ..scores import OUT_OF_RANGE, ScoreError, ScoreOutOfRange
from ..scores import read_score as _read_value  # this module's read_score reads the answer's reward field
from ._client import (
    DEFAULT_DEADLINE,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    JSONClient,
    RemoteAnswerError,
    display_url,
    follow_redirects_option,
    header_options,
    number_option,
)

SHAPES = ("openrlhf", "json")
FIELDS = ("completion", "prompt", "reference", "task_id", "query", "split", "metadata")
DEFAULT_FIELDS = ("completion", "prompt", "reference", "task_id")
JSON_SCORE_PATHS = ("score", "reward", "rewards[0]", "scores[0]")
_PLAIN = {"shape", "timeout", "retries", "deadline", "score", "separator", "follow_redirects"}
_PREFIXES = ("header.", "header_env.", "field.", "const.")


def prepare_options(options: Mapping[str, str]) -> dict[str, str]:
    """Check the options in the parent, before any worker starts (a typo is a usage error,
    not an audit full of error verdicts); returns them unchanged."""
    options = dict(options)
    settings(options)
    return options


def settings(options: Mapping[str, str]) -> dict[str, Any]:
    unknown = sorted(k for k in options if k not in _PLAIN and not k.startswith(_PREFIXES))
    if unknown:
        raise VerifierLoadError(
            f"--style http: unknown --verifier-option {', '.join(unknown)}; known: "
            f"{', '.join(sorted(_PLAIN))}, header.NAME, header_env.NAME, field.NAME, const.NAME"
        )
    shape = options.get("shape", "openrlhf") or "openrlhf"
    if shape not in SHAPES:
        raise VerifierLoadError(f"--verifier-option shape={shape}: expected one of {', '.join(SHAPES)}")
    fields = {}
    for key, value in options.items():
        if key.startswith("field."):
            name = key[len("field.") :]
            if name not in FIELDS:
                raise VerifierLoadError(
                    f"--verifier-option {key}: no field {name!r}; the fields are {', '.join(FIELDS)}"
                )
            fields[name] = value
    if shape == "openrlhf" and (fields or any(k.startswith("const.") for k in options)):
        raise VerifierLoadError(
            "--verifier-option field.*/const.* set the body of shape=json; OpenRLHF's body is fixed "
            "(query, prompts, labels): add --verifier-option shape=json"
        )
    mapping = {name: fields.get(name, name if name in DEFAULT_FIELDS else "") for name in FIELDS}
    mapping = {name: target for name, target in mapping.items() if target}
    consts = {k[len("const.") :]: v for k, v in options.items() if k.startswith("const.")}
    if shape == "json" and not any(n in mapping for n in ("completion", "query")):
        raise VerifierLoadError(
            "--style http shape=json: the body must carry the completion (field.completion=NAME or field.query=NAME)"
        )
    timeout = number_option(options, "timeout", DEFAULT_TIMEOUT, high=3600, error=VerifierLoadError)
    deadline = number_option(options, "deadline", max(DEFAULT_DEADLINE, timeout), high=86400, error=VerifierLoadError)
    score = options.get("score") or None
    if score is not None:
        parse_path(score)
    return {
        "shape": shape,
        "mapping": mapping,
        "consts": consts,
        "score": score,
        "timeout": timeout,
        "deadline": deadline,
        "retries": int(
            number_option(options, "retries", DEFAULT_RETRIES, high=10, integer=True, error=VerifierLoadError)
        ),
        "headers": header_options(options, error=VerifierLoadError),
        "separator": options.get("separator", ""),
        "follow_redirects": follow_redirects_option(options, error=VerifierLoadError),
    }


# ------------------------------------------------------------------------- the body


def body_for(text: str, task: Task, conf: Mapping[str, Any]) -> Any:
    query = task.prompt + conf["separator"] + text
    if conf["shape"] == "openrlhf":
        return {"query": [query], "prompts": [task.prompt], "labels": [task.reference]}
    values = {
        "completion": text,
        "prompt": task.prompt,
        "reference": task.reference,
        "task_id": task.id,
        "query": query,
        "split": task.split,
        "metadata": task.metadata,
    }
    body: dict[str, Any] = {}
    for name, value in conf["consts"].items():
        _put(body, name, value)
    for name, target in conf["mapping"].items():
        _put(body, target, values[name])
    return body


def _put(body: dict, dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = body
    for part in parents:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise VerifierLoadError(f"field name {dotted!r} nests under a field that holds a value")
    node[last] = value


# ------------------------------------------------------------------------- the score

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def parse_path(path: str) -> list[str | int]:
    """``result.rewards[0]`` -> ["result", "rewards", 0]; a part of digits also indexes a list."""
    steps: list[str | int] = []
    for part in path.split("."):
        if not part:
            raise VerifierLoadError(f"--verifier-option score={path}: an empty step in the path")
        pos = 0
        for m in _STEP.finditer(part):
            if m.start() != pos:
                break
            steps.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
            pos = m.end()
        if pos != len(part):
            raise VerifierLoadError(f"--verifier-option score={path}: cannot read {part!r} (write a.b[0] or a.b.0)")
    return steps


_MISSING = object()


def lookup(answer: Any, path: str) -> Any:
    node = answer
    for step in parse_path(path):
        if isinstance(node, list):
            try:
                index = int(step)
            except ValueError:
                return _MISSING
            if not -len(node) <= index < len(node):
                return _MISSING
            node = node[index]
        elif isinstance(node, dict):
            key = str(step)
            if key not in node:
                return _MISSING
            node = node[key]
        else:
            return _MISSING
    return node


def as_number(value: Any, where: str, what: str) -> float:
    if isinstance(value, dict) and "score" in value:  # a verl-style {"score": ..., "acc": ...}
        value = value["score"]
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, list):
        raise RemoteAnswerError(f"{where}: {what} is a list of {len(value)} values for the one query sent")
    try:  # the one reading of a score every call style shares (a str "1.0" is refused, not converted)
        return _read_value(value).value
    except ScoreError as exc:
        error = RemoteAnswerError(f"{where}: {what} {exc}")
        if isinstance(exc, ScoreOutOfRange):  # counted with the report's out-of-range scores, by this kind
            error.verdict_error = f"{OUT_OF_RANGE}: {error}"
        raise error from None


def _keys(answer: Any) -> str:
    if isinstance(answer, dict):
        keys = ", ".join(list(map(str, answer))[:8])
        return f"an object with keys {keys}" if keys else "an empty object"
    return article(type(answer).__name__)


def read_score(answer: Any, conf: Mapping[str, Any], where: str) -> float:
    if conf["score"] is not None:
        value = lookup(answer, conf["score"])
        if value is _MISSING:
            raise RemoteAnswerError(
                f"{where}: the answer has no reward at {conf['score']!r} "
                f"(it is {_keys(answer)}); set --verifier-option score=PATH"
            )
        return as_number(value, where, f"the reward at {conf['score']!r}")
    if conf["shape"] == "openrlhf":
        if isinstance(answer, dict):
            for key in ("rewards", "scores"):
                if answer.get(key) is not None:
                    return as_number(answer[key], where, f"{key!r}")
        elif isinstance(answer, list):
            return as_number(answer, where, "the answer")
        raise RemoteAnswerError(
            f"{where}: the answer has no 'rewards' (nor 'scores'), as OpenRLHF expects "
            f"(it is {_keys(answer)}); set --verifier-option score=PATH"
        )
    if isinstance(answer, (bool, int, float)):
        return as_number(answer, where, "the answer")
    for path in JSON_SCORE_PATHS:
        value = lookup(answer, path)
        if value is not _MISSING and value is not None:
            return as_number(value, where, f"the reward at {path!r}")
    raise RemoteAnswerError(
        f"{where}: the answer has no reward at {', '.join(map(repr, JSON_SCORE_PATHS))} "
        f"(it is {_keys(answer)}); set --verifier-option score=PATH"
    )


# ------------------------------------------------------------------------- the caller


def make_caller(target: Any, spec: Any) -> Callable[[str, Task], float]:
    """One client per worker; one POST per candidate. ``target`` is None (nothing is imported)."""
    url = spec.spec
    conf = settings(spec.opts)
    client = JSONClient(
        "reward server",
        timeout=conf["timeout"],
        retries=conf["retries"],
        deadline=conf["deadline"],
        headers=conf["headers"],
        follow_redirects=conf["follow_redirects"],
    )
    where = f"reward server {display_url(url)}"

    def call(text: str, task: Task) -> float:
        answer = client.post(url, body_for(text, task, conf))
        return read_score(answer, conf, where)

    call.request_log = client.log  # its requests, counted per call (engine/verifier_job.py)
    return call
