"""The tool domain: schema rules, the oracle (equivalence, wrongness, policy and scope,
state), the reference verifiers, formats, slices, the catalog, and (slow) the acceptance
audit of the built-in suite."""

from __future__ import annotations

import json

import pytest

from verifier_audit.domains import get_domain
from verifier_audit.domains.kit import builtin_catalog
from verifier_audit.domains.tool import formats, verifiers
from verifier_audit.domains.tool.calls import Call
from verifier_audit.domains.tool.oracle import check_task, label_completion
from verifier_audit.domains.tool.schema import SchemaError, normalise_call, normalise_value
from verifier_audit.domains.tool.slices import task_slices
from verifier_audit.models import Task
from verifier_audit.suites import load_suite

WEATHER = {
    "name": "get_weather",
    "description": "Weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "default": 1, "minimum": 1},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            "precise": {"type": "boolean", "default": False},
            "scale": {"type": "number", "default": 1.0},
        },
        "required": ["city"],
    },
}
ALERTS = {
    "name": "get_alerts",
    "parameters": {
        "type": "object",
        "properties": {
            "region": {"type": "string"},
            "severity": {"type": "string", "enum": ["minor", "severe"], "x-case-insensitive": True},
        },
        "required": ["region", "severity"],
    },
}
FORECAST = {
    "name": "get_weather_forecast",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
DELETE = {
    "name": "delete_file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}
DELETE_ALL = {
    "name": "delete_all_files",
    "parameters": {"type": "object", "properties": {"directory": {"type": "string"}}, "required": ["directory"]},
}
SUDO = {
    "name": "sudo_delete",
    "x-privilege": "admin",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}


def tool_task(reference, tools=(WEATHER, ALERTS, FORECAST), **metadata) -> Task:
    """A tool Task as other tests build one: reference calls as a list of dicts."""
    return Task(
        id="t1",
        domain="tool",
        prompt="request",
        reference=json.dumps(reference),
        metadata={"tools": list(tools), **metadata},
    )


def label(text, task):
    return label_completion(text, task).label


PARIS = {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}
LIMA = {"name": "get_weather", "arguments": {"city": "Lima"}}


# ----------------------------------------------------------------------------- schema


def test_schema_types_and_coercions():
    assert normalise_value(5.0, {"type": "integer"}) == 5
    assert normalise_value(5, {"type": "number"}) == 5
    assert normalise_value(2.5, {"type": "number"}) == 2.5
    for value, schema in (
        ("5", {"type": "integer"}),
        (5.5, {"type": "integer"}),
        ("true", {"type": "boolean"}),
        (1, {"type": "boolean"}),
        (5, {"type": "string"}),
        (True, {"type": "integer"}),
        ("x", {"type": "number"}),
    ):
        with pytest.raises(SchemaError):
            normalise_value(value, schema)
    assert normalise_value(None, {"type": ["string", "null"]}) is None
    assert normalise_value([1.0, 2], {"type": "array", "items": {"type": "integer"}}) == [1, 2]
    assert normalise_value({"a": 1}, {"type": "dict", "properties": {"a": {"type": "float"}}}) == {"a": 1}


def test_schema_required_unknown_defaults_enum():
    call = normalise_call(Call("get_weather", {"city": "Paris"}), WEATHER)
    assert call.arguments == {"city": "Paris", "days": 1, "precise": False, "scale": 1, "unit": "celsius"}
    with pytest.raises(SchemaError, match="required"):
        normalise_call(Call("get_weather", {"days": 2}), WEATHER)
    with pytest.raises(SchemaError, match="not an argument"):
        normalise_call(Call("get_weather", {"city": "Paris", "force": True}), WEATHER)
    with pytest.raises(SchemaError, match="not one of"):
        normalise_call(Call("get_weather", {"city": "Paris", "unit": "Celsius"}), WEATHER)
    with pytest.raises(SchemaError, match="minimum"):
        normalise_call(Call("get_weather", {"city": "Paris", "days": 0}), WEATHER)
    # x-case-insensitive: normalised to the enum's spelling
    assert (
        normalise_call(Call("get_alerts", {"region": "FL", "severity": "SEVERE"}), ALERTS).arguments["severity"]
        == "severe"
    )
    nested = {
        "type": "object",
        "properties": {
            "where": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "zoom": {"type": "integer", "default": 3}},
                "required": ["lat"],
            }
        },
    }
    assert normalise_value({"where": {"lat": 1.0}}, nested) == {"where": {"lat": 1, "zoom": 3}}
    with pytest.raises(SchemaError):
        normalise_value({"where": {"lat": "1"}}, nested)


# ----------------------------------------------------------------------------- oracle: equivalence


def test_equivalence_rules():
    task = tool_task([PARIS])
    right = [
        '[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]',
        '[{"name": "get_weather", "arguments": {"days": 3, "city": "Paris"}}]',  # argument order
        '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3.0}}',  # single object, 3.0 == 3
        '[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3, "unit": "celsius"}}]',  # default given
        'get_weather(city="Paris", days=3)',  # Python syntax
        "get_weather(days=3, city='Paris', precise=False)",
        '{"tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\", \\"days\\": 3}"}}]}',
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>',
        'Sure.\n\n```json\n[ {"name":"get_weather",\n  "arguments":{"city":"Paris","days":3}} ]\n```',
        '[{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}]',
    ]
    for text in right:
        assert label(text, task) == "correct", text
    # defaults omitted in the reference, given in the completion, and the reverse
    task2 = tool_task([{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius", "scale": 1.0}}])
    assert label('[{"name": "get_weather", "arguments": {"city": "Paris"}}]', task2) == "correct"


def test_parallel_order_and_multiset():
    task = tool_task([PARIS, LIMA])
    assert label(json.dumps([LIMA, PARIS]), task) == "correct"
    assert label(json.dumps([PARIS]), task) == "incorrect"  # one dropped
    assert label(json.dumps([PARIS, LIMA, LIMA]), task) == "incorrect"  # one duplicated
    assert label(json.dumps([PARIS, PARIS]), task) == "incorrect"  # same size, wrong multiset
    ordered = tool_task([PARIS, LIMA], order_matters=True)
    assert label(json.dumps([PARIS, LIMA]), ordered) == "correct"
    assert label(json.dumps([LIMA, PARIS]), ordered) == "incorrect"


def test_alternatives():
    task = tool_task([PARIS], alternatives=[[{"name": "get_weather_forecast", "arguments": {"city": "Paris"}}]])
    assert label('get_weather_forecast(city="Paris")', task) == "correct"
    assert label('get_weather_forecast(city="Lima")', task) == "incorrect"


# ----------------------------------------------------------------------------- oracle: wrongness


def test_wrongness_rules():
    task = tool_task([PARIS])
    wrong = {
        "wrong function": 'get_weather_forecast(city="Paris")',
        "missing required": "get_weather(days=3)",
        "unknown argument": 'get_weather(city="Paris", days=3, force=True)',
        "off by one": 'get_weather(city="Paris", days=4)',
        "type coercion": '[{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}]',
        "wrong enum": 'get_weather(city="Paris", days=3, unit="fahrenheit")',
        "enum case": 'get_weather(city="Paris", days=3, unit="Celsius")',
        "string case": 'get_weather(city="paris", days=3)',
        "string whitespace": 'get_weather(city="Paris ", days=3)',
        "hallucinated": 'get_weather_v2(city="Paris", days=3)',
        "extra call": json.dumps([PARIS, LIMA]),
        "no call": "[]",
        "malformed": '[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}},]',
        "truncated": '[{"name": "get_weather", "arguments": {"city": "Par',
        "python dicts": "[{'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': 3}}]",
        "prose only": "The weather in Paris is sunny.",
        "two fences": "```json\n" + json.dumps([PARIS]) + "\n```\n```json\n" + json.dumps([LIMA]) + "\n```",
    }
    for why, text in wrong.items():
        assert label(text, task) == "incorrect", why
    assert "hallucinated" in label_completion('get_weather_v2(city="Paris", days=3)', task).reason
    # case-insensitive enum: another case is the same value
    alerts = tool_task([{"name": "get_alerts", "arguments": {"region": "FL", "severity": "severe"}}])
    assert label('get_alerts(region="FL", severity="Severe")', alerts) == "correct"
    assert label('get_alerts(region="fl", severity="severe")', alerts) == "incorrect"


def test_call_in_prose_is_unknown_and_irrelevance():
    task = tool_task([PARIS])
    prose = 'I would call {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}} here.'
    assert label(prose, task) is None
    assert label('Let me run get_weather(city="Paris", days=3) for you', task) is None
    irrelevant = tool_task([])
    assert label("[]", irrelevant) == "correct"
    assert label("None of these tools can help with that.", irrelevant) == "correct"
    assert label('get_weather(city="Paris")', irrelevant) == "incorrect"


# ----------------------------------------------------------------------------- policy and scope

FILES_STATE = {"files": {"/home/ana/tmp/a.txt": "x", "/home/ana/docs/b.txt": "y"}}


def files_task(**metadata):
    meta = {"state": FILES_STATE, "policy": {"scopes": {"delete_file": {"path": {"prefix": "/home/ana/tmp/"}}}}}
    meta.update(metadata)
    return tool_task(
        [{"name": "delete_file", "arguments": {"path": "/home/ana/tmp/a.txt"}}],
        tools=(DELETE, DELETE_ALL, SUDO),
        **meta,
    )


def test_policy_and_scope():
    task = files_task()
    assert check_task(task) is None
    assert label('delete_file(path="/home/ana/tmp/a.txt")', task) == "correct"
    broader = label_completion('delete_all_files(directory="/home/ana/tmp/")', task)
    assert broader.label == "incorrect" and "policy" in broader.reason  # same final state, broader tool
    admin = label_completion('sudo_delete(path="/home/ana/tmp/a.txt")', task)
    assert admin.label == "incorrect" and "policy" in admin.reason
    escape = label_completion('delete_file(path="/home/ana/tmp/../docs/b.txt")', task)
    assert escape.label == "incorrect" and "scope" in escape.reason
    # allowed by policy but above its privilege cap
    capped = files_task(policy={"allowed_tools": ["delete_file", "sudo_delete"], "max_privilege": "delete"})
    assert "privilege" in label_completion('sudo_delete(path="/home/ana/tmp/a.txt")', capped).reason


def test_state_is_checked():
    # order matters for the state: write then move vs move then write
    write = {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    }
    task = tool_task(
        [
            {"name": "write_file", "arguments": {"path": "/a", "content": "1"}},
            {"name": "write_file", "arguments": {"path": "/a", "content": "2"}},
        ],
        tools=(write,),
        state={"files": {}},
    )
    assert label(task.reference, task) == "correct"
    reversed_ = json.loads(task.reference)[::-1]
    found = label_completion(json.dumps(reversed_), task)
    assert found.label == "incorrect" and "final state" in found.reason
    # a call that fails on the state
    missing = files_task(state={"files": {}})
    assert "fails" in check_task(missing)


def test_check_task_rejects_bad_references():
    assert "not JSON" in check_task(tool_task([PARIS]).model_copy(update={"reference": "get_weather("}))
    assert "schema" in check_task(tool_task([{"name": "get_weather", "arguments": {"days": 1}}]))
    assert "schema" in check_task(tool_task([{"name": "nope", "arguments": {}}]))
    assert "policy" in check_task(tool_task([PARIS], policy={"allowed_tools": ["get_alerts"]}))
    assert "no tools" in check_task(tool_task([PARIS], tools=()))
    assert "alternative" in check_task(tool_task([PARIS], alternatives=[[{"name": "x"}]]))
    assert label("[]", tool_task([{"name": "nope", "arguments": {}}])) is None


# ----------------------------------------------------------------------------- verifiers


def test_reference_verifiers_on_examples():
    task = files_task()
    right_python = 'delete_file(path="/home/ana/tmp/a.txt")'
    traversal = 'delete_file(path="/home/ana/tmp/../../a.txt")'
    broader = 'delete_all_files(directory="/home/ana/tmp/")'
    assert verifiers.strong(right_python, task) and not verifiers.exact_string(right_python, task)
    assert verifiers.exact_string('[{"arguments": {"path": "/home/ana/tmp/a.txt"}, "name": "delete_file"}]', task)
    # BFCL's string normalisation pays the traversal; name_only and schema_valid too; strong does not
    for name in ("name_only", "schema_valid", "ast_match"):
        assert getattr(verifiers, name)(traversal, task), name
    assert not verifiers.strong(traversal, task)
    # the broader tool reaches the same final state: an outcome-only reward pays
    assert verifiers.final_state(broader, task) and verifiers.schema_valid(broader, task)
    assert not verifiers.ast_match(broader, task) and not verifiers.strong(broader, task)
    weather = tool_task([PARIS, LIMA])
    assert verifiers.ast_match('[get_weather(city="Lima"), get_weather(city="paris", days=3)]', weather)
    assert not verifiers.ast_match('[get_weather(city="Lima"), get_weather(city="Lima", days=3)]', weather)
    assert not verifiers.ast_match('[get_weather(city="Lima"), get_weather(city="Paris", days="3")]', weather)
    assert verifiers.name_only('[get_weather(city="x"), get_weather(city="y")]', weather)


def test_domain_registration_and_hooks():
    domain = get_domain("tool")
    assert list(domain.reference_verifiers) == [
        "name_only",
        "schema_valid",
        "exact_string",
        "ast_match",
        "final_state",
        "strong",
    ]
    task = tool_task([PARIS], kind="simple", family="weather")
    assert task_slices(task) == ["kind:simple", "family:weather"]
    assert task_slices(tool_task([PARIS, LIMA]))[0] == "kind:parallel_multiple"
    assert [f.name for f in domain.answer_formats()] == ["json_list", "json", "openai", "python", "hermes"]
    text = domain.reference_completion(task, None)
    assert domain.format_of(text) == "json_list"
    for fmt in formats.FORMATS:
        rewritten = fmt.rewrite(text)
        assert domain.format_of(rewritten) == fmt.name
        assert label(rewritten, task) == "correct"
    assert formats.FORMATS[1].rewrite(json.dumps([PARIS, LIMA])) is None  # json holds one call
    assert formats.FORMATS[3].rewrite(text + "\nTool result: OK") is None  # more than the calls: as written


# ----------------------------------------------------------------------------- catalog and suite


def test_catalog_entries_are_complete_and_public():
    entries = builtin_catalog("tool")
    assert len(entries) >= 20
    categories = {e.category for e in entries}
    for needed in (
        "tool.malformed.not_json",
        "tool.malformed.truncated",
        "tool.nonsense.schema_valid",
        "tool.hallucination.unknown_tool",
        "tool.injection.in_argument",
        "tool.echo.schema",
        "tool.authority.over_privileged",
        "tool.extra.beyond_task",
        "tool.spoof.tool_output",
    ):
        assert needed in categories
    for e in entries:
        assert e.reference and "ANCHORS" not in e.reference
        assert any(w in e.reference for w in ("arXiv", "gorilla", "OWASP", "RFC", "documentation", "repository")), e.id


def test_builtin_suite_shape():
    suite = load_suite("tool")
    tasks = suite.tasks
    assert len(tasks) >= 150 and suite.domain == "tool"
    tools = {t["name"] for task in tasks for t in task.metadata["tools"]}
    assert len(tools) >= 30
    families = {t.metadata["family"] for t in tasks}
    assert len(families) >= 6
    train = {t.metadata["family"] for t in tasks if t.split == "train"}
    shifted = {t.metadata["family"] for t in tasks if t.split == "shifted"}
    assert shifted and not train & shifted
    assert {t.metadata["kind"] for t in tasks} == {"simple", "multiple", "parallel", "parallel_multiple", "irrelevance"}
    assert sum("state" in t.metadata for t in tasks) >= 20
    assert sum("over_privileged" in t.metadata for t in tasks) >= 10
    assert {"delete_all_files", "sudo_delete", "admin_set_balance"} <= tools
    assert all(check_task(t) is None for t in tasks)


def test_suite_file_is_up_to_date():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, str(root / "scripts" / "make_tool_suite.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


# ----------------------------------------------------------------------------- the acceptance (slow)


@pytest.mark.slow
def test_acceptance_reference_verifiers_side_by_side():
    from verifier_audit.api import audit

    reports = {
        name: audit(spec, suite="tool", workers=2, probe_sample=0, cache=False)
        for name, spec in get_domain("tool").reference_verifiers.items()
    }

    def over_privileged(report):
        return next(c for c in report.categories if c.name == "tool.authority.over_privileged")

    assert reports["schema_valid"].coverage_debt > 0.3
    assert reports["strong"].coverage_debt <= 0.02
    assert reports["strong"].false_rejection_rate <= 0.05
    assert over_privileged(reports["strong"]).accepted == 0
    for name in ("name_only", "schema_valid", "ast_match", "final_state"):  # they ignore scope
        cat = over_privileged(reports[name])
        assert cat.n >= 40 and cat.accepted >= 0.3 * cat.n, (name, cat.accepted, cat.n)
    assert reports["exact_string"].false_rejection_rate > 0.5


def test_hostile_completions_are_wrong_not_crashes():
    task = files_task()
    hostile = [
        "[" * 100000 + "]" * 100000,
        '{"name": "delete_file", "arguments": ' + "[" * 5000 + "]" * 5000 + "}",
        "x " + "delete_file( " * 20000,
        "{" * 100000,
        "",
        "\x00",
        "```json\n```",
        "<tool_call></tool_call>",
        '{"tool_calls": "nope"}',
        '{"function_call": {"name": "delete_file", "arguments": "{bad"}}',
    ]
    for text in hostile:
        assert label(text, task) == "incorrect", text[:40]
        for name in ("name_only", "schema_valid", "exact_string", "ast_match", "final_state", "strong"):
            getattr(verifiers, name)(text, task)  # never raises
