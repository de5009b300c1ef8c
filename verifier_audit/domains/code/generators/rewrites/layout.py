"""The same program laid out differently: ``ast.unparse`` spacing, double quotes, a
blank line after docstrings. Cosmetic: the program's normal form must not change."""

from __future__ import annotations

import ast
import io
import random
import tokenize

from .helpers import FUNCS, docstring, unparse
from .lines import Lines


def reformat(source: str, entry_point: str, rng: random.Random) -> str | None:
    text = _requote(unparse(ast.parse(source)))
    lines = Lines(text)
    tree = ast.parse(text)
    for fn in ast.walk(tree):
        doc = docstring(fn) if isinstance(fn, FUNCS) else None
        if doc is not None and len(fn.body) > 1:
            lines.inserts.setdefault(doc.end_lineno, []).append("")  # a blank line after the docstring
    return lines.text()


def _requote(text: str) -> str:
    """Single-quoted strings in double quotes where that needs no escaping."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    lines = text.split("\n")
    for tok in reversed(tokens):  # right to left, so earlier positions stay valid
        if tok.type != tokenize.STRING or tok.start[0] != tok.end[0]:
            continue
        s = tok.string
        q = len(s) - len(s.lstrip("rbuRBUfF"))
        body = s[q + 1 : -1]
        if s[q : q + 3] == "'''" or s[q] != "'" or '"' in body:
            continue
        row, col = tok.start
        line = lines[row - 1]
        lines[row - 1] = line[:col] + s[:q] + '"' + body + '"' + line[tok.end[1] :]
    return "\n".join(lines)
