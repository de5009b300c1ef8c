"""Step 5: the whole answer: hedges, prose, letter choices, then math.

:func:`parse_answer` is the entry point: it normalises and tokenises the text, treats
'2 or 3' as a hedge and 'Monday' / '(B)' as text, and hands everything else to the parser.
Results are memoised per string.
"""

from __future__ import annotations

import functools
import re

import sympy

from ..answer import Answer, Kind, ParseError
from .normalise import _normalise
from .parser import _Parser
from .tokens import _CONSTANT_WORDS, FILLER, FUNCTIONS, GREEK, HEDGE_CMDS, HEDGE_WORDS, _Tok, _tokenize

_CHOICE = re.compile(r"\(?\s*([A-Ja-j])\s*\)?")
_LATEX_CMD = re.compile(r"\\[A-Za-z]+")
_MATH_NAMES = set(FUNCTIONS) | set(_CONSTANT_WORDS) | GREEK


def _is_hedge_word(t: _Tok) -> bool:
    return (t.kind == "word" and t.text.lower() in HEDGE_WORDS) or (t.kind == "cmd" and t.text in HEDGE_CMDS)


def _hedge(toks: list[_Tok]) -> Answer:
    """'2 or 3', '2 \\text{ (or maybe 3)}', '0 \\lor -7': alternatives, never an answer.

    The one exception: alternatives that are all intervals ('x < 1 or x > 2') are a union.
    """
    chunks, current = [], []
    for t in toks:
        if _is_hedge_word(t):
            chunks.append(current)
            current = []
        elif not (t.kind == "word" and t.text.lower() in FILLER):
            current.append(t)
    chunks.append(current)
    items, failed = [], False
    for chunk in chunks:
        while chunk and chunk[0].kind == "op" and chunk[0].text in "(),":
            chunk = chunk[1:]
        while chunk and chunk[-1].kind == "op" and chunk[-1].text in "(),.":
            chunk = chunk[:-1]
        try:
            items.append(_Parser(chunk).parse())
        except (ParseError, ArithmeticError, ValueError, TypeError):
            failed = True  # the alternatives are only shown in reports
    if not failed and len(items) > 1 and all(i.kind == Kind.INTERVAL for i in items):
        # "x < 1 or x > 2" is how a union is written, not a hedge
        return Answer(
            Kind.INTERVAL, sympy.Union(*(i.value for i in items)), approximate=any(i.approximate for i in items)
        )
    return Answer(Kind.HEDGE, items=tuple(items))


def _without_brace_layers(toks: list[_Tok]) -> list[_Tok]:
    """``{{\\text{A}}}`` is ``\\text{A}``: a group around the whole answer changes nothing
    (issue 33: the extra layer made a right letter choice "unparseable"). Only layers that
    wrap everything are peeled, so ``{a}{b}`` is left as it is."""
    while len(toks) >= 2 and _is_op(toks[0], "{") and _is_op(toks[-1], "}") and _wraps_all(toks):
        toks = toks[1:-1]
    return toks


def _is_op(t: _Tok, *texts: str) -> bool:
    return t.kind == "op" and t.text in texts


def _is_cmd(t: _Tok, *names: str) -> bool:
    return t.kind == "cmd" and t.text in names


def _wraps_all(toks: list[_Tok]) -> bool:
    """Does the opening brace at toks[0] close at toks[-1] (and not earlier)?"""
    depth = 0
    for i, t in enumerate(toks):
        if _is_op(t, "{", "}"):
            depth += 1 if t.text == "{" else -1
            if depth == 0:
                return i == len(toks) - 1
    return False


def _text_answer(norm: str, toks: list[_Tok]) -> Answer | None:
    """A letter choice ('(B)', '\\text{(b)}') or prose ('Monday', 'yes'), lowercased.

    Text compares without case ('sunday' is 'Sunday'). A sign in front of the text
    ('-\\text{Sunday}', '\\pm\\text{A}', '+A') is refused: it is not the word, nor a number
    (the candidate is then unparseable, so wrong)."""
    core = [t for t in _without_brace_layers(toks) if not (t.kind == "op" and t.text in ".:!")]
    signs = 0
    while signs < len(core) and (_is_op(core[signs], "+", "-") or _is_cmd(core[signs], "pm", "mp")):
        signs += 1  # a loop, not a recursion: '------5' is 9,000 signs deep
    if signs:
        if signs < len(core) and _text_answer(norm, core[signs:]) is not None:  # no sign left there
            raise ParseError(f"a sign before the text answer {norm!r}: no text answer has one; write the text alone")
        return None
    plain = " ".join(re.sub(r"[^a-z0-9]+", " ", _LATEX_CMD.sub(" ", norm).lower()).split())
    if (
        len(core) >= 3
        and core[0].text == "("
        and core[2].text == ")"
        and core[1].kind in ("letter", "word")
        and _CHOICE.fullmatch(core[1].text)
        and (len(core) == 3 or core[1].text.isupper())
    ):  # "(B)", "(C) 5"
        return Answer(Kind.TEXT, core[1].text.lower())
    if (
        len(core) == 1
        and len(core[0].text) == 1
        and (
            (core[0].kind == "word" and core[0].textmode and core[0].text.isalpha())
            or (core[0].kind == "letter" and core[0].text in "ABCDE")
        )
    ):
        return Answer(Kind.TEXT, core[0].text.lower())
    prose = all(t.kind in ("word", "letter") or (t.kind == "op" and t.text in ",'-?") for t in core)
    if core and prose and any(t.kind == "word" and t.text not in _MATH_NAMES for t in core):
        return Answer(Kind.TEXT, plain)
    return None


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str) -> Answer:
    norm = _normalise(text)
    toks = _tokenize(norm)
    if not toks:
        raise ParseError("empty answer")
    if any(_is_hedge_word(t) for t in toks):
        ans = _hedge(toks)
    else:
        ans = _text_answer(norm, toks) or _Parser(toks).parse()
    return Answer(ans.kind, ans.value, ans.items, ans.percent, ans.approximate, ans.claims, source=text)


def parse_answer(text: str) -> Answer:
    """Parse one final answer (LaTeX or plain text). Raises ParseError and nothing else."""
    if not isinstance(text, str):
        raise ParseError(f"answer must be a string, not {type(text).__name__}")
    try:
        return _parse_cached(text)
    except ParseError:
        raise
    except RecursionError:
        raise ParseError("answer nested too deeply") from None
    except Exception as exc:  # sympy raises many types on odd input; callers see one
        raise ParseError(f"internal: {type(exc).__name__}: {exc}") from None
