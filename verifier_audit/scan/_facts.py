"""What the rules know about a parsed module: its imports and constants, its functions
(each with its own nodes and the labels ``_taint.py`` gives its names), and who calls whom."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ._syntax import FunctionNode, Imports, own_nodes, statement_blocks
from ._taint import EMPTY, MODEL, Labels, analyse, has, labels_of, param_names, seed_labels

# --------------------------------------------------------------------------- functions


@dataclass
class FunctionInfo:
    """One function (or the module's top-level code: qualname "") and what flows in it."""

    node: ast.Module | FunctionNode
    qualname: str  # "score", "Grader.__call__", "timeout.decorator.wrapper"; "" for the module
    top: str  # the top-level function (or class) it is in; "" for module code
    nodes: list[ast.AST] = field(default_factory=list)
    labels: dict[str, Labels] = field(default_factory=dict)
    assigned: dict[str, list[ast.expr]] = field(default_factory=dict)  # name -> values bound to it here
    _blocks: dict | None = field(default=None, repr=False)  # statement_blocks(), on first use

    @property
    def display(self) -> str:
        return f"{self.qualname}()" if self.qualname else "module-level code"

    def labels_of(self, expr: ast.AST | None) -> Labels:
        return labels_of(expr, self.labels)

    def is_model(self, expr: ast.AST | None) -> bool:
        return has(self.labels_of(expr), MODEL)

    def block_of(self, stmt: ast.stmt) -> tuple[list[ast.stmt], int]:
        if self._blocks is None:
            self._blocks = statement_blocks([self.node, *self.nodes])
        return self._blocks.get(id(stmt), ([stmt], 0))

    def returns(self) -> list[ast.Return]:
        return [n for n in self.nodes if isinstance(n, ast.Return)]


# --------------------------------------------------------------------------- the module


@dataclass
class ModuleInfo:
    """A parsed file and the facts every rule reads."""

    path: Path
    display: str  # the file as findings name it
    lines: list[str]
    tree: ast.Module
    imports: Imports
    constants: dict[str, ast.expr]  # module-level NAME = value (the last one)
    functions: list[FunctionInfo]
    top_level: dict[str, FunctionNode]
    callers: dict[str, set[str]]  # top-level function -> the top-level functions that call it by name
    # (id of the function or 0 for module level, name) -> what the name is bound to (resolve())
    _bound: dict = field(default_factory=dict, repr=False)

    def function(self, qualname: str) -> FunctionInfo | None:
        return next((f for f in self.functions if f.qualname == qualname), None)

    def scope_of(self, fn: FunctionInfo) -> list[str]:
        if not fn.top:
            return []
        return sorted({fn.top} | self.callers.get(fn.top, set()))

    def string_value(self, expr: ast.AST | None, fn: FunctionInfo | None = None, depth: int = 0) -> str | None:
        """The text of a constant string expression: a literal, a name bound once to one
        (in the function or at module level), ``re.compile(...)`` of one, a concatenation."""
        if expr is None or depth > 5:
            return None
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return expr.value
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left, right = self.string_value(expr.left, fn, depth + 1), self.string_value(expr.right, fn, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(expr, ast.Call) and self.imports.call(expr) in ("re.compile", "regex.compile") and expr.args:
            return self.string_value(expr.args[0], fn, depth + 1)
        if isinstance(expr, ast.Name):
            local = fn.assigned.get(expr.id, []) if fn is not None else []
            if len(local) == 1:
                return self.string_value(local[0], fn, depth + 1)
            if not local and expr.id in self.constants:
                return self.string_value(self.constants[expr.id], None, depth + 1)
        return None

    def callee(self, call: ast.Call, fn: FunctionInfo | None = None) -> str | None:
        """The dotted name a call calls when the name is built rather than written:
        ``getattr(builtins, "ev" + "al")``, ``builtins.__dict__["exec"]``,
        ``vars(builtins)["eval"]``, ``globals()["__builtins__"]["eval"]``,
        ``__import__("os").system``, or ``eval`` bound to another name (``run = eval``, in
        the function or at module level) are all ``eval``/``exec``/``os.system`` to a rule.
        ``Imports.call`` reads only what is written; a grader that hides its ``eval`` from a
        reviewer (or a linter) writes one of these. Identifiers need nothing: the parser
        already normalises ``ｅｖａｌ`` to ``eval`` (NFKC, PEP 3131)."""
        return self.resolve(call.func, fn)

    def resolve(self, expr: ast.AST, fn: FunctionInfo | None = None, depth: int = 0) -> str | None:
        """The dotted name of what ``expr`` evaluates to, through the built-up forms above;
        ``<globals>`` for a module's namespace dict. None when it cannot be told."""
        if depth > 6:
            return None
        if isinstance(expr, ast.Name):
            if expr.id == "__builtins__":
                return "builtins"
            local = fn.assigned.get(expr.id, []) if fn is not None else []
            values = local or ([self.constants[expr.id]] if expr.id in self.constants else [])
            if not values:
                return self.imports.names.get(expr.id, expr.id)
            key = (id(fn) if local else 0, expr.id)
            if key not in self._bound:
                # Once per name (``s = s.replace(...)`` thirty times in a normaliser must not
                # multiply); None while it is being resolved, so a binding to itself ends.
                self._bound[key] = None
                scope = fn if local else None
                # Flow-insensitive, like the taint: any binding that names something.
                self._bound[key] = next(
                    (found for value in values if (found := self.resolve(value, scope, depth + 1)) is not None), None
                )
            return self._bound[key]
        if isinstance(expr, ast.Attribute):
            base = self.resolve(expr.value, fn, depth + 1)
            return None if base is None else f"{base}.{expr.attr}"
        if isinstance(expr, ast.Subscript):
            base = self.resolve(expr.value, fn, depth + 1)
            key = self.string_value(expr.slice, fn)
            return None if base is None or key is None else _item(base, key, self.imports)
        if not isinstance(expr, ast.Call):
            return None
        name = self.resolve(expr.func, fn, depth + 1)
        args = expr.args
        if name in ("getattr", "builtins.getattr") and len(args) >= 2:
            base, key = self.resolve(args[0], fn, depth + 1), self.string_value(args[1], fn)
            return None if base is None or key is None else f"{base}.{key}"
        if name in ("__import__", "builtins.__import__", "importlib.import_module") and args:
            return self.string_value(args[0], fn)
        if name in ("vars", "builtins.vars") and len(args) == 1:
            base = self.resolve(args[0], fn, depth + 1)
            return None if base is None else base + ".__dict__"
        if name in ("globals", "builtins.globals", "locals", "builtins.locals", "vars") and not args:
            return "<globals>"
        if name is not None and name.endswith(".get") and args:  # builtins.__dict__.get("eval")
            key = self.string_value(args[0], fn)
            return None if key is None else _item(name[: -len(".get")], key, self.imports)
        return None


def _item(base: str, key: str, imports: Imports) -> str | None:
    """``base[key]`` when ``base`` is a namespace: a module's ``__dict__``, the builtins as a
    dict (``__builtins__`` is the module or its dict, depending on where the code runs), or
    a module's globals (whose ``__builtins__`` is the builtins). None for any other value."""
    if base == "<globals>":
        return "builtins" if key == "__builtins__" else imports.names.get(key, key)
    if base.endswith(".__dict__"):
        return f"{base[: -len('.__dict__')]}.{key}"
    if base == "builtins":
        return f"builtins.{key}"
    return None


def build_module(
    path: Path, display: str, text: str, tree: ast.Module, passed: dict[str, dict[str, set[str]]] | None = None
) -> ModuleInfo:
    """The facts of a parsed file. ``passed``: top-level function -> parameter -> labels
    that a caller in another file passes it (the scan following an import, ``_imports.py``)."""
    imports = Imports(tree)
    constants: dict[str, ast.expr] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            constants[stmt.targets[0].id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            constants[stmt.target.id] = stmt.value
    top_level = {s.name: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    functions = [FunctionInfo(node=tree, qualname="", top="", nodes=own_nodes(tree))]
    functions += list(_functions(tree.body, prefix="", top=None))
    callers: dict[str, set[str]] = {}
    for fn in functions:
        if fn.top:
            for node in fn.nodes:
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in top_level:
                    if node.func.id != fn.top:
                        callers.setdefault(node.func.id, set()).add(fn.top)
    module = ModuleInfo(
        path=path,
        display=display,
        lines=text.splitlines(),
        tree=tree,
        imports=imports,
        constants=constants,
        functions=functions,
        top_level=top_level,
        callers=callers,
    )
    _analyse_all(module, passed or {})
    return module


def _functions(body: list[ast.stmt], prefix: str, top: str | None) -> Iterator[FunctionInfo]:
    """Every def, outer ones before the ones nested in them (their labels seed the inner)."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qualname = prefix + stmt.name
            own_top = top if top is not None else stmt.name  # None: at module level
            yield FunctionInfo(node=stmt, qualname=qualname, top=own_top, nodes=own_nodes(stmt))
            yield from _functions(stmt.body, qualname + ".", own_top)
        elif isinstance(stmt, ast.ClassDef):
            # A method runs when its class's instance is called: the class is its top.
            yield from _functions(stmt.body, prefix + stmt.name + ".", top if top is not None else stmt.name)
        elif isinstance(stmt, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            # defs under ``if TYPE_CHECKING:`` / ``try: ... except ImportError:``
            for name in ("body", "orelse", "finalbody"):
                yield from _functions(getattr(stmt, name, []) or [], prefix, top)
            for handler in getattr(stmt, "handlers", []):
                yield from _functions(handler.body, prefix, top)


def _analyse_all(module: ModuleInfo, from_outside: dict[str, dict[str, set[str]]]) -> None:
    """Labels for every function: first from parameter names, then with what the module's
    own calls pass to its functions (two rounds: a helper's helper, a closure), and what a
    caller in another file passes them (``from_outside``)."""
    by_name = {f.qualname: f for f in module.functions}

    def seeds_for(fn: FunctionInfo, extra: dict[str, set[str]]) -> dict[str, Labels]:
        seeds: dict[str, Labels] = {}
        parent = by_name.get(fn.qualname.rpartition(".")[0]) if "." in fn.qualname else None
        if parent is not None and isinstance(fn.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # A closure reads its enclosing function's names; its own parameters shadow them.
            shadowed = set(param_names(fn.node))
            seeds.update({k: v for k, v in parent.labels.items() if k not in shadowed})
        if isinstance(fn.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for name, labels in seed_labels(fn.node).items():
                seeds[name] = seeds.get(name, EMPTY) | labels
            for name, labels in extra.get(fn.qualname, {}).items():
                seeds[name] = seeds.get(name, EMPTY) | frozenset(labels)
        return seeds

    for fn in module.functions:
        analyse(fn, seeds_for(fn, from_outside))
    before: dict[str, dict[str, set[str]]] = {}
    # Twice at most: a closure called with what its function was passed (``symbolic_equal(a,
    # b)`` runs ``_parse(a)``) needs the second round; deeper chains are not followed.
    for _ in range(2):
        passed = _call_site_labels(module)
        for name, params in from_outside.items():
            for param, labels in params.items():
                passed.setdefault(name, {}).setdefault(param, set()).update(labels)
        if not passed or passed == before:
            break
        before = passed
        for fn in module.functions:
            fn.assigned = {}
            analyse(fn, seeds_for(fn, passed))


def _call_site_labels(module: ModuleInfo) -> dict[str, dict[str, set[str]]]:
    """function -> parameter -> labels its callers in this module pass to it: a top-level
    function, or one nested in the caller (``def _parse(s): ...`` then ``_parse(answer)``,
    Qwen2.5-Math's and verl prime_math's ``symbolic_equal``)."""
    out: dict[str, dict[str, set[str]]] = {}
    by_name = {f.qualname: f for f in module.functions}
    for fn in module.functions:
        for node in fn.nodes:
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            nested = by_name.get(f"{fn.qualname}.{node.func.id}") if fn.qualname else None
            if nested is not None and isinstance(nested.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name, callee = nested.qualname, nested.node
            elif node.func.id in module.top_level:
                name, callee = node.func.id, module.top_level[node.func.id]
            else:
                continue
            for param, labels in passed_to(callee, node, fn).items():
                out.setdefault(name, {}).setdefault(param, set()).update(labels)
    return out


def passed_to(callee: FunctionNode, call: ast.Call, caller: FunctionInfo) -> dict[str, Labels]:
    """Parameter of ``callee`` -> the labels ``call`` (in ``caller``) passes it, positionally
    or by keyword; parameters passed nothing labelled are left out."""
    positional = [p.arg for p in (*callee.args.posonlyargs, *callee.args.args)]
    pairs = [
        (positional[i], arg)
        for i, arg in enumerate(call.args)
        if i < len(positional) and not isinstance(arg, ast.Starred)
    ]
    pairs += [(kw.arg, kw.value) for kw in call.keywords if kw.arg is not None]
    out: dict[str, Labels] = {}
    for param, arg in pairs:
        labels = caller.labels_of(arg)
        if labels:
            out[param] = out.get(param, EMPTY) | labels
    return out
