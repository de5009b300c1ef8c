"""What a tripwire reports of what it caught: the walls (``_walls``, ``_unixsockets``) quote
the bytes a run left behind, and those bytes are the run's, so they are cut to one short line
of printable characters before they reach a report."""

from __future__ import annotations


def printable(data: bytes, limit: int = 80) -> str:
    """Evidence a run left (a file's first line, bytes sent to a tripwire) as one short,
    printable line."""
    text = "".join(ch if ch.isprintable() else " " for ch in data.decode("utf-8", "replace"))
    return " ".join(text.split())[:limit]
