"""Text made safe and short for plain-text output, shared by the terminal report, its
exploitability and failure sections and the scan's text output: hostile characters shown
as escapes (``printable``), a completion's end on one line (``one_line``), a completion
clipped around its answer without hiding either end (``excerpt``)."""

from __future__ import annotations

_VOWEL_SOUND = ("a", "e", "i", "o", "u")


def article(noun: str) -> str:
    """``noun`` with its indefinite article: "an int", "a str", "a NoneType" -- for messages
    that name a type or kind at run time (issue 31: "a int"). By the first letter, which is
    right for the names Python gives its types; "an" before a vowel."""
    return f"{'an' if noun[:1].lower() in _VOWEL_SOUND else 'a'} {noun}"


def printable(text: str) -> str:
    """Hostile text (NUL, lone surrogates, escape sequences) shown as escapes, never raw."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in text)


def one_line(text: str, width: int = 70) -> str:
    """The end of a completion on one line: that is where the final answer sits."""
    flat = " ".join(printable(text).split())
    return flat if len(flat) <= width else "…" + flat[-(width - 1) :]


def excerpt(text: str, width: int = 70, focus: str = "") -> str:
    """A completion on one escaped line of at most ``width`` characters that hides neither
    end: a hack can sit at the start (the ``SET`` of a stacked query) as well as at the end
    (the final answer). When ``focus`` (the answer, say) occurs in the text, its last
    occurrence is kept whole and the rest of the room goes to the text's start and what
    follows the focus; else the
    head and the tail are kept, the middle elided ("head … tail"). Never cuts through the
    focus unless the focus alone is wider than ``width`` (then its end is kept)."""
    flat = " ".join(printable(text).split())
    if len(flat) <= width:
        return flat
    width = max(width, 9)
    key = " ".join(printable(focus).split()) if focus else ""
    at = flat.rfind(key) if key else -1
    if at < 0 or len(key) > width - 2:
        if at >= 0:  # the focus alone fills the line: its end, where a number's last digits are
            return "…" + flat[at + len(key) - (width - 1) : at + len(key)]
        head = (width - 1) // 3
        tail = width - 1 - head
        return flat[:head] + "…" + flat[-tail:]
    room = width - len(key)
    before = min(at, room // 2)
    after = min(len(flat) - at - len(key), room - before)
    before = min(at, room - after)
    start, end = at - before, at + len(key) + after
    # What precedes the answer, when it does not fit, is shown from the text's start, not
    # from just before the answer: a hack sits at the start (the ``SET`` stacked before a
    # query, issue 31) and the elision then falls between it and the answer.
    left = flat[: before - 1] + "…" if start > 0 else flat[start:at]
    right = flat[at + len(key) : end - 1] + "…" if end < len(flat) else flat[at + len(key) : end]
    return left + key + right
