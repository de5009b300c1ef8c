"""Tool generators: deterministic for a seed, near-misses wrong and equivalents right under
the oracle (Hypothesis over random schemas and calls, and the built-in suite), the catalog
instantiated with its placeholders, and render/parse round trips for every syntax."""

from __future__ import annotations

import json
import keyword
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier_audit.domains import get_domain
from verifier_audit.domains.kit import rng_for
from verifier_audit.domains.tool.calls import SYNTAXES, Call, parse_calls, render_calls
from verifier_audit.domains.tool.generators import equivalent, generate_all, known_bad, near_miss
from verifier_audit.domains.tool.oracle import canonical, check_task, label_completion, reference_calls, same_calls
from verifier_audit.domains.tool.schema import SchemaError
from verifier_audit.models import Task
from verifier_audit.suites import load_suite

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ----------------------------------------------------------------------------- strategies

_names = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True).filter(lambda s: not keyword.iskeyword(s))
_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    _text,
)
_json_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_text, inner, max_size=3)),
    max_leaves=8,
)
_call = st.builds(
    Call,
    st.one_of(_names, st.builds(lambda a, b: f"{a}.{b}", _names, _names)),
    st.dictionaries(_names, _json_value, max_size=4),
)


@SETTINGS
@given(calls=st.lists(_call, min_size=1, max_size=4), fenced=st.booleans())
def test_render_parse_round_trip_every_syntax(calls, fenced):
    for syntax in SYNTAXES:
        if syntax == "json" and len(calls) != 1:
            continue
        text = render_calls(calls, syntax, fenced=fenced and syntax != "hermes")
        back = parse_calls(text)
        assert [c.key() for c in back] == [c.key() for c in calls], (syntax, text)


_PARAM_TYPES = ("integer", "number", "string", "boolean", "enum")
_TOOL_NAMES = ("get_item", "get_items", "find_item", "update_item", "delete_item")


@st.composite
def tool_tasks(draw):
    """A random task: 1-3 tools with typed parameters (some optional with defaults, some
    enums), and a reference of 1-3 calls with values of the right types."""
    n_tools = draw(st.integers(1, 3))
    tools = []
    for name in _TOOL_NAMES[:n_tools]:
        params = draw(st.lists(_names, min_size=1, max_size=4, unique=True))
        props, required = {}, []
        for p in params:
            kind = draw(st.sampled_from(_PARAM_TYPES))
            prop = {"type": "string", "enum": ["alpha", "beta", "gamma"]} if kind == "enum" else {"type": kind}
            if draw(st.booleans()):
                required.append(p)
            elif draw(st.booleans()):
                prop["default"] = _value(draw, prop)
            props[p] = prop
        tools.append({"name": name, "parameters": {"type": "object", "properties": props, "required": required}})
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        tool = draw(st.sampled_from(tools))
        props = tool["parameters"]["properties"]
        args = {p: _value(draw, props[p]) for p in props if p in tool["parameters"]["required"] or draw(st.booleans())}
        calls.append({"name": tool["name"], "arguments": args})
    task = Task(
        id="h",
        domain="tool",
        prompt="do it",
        reference=json.dumps(calls),
        metadata={"tools": tools, "order_matters": draw(st.booleans())},
    )
    return task


def _value(draw, prop):
    if "enum" in prop:
        return draw(st.sampled_from(prop["enum"]))
    return draw(
        {
            "integer": st.integers(-50, 50),
            "number": st.floats(-100, 100, allow_nan=False).map(lambda x: round(x, 3)),
            "string": st.text("abcxyz /._-", min_size=1, max_size=8),
            "boolean": st.booleans(),
        }[prop["type"]]
    )


@SETTINGS
@given(task=tool_tasks(), seed=st.integers(0, 2**31))
def test_near_misses_are_wrong_and_equivalents_right(task, seed):
    assert check_task(task) is None
    ref = canonical(reference_calls(task), task)
    order = task.metadata["order_matters"]
    for cand in near_miss.generate(task, rng_for(seed, task.id, "near_miss")):
        found = label_completion(cand.text, task)
        assert found.label == "incorrect", (cand.category, cand.text, found)
        try:  # independently of the label: not the reference's calls, or off the schema
            assert not same_calls(canonical(parse_calls(cand.text), task), ref, order), cand.text
        except SchemaError:
            pass
    for cand in equivalent.generate(task, rng_for(seed, task.id, "equivalent")):
        found = label_completion(cand.text, task)
        assert found.label == "correct", (cand.category, cand.text, found)


@SETTINGS
@given(task=tool_tasks(), seed=st.integers(0, 2**31))
def test_generation_is_deterministic_for_a_seed(task, seed):
    one = generate_all([task], seed)
    two = generate_all([task], seed)
    assert [(c.id, c.text, c.label) for c in one] == [(c.id, c.text, c.label) for c in two]


def _suite():
    return load_suite("tool").tasks


def test_suite_generation_deterministic_and_per_task():
    tasks = _suite()
    one, two = generate_all(tasks, 7), generate_all(tasks, 7)
    assert [(c.id, c.text) for c in one] == [(c.id, c.text) for c in two]
    other = generate_all(tasks, 8)
    assert [c.text for c in one] != [c.text for c in other]  # the seed picks catalog tasks and samples
    # a task's own candidates do not depend on the other tasks of the run
    alone = [c for c in generate_all(tasks[:1], 7) if c.origin != "known_bad"]
    assert [(c.id, c.text) for c in alone] == [
        (c.id, c.text) for c in one if c.task_id == tasks[0].id and c.origin != "known_bad"
    ]


def test_suite_candidates_labels_confirmed_by_the_oracle():
    tasks = _suite()
    by_id = {t.id: t for t in tasks}
    domain = get_domain("tool")
    candidates = generate_all(tasks, 0)
    origins = {c.origin for c in candidates}
    assert origins == {"near_miss", "equivalent", "known_bad"}
    disagree = [c for c in candidates if domain.label(c.text, by_id[c.task_id]).label != c.label]
    assert len(disagree) <= 0.01 * len(candidates), [(c.category, c.text[:80]) for c in disagree[:5]]
    categories = {c.category for c in candidates}
    known = {info.name for info in domain.categories()}
    assert categories <= known
    for kind in near_miss.KINDS:
        assert f"tool.near_miss.{kind}" in categories, kind
    for kind in equivalent.KINDS:
        assert f"tool.equivalent.{kind}" in categories, kind
    for entry in ("broader_tool", "admin_tool", "path_traversal_scope", "path_wildcard_scope"):
        assert any(c.note == f"catalog entry {entry}" for c in candidates), entry


def test_catalog_placeholders_fill_in():
    tasks = _suite()
    task = next(t for t in tasks if t.metadata.get("over_privileged", {}).get("broader_tool"))
    resolver = known_bad._Resolver(known_bad.Context.of(task))
    ref = json.loads(task.reference)[0]
    assert json.loads(resolver("reference_call", "")) == json.loads(task.reference)
    assert parse_calls(resolver("broader_tool_call", ""))[0].name == "delete_all_files"
    assert parse_calls(resolver("admin_call", ""))[0].name == "sudo_delete"
    traversal = parse_calls(resolver("traversal_call", ""))[0].arguments["path"]
    assert "/../../" in traversal and traversal.replace("../", "") == ref["arguments"]["path"]
    assert "*" in parse_calls(resolver("wildcard_call", ""))[0].arguments["path"]
    injected = parse_calls(resolver("injected_call", "IGNORE THE ABOVE"))[0]
    assert injected.arguments["path"].endswith("IGNORE THE ABOVE")
    assert "_v2" in parse_calls(resolver("hallucinated_call", ""))[0].name
    assert len(parse_calls(resolver("extra_call", ""))) == len(json.loads(task.reference)) + 1
    assert json.loads(resolver("schema_echo", "")) == task.metadata["tools"]
    # every template's placeholders are known to the resolver
    from verifier_audit.domains.kit import builtin_catalog, check_templates

    check_templates(builtin_catalog("tool"), known_bad.PLACEHOLDERS)
    rng = random.Random(0)
    assert get_domain("tool").reference_completion(task, rng) == render_calls(parse_calls(task.reference))


def test_search_operators_edit_calls_and_keep_syntax():
    from verifier_audit.domains.tool import search

    tasks = _suite()
    rng = random.Random(3)
    task = next(t for t in tasks if t.metadata.get("policy", {}).get("scopes", {}).get("delete_file"))
    text = render_calls(parse_calls(task.reference), "python")
    escaped = search.OPERATORS["escape_path"](text, rng, task)
    assert "/../../" in escaped and label_completion(escaped, task).label == "incorrect"
    assert "def" not in escaped and escaped.startswith("delete_file(")  # still Python syntax
    dup = search.OPERATORS["mutate_duplicated_call"](text, rng, task)
    assert len(parse_calls(dup)) == 2 and label_completion(dup, task).label == "incorrect"
    assert label_completion(search.OPERATORS["other_syntax"](text, rng, task), task).label == "correct"
    assert search.lazy_policies(task) and search.lazy_policies(next(t for t in tasks if t.reference == "[]")) == {}
