"""Math answer formats: the ways graders expect a final answer written.

=================  ==============================================================  ===============
name               the answer stated as                                            read by
=================  ==============================================================  ===============
boxed (canonical)  ``... $\\boxed{x}$`` (what the generators write)                MATH, Math-Verify, verl math
minerva            ``Final Answer: The final answer is $x$. I hope it is correct.``  lm-eval minerva_math
gsm8k              ``#### n`` on its own line (plain numbers only)                 GSM8K, verl gsm8k strict
answer_colon       ``Answer: x`` on its own line                                   MMLU-style regexes
sentence           ``The final answer is x``                                       lm-eval flexible extracts
bold               ``**x**`` on its own line                                       chat models' markdown
last_line          ``x`` alone on its own line                                     "last line" graders
answer_tag         ``The final answer is x.`` then ``<answer>x</answer>``          reasoning-gym, R1-style tags
=================  ==============================================================  ===============

The ``<answer>`` tag (reasoning-gym's ``extract_answer`` reads the last one, DeepSeek-R1
style prompts ask for it) is written after a sentence stating the same answer, on the line
before: the oracle's extraction reads the sentence (it has no tag reader), so a rewritten
candidate keeps its label, and a grader that reads only the tags reads the same answer in
them. It is the last format, so audits of graders that read any other one are unchanged.

Every format but boxed, minerva and answer_tag comes twice: with a trailing period
(``#### 13.``) and without (``#### 13``), because graders that compare strings read ``13.``
as a different answer (verl's gsm8k flexible grader compares ``"-15."``), so the period
decides what they accept. ``x`` is written as is when it is plain text (``-15``, ``2,107``) and as ``$x$``
when it is LaTeX.

A canonical completion is rewritten box by box: each outermost ``\\boxed{}`` (with the
``$``/``$$``/``\\(``/``\\[`` around it and a period right after it) becomes the format's
statement, on a line of its own; the statement takes over the lead-in of the line ("The
final answer is", "Therefore, the answer is"), since a line "The final answer is" followed
by ``#### 13`` is read as the answer "#### 13", and what followed the box on its line goes
on the next one. Two boxes (a hedge) become two statements. A box
whose content cannot be written in the format (a non-number for ``#### n``, a nested box,
an empty box, a line break) makes the whole completion unwritable there: the rewrite
returns None. So do two boxes in ``**x**`` and the last line (those formats are read as one
answer: the hedge would disappear), and text after the box in the last line.

The rewrite keeps the answers' text, so it keeps the label: the engine still asks the
oracle about every rewritten candidate and keeps only those whose label it confirms, and
tests/domains/test_answer_formats.py checks the same with Hypothesis.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ...models import Task
from ..formats import AnswerFormat, identity
from .extract import box_spans, stated_answers

# A completion that is not rewritten: a box inside a 2 MB filler is found by box_spans in
# linear time, and the lead-in is looked for in the last LEAD_IN_CHARS of its line only.
LEAD_IN_CHARS = 300

_PLAIN = re.compile(r"[-\w.,%=+/:() ]*", re.ASCII)  # written without $...$
_NUMBER = r"-?\d[\d,]*(?:\.\d+)?"
_GSM8K = re.compile(rf"{_NUMBER}(?: or {_NUMBER})*", re.ASCII)  # "13", "2,107", "13 or 12"
_TEXT_OR = re.compile(r"\s*\\text\{\s*or\s*\}\s*")  # "13 \text{ or } 12" as plain text
_LEAD_IN = re.compile(r"(?:final\s+answer|the\s+answer|the\s+result)(?:\s+is)?\s*[:=]?\s*$", re.I)
_CLAUSE_END = re.compile(r"[.!?]\s")
# Formats read as one answer: the last **x**, the last line. Two statements there are not a
# hedge any more, and a last line that is prose is no answer: such completions are not written.
_ONE_ANSWER = ("bold", "last_line")
_OPEN = ("$$", "$", "\\(", "\\[")
_CLOSE = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}
# reasoning-gym's answer tags (reasoning_gym.utils.extract_answer reads the last pair)
TAG_OPEN, TAG_CLOSE = "<answer>", "</answer>"
_TAG_TEXT = re.compile(r"</?answer\s*>", re.I)


@dataclass(frozen=True)
class _Statement:
    """How one format states one answer."""

    name: str
    shows: str
    style: str  # minerva | gsm8k | answer_colon | sentence | bold | last_line | answer_tag
    period: bool  # a period after the statement (minerva's sentence has its own)

    def state(self, answer: str) -> str | None:
        """The statement of ``answer`` without its period; None when it cannot be written."""
        if not answer or "\n" in answer or "\\boxed" in answer or "\\fbox" in answer:
            return None
        if self.style == "gsm8k":
            plain = _TEXT_OR.sub(" or ", answer).strip()
            return f"#### {plain}" if _GSM8K.fullmatch(plain) else None
        shown = _inline(answer)
        if shown is None:
            return None
        if self.style == "minerva":
            math = shown if shown.startswith("$") else f"${shown}$"
            return f"Final Answer: The final answer is {math}. I hope it is correct."
        if self.style == "answer_colon":
            return f"Answer: {shown}"
        if self.style == "sentence":
            return f"The final answer is {shown}"
        if self.style == "bold":
            return None if "**" in shown else f"**{shown}**"
        if self.style == "answer_tag":
            if _TAG_TEXT.search(answer):
                return None  # a tag inside the answer would end it early
            return f"The final answer is {shown}.\n{TAG_OPEN}{answer}{TAG_CLOSE}"
        return shown  # last_line

    def rewrite(self, text: str) -> str | None:
        return _rewrite(text, self)


def _inline(answer: str) -> str | None:
    """The answer as written in running text: plain as is, LaTeX between dollars."""
    if _PLAIN.fullmatch(answer):
        return answer
    if "$" in answer.replace("\\$", ""):
        return None  # a dollar would end the math early
    return f"${answer}$"


# In the order the audit prefers them when a verifier does not read the canonical format:
# the most specific statements first, and a format's usual spelling before its variant.
_STATEMENTS = [
    _Statement("minerva", "Final Answer: The final answer is $x$. I hope it is correct.", "minerva", False),
    _Statement("gsm8k", "#### n", "gsm8k", False),
    _Statement("gsm8k_period", "#### n.", "gsm8k", True),
    _Statement("answer_colon", "Answer: x", "answer_colon", False),
    _Statement("answer_colon_period", "Answer: x.", "answer_colon", True),
    _Statement("sentence_period", "The final answer is x.", "sentence", True),
    _Statement("sentence", "The final answer is x", "sentence", False),
    _Statement("bold", "**x**", "bold", False),
    _Statement("bold_period", "**x**.", "bold", True),
    _Statement("last_line", "x (the last line)", "last_line", False),
    _Statement("last_line_period", "x. (the last line)", "last_line", True),
    # Last: only a grader that reads none of the above is audited in it (reasoning-gym's scorers).
    _Statement("answer_tag", "The final answer is x. <answer>x</answer>", "answer_tag", False),
]
CANONICAL = "boxed"
FORMATS: list[AnswerFormat] = [AnswerFormat(CANONICAL, "\\boxed{x}", identity)] + [
    AnswerFormat(s.name, s.shows, s.rewrite) for s in _STATEMENTS
]


# ------------------------------------------------------------------------- rewriting


def _answer_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of every outermost box, widened over the math delimiters
    around it and one period right after them (the statement brings its own)."""
    out = []
    for start, content, end in box_spans(text):
        for opener in _OPEN:
            closer = _CLOSE[opener]
            before = text[:start].rstrip(" \t")
            if before.endswith(opener) and text[end:].lstrip(" \t").startswith(closer):
                start = len(before) - len(opener)
                end = end + (len(text[end:]) - len(text[end:].lstrip(" \t"))) + len(closer)
                break
        out.append((start, end + (1 if text.startswith(".", end) else 0), content.strip()))
    return out


def _drop_lead_in(prose: str) -> str:
    """The prose before an own-line statement without its "The final answer is" clause."""
    body = prose.rstrip(" \t")
    line_start = body.rfind("\n", 0, len(body)) + 1
    if line_start == len(body) and body:  # the box opened a line: the lead-in is the line before
        previous = body[:-1].rstrip(" \t")
        start = previous.rfind("\n") + 1
        if _LEAD_IN.search(previous[max(start, len(previous) - LEAD_IN_CHARS) :]):
            return _cut_clause(previous, start)
        return body
    tail_from = max(line_start, len(body) - LEAD_IN_CHARS)
    if _LEAD_IN.search(body[tail_from:]):
        return _cut_clause(body, line_start)
    return body


def _cut_clause(text: str, line_start: int) -> str:
    """``text`` without its last clause: from the last sentence end on the line (if any)."""
    window = text[max(line_start, len(text) - LEAD_IN_CHARS) :]
    ends = list(_CLAUSE_END.finditer(window))
    if ends:
        return text[: len(text) - len(window) + ends[-1].end()].rstrip(" \t")
    return text[:line_start]


def _rewrite(text: str, fmt: _Statement) -> str | None:
    spans = _answer_spans(text)
    if not spans:
        return None  # not a canonical completion: nothing to rewrite
    if fmt.style in _ONE_ANSWER and (len(spans) > 1 or (fmt.style == "last_line" and text[spans[-1][1] :].strip())):
        return None
    out: list[str] = []
    pos = 0
    for start, end, content in spans:
        stated = fmt.state(content)
        if stated is None:
            return None
        prose = _drop_lead_in(text[pos:start])
        out.append(prose + ("\n" if prose and not prose.endswith("\n") else "") + stated + ("." if fmt.period else ""))
        # What followed the box on its line goes on the next one: ", not 12." -> "not 12."
        rest = text[end:]
        end += len(rest) - len(rest.lstrip(" \t,;:"))
        if end < len(text) and not text.startswith("\n", end):
            out.append("\n")
        pos = end
    out.append(text[pos:])
    return "".join(out)


# ---------------------------------------------------------------------- the domain's hooks


def reference_completion(task: Task, rng: random.Random) -> str:
    """The task's reference as the generators write a correct candidate."""
    from .generators._common import boxed_completion

    return boxed_completion(task.reference, rng)


_FORMAT_BY_METHOD = {"hashes": "gsm8k", "answer_colon": "answer_colon", "bold": "bold", "last_line": "last_line"}


def format_of(text: str) -> str | None:
    """The format a completion states its answer in, as the oracle's extraction finds it
    (no parser runs: safe on hostile text). None when it states no answer."""
    if box_spans(text):
        return CANONICAL
    if _has_answer_tags(text):
        return "answer_tag"
    answers, method = stated_answers(text)
    if method == "final_answer":
        if "I hope it is correct" in text:
            return "minerva"
        name = "sentence"
    else:
        name = _FORMAT_BY_METHOD.get(method)
    if name is None:
        return None
    return name + ("_period" if _period_after(text, answers[-1]) else "")


def _has_answer_tags(text: str) -> bool:
    """Whether an ``<answer>`` tag is closed later in the text (two finds: linear)."""
    at = text.find(TAG_OPEN)
    return at >= 0 and text.find(TAG_CLOSE, at + len(TAG_OPEN)) >= 0


def _period_after(text: str, answer: str) -> bool:
    """Whether the last statement of ``answer`` is followed by a period (past $ and **)."""
    at = text.rfind(answer) if answer else -1
    if at < 0:
        return False
    return text[at + len(answer) : at + len(answer) + 8].lstrip("$* \t").startswith(".")


def without_final_period(text: str) -> str | None:
    """The completion without a period that ends it right after a digit ("..., not 12." ->
    "..., not 12"), or None when it does not end so. String-comparing graders read "12." as
    another number than "12", so a trap that ends in a period goes untested on them."""
    stripped = text.rstrip()
    if len(stripped) >= 2 and stripped.endswith(".") and stripped[-2] in "0123456789":
        return stripped[:-1] + text[len(stripped) :]
    return None
