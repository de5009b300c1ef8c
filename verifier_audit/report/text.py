"""Text from a verifier or a candidate, made safe to print on one line: the terminal report,
its exploitability and failure sections all show it this way."""

from __future__ import annotations


def _printable(text: str) -> str:
    """Hostile text (NUL, lone surrogates, escape sequences) shown as escapes, never raw."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in text)


def _one_line(text: str, width: int = 70) -> str:
    """The end of a completion on one line: that is where the final answer sits."""
    flat = " ".join(_printable(text).split())
    return flat if len(flat) <= width else "…" + flat[-(width - 1):]
