"""The toy JSON domain (issue 32's proof of the contract), registered by entry point, in
each part of an audit: the registry, generation through the kit, labelling, slices,
answer formats, the search's operators, its suite scheme and the checklist. The whole run
in a fresh process is test_toy_json_e2e.py."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from report_support import blank_report
from toy_json_support import ENTRY_POINT, HERE, install

from verifier_audit import domains
from verifier_audit.domains import available, get_domain
from verifier_audit.engine import formats as engine_formats
from verifier_audit.engine.search import supports_search
from verifier_audit.engine.slices import task_slices, with_slices
from verifier_audit.errors import InputError
from verifier_audit.models import CategoryResult, Interval, Report, Severity, Task
from verifier_audit.samples.compare.facts import canonical_answer
from verifier_audit.suites import load_suite

PACKAGE = Path(domains.__file__).resolve().parent.parent  # verifier_audit/
TOY = HERE / "toy_json_domain"
# What a plugin domain may import of the package: the contract, the kit, the answer-format
# type, the models and the errors.
PUBLIC = {
    "verifier_audit.domains.base",
    "verifier_audit.domains.kit",
    "verifier_audit.domains.formats",
    "verifier_audit.models",
    "verifier_audit.errors",
}


def _clear():
    for cached in (domains.available, domains.suite_formats, domains.suite_datasets, domains.suite_schemes):
        cached.cache_clear()


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy domain installed (its dist-info on the path) and found by the registry."""
    for folder in reversed(install(tmp_path / "site")):
        monkeypatch.syspath_prepend(str(folder))
    _clear()
    yield get_domain("toy_json")
    _clear()


@pytest.fixture
def tasks(toy):
    return load_suite("toy_json:4").tasks


def test_the_registry_finds_the_toy_only_through_its_entry_point(tmp_path, monkeypatch):
    _clear()
    assert "toy_json" not in available()
    for folder in reversed(install(tmp_path / "site")):
        monkeypatch.syspath_prepend(str(folder))
    _clear()
    try:
        assert available()["toy_json"] == ENTRY_POINT.split(" = ")[1]
        assert get_domain("toy_json").name == "toy_json" and "toy_json" not in domains._BUILTIN
    finally:
        _clear()


def test_the_package_never_names_the_toy_and_the_toy_imports_only_the_public_face():
    named = [str(p) for p in PACKAGE.rglob("*.py") if "toy_json" in p.read_text(encoding="utf-8")]
    assert named == []
    imported = {
        node.module
        for path in TOY.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("verifier_audit")
    }
    assert imported <= PUBLIC, imported - PUBLIC


def test_generation_through_the_kit_and_labelling_by_the_oracle(toy, tasks):
    made = list(toy.generate(tasks, 0))
    assert {c.origin for c in made} == {"near_miss", "equivalent", "known_bad"}
    assert {c.category for c in made} <= {c.name for c in toy.categories()}
    assert len({c.id for c in made}) == len(made) and made == list(toy.generate(tasks, 0))
    by_id = {t.id: t for t in tasks}
    # the engine drops a candidate whose intended label the oracle disputes: the toy's agree
    assert [c.id for c in made if toy.label(c.text, by_id[c.task_id]).label != c.label] == []
    hostile = {c.category for c in made if c.origin == "known_bad"}
    assert {"toy_json.hedge.two_objects", "toy_json.parser.duplicate_keys"} <= hostile
    assert toy.check_task(tasks[0]) is None and "unusable" in toy.check_task(
        tasks[0].model_copy(update={"reference": "[1"})
    )


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
_OBJECTS = st.dictionaries(
    st.text(max_size=5),
    st.recursive(
        _SCALARS,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
        max_leaves=6,
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(_OBJECTS, st.integers(0, 3))
def test_near_misses_are_wrong_and_rewrites_and_formats_right_for_any_object(obj, seed):
    """For any JSON object: the oracle calls each near miss wrong, each equivalent rewrite
    and each answer format of the reference right (what the generators promise)."""
    from toy_json_domain.formats import FORMATS, format_of
    from toy_json_domain.generators import equivalent, near_miss
    from toy_json_domain.oracle import label_completion

    task = Task(id="t", domain="toy_json", prompt="?", reference=json.dumps(obj))
    rng = random.Random(seed)
    assert {label_completion(c.text, task).label for c in near_miss.generate(task, rng)} <= {"incorrect"}
    assert {label_completion(c.text, task).label for c in equivalent.generate(task, rng)} == {"correct"}
    for fmt in FORMATS:
        written = fmt.rewrite(task.reference)
        if written is not None:
            assert label_completion(written, task).label == "correct" and format_of(written) == fmt.name


def test_slices_come_from_the_domain_and_a_suite_slice_wins(toy, tasks):
    made = with_slices(toy, tasks, list(toy.generate(tasks, 0)))
    assert {c.slices[0] for c in made} == {"shape:flat", "shape:list", "shape:nested"}
    named = tasks[0].model_copy(update={"metadata": {"slice": "mine"}})
    assert task_slices(toy, named) == ["slice:mine"]


def test_answer_formats_take_part_in_the_probe(toy, tasks):
    assert engine_formats.supports_formats(toy)
    annotated = engine_formats.annotate(toy, list(toy.generate(tasks, 0)))
    assert {c.format for c in annotated} == {"bare", None}  # None: hostile texts, a truncated object
    reference = toy.reference_completion(tasks[0], random.Random(0))
    assert [f.rewrite(reference) is not None for f in toy.answer_formats()] == [True, True, True]


def test_the_search_finds_the_toy_operators_through_the_domain(toy, tasks):
    assert supports_search("toy_json")
    operators = toy.search_operators()
    task = tasks[0]
    wrong = operators["mutate_off_by_one"](task.reference, random.Random(0), task)
    assert toy.label(wrong, task).label == "incorrect"
    assert toy.label(operators["fence"](task.reference, random.Random(0), task), task).label == "correct"
    assert set(toy.lazy_policies(task)) == {"empty_object", "prompt_echo", "empty"}


def test_the_suite_scheme_and_the_contract_defaults(toy):
    suite = load_suite("toy_json:3")
    assert [t.id for t in suite.tasks] == [
        "toy-json-000",
        "toy-json-001",
        "toy-json-002",
    ] and suite.domain == "toy_json"
    with pytest.raises(InputError, match=r"toy_json:N with N from 1"):
        load_suite("toy_json:many")
    with pytest.raises(InputError, match=r"toy_json:N"):
        load_suite("no-such-suite")
    # compare's canonical answer: the toy keeps the contract's default
    assert canonical_answer('{"a":  1}\n', suite.tasks[0]) == '{"a": 1}'
    assert toy.warm_modules() == ["toy_json_domain.verifiers"] and not toy.calls_tools


def test_the_samples_layer_reads_a_plugin_domain_through_the_contract(toy, tasks, monkeypatch):
    """``score``/``compare`` read a sample's tool-call authority through
    ``Domain.call_authority`` when ``calls_tools`` is set: none for the toy as it is, and
    a plugin's own reader (here: every key of the object a "call") once it declares it."""
    from verifier_audit.domains.base import CallAuthority, UnreadableCalls
    from verifier_audit.samples import authority as A

    assert A.authority_reader(tasks[0]) is None

    def call_authority(self, task):
        def read(text):
            try:
                keys = tuple(json.loads(text))
            except ValueError as exc:
                raise UnreadableCalls(f"no object: {exc}") from None
            return CallAuthority(tools=tuple((k, "read") for k in keys), highest="read" if keys else "none")

        return read

    monkeypatch.setattr(type(toy), "calls_tools", True)
    monkeypatch.setattr(type(toy), "call_authority", call_authority)
    got = A.texts_authority(tasks[0], [tasks[0].reference, "{", "{}"])
    assert [a.parsed for a in got] == [True, False, True] and got[1].reason.startswith("no object")
    assert [a.highest for a in got] == ["read", None, "none"] and got[0].tools[0] == ("name", "read")


def _report() -> Report:
    ci = Interval(low=0.0, high=0.5)
    cat = CategoryResult(
        name="toy_json.near_miss.off_by_one",
        origin="near_miss",
        severity=Severity.high,
        label="incorrect",
        n=4,
        accepted=0,
        rate=0.0,
        ci=ci,
    )
    return blank_report(
        "v.py:f", style="native", suite="toy_json:4", n_candidates=4, coverage_debt_ci=ci, categories=[cat]
    )


def test_the_checklist_reads_the_flags_not_the_hooks(toy, monkeypatch):
    """A plugin domain's report gets the checklist items its flags declare: the
    runtime_authority item when its completions call tools, the sandbox's reading of the
    isolation item when its calls run in a sandbox of its own; its catalog's families."""
    from verifier_audit.report.checklist import evaluate

    plain = {i.key: i for i in evaluate(_report())}
    assert "runtime_authority" not in plain
    assert "not run in the audit's sandbox" in plain["isolation_holds"].evidence
    monkeypatch.setattr(type(toy), "calls_tools", True)
    monkeypatch.setattr(type(toy), "sandboxes_calls", True)
    flagged = {i.key: i for i in evaluate(_report())}
    assert "runtime_authority" in flagged
    assert "not run in the audit's sandbox" not in flagged["isolation_holds"].evidence
