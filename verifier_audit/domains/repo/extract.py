"""The diff in a completion: a model writes prose around its patch and often fences it.

``diff_of`` takes the fenced blocks that hold a unified diff (```` ```diff ````, or any
fence whose lines include ``--- `` and ``+++ ``), joined in order; without one, the whole
text, whose prose ``patches.parse_patch`` skips (it reads from the first ``---``/``+++``
pair, and a hunk ends where its header's line counts say). Nothing of the text runs.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_HEADERS = re.compile(r"^--- .*\n\+\+\+ ", re.MULTILINE)


def diff_of(text: str) -> str:
    """The unified diff a completion holds ("" when it holds none)."""
    fenced = [block for block in _FENCE.findall(text) if _HEADERS.search(block)]
    if fenced:
        return "".join(block if block.endswith("\n") else block + "\n" for block in fenced)
    return text if _HEADERS.search(text) else ""


def answer_span(text: str) -> str:
    """What a report clips an example around: the diff."""
    return diff_of(text)
