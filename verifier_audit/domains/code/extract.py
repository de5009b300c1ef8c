"""The program inside a model's answer: fenced blocks, prose around them, or bare code.

Rules, in order: among fenced blocks (```python, ```py, ``` ...) that parse, the last one
that defines the entry point; else all parsing blocks joined (a helper in one block, the
function in the next); else the whole text when it parses; else the longest run of lines
that starts at a ``def``/``import``/``class``/``@`` line and parses. None when nothing does.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.S | re.M)
_CODE_LANGS = {"", "python", "py", "python3", "py3", "pycon"}
_STARTS = re.compile(r"^(def |async def |class |import |from |@)")


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def defines(code: str, name: str) -> bool:
    """Whether ``code`` defines ``name`` at module level (def, or assignment of a callable)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
    return False


def extract_code(text: str, entry_point: str) -> str | None:
    blocks = [m.group(3) for m in _FENCE.finditer(text) if m.group(2).lower() in _CODE_LANGS]
    good = [b for b in blocks if b.strip() and _parses(b)]
    for block in reversed(good):
        if defines(block, entry_point):
            return block
    if good:
        joined = "\n\n".join(good)
        return joined if _parses(joined) else good[-1]
    if blocks:
        return None  # fenced code that does not parse: the answer's code is broken
    if text.strip() and _parses(text):
        return text
    lines = text.splitlines()
    best: str | None = None
    for start, line in enumerate(lines):
        if not _STARTS.match(line):
            continue
        for end in range(len(lines), start, -1):
            chunk = "\n".join(lines[start:end])
            if _parses(chunk):
                if best is None or len(chunk) > len(best):
                    best = chunk
                break
        if best is not None and defines(best, entry_point):
            return best
    return best


def def_header(source: str, fn: ast.FunctionDef) -> tuple[str, int]:
    """The text of ``fn``'s def line(s) as written, from ``def`` to the colon that ends the
    signature, and the colon's row; ValueError when it cannot be found."""
    depth, start = 0, None
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if start is None:
            if tok.type == tokenize.NAME and tok.string == "def" and tok.start[0] == fn.lineno:
                start = tok.start
            continue
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
        elif tok.type == tokenize.OP and tok.string == ":" and depth == 0:
            # rows as tokenize counts them: at \n only, not at \f or U+2028 (splitlines would)
            lines = io.StringIO(source).readlines()[start[0] - 1 : tok.end[0]]
            lines[-1] = lines[-1][: tok.end[1]]
            lines[0] = lines[0][start[1] :]
            return "".join(lines), tok.end[0]
    raise ValueError(f"cannot find the signature of {fn.name}")
