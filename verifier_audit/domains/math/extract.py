"""Find the final answer(s) in a whole model completion.

Only the response is read: the text after the first ``</think>`` when there is one
(``response``; a guess in the think block is scratch work, not an answer).

Preference order (the first method that finds something wins)::

    boxed         \\boxed{...} / \\fbox{...}, every outermost box, braces balanced
    final_answer  "final answer is X", "the answer is X"
    answer_colon  a line "Answer: X"
    hashes        "#### 72" (GSM8K)
    bold          the last **X**
    last_line     the last non-empty line

Everything is linear in the input: boxes are matched by one bounded regex pass over the
braces (no recursion; an unclosed box is tolerated), anchored regexes elsewhere; a 2 MB completion takes
milliseconds. ``conflict`` is set when the answers found are not all the same, first by
text and then by the oracle's equivalence (so ``\\boxed{1/2} ... \\boxed{0.5}`` is fine and
``\\boxed{2} ... \\boxed{3}`` is a shotgun). A "final answer is X" written after the last box
counts too, so a retraction at the end is not hidden by an earlier box.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import islice

MAX_ANSWER_CHARS = 10_000  # the parser refuses longer answers anyway
MAX_ANSWERS = 1_000  # more stated answers than this is a conflict without looking further

THINK_CLOSE = "</think>"  # ends a reasoning model's scratch work (``response``)
_BOX_OPEN = re.compile(r"\\(?:boxed|fbox)\s*\{")
_BRACE = re.compile(r"\\[{}]|[{}]")
_BOX_BARE = re.compile(r"\\boxed[ \t]+([^\s{$][^\s$]*)")
_FINAL = re.compile(r"(?:final\s+answer|the\s+answer)(?![a-z])(?:[ \t]+is)?[ \t]*[:=]?", re.I)
_ANSWER_COLON = re.compile(r"^[ \t>*_#]*answer[ \t*_]*[:：][ \t*_]*(.*)$", re.I | re.M)
_HASHES = re.compile(r"^[ \t]*####[ \t]*([-+$\\.\d].*)$", re.M)
_WRAP_START = re.compile(r"^(?:\*\*|__|\$\$?|\\\(|\\\[)+")
_WRAP_END = re.compile(r"(?:\*\*|__|\$\$?|\\\)|\\\])+[.,;]?$")
_SENTENCE_END = re.compile(r"\.\s")
_BOLD = re.compile(r"\*\*([^*\n]{1,300})\*\*")


@dataclass
class Extraction:
    answers: list[str] = field(default_factory=list)  # raw answer strings, in order
    method: str = "none"  # boxed | final_answer | answer_colon | hashes | bold | last_line | none
    conflict: bool = False  # several answers that are not the same answer


def _boxes(text: str) -> list[tuple[str, int]]:
    """(content, end offset) of every outermost \\boxed{...}; braces inside are balanced."""
    return [(content, end) for _, content, end in box_spans(text)]


def box_spans(text: str) -> list[tuple[int, str, int]]:
    """(start offset, content, end offset) of every outermost \\boxed{...}: what the oracle
    reads as boxed answers (the answer formats rewrite exactly these spans).

    Linear time, no recursion: each box's closing brace is looked for within
    MAX_ANSWER_CHARS only (a longer content is unparseable anyway), and the search for the
    next box resumes after what was consumed. An unclosed box runs to that limit or the end.
    """
    out: list[tuple[int, str, int]] = []
    pos = 0
    while len(out) <= MAX_ANSWERS and (m := _BOX_OPEN.search(text, pos)) is not None:
        start, depth = m.end(), 1
        limit = min(len(text), start + MAX_ANSWER_CHARS + 1)
        for b in _BRACE.finditer(text, start, limit):
            if len(b.group()) == 2:  # \{ or \}: a set brace, not a group
                continue
            depth += 1 if b.group() == "{" else -1
            if depth == 0:
                out.append((m.start(), text[start : b.start()], b.end()))
                pos = b.end()
                break
        else:
            out.append((m.start(), text[start:limit], limit))
            pos = limit
    if not out:
        out = [(b.start(), b.group(1), b.end()) for b in islice(_BOX_BARE.finditer(text), MAX_ANSWERS + 1)]
    return out


def _clean(ans: str) -> str:
    """Strip what surrounds an answer on a line: $...$, **bold**, a full stop."""
    ans = ans[: MAX_ANSWER_CHARS + 1].strip()  # cut first: the regexes below then stay cheap
    ans = _WRAP_END.sub("", _WRAP_START.sub("", ans))
    return ans.strip().rstrip(".").strip()


def _line_end(text: str, pos: int) -> int:
    """End of the line at pos, looking at most MAX_ANSWER_CHARS ahead (keeps scans linear)."""
    end = text.find("\n", pos, pos + MAX_ANSWER_CHARS)
    return end if end >= 0 else min(len(text), pos + MAX_ANSWER_CHARS)


def _rest_of_line(text: str, pos: int) -> str:
    end = _line_end(text, pos)
    line = text[pos:end]
    if not line.strip() and text.startswith("\n", end):  # "Final answer:\n 42"
        line = text[end + 1 : _line_end(text, end + 1)]
    return line


def _final_statements(text: str, after: int = 0) -> list[str]:
    found = []
    matches = list(islice(_FINAL.finditer(text, after), MAX_ANSWERS + 1))
    for m, nxt in zip(matches, [*matches[1:], None]):
        if nxt is not None and nxt.start() < _line_end(text, m.end()):
            continue  # "Final Answer: The final answer is 5": the later one on the line
        rest = _rest_of_line(text, m.end())
        ans = _clean(_SENTENCE_END.split(rest, maxsplit=1)[0])  # "5. I hope it is correct."
        if ans:
            found.append(ans)
    return found


def extract_answers(completion: str) -> Extraction:
    answers, method = stated_answers(completion)
    return _result(answers, method) if answers else Extraction()


def stated_answers(completion: str) -> tuple[list[str], str]:
    """The raw answers a completion states and the method that found them, not judged
    against each other: no parser runs, so this is safe on hostile text in any process."""
    if not isinstance(completion, str) or not completion.strip():
        return [], "none"
    text = response(completion)
    if not text.strip():
        return [], "none"
    boxes = [(c.strip(), end) for c, end in _boxes(text)]
    boxes = [(c, end) for c, end in boxes if c]  # an empty \boxed{} is no answer
    if boxes:
        answers = [c for c, _ in boxes]
        tail = [a for a in _final_statements(text, boxes[-1][1]) if "\\boxed" not in a]
        tail += _colon_answers(text, boxes[-1][1])
        return [*answers, *tail], "boxed"
    for method, find in (
        ("final_answer", lambda: _final_statements(text)),
        ("answer_colon", lambda: _colon_answers(text)),
        ("hashes", lambda: _cleaned(_HASHES.finditer(text))),
        ("bold", lambda: _last_bold(text)),
    ):
        answers = find()
        if answers:
            return answers, method
    lines = [ln for ln in text.strip().splitlines()[-1:] if ln.strip()]
    if lines:
        return [_clean(lines[-1])], "last_line"
    return [], "none"


def response(completion: str) -> str:
    """What a completion answers with: the text after its first ``</think>``, or all of it.

    The think block is scratch work (DeepSeek-R1's format, arXiv:2501.12948: the reasoning
    in ``<think>...</think>``, then the answer), so a guess made there and dropped is no
    answer. Everything after the first ``</think>`` is the response, a stray second
    ``</think>`` included: a right box, ``</think>``, a wrong box is two answers (a
    conflict), however a grader that reads only up to the second tag sees it (issue 33).
    """
    close = completion.find(THINK_CLOSE)
    return completion if close < 0 else completion[close + len(THINK_CLOSE) :]


def _cleaned(matches) -> list[str]:
    """Group 1 of at most MAX_ANSWERS + 1 matches, cleaned, empty ones dropped."""
    return [a for a in (_clean(m.group(1)) for m in islice(matches, MAX_ANSWERS + 1)) if a]


def _colon_answers(text: str, after: int = 0) -> list[str]:
    return _cleaned(_ANSWER_COLON.finditer(text, after))


def _last_bold(text: str) -> list[str]:
    last = None
    for last in _BOLD.finditer(text):  # noqa: B007 -- keeps the last match, read after the loop
        pass
    return _cleaned([last]) if last else []


def _result(answers: list[str], method: str) -> Extraction:
    if len(answers) > MAX_ANSWERS:  # a thousand stated answers is a shotgun, whatever they say
        return Extraction(answers[:MAX_ANSWERS], method, True)
    return Extraction(answers, method, _conflicting(answers))


def _conflicting(answers: list[str]) -> bool:
    """Not all the same answer. Compares each with the first: linear, early exit."""
    norm = [re.sub(r"\s+", "", a) for a in answers]
    if len(set(norm)) <= 1:
        return False
    from .answer import ParseError  # sympy: imported on the first conflict, not with the module
    from .equivalence import equivalent
    from .latex import parse_answer

    try:
        first = parse_answer(answers[0])
    except ParseError:
        return True
    for ans, key in zip(answers[1:], norm[1:]):
        if key == norm[0]:
            continue
        try:
            if not equivalent(first, parse_answer(ans)):
                return True
        except ParseError:
            return True
    return False


def final_answer(completion: str) -> str | None:
    """The single final answer, or None when there is none or the answers conflict."""
    found = extract_answers(completion)
    if not found.answers or found.conflict:
        return None
    return found.answers[-1]


def answer_span(completion: str) -> str:
    """The final answer as the completion writes it, for a report to clip an example around
    (``Example.answer``); "" when there is none or the answers conflict."""
    return final_answer(completion) or ""
