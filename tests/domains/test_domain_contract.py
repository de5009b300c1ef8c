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
    Domain,
    DomainPackage,
)
from verifier_audit.engine import formats as engine_formats
from verifier_audit.engine.slices import task_slices, with_slices
from verifier_audit.errors import InputError
from verifier_audit.models import Candidate, Severity, Task
from verifier_audit.samples.compare.facts import canonical_answer
from verifier_audit.suites import load_suite, suite_schemes

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "verifier_audit"
BASE = PACKAGE / "domains" / "base.py"
BUILTIN = ("math", "sql", "code", "tool", "program", "repo")

# The acceptance check, as a regular expression over the source.
PROBE = re.compile(r"(getattr|hasattr)\((domain|dom|pkg|package)")
# Hooks without ``__doc__`` or default would be probed for; these are the method hooks.
HOOKS = sorted(name for name, value in vars(Domain).items() if not name.startswith("_") and callable(value))
FLAGS = ("prepares_tasks", "sandboxes_calls", "private_view", "guards_fixtures", "calls_tools", "limits_paths")
# flag -> the hooks a domain overrides exactly when it sets the flag
FLAG_HOOKS = {
    "prepares_tasks": ("prepare_tasks",),
    "sandboxes_calls": ("isolate_verifier_calls",),
    "private_view": ("verifier_view",),
    "guards_fixtures": ("after_call",),
    "calls_tools": ("call_authority",),
    "limits_paths": ("outside_paths",),
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
    assert d.outside_paths("diff --git a/x b/x", task) == []
    assert d.warm_modules() == []
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
    # the clean workers' server warms the reference verifiers' module, as it always has
    assert domain.warm_modules() == [f"{domain.package}.verifiers"]


def test_the_builtin_domains_are_declared_once():
    """``domains._BUILTIN`` is the one declaration of the built-in domains (every package
    under ``domains/`` with a ``DOMAIN``); pyproject.toml's entry points are for plugins,
    so an installed package lists them in the same order as a source tree."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "verifier_audit.domains" not in project.get("entry-points", {})
    # The program tasks' domain lives in the code domain's folder (domains/code/programs).
    packages = {
        "verifier_audit." + ".".join(p.parent.relative_to(PACKAGE).parts) + ":DOMAIN"
        for p in (PACKAGE / "domains").rglob("__init__.py")
        if "DOMAIN =" in p.read_text()
    }
    assert list(domains._BUILTIN) == list(BUILTIN) and set(domains._BUILTIN.values()) == packages


def test_the_capabilities_of_the_builtin_domains():
    assert [n for n in BUILTIN if get_domain(n).sandboxes_calls] == ["code", "program", "repo"]
    assert [n for n in BUILTIN if get_domain(n).guards_fixtures] == ["sql"]
    assert [n for n in BUILTIN if get_domain(n).prepares_tasks] == ["sql", "code"]
    assert [n for n in BUILTIN if get_domain(n).calls_tools] == ["tool"]
    assert [n for n in BUILTIN if get_domain(n).limits_paths] == ["repo"]
    assert get_domain("code").default_timeout == 4.0 and get_domain("code").survival_verifier == "visible_tests"


# A whole domain registered by entry point, through every part of an audit, is the toy
# JSON domain of tests/domains/toy_json/ (test_toy_json_domain.py, test_toy_json_e2e.py).


def test_the_engine_runs_a_domain_without_formats_or_slices():
    """A domain that overrides neither: the format probe is skipped, the candidates stay as
    they are, and a suite's own named slice still works."""
    bare = Domain()
    task = Task(id="t", domain="", prompt="?", reference="42")
    cands = [
        Candidate(
            id="t/x.near_miss.k/0",
            task_id="t",
            text="41",
            origin="near_miss",
            category="x.near_miss.k",
            severity=Severity.low,
            label="incorrect",
        )
    ]
    assert task_slices(bare, task) == [] and with_slices(bare, [task], cands) == cands
    assert task_slices(bare, task.model_copy(update={"metadata": {"slice": "easy"}})) == ["slice:easy"]
    assert not engine_formats.supports_formats(bare) and engine_formats.annotate(bare, cands) == cands


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
