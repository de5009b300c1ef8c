"""The domain contract (issue 32 item 1): ``domains/base.py`` holds every hook a domain
provides, each with a default and a docstring, and capability flags; the rest of the
package calls the hooks plainly and never probes a domain for one. A domain that defines
only the few hooks it needs works everywhere through the defaults."""

from __future__ import annotations

import ast
import inspect
import random
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier_audit import domains
from verifier_audit.domains import get_domain
from verifier_audit.domains.base import (
    CallAuthority,
    CategoryInfo,
    Domain,
    DomainPackage,
    OracleLabel,
    Suite,
    SuiteScheme,
)
from verifier_audit.engine import formats as engine_formats
from verifier_audit.engine.search import supports_search
from verifier_audit.engine.slices import task_slices, with_slices
from verifier_audit.errors import InputError
from verifier_audit.models import Candidate, CategoryResult, GateResult, Interval, Report, Severity, Task
from verifier_audit.samples.compare.facts import canonical_answer
from verifier_audit.suites import load_suite, suite_schemes

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "verifier_audit"
BASE = PACKAGE / "domains" / "base.py"
BUILTIN = ("math", "sql", "code", "tool")

# The acceptance check, as a regular expression over the source.
PROBE = re.compile(r"(getattr|hasattr)\((domain|dom|pkg|package)")
# Hooks without ``__doc__`` or default would be probed for; these are the method hooks.
HOOKS = sorted(name for name, value in vars(Domain).items() if not name.startswith("_") and callable(value))
FLAGS = ("prepares_tasks", "sandboxes_calls", "private_view", "guards_fixtures", "calls_tools")
# flag -> the hooks a domain overrides exactly when it sets the flag
FLAG_HOOKS = {
    "prepares_tasks": ("prepare_tasks",),
    "sandboxes_calls": ("isolate_verifier_calls",),
    "private_view": ("verifier_view",),
    "guards_fixtures": ("after_call",),
    "calls_tools": ("call_authority",),
}


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        if path != BASE:
            yield path, path.read_text(encoding="utf-8")


def test_no_module_probes_a_domain_for_a_hook():
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path, text in _sources()
        for n, line in enumerate(text.splitlines(), 1)
        if PROBE.search(line)
    ]
    assert found == []


def test_no_module_probes_for_a_hook_by_name():
    """Stricter than the issue's grep: whatever the variable is called (``self.domain``,
    ``entry.domain``, ``get_domain(x)``), no ``getattr``/``hasattr`` names a hook."""
    names = "|".join(
        re.escape(h)
        for h in HOOKS
        + list(FLAGS)
        + ["default_timeout", "survival_verifier", "suite_formats", "suite_datasets", "suite_signs", "suite_schemes"]
    )
    by_name = re.compile(rf"(getattr|hasattr)\([^,()]+(\([^()]*\))?,\s*[\"']({names})[\"']")
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path, text in _sources()
        for n, line in enumerate(text.splitlines(), 1)
        if by_name.search(line)
    ]
    assert found == []


def test_the_probe_check_sees_a_probe():
    assert PROBE.search('    hook = getattr(domain, "task_slices", None)')
    assert not PROBE.search("    hook = domain.task_slices")


@pytest.mark.parametrize("hook", HOOKS)
def test_every_method_hook_has_a_default_and_a_docstring(hook):
    fn = vars(Domain)[hook]
    assert inspect.getdoc(fn), f"Domain.{hook} has no docstring"
    assert "Default" in inspect.getdoc(fn), f"Domain.{hook}'s docstring does not say its default"


def test_every_attribute_hook_has_a_default_and_a_comment():
    """Each annotated attribute of ``Domain`` has a value and a ``#:`` comment above it."""
    lines = BASE.read_text(encoding="utf-8").splitlines()
    cls = next(
        n
        for n in ast.parse(BASE.read_text(encoding="utf-8")).body
        if isinstance(n, ast.ClassDef) and n.name == "Domain"
    )
    attributes = [n for n in cls.body if isinstance(n, ast.AnnAssign)]
    assert {a.target.id for a in attributes} >= {
        "name",
        "reference_verifiers",
        "suite_formats",
        "suite_schemes",
        "default_timeout",
        "survival_verifier",
        *FLAGS,
    }
    for a in attributes:
        assert a.value is not None, f"Domain.{a.target.id} has no default"
        assert lines[a.lineno - 2].strip().startswith("#:"), f"Domain.{a.target.id} has no #: comment"


def test_the_defaults_run():
    """Every default of a bare ``Domain`` is callable as documented."""
    d = Domain()
    task = Task(id="t", domain="", prompt="?", reference="42")
    assert d.check_task(task) is None and d.check_input(task) is None
    assert list(d.generate([task], 0)) == [] and d.categories() == []
    assert d.label("42", task).label is None
    assert d.prepare_tasks([task], 0, Path(".")) == [task]
    assert d.verifier_view(task, ".") is task and d.after_call(task, task) == []
    assert d.isolate_verifier_calls(lambda i: 1.0) is None
    assert d.answer_formats() == [] and d.format_of("42") is None
    assert d.reference_completion(task, random.Random(0)) == "42"
    assert d.answer_span("the answer is 42") == ""
    assert d.canonical_answer(" 4\n2 ", task) == "4 2" and d.canonical_answer(" \n", task) is None
    assert d.task_slices(task) == [] and d.search_operators() == {} and d.lazy_policies(task) == {}
    assert d.call_authority(task)("[]") == CallAuthority()
    assert d.default_timeout == 10.0 and d.survival_verifier is None
    assert not any(getattr(d, flag) for flag in FLAGS)


@pytest.mark.parametrize("name", BUILTIN)
def test_each_builtin_domain_satisfies_the_contract(name):
    domain = get_domain(name)
    assert isinstance(domain, Domain) and issubclass(type(domain), DomainPackage) and domain.name == name
    # Each flag is set exactly when its hooks are overridden: the engine decides on the flag.
    for flag, hooks in FLAG_HOOKS.items():
        overrides = any(getattr(type(domain), h) is not getattr(Domain, h) for h in hooks)
        assert getattr(domain, flag) == overrides, (name, flag)
    assert domain.search_operators(), f"{name} takes part in the search"
    assert domain.reference_verifiers and domain.categories()


def test_the_capabilities_of_the_builtin_domains():
    assert [n for n in BUILTIN if get_domain(n).sandboxes_calls] == ["code"]
    assert [n for n in BUILTIN if get_domain(n).guards_fixtures] == ["sql"]
    assert [n for n in BUILTIN if get_domain(n).prepares_tasks] == ["sql", "code"]
    assert [n for n in BUILTIN if get_domain(n).calls_tools] == ["tool"]
    assert get_domain("code").default_timeout == 4.0 and get_domain("code").survival_verifier == "visible_tests"


# ------------------------------------------------------------- a minimal domain, registered


class Toy(Domain):
    """JSON extraction in miniature: the answer is the reference's text. Only the hooks an
    audit cannot do without (and one scheme, and one search operator) are defined."""

    name = "toy"
    suite_schemes = (SuiteScheme("toy:", f"{__name__}:toy_suite", "N"),)

    def generate(self, tasks, seed):
        for t in tasks:
            yield Candidate(
                id=f"{t.id}/toy.wrong/0",
                task_id=t.id,
                text=t.reference + "!",
                origin="near_miss",
                category="toy.near_miss.bang",
                severity=Severity.low,
                label="incorrect",
            )

    def label(self, text, task):
        return OracleLabel("correct" if text.strip() == task.reference else "incorrect")

    def categories(self):
        return [CategoryInfo("toy.near_miss.bang", "near_miss", Severity.low, "an exclamation mark")]

    def search_operators(self):
        return {"bang": lambda text, rng: text + "!"}


def toy_suite(spec, *, fields=None, fmt="jsonl", domain=None) -> Suite:
    n = int(spec[len("toy:") :] or 1)
    tasks = [Task(id=f"toy-{i}", domain="toy", prompt="?", reference=f'{{"a": {i}}}') for i in range(n)]
    return Suite(name=spec, path=Path(spec), tasks=tasks, content_hash="0" * 16)


TOY = Toy()


def _clear():
    for cached in (domains.available, domains.suite_formats, domains.suite_datasets, domains.suite_schemes):
        cached.cache_clear()


@pytest.fixture
def toy(monkeypatch):
    """The toy domain in the registry, as an entry point would put it there."""
    monkeypatch.setitem(domains._BUILTIN, "toy", f"{__name__}:TOY")
    _clear()
    yield TOY
    monkeypatch.delitem(domains._BUILTIN, "toy")
    _clear()


def test_a_minimal_domain_works_through_the_defaults(toy):
    task = Task(id="t", domain="toy", prompt="?", reference='{"a": 1}')
    cands = list(toy.generate([task], 0))
    # slices: none of its own, a suite's named slice still wins
    assert task_slices(toy, task) == [] and with_slices(toy, [task], cands) == cands
    assert task_slices(toy, task.model_copy(update={"metadata": {"slice": "easy"}})) == ["slice:easy"]
    # formats: none, so the probe is skipped and the candidates stay as they are
    assert not engine_formats.supports_formats(toy) and engine_formats.annotate(toy, cands) == cands
    # compare: the contract's default canonical answer
    assert canonical_answer('{"a":  1}\n', task) == '{"a": 1}'
    # search: found through the domain, so a plugin domain searches
    assert supports_search("toy") and toy.search_operators()["bang"]("x", random.Random(0)) == "x!"
    assert toy.label('{"a": 1}', task).label == "correct"


def test_a_domain_owns_a_suite_scheme(toy):
    suite = load_suite("toy:3")
    assert [t.id for t in suite.tasks] == ["toy-0", "toy-1", "toy-2"] and suite.domain == "toy"
    with pytest.raises(InputError, match=r"toy:N"):
        load_suite("no-such-suite")


def test_the_schemes_are_declared_not_named_by_the_suite_reader():
    prefixes = [s.prefix for s in suite_schemes()]
    assert prefixes == ["reasoning-gym:", "verifiers:", "bfcl:"]
    assert [s.prefix for s in get_domain("tool").suite_schemes] == ["bfcl:"]
    # suites.py neither imports an owner nor spells a prefix in its code (its docstring may)
    tree = ast.parse((PACKAGE / "suites.py").read_text(encoding="utf-8"))
    imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not [m for m in imported if "tool" in m or "reasoning_gym" in m or "verifiers_env" in m]
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.FunctionDef)) and n.body and isinstance(n.body[0], ast.Expr)
    }
    strings = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    ]
    assert not [s for s in strings if any(p in s for p in prefixes)]
    with pytest.raises(InputError, match=r"reasoning-gym:NAME, bfcl:CATEGORY"):
        load_suite("no-such-suite")


def test_an_unknown_domain_gets_the_default_canonical_answer():
    task = Task(id="t", domain="not-installed", prompt="?", reference="x")
    assert canonical_answer("a \t b", task) == "a b"


@pytest.mark.parametrize("name", ["tool", "not-installed"])
@given(st.text(max_size=60))
def test_the_default_canonical_answer_ignores_layout(name, text):
    """Whitespace in any amount is one space; the result is its own canonical answer."""
    task = Task(id="t", domain=name, prompt="?", reference="x")
    once = canonical_answer(text, task)
    assert once == canonical_answer(re.sub(r"\s", "  \n", text), task)
    assert once is None or canonical_answer(once, task) == once


def _toy_report() -> Report:
    ci = Interval(low=0.0, high=0.5)
    cat = CategoryResult(
        name="toy.near_miss.bang",
        origin="near_miss",
        severity=Severity.low,
        label="incorrect",
        n=4,
        accepted=0,
        rate=0.0,
        ci=ci,
    )
    return Report(
        tool_version="0",
        verifier="v.py:f",
        style="native",
        suite="toy:4",
        seed=0,
        threshold=0.5,
        n_candidates=4,
        coverage_debt=0.0,
        coverage_debt_ci=ci,
        false_acceptance_rate=0.0,
        false_acceptance_ci=ci,
        false_rejection_rate=0.0,
        false_rejection_ci=ci,
        error_rate=0.0,
        errors=0,
        categories=[cat],
        gate=GateResult(passed=True),
    )


def test_the_checklist_reads_the_flags_not_the_hooks(toy, monkeypatch):
    """A plugin domain's report gets the checklist items its flags declare: the
    runtime_authority item when its completions call tools, the sandbox's reading of the
    isolation item when its calls run in a sandbox of its own."""
    from verifier_audit.report.checklist import evaluate

    plain = {i.key: i for i in evaluate(_toy_report())}
    assert "runtime_authority" not in plain
    assert "not run in the audit's sandbox" in plain["isolation_holds"].evidence
    monkeypatch.setattr(Toy, "calls_tools", True)
    monkeypatch.setattr(Toy, "sandboxes_calls", True)
    flagged = {i.key: i for i in evaluate(_toy_report())}
    assert "runtime_authority" in flagged
    assert "not run in the audit's sandbox" not in flagged["isolation_holds"].evidence
