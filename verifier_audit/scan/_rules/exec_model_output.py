"""exec-model-output: text the policy wrote reaches something that runs code."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ...models import SEVERITY_WEIGHT, Severity
from .._facts import FunctionInfo, ModuleInfo
from .._rule import Hit, Rule
from .._syntax import snippet
from .._taint import MODEL, sources

# Calls that run (or unpickle) their argument, by dotted name after imports are resolved.
_RUNS = frozenset(
    {
        "eval",
        "exec",
        "builtins.eval",
        "builtins.exec",
        "os.system",
        "os.popen",
        "pickle.loads",
        "pickle.load",
        "dill.loads",
        "marshal.loads",
        "sympy.S",
    }
)
_RUNS_PREFIXES = ("subprocess.", "os.exec", "os.spawn")
# sympy's string parsers: both documented as using eval (sympify is also sympy.S(...)).
_SYMPY_EVAL = frozenset({"sympify", "parse_expr"})
# sympy's LaTeX parser does not call eval (sympy 1.14), but it is a parser of hostile text
# whose result graders hand on: reported at a lower severity.
_SYMPY_PARSE = frozenset({"parse_latex"})
# latex2sympy (latex2sympy2, latex2sympy2_extended, the copies graders vendor, as
# QwenLM/Qwen2.5-Math evaluation/parser.py imports it): the same tier, from any module. It
# did not eval a payload in latex2sympy2_extended 1.11; what it returns goes on to sympy.
_LATEX_PARSERS = frozenset({"latex2sympy"})


_RUNS_CODE = "a completion can run code in the grader"


def _sink(qualname: str | None) -> tuple[str, Severity, str] | None:
    """(what it is, severity, what follows) when a call of this name runs its argument."""
    if qualname is None:
        return None
    last = qualname.rsplit(".", 1)[-1]
    from_sympy = qualname.startswith("sympy.") or "." not in qualname  # bare: a star import
    if qualname in ("compile", "builtins.compile"):
        # compile() alone runs nothing (a syntax check); exec(compile(x)) is reported at exec.
        return qualname, Severity.medium, "compile() alone runs nothing, but check where the code object goes"
    if qualname in _RUNS or qualname.startswith(_RUNS_PREFIXES):
        return qualname, Severity.critical, _RUNS_CODE
    if last in _SYMPY_EVAL and from_sympy:
        return f"{qualname} (sympy documents that it uses eval)", Severity.critical, _RUNS_CODE
    if (last in _SYMPY_PARSE and from_sympy) or last in _LATEX_PARSERS:
        return (
            qualname,
            Severity.medium,
            (
                "a LaTeX parser (sympy's, latex2sympy) does not eval, but hostile LaTeX (deep nesting, huge "
                "powers) can hang or crash it, and what it returns often goes on to sympify"
            ),
        )
    return None


def _inputs(call: ast.Call, qualname: str) -> list[ast.expr]:
    """The arguments that are code: all of them for a process, else the first."""
    if qualname.startswith(("subprocess.", "os.")):
        return [*call.args, *(k.value for k in call.keywords)]
    return call.args[:1] or [k.value for k in call.keywords[:1]]


def _looped(call: ast.Call, fn: FunctionInfo, module: ModuleInfo) -> str | None:
    """The most dangerous function a loop variable called here takes, when the loop runs
    over a literal list of functions (``for f in [parse_latex, parse_expr, latex2sympy]``)."""
    if not isinstance(call.func, ast.Name):
        return None
    named = [
        module.imports.qualname(element)
        for loop in fn.nodes
        if isinstance(loop, (ast.For, ast.comprehension))
        and isinstance(loop.target, ast.Name)
        and loop.target.id == call.func.id
        and isinstance(loop.iter, (ast.List, ast.Tuple))
        for element in loop.iter.elts
    ]
    sinks = [(found[1], name) for name in named if (found := _sink(name)) is not None]
    return max(sinks, key=lambda pair: SEVERITY_WEIGHT[pair[0]])[1] if sinks else None


def check(fn: FunctionInfo, module: ModuleInfo) -> Iterator[Hit]:
    for node in fn.nodes:
        qualname = module.imports.call(node)
        sink = _sink(qualname)
        inputs = _inputs(node, qualname) if sink is not None else []
        if sink is None and isinstance(node, ast.Call):
            # The name built, not written: getattr(builtins, "ev" + "al"), run = eval, ...
            # or each parser of a literal list in turn (``for f in [parse_latex, parse_expr]:
            # f(s)``: Qwen2.5-Math's symbolic_equal, verl prime_math's grader).
            built = module.callee(node, fn)
            built = built if _sink(built) is not None else _looped(node, fn, module) or built
            if built in ("map", "builtins.map") and len(node.args) >= 2:
                # map(eval, answers): the function is a value, called on every element.
                qualname, how, inputs = module.resolve(node.args[0], fn), "passed to map()", node.args[1:]
            else:
                qualname, how = built, f"as `{snippet(node.func)}`"
                inputs = _inputs(node, qualname) if qualname else []
            sink = _sink(qualname)
            if sink is not None:
                sink = (f"{sink[0]} ({how})", *sink[1:])
        if sink is None:
            continue
        what, severity, consequence = sink
        tainted = [arg for arg in inputs if fn.is_model(arg)]
        if tainted:
            arg = tainted[0]
            origin = ", ".join(f"`{s}`" for s in sources(fn.labels_of(arg), MODEL))
            yield Hit(
                node,
                f"model output `{snippet(arg)}` (from {origin}) reaches {what} in {fn.display}: {consequence}",
                severity=severity,
            )
        elif (
            qualname.rsplit(".", 1)[-1] in ("eval", "exec")
            and inputs
            and not all(isinstance(a, ast.Constant) for a in inputs)
        ):
            # The shape without the flow: lower confidence, said so.
            yield Hit(
                node,
                f"{qualname}() on a non-literal `{snippet(inputs[0])}` in {fn.display}; no model output "
                "was traced to it (the taint analysis stays inside one function): check what reaches it",
                severity=Severity.high,
                confidence="low",
            )


RULE = Rule(
    id="exec-model-output",
    title="model output reaches eval/exec/sympify/a subprocess",
    severity=Severity.critical,
    why=(
        "A grader that evaluates the policy's text runs whatever the policy writes, with the trainer's rights. "
        "SymPy's documentation of sympify() and parse_expr() warns: \"this function uses eval, and thus shouldn't be "
        "used on unsanitized input\"; the Python documentation of eval()/exec() and of subprocess ('Security "
        "Considerations') and pickle ('The pickle module is not secure') say the same of theirs (CWE-95, eval "
        "injection). Graders that sympify or eval extracted answers exist in public RLVR code, e.g. "
        "volcengine/verl verl/utils/reward_score/prime_math/grader.py."
    ),
    check=check,
    categories=("math.security",),
    # A guard escape is model output the grader ran that only the audit's sandbox stopped:
    # the same hole, seen from the walls rather than the canary (issue 31: a code grader with
    # 60 escapes was left "unknown" because no math canary category was audited).
    security_kinds=("executes_model_output", "guard_escape"),
    accepted_confirms=False,  # every canary evaluates to 0: paying for one is not the evidence, firing is
)
