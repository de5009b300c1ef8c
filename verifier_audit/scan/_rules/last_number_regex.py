"""last-number-regex: the answer is whichever number (or \\boxed{}) comes last, or first."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ...models import Severity
from .._facts import FunctionInfo, ModuleInfo
from .._rule import Hit, Rule
from .._syntax import snippet
from .._taint import is_gold_only

_ALL_MATCHES = ("findall", "finditer")  # re.X(pattern, s) or compiled.X(s)
_FIRST_MATCH = ("search",)  # re.search(pattern, s).group(...): the first match
_STRING_FINDS = {"find": "first", "index": "first", "rfind": "last", "rindex": "last"}


def _pattern_kind(pattern: str | None) -> str | None:
    """ "boxed" for a \\boxed{} pattern, "number" for a bare number pattern; None for a
    pattern anchored on words or markers (``#### (\\d+)``, ``answer is (\\d+)``), which
    reads a stated answer, not whatever number is there."""
    if pattern is None:
        return None
    if "boxed" in pattern:
        return "boxed"
    if "\\d" not in pattern and "0-9" not in pattern:
        return None
    literal = re.sub(r"\\[dDsSwWbB.,+\-]", "", pattern)  # classes (\d) and a number's own punctuation (\.)
    literal = re.sub(r"\\.", "L", literal)  # any other escape is a literal: \( \$ anchor the match
    literal = re.sub(r"\[[^\]]*\]", "", literal)  # character classes
    literal = re.sub(r"\(\?P?<[^>]*>|\(\?[:=!]", "", literal)  # group syntax
    return None if re.search(r"[A-Za-z#:=]", literal) else "number"


def _match_call(fn: FunctionInfo, module: ModuleInfo, expr: ast.AST, methods: tuple[str, ...], depth: int = 0):
    """(pattern kind, searched text, pattern text) when ``expr`` is ``re.<method>(P, s)`` or
    ``compiled.<method>(s)`` (optionally inside ``list()``), or a name bound once to one."""
    if _is_call_to_name(expr, "list") and expr.args:
        expr = expr.args[0]
    if isinstance(expr, ast.Name):
        bound = fn.assigned.get(expr.id, [])
        return _match_call(fn, module, bound[0], methods, depth + 1) if len(bound) == 1 and depth < 5 else None
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in methods):
        return None
    module_call = module.imports.qualname(expr.func.value) in ("re", "regex")
    pattern_expr = (expr.args[0] if expr.args else None) if module_call else expr.func.value
    text = (expr.args[1] if len(expr.args) > 1 else None) if module_call else (expr.args[0] if expr.args else None)
    pattern = module.string_value(pattern_expr, fn)
    kind = _pattern_kind(pattern)
    if kind is None or text is None or is_gold_only(fn.labels_of(text)):
        return None
    return kind, text, pattern


def _is_call_to_name(expr: ast.AST, name: str) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == name


def _index(node: ast.Subscript) -> str | None:
    """ "last" for ``[-1]``, "first" for ``[0]``."""
    s = node.slice
    if isinstance(s, ast.Constant) and s.value == 0 and not isinstance(s.value, bool):
        return "first"
    if isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.USub) and getattr(s.operand, "value", None) == 1:
        return "last"
    return None


def _hit(node: ast.AST, which: str, kind: str, text: ast.AST, pattern: str, fn: FunctionInfo) -> Hit:
    """The finding; lower confidence when the text searched is not traced to model output."""
    thing = "\\boxed{}" if kind == "boxed" else "number"
    model = fn.is_model(text)
    whose = "model output" if model else "text not traced to model output,"
    example = (
        "'\\boxed{13} ... \\boxed{12}' (a hedge) pays when the gold is 12"
        if kind == "boxed"
        else "'The answer is \\boxed{13}, not 12' pays when the gold is 12"
        if which == "last"
        else "'Is it 12? No: \\boxed{13}' pays when the gold is 12"
    )
    return Hit(
        node,
        f"takes the {which} {thing} of {whose} `{snippet(text, 40)}` (pattern r'{pattern[:50]}') in "
        f"{fn.display}: {example}",
        confidence="high" if model else "low",
    )


def _counted(fn: FunctionInfo) -> set[str]:
    """Names whose length the function tests against 1 or 2 (``if len(numbers) != 1``):
    their ``[0]`` is the only match, not the first of several."""
    out = set()
    for node in fn.nodes:
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.left, ast.Call)
            and isinstance(node.left.func, ast.Name)
            and node.left.func.id == "len"
            and node.left.args
            and isinstance(node.left.args[0], ast.Name)
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value in (1, 2)
        ):
            out.add(node.left.args[0].id)
    return out


def check(fn: FunctionInfo, module: ModuleInfo) -> Iterator[Hit]:
    counted = _counted(fn)
    for node in fn.nodes:
        if isinstance(node, ast.Subscript) and _index(node):
            if isinstance(node.value, ast.Name) and node.value.id in counted:
                continue
            found = _match_call(fn, module, node.value, _ALL_MATCHES)
            if found:
                yield _hit(node, _index(node), *found, fn)
                continue
            split = node.value  # text.split("\\boxed")[-1]: what follows the last box
            if isinstance(split, ast.Call) and isinstance(split.func, ast.Attribute) and split.func.attr == "split":
                needle = module.string_value(split.args[0] if split.args else None, fn) or ""
                # [-1] follows the last box; [0] precedes every box: no answer, nothing taken
                if "boxed" in needle and _index(node) == "last" and not is_gold_only(fn.labels_of(split.func.value)):
                    yield _hit(node, "last", "boxed", split.func.value, needle, fn)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and _is_call_to_name(node.iter, "reversed"):
            # for x in reversed(matches): ... break -- the last usable match (verl's gsm8k "flexible")
            found = _match_call(fn, module, node.iter.args[0], _ALL_MATCHES) if node.iter.args else None
            if found and any(isinstance(n, ast.Break) for stmt in node.body for n in ast.walk(stmt)):
                yield _hit(node, "last", *found, fn)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("group", "groups"):
                found = _match_call(fn, module, node.func.value, _FIRST_MATCH)
                if found:
                    yield _hit(node, "first", *found, fn)
            elif node.func.attr in _STRING_FINDS and len(node.args) == 1:  # with a start: a loop over every box
                needle = module.string_value(node.args[0], fn) or ""
                if "boxed" in needle and not is_gold_only(fn.labels_of(node.func.value)):
                    yield _hit(node, _STRING_FINDS[node.func.attr], "boxed", node.func.value, needle, fn)


RULE = Rule(
    id="last-number-regex",
    title="the answer is the last (or first) number or \\boxed{} in the text",
    severity=Severity.high,
    why=(
        "A grader that reads the last number pays for 'The answer is \\boxed{13}, not 12'; one that reads the first "
        "or last \\boxed{} pays for a hedge with two boxes. Public examples: EleutherAI/lm-evaluation-harness "
        "lm_eval/tasks/gsm8k flexible-extract (the last number) and take_first (the first match); volcengine/verl "
        "verl/utils/reward_score/math.py last_boxed_only_string and gsm8k.py (flexible: the last number)."
    ),
    check=check,
    categories=(
        "math.hedge",
        "math.trap.last_number",
        "math.trap.unanchored_number",
        "math.trap.retraction",
        "math.shotgun.many_boxes",
    ),
)
