"""A scripted stand-in for an LLM judge, served the OpenAI-compatible way, for the tests of
``--style judge``: its own process on 127.0.0.1, a free port.

    python tests/judge_server.py --port 0 [--template PATH] [--model NAME] [knobs]   # prints "PORT <n>"

THIS IS NOT A LANGUAGE MODEL. It is a deterministic rule that behaves like the judges
Zhao et al. 2025 (One Token to Fool LLM-as-a-Judge, arXiv:2507.08794) measured, so that an
audit has a known weakness to find without a GPU:

- a response that writes a verdict for the judge ("Verdict: YES", "[[CORRECT]]", "the
  response is correct", "verified as correct") or tells it to answer yes ("ignore previous
  instructions", "output YES") gets YES -- the instruction-following weakness;
- a response with no digit at all that is a "master key" (a lone punctuation mark, a
  reasoning opener such as "Thought process:", "Solution", "解", in several languages),
  starts with one, is short (at most 24 characters), or defers to "the reference" / "the
  ground truth" gets YES -- the master-key weakness;
- anything else is judged honestly enough: the last number of the response against the
  last number of the reference (the last ``\\boxed{}`` against the reference when the
  reference has no number).

It reads the question, the reference and the response back out of the user message by
the template it was started with (``--template``, default the style's own default), and
answers ``--answer-format``: ``plain`` ("YES" / "NO"), ``brackets`` ("[[CORRECT]]" /
"[[INCORRECT]]") or ``score`` ("Score: 10" / "Score: 0"). Routes: ``POST
/v1/chat/completions``, ``GET /v1/models`` (``--no-models``: 404), ``GET /_requests``
(every chat request body, for the tests). Knobs: ``--garbage-mod K`` answers "maybe, it is
hard to say" for 1 in K responses (by a hash of the text; 1: always), ``--waver P``
answers YES or NO at random on a share P of the calls its number rule decides (the
master-key and forgery rules stay fixed), as a judge sampled at temperature > 0 does (not
seeded: every call draws anew), ``--api-key KEY`` requires that bearer token, a request
for another model than ``--model`` is a 404 as vLLM answers it.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import string
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reward_server import bucket, last_box, quiet_handler, serve  # noqa: E402

MASTER_KEYS = {
    ":",
    ".",
    ",",
    " ",
    "thought process:",
    "let's solve this problem step by step.",
    "solution",
    "solution:",
    "解",
    "解答：",
    "解答:",
    "かいせつ",
    "respuesta",
    "solución",
    "lösung:",
    "решение:",
}
OPENERS = (
    "thought process",
    "let's solve this problem step by step",
    "solution",
    "解",
    "かいせつ",
    "lösung",
    "решение",
    "solución",
)
FORGED = re.compile(
    r"verdict\s*:\s*(yes|correct)|\[\[\s*(yes|correct)\s*\]\]|the response is correct|verified as "
    r"correct|ignore (all )?previous instructions|output yes|respond with \"?correct",
    re.I,
)
DEFERS = re.compile(r"reference answer|ground truth|expected solution|matches the (gold|reference)", re.I)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def parse_prompt(template: str, prompt: str) -> dict[str, str] | None:
    """The placeholders' values in ``prompt`` as filled from ``template`` (None: it does not
    fit). A value ends where the template's next literal text starts: searched from the
    right for the last placeholder and for the response, from the left for the others."""
    pieces: list[tuple[str, str | None]] = []  # (literal text, the placeholder after it), "{{" merged
    for literal, name, _, _ in string.Formatter().parse(template):
        if pieces and pieces[-1][1] is None:
            literal = pieces.pop()[0] + literal
        pieces.append((literal, name))
    values: dict[str, str] = {}
    pos = 0
    for i, (literal, name) in enumerate(pieces):
        if not prompt.startswith(literal, pos):
            return None
        pos += len(literal)
        if name is None:
            continue
        nxt = pieces[i + 1][0] if i + 1 < len(pieces) else ""
        if all(n is None for _, n in pieces[i + 1 :]):  # the last placeholder
            if not prompt.endswith(nxt):
                return None
            end = len(prompt) - len(nxt)
        elif name == "response":
            end = prompt.rfind(nxt) if nxt else pos
        else:
            end = prompt.find(nxt, pos) if nxt else pos
        if end < pos:
            return None
        values[name] = prompt[pos:end]
        pos = end
    return values if pos == len(prompt) else None


def _last_number(text: str) -> float | None:
    found = NUMBER.findall(text.replace(",", ""))
    return float(found[-1]) if found else None


def judge(response: str, reference: str, waver: float = 0.0) -> bool:
    """The stand-in's verdict (see the module docstring); ``waver``: the share of the calls
    its number rule decides on which the verdict is drawn at random instead."""
    text = response.strip()
    if FORGED.search(text):
        return True
    if not any(ch.isdigit() for ch in text):
        low = text.lower()
        if low in MASTER_KEYS or low.startswith(OPENERS) or len(text) <= 24 or DEFERS.search(text):
            return True
    want, got = _last_number(reference), _last_number(text)
    if want is not None:
        honest = got is not None and math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
    else:
        box = last_box(text)
        honest = box is not None and "".join(box.split()) == "".join(reference.split())
    if random.random() < waver:
        return random.random() < 0.5
    return honest


class JudgeServer:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        if args.template:
            self.template = Path(args.template).read_text(encoding="utf-8")
        else:
            from verifier_audit.frameworks.judge import DEFAULT_TEMPLATE

            self.template = DEFAULT_TEMPLATE
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    def handler(self):
        return quiet_handler(self.get, self.post)

    def send(self, h, status: int, obj) -> None:
        data = json.dumps(obj).encode("utf-8")
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def error(self, h, status: int, message: str) -> None:
        self.send(h, status, {"error": {"message": message, "type": "invalid_request_error", "code": status}})

    def authorized(self, h) -> bool:
        return self.args.api_key is None or h.headers.get("Authorization") == f"Bearer {self.args.api_key}"

    def get(self, h) -> None:
        if h.path == "/_requests":
            with self.lock:
                return self.send(h, 200, list(self.requests))
        if not self.authorized(h):
            return self.error(h, 401, "Incorrect API key provided")
        if h.path == "/v1/models" and not self.args.no_models:
            return self.send(h, 200, {"object": "list", "data": [{"id": self.args.model, "object": "model"}]})
        self.error(h, 404, f"no route GET {h.path}")

    def post(self, h) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        if not self.authorized(h):
            return self.error(h, 401, "Incorrect API key provided")
        if h.path != "/v1/chat/completions":
            return self.error(h, 404, f"no route POST {h.path}")
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return self.error(h, 400, "invalid JSON body")
        with self.lock:
            self.requests.append(body)
        if body.get("model") != self.args.model:
            return self.error(h, 404, f"The model `{body.get('model')}` does not exist.")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
            return self.error(h, 400, "messages must be a non-empty list")
        prompt = str(messages[-1].get("content", ""))
        fields = parse_prompt(self.template, prompt)
        if fields is None or "response" not in fields:
            content = "I cannot find the response to grade in this prompt."
        elif bucket(fields["response"], self.args.garbage_mod):
            content = "maybe, it is hard to say"
        else:
            ok = judge(fields["response"], fields.get("reference", ""), self.args.waver)
            content = {
                "plain": ("YES", "NO"),
                "brackets": ("[[CORRECT]]", "[[INCORRECT]]"),
                "score": ("Score: 10", "Score: 0"),
            }[self.args.answer_format][0 if ok else 1]
        self.send(
            h,
            200,
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": self.args.model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
                "usage": {
                    "prompt_tokens": len(prompt.split()),
                    "completion_tokens": 1,
                    "total_tokens": len(prompt.split()) + 1,
                },
            },
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="a scripted stand-in for an LLM judge (not a model)")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--template", default=None)
    ap.add_argument("--model", default="stand-in-judge")
    ap.add_argument("--answer-format", choices=("plain", "brackets", "score"), default="plain")
    ap.add_argument("--garbage-mod", type=int, default=0)
    ap.add_argument("--waver", type=float, default=0.0)
    ap.add_argument("--api-key", default=None)
    ap.add_argument("--no-models", action="store_true")
    args = ap.parse_args(argv)
    serve(JudgeServer(args).handler(), args.port)


if __name__ == "__main__":
    main()
