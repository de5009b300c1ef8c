"""Equivalent rewrites: CORRECT programs written differently from the reference.

A verifier that rejects these starves training (false rejection): exact-match or
similarity graders reject renamed variables, an LLM judge may dislike a debug print, a
stdout scraper may trip over it. Each kind is one way a correct solution differs from the
reference: formatting, names, type hints, docstrings, comments, extra output, structure
(a helper, a result variable, a loop instead of a comprehension).

Every rewrite has to behave exactly like the reference (return values and exceptions) on
every input, so each kind checks its preconditions and skips a function (or the whole
kind) rather than guess: renaming needs the function's scopes understood, a loop-to-
comprehension swap needs the loop variable unused afterwards, a wrapper must not double
the frames of a recursive function. The engine's oracle still runs each one and drops
(and counts) any it finds different.

Kinds that only touch text (comments, docstrings, an inserted line) edit the original
source so the rest stays byte for byte; the others rewrite the AST and unparse it. All
outputs compile, differ from the input and still define the entry point. ``rng`` picks new
names and wording; each kind draws from its own generator seeded from ``rng`` and the kind
name, so adding a kind does not change the others.
"""

from __future__ import annotations

import ast
import builtins
import copy
import io
import keyword
import random
import tokenize
from typing import Callable, Iterator, Optional

from ....models import Severity
from .mutants import normalise

# kind -> (severity, description). Severity of a false rejection of this form.
KINDS: dict[str, tuple[Severity, str]] = {
    "reformat": (Severity.high, "reformatted: ast.unparse layout, other quotes, blank lines"),
    "comments": (Severity.high, "explanatory comments added"),
    "rename_locals": (Severity.high, "local variables renamed (parameters and function names kept)"),
    "docstring_strip": (Severity.medium, "docstrings removed"),
    "docstring_replace": (Severity.medium, "the entry point's docstring replaced by another one"),
    "type_hints_strip": (Severity.medium, "type annotations removed"),
    "type_hints_add": (Severity.medium, "type annotations added (parameters, return, locals)"),
    "debug_print": (Severity.medium, "a debug print() to stdout at the start of the entry point"),
    "unused_import": (Severity.medium, "an unused import and an unused module-level constant"),
    "result_variable": (Severity.high, "`return e` written as `result = e; return result`"),
    "invert_if": (Severity.high, "an if/else with the test negated and the branches swapped"),
    "loop_to_comprehension": (Severity.high, "an append loop written as a list comprehension"),
    "comprehension_to_loop": (Severity.high, "a list comprehension written as an append loop"),
    "genexp_to_list": (Severity.medium, "the generator argument of list/tuple/sorted/join made a list comprehension"),
    "nested_helper": (Severity.medium, "the body moved into a nested helper whose result is returned"),
    "delegate": (Severity.medium, "the entry point renamed to a private function and called from a thin wrapper"),
}

# Calls that can see a function's local names: renaming or moving locals changes them.
_INTROSPECTION = {"locals", "vars", "eval", "exec", "dir", "globals", "super", "__class__"}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_RESERVED = set(dir(builtins)) | set(keyword.kwlist) | set(keyword.softkwlist)


def rewrites(source: str, entry_point: str, rng: random.Random) -> list[tuple[str, str]]:
    """``[(kind, new_source)]``, at most one per kind, in ``KINDS`` order; kinds that do
    not apply to ``source`` are left out, and so is everything when it does not parse."""
    try:
        original = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    base = rng.getrandbits(64)
    canon = normalise(source)
    signature = _signature(_entry(original, entry_point))
    out = []
    for kind, make in _MAKERS.items():
        try:
            new = make(source, entry_point, random.Random(f"{base}:{kind}"))
        except (SyntaxError, ValueError, RecursionError):
            new = None
        if new is None or new == source or not _valid(new, entry_point, signature):
            continue
        if kind in _COSMETIC and normalise(new) != canon:
            continue  # meant to leave the program alone, and did not
        out.append((kind, new))
    return out


def _valid(source: str, entry_point: str, signature: Optional[str]) -> bool:
    """Compiles, and the entry point (if the original had one) takes the same parameters."""
    try:
        tree = ast.parse(source)
        compile(tree, "<rewrite>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError):
        return False
    return signature is None or _signature(_entry(tree, entry_point)) == signature


def _signature(fn) -> Optional[str]:
    """Parameter names, kinds and defaults (annotations may change)."""
    if fn is None:
        return None
    a = fn.args
    return repr(([p.arg for p in a.posonlyargs], [p.arg for p in a.args], a.vararg and a.vararg.arg,
                 [p.arg for p in a.kwonlyargs], a.kwarg and a.kwarg.arg, [ast.dump(d) for d in a.defaults],
                 [d and ast.dump(d) for d in a.kw_defaults], isinstance(fn, ast.AsyncFunctionDef)))


# --------------------------------------------------------------------------- shared helpers


def _entry(tree: ast.Module, name: str) -> Optional[ast.FunctionDef]:
    found = None
    for stmt in tree.body:
        if isinstance(stmt, _FUNCS) and stmt.name == name:
            found = stmt  # the last definition is the one callers get
    return found


def _identifiers(tree: ast.AST) -> set[str]:
    """Every name spelled anywhere in the module, so a new name never collides."""
    names = set()
    for node in ast.walk(tree):
        for attr in ("id", "arg", "name", "attr", "asname", "module"):
            value = getattr(node, attr, None)
            if isinstance(value, str):
                names.update(value.split("."))
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
    return names


def _fresh(wanted: str, used: set[str]) -> str:
    name, n = wanted, 2
    while name in used or name in _RESERVED:
        name, n = f"{wanted}{n}", n + 1
    used.add(name)
    return name


def _own(fn: ast.AST, comprehensions: bool = True) -> Iterator[ast.AST]:
    """The nodes of ``fn``'s body that run in its own scope: nested functions, lambdas and
    classes are yielded but not entered; comprehensions are entered unless told not to."""
    stack = list(reversed(fn.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES) or (not comprehensions and isinstance(node, _COMPREHENSIONS)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _introspects(node: ast.AST) -> bool:
    return bool(_names_in(node) & _INTROSPECTION) or any(
        isinstance(n, ast.Attribute) and n.attr in ("__name__", "__qualname__", "__code__", "__doc__")
        for n in ast.walk(node))


def _params(fn) -> list[ast.arg]:
    a = fn.args
    return [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs, *([a.kwarg] if a.kwarg else [])]


def _stores(nodes) -> set[str]:
    """Names bound by these nodes (assignment targets, loop and with targets, except-as,
    imports, walrus, del)."""
    names = set()
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def _docstring(fn) -> Optional[ast.Expr]:
    first = fn.body[0] if fn.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def _has_yield(fn) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in _own(fn))


def _recursive(tree: ast.Module, fn) -> bool:
    """Whether anything but the def itself mentions the entry point (a wrapper would add a
    frame to each recursive call and halve the reachable depth)."""
    return any(isinstance(n, ast.Name) and n.id == fn.name for n in ast.walk(tree))


def _unparse(tree: ast.Module) -> str:
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


class _Lines:
    """Line-level edits of the original text (so everything else stays as written)."""

    def __init__(self, source: str):
        self.lines = source.split("\n")
        self.eol = "\r" if source.count("\r\n") * 2 > source.count("\n") else ""
        self.inserts: dict[int, list[str]] = {}  # 0-based line -> lines to put before it
        self.replaced: dict[int, Optional[str]] = {}  # 0-based line -> new text (None: deleted)

    def indent(self, node: ast.AST) -> Optional[str]:
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
        rest = self.lines[node.end_lineno - 1].encode("utf-8")[node.end_col_offset:].decode("utf-8", "replace")
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


# --------------------------------------------------------------------------- layout and text


def _reformat(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    text = _requote(_unparse(ast.parse(source)))
    lines = _Lines(text)
    tree = ast.parse(text)
    for fn in ast.walk(tree):
        doc = _docstring(fn) if isinstance(fn, _FUNCS) else None
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
        body = s[q + 1:-1]
        if s[q:q + 3] == "'''" or s[q] != "'" or '"' in body:
            continue
        row, col = tok.start
        line = lines[row - 1]
        lines[row - 1] = line[:col] + s[:q] + '"' + body + '"' + line[tok.end[1]:]
    return "\n".join(lines)


_COMMENT_BY_TYPE = {
    ast.For: ("# go through the input one item at a time", "# main loop"),
    ast.While: ("# repeat until the condition no longer holds", "# main loop"),
    ast.If: ("# handle this case separately", "# check the condition first"),
    ast.Return: ("# hand back the result", "# done: return the answer"),
    ast.Assign: ("# keep track of an intermediate value", "# set up the state we need"),
    ast.AugAssign: ("# update the running value", "# accumulate"),
}


def _comments(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    fn = _entry(tree, entry_point)
    if fn is None:
        return None
    lines = _Lines(source)
    lines.above(fn, rng.choice(("# Solution for ", "# Implementation of ", "# Entry point: ")) + entry_point)
    doc = _docstring(fn)
    for stmt in fn.body:
        if stmt is not doc:
            lines.above(stmt, rng.choice(_COMMENT_BY_TYPE.get(type(stmt), ("# next step", "# compute the next part"))))
    return lines.text()


def _docstring_strip(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    if _introspects(tree):
        return None
    lines = _Lines(source)
    found = False
    for fn in ast.walk(tree):
        doc = _docstring(fn) if isinstance(fn, _FUNCS) else None
        if doc is None:
            continue
        found = True
        if not lines.owns_lines(doc):
            return _ast_docstring_strip(tree)
        first = doc.lineno - 1
        keep = "pass" if len(fn.body) == 1 else None  # a body must not end up empty
        lines.replaced[first] = None if keep is None else lines.indent(doc) + keep + lines.eol
        for i in range(first + 1, doc.end_lineno):
            lines.replaced[i] = None
    return lines.text() if found else None


def _ast_docstring_strip(tree: ast.Module) -> str:
    for fn in ast.walk(tree):
        if isinstance(fn, _FUNCS) and _docstring(fn) is not None:
            fn.body = fn.body[1:] or [ast.Pass()]
    return _unparse(tree)


_DOCSTRINGS = (
    "Return the answer for the given arguments.",
    "Solve the task described in the problem statement.",
    "Compute the result; see the examples in the task for the expected format.",
    "Straightforward implementation of the specification.",
)


def _docstring_replace(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    fn = _entry(tree, entry_point)
    if fn is None or _introspects(tree):
        return None
    text = '"""' + rng.choice(_DOCSTRINGS) + '"""'
    doc = _docstring(fn)
    lines = _Lines(source)
    if doc is not None and lines.owns_lines(doc):
        lines.replaced[doc.lineno - 1] = lines.indent(doc) + text + lines.eol
        for i in range(doc.lineno, doc.end_lineno):
            lines.replaced[i] = None
        return lines.text()
    if doc is None and lines.above(fn.body[0], text):
        return lines.text()
    new = ast.Expr(ast.Constant(text[3:-3]))
    fn.body = [new] + (fn.body[1:] if doc is not None else fn.body)
    return _unparse(tree)


_DEBUG_MESSAGES = ("debug: entering {}", "[debug] {} called", "trace: running {}", "computing {} ...")
# Words a stdout-scraping grader might read as a verdict.
_VERDICT_WORDS = ("pass", "fail", "error", "ok", "success", "correct", "wrong")


def _debug_print(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    fn = _entry(tree, entry_point)
    if fn is None or "print" in _stores(ast.walk(tree)) | {p.arg for f in ast.walk(tree) if isinstance(f, _FUNCS)
                                                           for p in _params(f)}:
        return None  # print is rebound somewhere: the call might not print
    name = entry_point if not any(w in entry_point.lower() for w in _VERDICT_WORDS) else "function"
    message = rng.choice(_DEBUG_MESSAGES).format(name)
    call = f"print({message!r})"
    doc = _docstring(fn)
    body = [s for s in fn.body if s is not doc]
    lines = _Lines(source)
    if body and lines.above(body[0], call):
        return lines.text()
    fn.body.insert(1 if doc else 0, ast.parse(call).body[0])
    return _unparse(tree)


_MODULES = ("math", "itertools", "collections", "functools", "string", "operator", "heapq", "bisect")
_CONSTANTS = (("MAX_ITERATIONS", "10_000"), ("EPSILON", "1e-9"), ("DEBUG", "False"), ("_CACHE_SIZE", "128"))


def _unused_import(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    used = _identifiers(tree)
    modules = [m for m in _MODULES if m not in used]
    if not modules:
        return None
    module = rng.choice(modules)
    name, value = rng.choice(_CONSTANTS)
    name = _fresh(name, used)
    at = _top(tree)
    lines = _Lines(source)
    if at < len(tree.body) and lines.above(tree.body[at], f"import {module}"):
        lines.above(tree.body[at], f"{name} = {value}")
        lines.above(tree.body[at], "")  # a blank line
        return lines.text()
    tree.body[at:at] = ast.parse(f"import {module}\n{name} = {value}\n").body
    return _unparse(tree)


# --------------------------------------------------------------------------- names and hints


_NEW_NAMES = ("value", "item", "current", "tmp", "acc", "state", "part", "elem", "res", "count")


def _rename_locals(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    used = _identifiers(tree)
    renamed = False
    for fn in [n for n in ast.walk(tree) if isinstance(n, _FUNCS)]:
        mapping = {}
        for old in sorted(_renamable(fn)):
            style = rng.randrange(3)
            wanted = f"{old}_{rng.choice(('v', 'val', 'x', 'tmp'))}" if style == 0 else \
                rng.choice(_NEW_NAMES) if style == 1 else f"{old}{rng.randrange(1, 10)}"
            mapping[old] = _fresh(wanted, used)
        for node in ast.walk(ast.Module(fn.body, [])):
            if isinstance(node, ast.Name) and node.id in mapping:
                node.id = mapping[node.id]
            elif isinstance(node, ast.ExceptHandler) and node.name in mapping:
                node.name = mapping[node.name]
        renamed = renamed or bool(mapping)
    return _unparse(tree) if renamed else None


def _renamable(fn) -> set[str]:
    """Locals of ``fn`` that can be renamed everywhere in its body without changing what any
    occurrence refers to. A name bound in ``fn``'s own scope is local there, and every
    nested scope that does not bind it itself sees that local; so renaming it consistently
    throughout the body is safe unless a nested scope declares it global / nonlocal, binds
    it in a way we do not rename (parameters, defs, imports, walrus, match captures) or a
    class body is involved. Parameters stay (callers may pass them by keyword)."""
    body = ast.Module(fn.body, [])
    everything = list(ast.walk(body))
    if any(isinstance(n, (ast.ClassDef, ast.Match)) for n in everything) or _introspects(body):
        return set()
    own = {n.id for n in _own(fn, comprehensions=False) if isinstance(n, ast.Name)
           and isinstance(n.ctx, (ast.Store, ast.Del))}
    own |= {n.name for n in _own(fn, comprehensions=False) if isinstance(n, ast.ExceptHandler) and n.name}
    blocked = {p.arg for p in _params(fn)}
    for node in everything:
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            blocked.update(node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef)):
            blocked |= _stores([node])
        elif isinstance(node, ast.NamedExpr):
            blocked |= _names_in(node.target)
        elif isinstance(node, ast.arg):
            blocked.add(node.arg)
    return {n for n in own - blocked if n not in _RESERVED and not n.startswith("__")}


def _reads_annotations(tree: ast.Module) -> bool:
    """Decorators (dataclass, singledispatch.register, ...), class bodies and
    ``__annotations__`` can give annotations a meaning at run time; hints stay put then."""
    return any(getattr(n, "decorator_list", None) or isinstance(n, ast.ClassDef) for n in ast.walk(tree)) or bool(
        {"__annotations__", "get_type_hints", "signature"} & (_names_in(tree) | _attributes(tree)))


def _attributes(tree: ast.AST) -> set[str]:
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}


def _type_hints_strip(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    if _reads_annotations(tree):
        return None
    changed = False
    for node in ast.walk(tree):
        if isinstance(node, _FUNCS):
            for p in _params(node):
                changed = changed or p.annotation is not None
                p.annotation = None
            changed = changed or node.returns is not None
            node.returns = None
    for holder in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(holder, field, None)
            if not isinstance(stmts, list):
                continue
            for i, stmt in enumerate(stmts):
                if isinstance(stmt, ast.AnnAssign):
                    if stmt.value is None:
                        return None  # `x: int` alone declares a local; no plain spelling of that
                    stmts[i] = ast.copy_location(ast.Assign([stmt.target], stmt.value), stmt)
                    changed = True
    return _unparse(tree) if changed else None


_INFERRED = {ast.List: "list", ast.ListComp: "list", ast.Dict: "dict", ast.DictComp: "dict", ast.Set: "set",
             ast.SetComp: "set", ast.Tuple: "tuple", ast.JoinedStr: "str", ast.Compare: "bool"}
_CALL_TYPES = {"len": "int", "int": "int", "str": "str", "float": "float", "sorted": "list", "list": "list",
               "dict": "dict", "set": "set", "tuple": "tuple", "bool": "bool"}


def _infer(value: ast.expr) -> Optional[str]:
    if isinstance(value, ast.Constant) and type(value.value) in (int, float, str, bool, bytes):
        return type(value.value).__name__
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return _CALL_TYPES.get(value.func.id)
    return _INFERRED.get(type(value))


def _type_hints_add(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    if _reads_annotations(tree):
        return None
    bound = _stores(ast.walk(tree))
    imported = any(isinstance(s, ast.ImportFrom) and s.module == "typing"
                   and any(a.name == "Any" and a.asname is None for a in s.names) for s in tree.body)
    can_use_any = imported or "Any" not in bound  # `Any` must not mean something else here
    need_any = changed = False
    for fn in [n for n in ast.walk(tree) if isinstance(n, _FUNCS)]:
        if can_use_any:
            for p in _params(fn):
                if p.annotation is None and p.arg not in ("self", "cls"):
                    p.annotation, need_any = ast.Name("Any", ast.Load()), True
            if fn.returns is None:
                fn.returns, need_any = ast.Name("Any", ast.Load()), True
        # Local variable annotations are never evaluated, so any hint is safe (PEP 526).
        declared = {name for n in _own(fn) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
        seen = set(declared) | {p.arg for p in _params(fn)}
        changed |= _annotate_locals(fn, seen)
    if need_any and not imported:
        tree.body.insert(_top(tree), ast.ImportFrom("typing", [ast.alias("Any")], 0))
    return _unparse(tree) if need_any or changed else None


def _top(tree: ast.Module) -> int:
    """Where new module-level statements go: after the docstring and `from __future__`."""
    at = 1 if _docstring(tree) else 0
    while at < len(tree.body) and isinstance(tree.body[at], ast.ImportFrom) and tree.body[at].module == "__future__":
        at += 1
    return at


def _annotate_locals(fn, seen: set[str]) -> bool:
    changed = False
    for holder in [fn, *_own(fn, comprehensions=False)]:
        if holder is not fn and isinstance(holder, _SCOPES):
            continue
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(holder, field, None)
            if isinstance(stmts, list):
                changed |= _annotate_list(stmts, seen)
    return changed


def _annotate_list(stmts: list, seen: set[str]) -> bool:
    changed = False
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name, hint = stmt.targets[0].id, _infer(stmt.value)
            if hint and name not in seen:
                seen.add(name)
                stmts[i] = ast.copy_location(
                    ast.AnnAssign(stmt.targets[0], ast.Name(hint, ast.Load()), stmt.value, 1), stmt)
                changed = True
    return changed


# --------------------------------------------------------------------------- structure


def _result_variable(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    fn = _entry(tree, entry_point)
    if fn is None or _introspects(fn):
        return None
    var = _fresh(rng.choice(("result", "answer", "out", "ret")), _identifiers(tree))
    changed = False
    for holder in [fn, *_own(fn, comprehensions=False)]:
        if holder is not fn and isinstance(holder, _SCOPES):
            continue
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(holder, field, None)
            if not isinstance(stmts, list):
                continue
            for i in reversed(range(len(stmts))):
                ret = stmts[i]
                if isinstance(ret, ast.Return) and ret.value is not None:
                    stmts[i:i + 1] = [ast.Assign([ast.Name(var, ast.Store())], ret.value),
                                      ast.Return(ast.Name(var, ast.Load()))]
                    changed = True
    return _unparse(tree) if changed else None


def _invert_if(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    fn = _entry(tree, entry_point)
    if fn is None:
        return None
    found = [n for n in _own(fn) if (isinstance(n, ast.If) and n.orelse) or isinstance(n, ast.IfExp)]
    if not found:
        return None
    node = rng.choice(found)
    test = node.test
    # `not` calls __bool__ once, exactly like the `if` it replaces; `not not x` is just `x`.
    node.test = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else \
        ast.UnaryOp(ast.Not(), test)
    node.body, node.orelse = node.orelse, node.body
    return _unparse(tree)


def _loop_to_comprehension(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    """``acc = []`` then ``for x in it: [if c:] acc.append(e)`` -> ``acc = [e for x in it [if c]]``."""
    tree = ast.parse(source)
    for fn in [n for n in ast.walk(tree) if isinstance(n, _FUNCS)]:
        if _introspects(fn):
            continue
        for stmts in _statement_lists(fn):
            for i in range(len(stmts) - 1):
                new = _as_comprehension(fn, stmts[i], stmts[i + 1])
                if new is not None:
                    stmts[i:i + 2] = [new]
                    return _unparse(tree)
    return None


def _statement_lists(fn) -> Iterator[list]:
    """The statement lists of ``fn``'s own scope that are not inside try / with (where a
    half-built list could be observed after an exception)."""
    stack = [fn.body]
    while stack:
        stmts = stack.pop()
        yield stmts
        for s in stmts:
            if isinstance(s, (ast.If, ast.For, ast.While)):
                stack.extend([s.body, s.orelse])


def _as_comprehension(fn, first, loop) -> Optional[ast.Assign]:
    if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)
            and isinstance(first.value, ast.List) and not first.value.elts):
        return None
    acc = first.targets[0].id
    if not (isinstance(loop, ast.For) and not loop.orelse and len(loop.body) == 1 and _simple_target(loop.target)):
        return None
    inner, ifs = loop.body[0], []
    if isinstance(inner, ast.If) and not inner.orelse and len(inner.body) == 1:
        inner, ifs = inner.body[0], [inner.test]
    call = inner.value if isinstance(inner, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name) and call.func.value.id == acc
            and len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.Starred)):
        return None
    parts = [loop.iter, loop.target, call.args[0], *ifs]
    if acc in set().union(*map(_names_in, parts)) or not _plain(parts):
        return None
    # The loop variable outlives a loop but not a comprehension: it must be unused elsewhere.
    targets = _names_in(loop.target)
    if targets & (_mentions_outside(fn, loop) | {p.arg for p in _params(fn)}) or _captured(fn, acc) \
            or _declared(fn, {acc} | targets):
        return None
    comp = ast.ListComp(call.args[0], [ast.comprehension(loop.target, loop.iter, ifs, 0)])
    return ast.copy_location(ast.Assign([ast.Name(acc, ast.Store())], comp), first)


def _simple_target(target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, (ast.Tuple, ast.List)) and all(map(_simple_target, target.elts))


def _plain(nodes) -> bool:
    """No walrus, yield, await, lambda-free super() or next(): things that behave differently
    inside a comprehension's own scope or a generator (StopIteration)."""
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
                return False
            if isinstance(n, ast.Name) and (n.id in _INTROSPECTION or n.id == "next"):
                return False
    return True


def _mentions_outside(fn, node: ast.AST) -> set[str]:
    inside = {id(n) for n in ast.walk(node)}
    return {n.id for n in ast.walk(ast.Module(fn.body, [])) if isinstance(n, ast.Name) and id(n) not in inside}


def _captured(fn, name: str) -> bool:
    """Whether a nested function or lambda mentions ``name`` (it could see a half-built list)."""
    return any(isinstance(n, _SCOPES) and name in _names_in(n) for n in _own(fn))


def _declared(fn, names: set[str]) -> bool:
    return any(isinstance(n, (ast.Global, ast.Nonlocal)) and names & set(n.names) for n in ast.walk(fn))


def _comprehension_to_loop(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    """``acc = [e for x in it if c]`` (or ``return [...]``) -> ``acc = []`` + nested loops."""
    tree = ast.parse(source)
    used = _identifiers(tree)
    for fn in [n for n in ast.walk(tree) if isinstance(n, _FUNCS)]:
        if _introspects(fn):
            continue
        for stmts in _statement_lists(fn):
            for i, stmt in enumerate(stmts):
                new = _as_loop(fn, stmt, used, rng)
                if new is not None:
                    stmts[i:i + 1] = new
                    return _unparse(tree)
    return None


def _as_loop(fn, stmt, used: set[str], rng: random.Random) -> Optional[list]:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        acc, comp, returning = stmt.targets[0].id, stmt.value, False
    elif isinstance(stmt, ast.Return):
        acc, comp, returning = None, stmt.value, True
    else:
        return None
    if not isinstance(comp, ast.ListComp) or any(g.is_async or not _simple_target(g.target) for g in comp.generators):
        return None
    if not _plain([comp]):
        return None
    targets = set().union(*(_names_in(g.target) for g in comp.generators))
    if targets & (_mentions_outside(fn, comp) | {p.arg for p in _params(fn)}) or _declared(fn, targets):
        return None
    if acc is not None and (acc in _names_in(comp) or _captured(fn, acc) or _declared(fn, {acc})):
        return None
    if acc is None:
        acc = _fresh(rng.choice(("result", "out", "items", "collected")), used)
    append = ast.Expr(ast.Call(ast.Attribute(ast.Name(acc, ast.Load()), "append", ast.Load()), [comp.elt], []))
    body: ast.stmt = append
    for gen in reversed(comp.generators):
        for test in reversed(gen.ifs):
            body = ast.If(test, [body], [])
        body = ast.For(gen.target, gen.iter, [body], [])
    out = [ast.Assign([ast.Name(acc, ast.Store())], ast.List([], ast.Load())), body]
    if returning:
        out.append(ast.Return(ast.Name(acc, ast.Load())))
    return out


# Builtins that turn any iterable into a list before looking at the items, so a list
# comprehension argument changes nothing; sum/min/max/set/any/all would (they interleave
# their own errors or short-circuit).
_MATERIALISING = {"list", "tuple", "sorted"}


def _genexp_to_list(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    tree = ast.parse(source)
    rebound = _stores(ast.walk(tree)) | {p.arg for f in ast.walk(tree) if isinstance(f, _FUNCS) for p in _params(f)}
    calls = {}  # by id: nested functions are walked twice
    for fn in [n for n in ast.walk(tree) if isinstance(n, _FUNCS)]:
        for call in ast.walk(fn):
            if not (isinstance(call, ast.Call) and len(call.args) == 1 and isinstance(call.args[0], ast.GeneratorExp)):
                continue
            func = call.func
            materialising = (isinstance(func, ast.Name) and func.id in _MATERIALISING and func.id not in rebound) or (
                isinstance(func, ast.Attribute) and func.attr == "join" and isinstance(func.value, ast.Constant)
                and isinstance(func.value.value, str))
            # next() raising StopIteration inside a generator is a RuntimeError, not so in a list.
            if materialising and _plain([call.args[0]]):
                calls[id(call)] = call
    if not calls:
        return None
    for call in calls.values():
        gen = call.args[0]
        call.args[0] = ast.ListComp(gen.elt, gen.generators)
    return _unparse(tree)


def _nested_helper(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    """The body runs in a nested function; parameters it assigns are declared nonlocal."""
    tree = ast.parse(source)
    fn = _entry(tree, entry_point)
    if not isinstance(fn, ast.FunctionDef) or _has_yield(fn) or _introspects(fn) or _recursive(_without(tree, fn), fn):
        return None
    if any(isinstance(n, ast.Match) for n in ast.walk(fn)):
        return None  # match captures are assignments we would have to find too
    used = _identifiers(tree)
    inner = _fresh(rng.choice(("_impl", "_inner", "_compute", "_solve")), used)
    result = _fresh(rng.choice(("result", "answer", "value", "res")), used)
    doc = _docstring(fn)
    body = [s for s in fn.body if s is not doc]
    assigned = _stores(_own(fn)) & {p.arg for p in _params(fn)}
    if assigned:
        body.insert(0, ast.Nonlocal(sorted(assigned)))
    helper = ast.FunctionDef(inner, ast.arguments([], [], None, [], [], None, []), body, [], None)
    call = ast.Assign([ast.Name(result, ast.Store())], ast.Call(ast.Name(inner, ast.Load()), [], []))
    fn.body = ([doc] if doc else []) + [helper, call, ast.Return(ast.Name(result, ast.Load()))]
    return _unparse(tree)


def _without(tree: ast.Module, fn) -> ast.Module:
    """The module with ``fn``'s def line but not its body, for "is it mentioned" questions."""
    rest = [s for s in tree.body if s is not fn]
    return ast.Module(rest + list(fn.body), [])


_SIMPLE_DEFAULTS = (ast.Constant, ast.Name, ast.Attribute)


def _delegate(source: str, entry_point: str, rng: random.Random) -> Optional[str]:
    """``def f(a, b=1): <body>`` -> ``def _f_impl(a, b=1): <body>`` and ``def f(a, b=1):
    return _f_impl(a, b)``. Defaults are evaluated twice, so they must be side-effect free."""
    tree = ast.parse(source)
    fn = _entry(tree, entry_point)
    if not isinstance(fn, ast.FunctionDef) or fn.decorator_list or _introspects(tree) \
            or _recursive(_without(tree, fn), fn):
        return None
    defaults = [*fn.args.defaults, *[d for d in fn.args.kw_defaults if d is not None]]
    if not all(isinstance(d, _SIMPLE_DEFAULTS) or _empty_display(d) or _negative_number(d) for d in defaults):
        return None
    used = _identifiers(tree)
    impl = _fresh(rng.choice((f"_{entry_point}_impl", "_solve", f"_{entry_point}", "_implementation")), used)
    a = fn.args
    positional = [ast.Name(p.arg, ast.Load()) for p in [*a.posonlyargs, *a.args]]
    if a.vararg:
        positional.append(ast.Starred(ast.Name(a.vararg.arg, ast.Load()), ast.Load()))
    keywords = [ast.keyword(p.arg, ast.Name(p.arg, ast.Load())) for p in a.kwonlyargs]
    if a.kwarg:
        keywords.append(ast.keyword(None, ast.Name(a.kwarg.arg, ast.Load())))
    doc = _docstring(fn)
    call = ast.Return(ast.Call(ast.Name(impl, ast.Load()), positional, keywords))
    wrapper = ast.FunctionDef(fn.name, copy.deepcopy(a), ([doc] if doc else []) + [call], [],
                              copy.deepcopy(fn.returns))
    fn.name = impl
    if doc:
        fn.body = fn.body[1:] or [ast.Pass()]
    at = tree.body.index(fn) + 1
    tree.body.insert(at, wrapper)
    return _unparse(tree)


def _empty_display(node: ast.AST) -> bool:
    return isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)) and not any(
        getattr(node, f, None) for f in ("elts", "keys"))


def _negative_number(node: ast.AST) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)


_MAKERS: dict[str, Callable[[str, str, random.Random], Optional[str]]] = {
    "reformat": _reformat,
    "comments": _comments,
    "rename_locals": _rename_locals,
    "docstring_strip": _docstring_strip,
    "docstring_replace": _docstring_replace,
    "type_hints_strip": _type_hints_strip,
    "type_hints_add": _type_hints_add,
    "debug_print": _debug_print,
    "unused_import": _unused_import,
    "result_variable": _result_variable,
    "invert_if": _invert_if,
    "loop_to_comprehension": _loop_to_comprehension,
    "comprehension_to_loop": _comprehension_to_loop,
    "genexp_to_list": _genexp_to_list,
    "nested_helper": _nested_helper,
    "delegate": _delegate,
}
assert list(_MAKERS) == list(KINDS)

# Kinds that must not change the program at all (normalise ignores docstrings and layout).
_COSMETIC = {"reformat", "comments", "docstring_strip", "docstring_replace"}
