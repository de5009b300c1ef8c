"""substring-match: the reference looked for anywhere in the model's text."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...models import Severity
from .._facts import FunctionInfo, ModuleInfo
from .._rule import Hit, Rule
from .._syntax import snippet
from .._taint import GOLD, is_gold_only, sources

# haystack.method(needle): each is true (or >= 0) when the needle appears somewhere.
_METHODS = frozenset({"find", "rfind", "index", "rindex", "count", "startswith", "endswith", "__contains__"})
# re.function(pattern, haystack) with the reference as the pattern.
_REGEX = frozenset({"re.search", "re.findall", "re.finditer", "re.match", "regex.search", "regex.findall"})


def _found(fn: FunctionInfo, module: ModuleInfo, node: ast.AST) -> tuple[ast.expr, ast.expr, str] | None:
    """(needle, haystack, how) when ``node`` looks for a reference inside model output."""
    if isinstance(node, ast.Compare):
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)):
                return (left, right, "`in`") if _needle_in(fn, left, right) else None
            left = right
        return None
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Attribute) and node.func.attr in _METHODS and node.args:
        if _needle_in(fn, node.args[0], node.func.value):
            return node.args[0], node.func.value, f".{node.func.attr}()"
    qualname = module.imports.call(node)
    if qualname in _REGEX and len(node.args) >= 2 and _needle_in(fn, node.args[0], node.args[1]):
        return node.args[0], node.args[1], f"{qualname}() with the reference as the pattern"
    if qualname == "operator.contains" and len(node.args) == 2 and _needle_in(fn, node.args[1], node.args[0]):
        return node.args[1], node.args[0], "operator.contains()"
    return None


def _needle_in(fn: FunctionInfo, needle: ast.expr, haystack: ast.expr) -> bool:
    return is_gold_only(fn.labels_of(needle)) and fn.is_model(haystack)


def check(fn: FunctionInfo, module: ModuleInfo) -> Iterator[Hit]:
    for node in fn.nodes:
        found = _found(fn, module, node)
        if found is None:
            continue
        needle, haystack, how = found
        origin = ", ".join(f"`{s}`" for s in sources(fn.labels_of(needle), GOLD))
        yield Hit(
            node,
            f"the reference `{snippet(needle, 40)}` (from {origin}) is looked for inside model output "
            f"`{snippet(haystack, 40)}` with {how} in {fn.display}: a completion that lists many "
            "answers, or hedges, contains it and is paid",
        )


RULE = Rule(
    id="substring-match",
    title="the reference is accepted anywhere inside the completion",
    severity=Severity.high,
    why=(
        "A substring (or membership, or startswith) test pays for any completion that contains the gold: "
        "'one of 0, 1, ..., 1000', 'not 12', '\\boxed{13} or \\boxed{12}'. Huang et al. 2025, Pitfalls of Rule- and "
        "Model-based Verifiers (arXiv:2505.22203), show policies learning such responses against rule-based "
        "verifiers; for SQL, a gold query inside a comment or a string literal passes a containment grader."
    ),
    check=check,
    categories=("math.hedge", "math.shotgun", "math.trap", "sql.hack.gold_string", "sql.comment.gold_commented"),
)
