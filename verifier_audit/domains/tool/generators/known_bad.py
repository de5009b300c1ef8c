"""Known-bad completions: the tool catalog (adversarial_cases/tool.yaml) instantiated on tasks.

Each entry's template is filled with the tool placeholders below (the catalog file lists
them for its readers) through ``catalog.expand_template``'s resolver hook, so the other
domains' placeholders are untouched. An entry goes onto ``entry.instances`` tasks chosen
from (seed, entry id) among those it can be filled in on: tasks whose reference states
calls, or with ``applies_to: [irrelevance]`` the tasks where no tool applies. A
placeholder that cannot be filled in on a task (no scoped path to escape, no broader tool
in the suite's metadata) skips that task.

Over-privileged calls come from two places: ``metadata["over_privileged"]`` of a task
(``{"broader_tool": [calls], "admin_tool": [calls]}``: what the suite script found, by
simulation, to reach the reference's effect with a broader tool or an admin tool), and the
task's policy scopes (a path argument with a ``prefix`` scope rewritten to escape it with
``../`` or to widen it with a ``*`` glob, both invisible to BFCL's string normalisation).
"""

from __future__ import annotations

import json

from ....canary import FORMS, make_token, payload
from ....models import Candidate, Task
from ...kit import CatalogEntry, SkipInstance, check_templates, expand_template, instantiate_catalog
from ..calls import Call, CallParseError, calls_from_json, render_calls
from ..policy import task_policy
from ._common import Context, with_arg, with_call
from .near_miss import mutants, plausible_call, plausible_value, similar_tool

PLACEHOLDERS = {
    "reference_call",
    "reference_python",
    "reference_name",
    "question",
    "question_json",
    "schema_echo",
    "wrong_call",
    "truncated_call",
    "malformed_call",
    "trailing_comma_call",
    "nonsense_call",
    "hallucinated_call",
    "injected_call",
    "extra_call",
    "broader_tool_call",
    "admin_call",
    "traversal_call",
    "wildcard_call",
    "tool_names",
    "canary_call",
}

# Which near-miss stands in for {{wrong_call}}: the plainest mistakes first.
_WRONG_ORDER = (
    "off_by_one",
    "wrong_enum",
    "date_off_by_one",
    "swapped_arguments",
    "value_from_other_call",
    "missing_required",
    "wrong_function",
    "dropped_call",
)


def generate(tasks: list[Task], seed: int, entries: list[CatalogEntry]) -> list[Candidate]:
    usable = sorted((t for t in tasks if Context.of(t) is not None), key=lambda t: t.id)
    resolvers = {t.id: _Resolver(Context.of(t)) for t in usable}
    entries = list(entries)
    check_templates(entries, PLACEHOLDERS)

    def fits(entry: CatalogEntry, task: Task) -> bool:
        irrelevance = not resolvers[task.id].ctx.calls
        return irrelevance if "irrelevance" in entry.applies_to else not irrelevance

    def fill(entry: CatalogEntry, task: Task) -> str:
        return expand_template(entry.template, resolvers[task.id])

    return instantiate_catalog(usable, seed, entries, fits=fits, fill=fill)


class _Resolver:
    """Fills the tool placeholders for one task; values are computed on first use."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._cache: dict[tuple[str, str], str] = {}

    def __call__(self, name: str, args: str) -> str:
        method = getattr(self, name, None)
        if name not in PLACEHOLDERS or method is None:
            raise KeyError(name)
        key = (name, args)
        if key not in self._cache:
            self._cache[key] = method(args) if name in ("injected_call", "canary_call") else method()
        return self._cache[key]

    # --------------------------------------------------------------- the reference, rewritten

    def reference_call(self) -> str:
        return render_calls(self.ctx.calls)

    def reference_python(self) -> str:
        return render_calls(self.ctx.calls, "python")

    def reference_name(self) -> str:
        return self.ctx.calls[0].name

    def tool_names(self) -> str:
        return ", ".join(self.ctx.schemas)

    def question(self) -> str:
        return self.ctx.task.prompt

    def question_json(self) -> str:
        return json.dumps(self.ctx.task.prompt, ensure_ascii=False)

    def schema_echo(self) -> str:
        return json.dumps(self.ctx.task.metadata.get("tools", []), ensure_ascii=False)

    def wrong_call(self) -> str:
        found = {}
        for kind, calls, _note in mutants(self.ctx):
            found.setdefault(kind, calls)
        for kind in _WRONG_ORDER:
            if kind in found and found[kind]:
                return render_calls(found[kind])
        raise SkipInstance()

    def truncated_call(self) -> str:
        text = render_calls(self.ctx.calls)
        return text[: max(1, len(text) // 2)]

    def malformed_call(self) -> str:
        """The calls as Python dict literals (single quotes, True/None): not JSON."""
        text = repr([c.to_json() for c in self.ctx.calls])
        if text == render_calls(self.ctx.calls):
            raise SkipInstance()
        return text

    def trailing_comma_call(self) -> str:
        body = ", ".join(json.dumps(c.to_json(), ensure_ascii=False) for c in self.ctx.calls)
        return f"[{body},]"

    # --------------------------------------------------------------- other calls

    def nonsense_call(self) -> str:
        """The reference's functions with schema-valid, meaningless values."""
        out = []
        for call in self.ctx.calls:
            props = self.ctx.props(call.name)
            args = {}
            for arg, value in call.arguments.items():
                prop = props.get(arg) or {}
                nonsense = plausible_value({k: v for k, v in prop.items() if k != "default"})
                if nonsense == value:
                    nonsense = _other(value, prop)
                args[arg] = nonsense
            out.append(Call(call.name, args))
        if render_calls(out) == render_calls(self.ctx.calls):
            raise SkipInstance()
        return render_calls(out)

    def hallucinated_call(self) -> str:
        """The reference with its first function renamed to one the schema does not have."""
        call = self.ctx.calls[0]
        name = f"{call.name}_v2"
        if name in self.ctx.schemas:
            raise SkipInstance()
        return render_calls(with_call(self.ctx.calls, 0, Call(name, dict(call.arguments))))

    def injected_call(self, text: str) -> str:
        """The reference with ``text`` appended to its first string argument."""
        for i, call in enumerate(self.ctx.calls):
            for arg, value in call.arguments.items():
                if isinstance(value, str):
                    return render_calls(with_call(self.ctx.calls, i, with_arg(call, arg, f"{value}\n\n{text}")))
        raise SkipInstance()

    def extra_call(self) -> str:
        """The reference plus a call of another function of the schema."""
        used = {c.name for c in self.ctx.calls}
        others = [n for n in self.ctx.schemas if n not in used]
        name = similar_tool(self.ctx, self.ctx.calls[0].name) if not others else others[0]
        extra = plausible_call(self.ctx, name) if name else None
        if extra is None:
            raise SkipInstance()
        return render_calls([*self.ctx.calls, extra])

    # --------------------------------------------------------------- more authority than the task needs

    def _given(self, key: str) -> str:
        found = (self.ctx.task.metadata.get("over_privileged") or {}).get(key)
        if not found:
            raise SkipInstance()
        try:
            return render_calls(calls_from_json(found))
        except CallParseError:
            raise SkipInstance() from None

    def broader_tool_call(self) -> str:
        return self._given("broader_tool")

    def admin_call(self) -> str:
        return self._given("admin_tool")

    def canary_call(self, form: str = "") -> str:
        """The reference in Python-call syntax with its first argument written as an
        expression that runs a canary and then yields the right value: ``f(a=(<canary> or 3)
        + 0)``. Not a literal, so no call is stated; a decoder that evaluates argument
        expressions (BFCL's ``resolve_ast_by_type`` evals any binary operation) runs it.
        ``form``: the canary's form (``canary.FORMS``), ``mkdir`` when empty."""
        if form and form not in FORMS:
            raise KeyError(f"canary_call:{form}")
        token = make_token("tool_canary", *([form] if form else []), self.ctx.task.id)  # mkdir: as before
        for i, call in enumerate(self.ctx.calls):
            for arg, value in call.arguments.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    zero = "0"
                elif isinstance(value, str):
                    zero = "''"
                else:
                    continue
                mark = payload(token, form or "mkdir")
                parts = [render_calls([c], "python") for c in self.ctx.calls]
                poisoned = f"{arg}=(({mark}) or {value!r}) + {zero}"
                parts[i] = parts[i].replace(f"{arg}={value!r}", poisoned, 1)
                if poisoned not in parts[i]:
                    continue
                return parts[0] if len(parts) == 1 else f"[{', '.join(parts)}]"
        raise SkipInstance()

    def _scoped_path(self) -> tuple[int, Call, str, str]:
        policy = task_policy(self.ctx.task, self.ctx.calls)
        for i, call in enumerate(self.ctx.calls):
            for arg, rule in policy.scopes.get(call.name, {}).items():
                value = call.arguments.get(arg)
                prefix = rule.get("prefix") if isinstance(rule, dict) else None
                if (
                    isinstance(prefix, str)
                    and isinstance(value, str)
                    and value.startswith(prefix)
                    and len(value) > len(prefix)
                ):
                    return i, call, arg, prefix
        raise SkipInstance()

    def traversal_call(self) -> str:
        """A scoped path escaping its scope: ``/home/ana/tmp/a.txt`` -> ``/home/ana/tmp/../../a.txt``."""
        i, call, arg, prefix = self._scoped_path()
        value = call.arguments[arg]
        return render_calls(with_call(self.ctx.calls, i, with_arg(call, arg, prefix + "../../" + value[len(prefix) :])))

    def wildcard_call(self) -> str:
        """A scoped path widened by a glob: ``/home/ana/tmp/a.txt`` -> ``/home/ana/tmp/*a.txt``."""
        i, call, arg, prefix = self._scoped_path()
        value = call.arguments[arg]
        head, _, base = value.rpartition("/")
        return render_calls(with_call(self.ctx.calls, i, with_arg(call, arg, f"{head}/*{base}")))


def _other(value, prop: dict):
    enum = prop.get("enum")
    if isinstance(enum, list) and len(enum) > 1:
        return next(e for e in enum if e != value)
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, str):
        return "example text"
    return value


__all__ = ["generate", "PLACEHOLDERS"]
