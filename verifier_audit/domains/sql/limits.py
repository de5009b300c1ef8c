"""Limits on a SQL statement's size and shape, checked before anything parses it.

Parsing is the one step of running a query that no deadline can stop: sqlglot is Python
and DuckDB's parser, binder and planner do not look at an interrupt. Measured on duckdb
2.0.1 / sqlglot 30 (2 cores): an ``IN`` list of 100,000 values (590 KB) took 3.3 s in
sqlglot, 0.7 s in DuckDB's ``extract_statements`` and 2.2 s more in DuckDB before its
first interrupt check; a chain of 4,000 ``UNION ALL`` terms ran 1.5 s past an interrupt
sent at 0.5 s. Growth is faster than linear in both. So a statement is refused, unparsed,
when it is longer than ``MAX_CHARS``, has more than ``MAX_TOKENS`` tokens, nests
parentheses deeper than ``MAX_DEPTH`` or chains more than ``MAX_SET_OPERATIONS`` set
operations. At the limits the work before the first interrupt check is bounded (a
9,988-token statement: 5 ms to scan here, 71 ms in sqlglot, 15 ms in DuckDB's parser; 500
``UNION ALL`` terms run in 49 ms); honest queries are far below them: the built-in
suite's golds have at most 116 tokens, and its largest candidate (a hard-coded answer
written as 160 ``UNION``-ed rows) 2,878 tokens and 159 set operations.

Tokens are counted by a scanner that knows where strings, quoted identifiers, dollar
quotes and comments start and end, so a long literal is one token and a ``(`` or ``UNION``
inside it counts for nothing. It stops at the first limit it passes: its own cost is
bounded too.
"""

from __future__ import annotations

import re

MAX_CHARS = 1_000_000
MAX_TOKENS = 10_000
MAX_DEPTH = 100  # nested parentheses; DuckDB's own limit is 1,000 expressions deep
MAX_SET_OPERATIONS = 500  # UNION / INTERSECT / EXCEPT

# One token per match: a string literal, a quoted identifier, a $$ or $tag$ string, a
# comment, a word, a number, or any other single character. Unterminated quotes and
# comments run to the end (DuckDB rejects them; here they are one token).
_TOKEN = re.compile(
    r"'(?:[^']|'')*'?"
    r'|"(?:[^"]|"")*"?'
    r"|\$([A-Za-z_]\w*)?\$.*?(?:\$\1\$|\Z)"
    r"|--[^\n]*"
    r"|/\*.*?(?:\*/|\Z)"
    r"|[A-Za-z_]\w*"
    r"|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+"
    r"|\S",
    re.S,
)
_SET_OPERATIONS = {"union", "intersect", "except"}


def too_long(sql: str) -> str | None:
    """Why ``sql`` is too long to look at (O(1)), or None."""
    if len(sql) > MAX_CHARS:
        return f"statement too large: {len(sql):,} characters (at most {MAX_CHARS:,})"
    return None


def shape_refusal(sql: str) -> str | None:
    """Why ``sql`` is too big to parse (size, tokens, nesting, set operations), or None."""
    reason = too_long(sql)
    if reason is not None:
        return reason
    tokens = depth = set_operations = 0
    for match in _TOKEN.finditer(sql):
        token = match.group()
        tokens += 1
        if tokens > MAX_TOKENS:
            return f"statement too large: more than {MAX_TOKENS:,} tokens"
        if token == "(":
            depth += 1
            if depth > MAX_DEPTH:
                return f"statement nested too deep: more than {MAX_DEPTH} parentheses"
        elif token == ")":
            depth = max(0, depth - 1)
        elif len(token) in (5, 6, 9) and token.lower() in _SET_OPERATIONS:
            set_operations += 1
            if set_operations > MAX_SET_OPERATIONS:
                return f"statement too large: more than {MAX_SET_OPERATIONS} UNION/INTERSECT/EXCEPT"
    return None
