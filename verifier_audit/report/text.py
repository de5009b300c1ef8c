"""Text made safe and short for plain-text output, shared by the terminal report, its
exploitability and failure sections and the scan's text output: hostile characters shown
as escapes (``printable``), a completion's end on one line (``one_line``)."""

from __future__ import annotations


def printable(text: str) -> str:
    """Hostile text (NUL, lone surrogates, escape sequences) shown as escapes, never raw."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in text)


def one_line(text: str, width: int = 70) -> str:
    """The end of a completion on one line: that is where the final answer sits."""
    flat = " ".join(printable(text).split())
    return flat if len(flat) <= width else "…" + flat[-(width - 1):]
