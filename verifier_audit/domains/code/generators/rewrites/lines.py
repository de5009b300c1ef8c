"""Edits of the original text by line, for the kinds that only add or remove text: a
grader comparing against the reference should see that change and nothing else (no
unparse layout)."""

from __future__ import annotations

import ast


class Lines:
    """Line-level edits of the original text (so everything else stays as written)."""

    def __init__(self, source: str):
        self.lines = source.split("\n")
        self.eol = "\r" if source.count("\r\n") * 2 > source.count("\n") else ""
        self.inserts: dict[int, list[str]] = {}  # 0-based line -> lines to put before it
        self.replaced: dict[int, str | None] = {}  # 0-based line -> new text (None: deleted)

    def indent(self, node: ast.AST) -> str | None:
        """The indentation of the line ``node`` starts, when it starts the line (nothing but
        whitespace before it, no backslash continuation into it)."""
        line = self.lines[node.lineno - 1]
        prefix = line.encode("utf-8")[: node.col_offset].decode("utf-8", "replace")
        if prefix.strip() or (node.lineno > 1 and self.lines[node.lineno - 2].rstrip().endswith("\\")):
            return None
        return prefix

    def above(self, stmt: ast.AST, text: str) -> bool:
        """Put a line above ``stmt`` (above its decorators, if any), indented like it."""
        indent = self.indent(stmt)
        if indent is None:
            return False
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
        self.inserts.setdefault(first - 1, []).append(indent + text + self.eol)
        return True

    def owns_lines(self, node: ast.AST) -> bool:
        rest = self.lines[node.end_lineno - 1].encode("utf-8")[node.end_col_offset :].decode("utf-8", "replace")
        return self.indent(node) is not None and (not rest.strip() or rest.strip().startswith("#"))

    def text(self) -> str:
        out = []
        for i, line in enumerate(self.lines):
            out.extend(self.inserts.get(i, ()))
            if i not in self.replaced:
                out.append(line)
            elif self.replaced[i] is not None:
                out.append(self.replaced[i])
        return "\n".join(out)
