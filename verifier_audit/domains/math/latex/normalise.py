"""Step 1: normalisation.

Unicode look-alikes, math delimiters ($...$, \\(...\\)) and a \\boxed{...} around the whole
answer are turned into one plain LaTeX-ish string. Input that is too long, nested too deep
or holds control characters is refused here, before any tokenising or recursion.
"""

from __future__ import annotations

import re
import unicodedata

from ..answer import ParseError
from .limits import MAX_DEPTH, MAX_LEN

_UNICODE = {
    # dashes and minus signs that models emit instead of '-'
    "\u2212": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\ufe63": "-",
    "\uff0d": "-",
    "\u00d7": r"\times ",
    "\u00f7": r"\div ",
    "\u00b7": r"\cdot ",
    "\u22c5": r"\cdot ",
    "\u2219": r"\cdot ",
    "\u221a": r"\sqrt ",
    "\u03c0": r"\pi ",
    "\u221e": r"\infty ",
    "\u2264": r"\le ",
    "\u2265": r"\ge ",
    "\u2a7d": r"\le ",
    "\u2a7e": r"\ge ",
    "\u2260": r"\ne ",
    "\u2248": r"\approx ",
    "\u00b0": r"^\circ ",
    "\u00b1": r"\pm ",
    "\u2213": r"\mp ",
    "\u222a": r"\cup ",
    "\u2229": r"\cap ",
    "\u2208": r"\in ",
    "\u2205": r"\emptyset ",
    "\u2228": r"\lor ",
    "\u2227": r"\land ",
    "\u27e8": r"\langle ",
    "\u27e9": r"\rangle ",
    "\u03b8": r"\theta ",
    "\u03b1": r"\alpha ",
    "\u03b2": r"\beta ",
    "\u03b3": r"\gamma ",
    "\u03bb": r"\lambda ",
    "\u03bc": r"\mu ",
    "\u03c6": r"\phi ",
    "\u03c9": r"\omega ",
    "\u00bd": r"\frac{1}{2}",
    "\u2153": r"\frac{1}{3}",
    "\u2154": r"\frac{2}{3}",
    "\u00bc": r"\frac{1}{4}",
    "\u00be": r"\frac{3}{4}",
    "\u2155": r"\frac{1}{5}",
    "\u2159": r"\frac{1}{6}",
    "\u215b": r"\frac{1}{8}",
    "\u2044": "/",
    "\u2215": "/",
    "\u00a0": " ",
    "\u2009": " ",
    "\u202f": " ",
    "\u2007": " ",
    "\u3000": " ",
    "\u200b": "",
    "\u200c": "",
    "\u200d": "",
    "\ufeff": "",
    "\u2060": "",
    "\u201c": '"',
    "\u201d": '"',
    "\u2018": "'",
    "\u2019": "'",
}
_SUPERSCRIPT = {
    "⁰": "0",
    "¹": "1",
    "²": "2",
    "³": "3",
    "⁴": "4",
    "⁵": "5",
    "⁶": "6",
    "⁷": "7",
    "⁸": "8",
    "⁹": "9",
    "⁻": "-",
    "⁺": "+",
}
_SUPER_RUN = re.compile("[" + "".join(_SUPERSCRIPT) + "]+")
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_UNICODE_RE = re.compile("|".join(map(re.escape, _UNICODE)))


def _normalise(text: str) -> str:
    if len(text) > MAX_LEN:
        raise ParseError(f"answer longer than {MAX_LEN} characters")
    if _BAD_CHARS.search(text):
        raise ParseError("control character or lone surrogate in answer")
    # Superscripts before NFKC, which would flatten 2¹⁰⁰ into 2100.
    text = _SUPER_RUN.sub(lambda m: "^{" + "".join(_SUPERSCRIPT[c] for c in m.group()) + "}", text)
    text = _UNICODE_RE.sub(lambda m: _UNICODE[m.group()], text)
    text = unicodedata.normalize("NFKC", text)
    text = text.replace(r"\$", " ").replace("$", " ")  # math delimiters and currency
    text = text.strip()
    for opener, closer in ((r"\(", r"\)"), (r"\[", r"\]")):
        if text.startswith(opener) and text.endswith(closer):
            text = text[2:-2].strip()
    text = text.rstrip(". \t\n\r\f\v")  # a sentence's full stop: "5." -> "5"
    for _ in range(3):  # the whole answer inside \boxed{...}; deeper boxes go to the parser
        text = _unwrap_box(text)
    if not text:
        raise ParseError("empty answer")
    _check_depth(text)
    return text


def _unwrap_box(text: str) -> str:
    m = re.match(r"\\(?:boxed|fbox)\s*\{", text)
    if not m or not text.endswith("}"):
        return text
    depth = 0
    for i in range(m.end() - 1, len(text)):
        ch = text[i]
        if ch == "{" and text[i - 1] != "\\":
            depth += 1
        elif ch == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[m.end() : i].strip() if i == len(text) - 1 else text
    return text


def _check_depth(text: str) -> None:
    """Reject deep nesting in one linear pass, before any recursion can start."""
    depth = 0
    for ch in text:
        if ch in "{([":
            depth += 1
            if depth > MAX_DEPTH:
                raise ParseError(f"brackets nested deeper than {MAX_DEPTH}")
        elif ch in "})]":
            depth = max(0, depth - 1)
