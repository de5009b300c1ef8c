"""BFCL v4 in the tool domain (domains/tool/bfcl.py, examples/bfcl_checker.py,
docs/tool-bfcl.md): the data shipped in ``bfcl-eval`` loaded as tasks (``--suite
bfcl:simple``), and the leaderboard's real AST checker run as a verifier on them."""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import importlib.util
import json
import sys
from pathlib import Path

import pytest

if importlib.util.find_spec("bfcl_eval") is None:
    pytest.skip("bfcl-eval is not installed", allow_module_level=True)

from verifier_audit.domains.tool import bfcl  # noqa: E402
from verifier_audit.domains.tool.calls import Call, calls_from_json, parse_calls, render_calls  # noqa: E402
from verifier_audit.errors import InputError  # noqa: E402
from verifier_audit.models import Task  # noqa: E402
from verifier_audit.suites import load_suite  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CHECKER = ROOT / "examples" / "bfcl_checker.py"
CORE = ("simple", "multiple", "parallel", "parallel_multiple", "irrelevance")
SAMPLE = 30


@pytest.fixture(scope="module")
def bc():
    sys.path.insert(0, str(CHECKER.parent))
    try:
        import bfcl_checker
    finally:
        sys.path.remove(str(CHECKER.parent))
    return bfcl_checker


@pytest.fixture(scope="module")
def loaded():
    return {c: bfcl.load_bfcl(c) for c in CORE}


def _sample(tasks, n=SAMPLE):
    step = max(1, len(tasks) // n)
    return [
        t
        for t in tasks[::step][:n]
        if not t.metadata.get("bfcl_unsatisfiable") and not t.metadata.get("bfcl_off_schema")
    ]


def _calls(value) -> list[Call]:
    return calls_from_json(json.loads(value) if isinstance(value, str) else value)


# -- loader ---------------------------------------------------------------------------------


@pytest.mark.parametrize("category", CORE)
def test_every_entry_of_the_file_is_a_task(loaded, category):
    question, answer = bfcl.files(category)
    lines = [line for line in question.read_text(encoding="utf-8").splitlines() if line.strip()]
    tasks = loaded[category]
    assert len(tasks) == len(lines)
    assert len({t.id for t in tasks}) == len(tasks)
    assert [t.id for t in tasks] == [f"bfcl-{json.loads(line)['id']}" for line in lines]
    assert (answer is None) == (category == "irrelevance")
    kind = bfcl.CATEGORIES[category][1]
    for i, task in enumerate(tasks):
        assert task.domain == "tool" and task.prompt
        assert task.split == ("heldout" if i % 5 == 4 else "train")
        meta = task.metadata
        assert meta["kind"] == kind and meta["order_matters"] is False and meta["family"]
        assert [t["name"] for t in meta["tools"]] == [f["name"] for f in meta["bfcl"]["function"]]
        calls = parse_calls(task.reference)  # every reference parses with the domain's reader
        if category == "irrelevance":
            assert task.reference == "[]" and calls == [] and "bfcl_possible_answer" not in meta
        else:
            assert len(calls) == len(meta["bfcl_possible_answer"]) >= 1
            assert [c.name for c in calls] == [next(iter(e)) for e in meta["bfcl_possible_answer"]]
            assert len(meta["alternatives"]) <= bfcl.MAX_ALTERNATIVES


def test_limit_and_categories():
    assert len(bfcl.load_bfcl("simple", limit=7)) == 7
    assert bfcl.load_bfcl("simple_python", limit=3) == bfcl.load_bfcl("simple", limit=3)
    with pytest.raises(InputError, match="parallel_multiple"):
        bfcl.load_bfcl("nonsense")


def _types(schema):
    yield schema.get("type")
    for sub in (schema.get("properties") or {}).values():
        yield from _types(sub)
    if isinstance(schema.get("items"), dict):
        yield from _types(schema["items"])


def test_function_docs_become_json_schema(loaded):
    allowed = {"object", "number", "integer", "string", "boolean", "array", None}
    for task in loaded["simple"] + loaded["parallel_multiple"]:
        for tool, doc in zip(task.metadata["tools"], task.metadata["bfcl"]["function"]):
            assert tool["parameters"]["type"] == "object"
            assert set(_types(tool["parameters"])) <= allowed
            assert doc["parameters"]["type"] == "dict"  # the original, for the checker
    schema = bfcl.to_json_schema(
        {
            "type": "dict",
            "properties": {
                "r": {"type": "float"},
                "t": {"type": "tuple", "items": {"type": "integer"}},
                "a": {"type": "any"},
                "d": {"type": "dict", "properties": {"k": {"type": "boolean"}}},
            },
            "required": ["r"],
        }
    )
    props = schema["properties"]
    assert schema["type"] == "object" and schema["required"] == ["r"]
    assert props["r"] == {"type": "number", "format": "float"}
    assert props["t"]["type"] == "array" and props["t"]["items"] == {"type": "integer"}
    assert "type" not in props["a"]  # any value
    assert props["d"] == {"type": "object", "properties": {"k": {"type": "boolean"}}}


def _acceptable(call: Call, possible: dict) -> bool:
    """An independent reading of BFCL's ground truth (no dict-typed arguments): every
    argument given is listed with that value, every one left out may be omitted."""
    ((name, options),) = possible.items()
    if call.name != name or set(call.arguments) - set(options):
        return False
    return all(
        (arg in call.arguments and call.arguments[arg] in opts) or (arg not in call.arguments and "" in opts)
        for arg, opts in options.items()
    )


@pytest.mark.parametrize("category", CORE[:4])
def test_reference_and_alternatives_are_what_the_ground_truth_accepts(loaded, category):
    checked = 0
    for task in loaded[category]:
        possible = task.metadata["bfcl_possible_answer"]
        docs = {f["name"]: f for f in task.metadata["bfcl"]["function"]}
        if any(
            docs[n]["parameters"]["properties"].get(a, {}).get("type") in ("dict", "array")
            for e in possible
            for n, args in e.items()
            for a in args
        ):
            continue  # nested values: the real checker's test below covers them
        for answer in [task.reference, *task.metadata["alternatives"]]:
            calls = _calls(answer)
            assert len(calls) == len(possible)
            # parallel answers in any order: each call matches a distinct ground-truth entry
            free = list(possible)
            for call in calls:
                match = next((p for p in free if _acceptable(call, p)), None)
                assert match is not None, (task.id, call, possible)
                free.remove(match)
            checked += 1
    assert checked > 100


def test_reference_takes_the_first_value_and_omits_what_may_be_omitted():
    task = bfcl.load_bfcl("simple", limit=1)[0]  # {"base": [10], "height": [5], "unit": ["units", ""]}
    assert json.loads(task.reference) == [
        {"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5, "unit": "units"}}
    ]
    assert task.metadata["alternatives"] == [
        [{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}]
    ]
    ref, alts, problem = bfcl.reference_and_alternatives(
        [{"f": {"a": [1, 2, 3], "b": ["", "x"], "c": ["y", "z"]}}],
        [
            {
                "name": "f",
                "parameters": {
                    "type": "dict",
                    "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "string"}},
                    "required": ["a"],
                },
            }
        ],
        limit=3,
    )
    assert ref == [{"name": "f", "arguments": {"a": 1, "c": "y"}}] and problem is None
    assert alts == [
        [{"name": "f", "arguments": {"a": 2, "c": "y"}}],
        [{"name": "f", "arguments": {"a": 3, "c": "y"}}],
        [{"name": "f", "arguments": {"a": 1, "b": "x", "c": "y"}}],
    ]


def test_suite_prefix():
    suite = load_suite("bfcl:simple")
    assert suite.name == "bfcl:simple" and suite.domain == "tool" and len(suite.tasks) == 400
    question, answer = bfcl.files("simple")
    digest = hashlib.sha256()
    for path in (question, answer):
        digest.update(path.name.encode() + b"\n" + path.read_bytes())
    for task in suite.tasks:
        digest.update(json.dumps(task.model_dump(mode="json"), sort_keys=True, ensure_ascii=True).encode() + b"\n")
    assert suite.content_hash == digest.hexdigest()[:16] == load_suite("bfcl:simple_python").content_hash
    assert load_suite("bfcl:irrelevance").content_hash != suite.content_hash
    for spec, message in (("bfcl:nope", "simple, multiple, parallel"), ("bfcl:", "name a BFCL category")):
        with pytest.raises(InputError, match=message):
            load_suite(spec)
    with pytest.raises(InputError, match="tool domain"):
        load_suite("bfcl:simple", domain="math")
    with pytest.raises(InputError, match="--field"):
        load_suite("bfcl:simple", fields=["prompt=question"])


# -- the real checker -----------------------------------------------------------------------


def test_the_checker_is_the_installed_file_unmodified(bc):
    checker = bc.load_checker()
    assert bc.STOOD_IN not in sys.modules or not checker.stood_in  # the stand-in does not linger
    path = Path(checker.module.__file__)
    dist = importlib.metadata.distribution("bfcl-eval")
    record = {str(f): f.hash for f in dist.files if f.hash}
    rel = "bfcl_eval/eval_checker/ast_eval/ast_checker.py"
    assert path == Path(dist.locate_file(rel)).resolve() or path == Path(dist.locate_file(rel))
    want = record[rel]
    got = base64.urlsafe_b64encode(hashlib.new(want.mode, path.read_bytes()).digest()).rstrip(b"=").decode()
    assert got == want.value  # byte for byte what the wheel installed
    assert checker.ast_checker.__module__ == "bfcl_eval.eval_checker.ast_eval.ast_checker"


SYNTAXES = ("python", "json_list", "openai", "hermes")


@pytest.mark.parametrize("category", CORE[:4])
def test_the_checker_accepts_every_reference_and_alternative(bc, loaded, category):
    for task in _sample(loaded[category]):
        for answer in [task.reference, *task.metadata["alternatives"]]:
            calls = _calls(answer)
            for syntax in SYNTAXES:
                text = render_calls(calls, syntax)
                assert bc.bfcl_ast(text, task) == 1.0, (task.id, syntax, text, bc.check(text, task))
            assert bc.bfcl_ast(render_calls(calls, "python", fenced=True), task) == 1.0
            # BFCL's own prompting pipeline reads the Python-call syntax only
            assert bc.bfcl_ast_prompting(render_calls(calls, "python"), task) == 1.0
            assert bc.bfcl_ast_prompting(render_calls(calls, "json_list"), task) == 0.0


def _first(calls, test):
    for i, call in enumerate(calls):
        for arg, value in call.arguments.items():
            if test(value):
                return i, arg
    return None


def _changed(calls, where, value):
    out = [Call(c.name, dict(c.arguments)) for c in calls]
    out[where[0]].arguments[where[1]] = value
    return out


@pytest.mark.parametrize("category", CORE[:4])
def test_the_checker_rejects_wrong_calls(bc, loaded, category):
    rejected = 0
    for task in _sample(loaded[category]):
        calls = _calls(task.reference)
        tools = [t["name"] for t in task.metadata["tools"]]
        other = next((n for n in tools if n not in {c.name for c in calls}), calls[0].name + "_v2")
        wrong = [Call(other, calls[0].arguments), *calls[1:]]
        assert bc.bfcl_ast(render_calls(wrong, "python"), task) == 0.0
        assert bc.bfcl_ast(render_calls(calls + calls[-1:], "python"), task) == 0.0  # an extra call
        if len(calls) > 1:
            assert bc.bfcl_ast(render_calls(calls[:-1], "python"), task) == 0.0  # a dropped call
        where = _first(calls, lambda v: isinstance(v, int) and not isinstance(v, bool))
        if where:
            value = calls[where[0]].arguments[where[1]]
            bad = _changed(calls, where, value + 1000)
            assert bc.bfcl_ast(render_calls(bad, "json_list"), task) == 0.0
        where = _first(calls, lambda v: isinstance(v, str) and v.strip())
        if where:
            value = calls[where[0]].arguments[where[1]]
            assert bc.bfcl_ast(render_calls(_changed(calls, where, value + " Springs"), "python"), task) == 0.0
        assert bc.bfcl_ast("I would call the function, but I won't.", task) == 0.0
        rejected += 1
    assert rejected >= SAMPLE - 2


def test_irrelevance_follows_bfcl_rule(bc, loaded):
    for task in _sample(loaded["irrelevance"]):
        tool = task.metadata["tools"][0]
        call = render_calls([Call(tool["name"], {})], "python")
        assert bc.bfcl_ast("None of these functions can do that.", task) == 1.0
        assert bc.bfcl_ast("[]", task) == 1.0
        assert bc.bfcl_ast(call, task) == 0.0
        assert bc.bfcl_ast(render_calls([Call(tool["name"], {})], "json_list"), task) == 0.0
        # BFCL's prompting runner: a JSON call is not decoded as a call, so it counts as abstaining
        assert bc.bfcl_ast_prompting(render_calls([Call(tool["name"], {})], "json_list"), task) == 1.0


def test_what_the_checker_lets_through(bc, loaded):
    """The leniencies docs/tool-bfcl.md reports, each seen on the real checker."""
    task = loaded["simple"][0]  # calculate_triangle_area(base=10, height=5, unit="units")
    base = "calculate_triangle_area(base=10, height=5, unit={})"
    # standardize_string: case, spaces and ",./-_*^" are ignored in string values
    for unit in ("'UNITS'", "'u n-i_t.s'", "'Units'"):
        assert bc.bfcl_ast(base.format(unit), task) == 1.0, unit
    assert bc.bfcl_ast(base.format("units"), task) == 1.0  # a bare name is decoded as its text
    assert bc.bfcl_ast(base.format("'unit'"), task) == 0.0
    # an integral float for an integer is a type error; an int for a float is accepted
    assert bc.bfcl_ast("calculate_triangle_area(base=10.0, height=5)", task) == 0.0
    # a string with the sign or the decimal point of a number dropped matches the number
    t = Task(
        id="t",
        domain="tool",
        prompt="",
        reference="[]",
        metadata={
            "bfcl": {
                "category": "simple_python",
                "function": [
                    {
                        "name": "f",
                        "parameters": {"type": "dict", "properties": {"v": {"type": "string"}}, "required": ["v"]},
                    }
                ],
            },
            "bfcl_possible_answer": [{"f": {"v": ["-3.5"]}}],
        },
    )
    assert bc.bfcl_ast("f(v='35')", t) == 1.0
    assert bc.bfcl_ast("f(v='3.6')", t) == 0.0


def test_bfcl_decoder_evaluates_model_output(bc, loaded, tmp_path):
    """BFCL's decoder eval()s a binary operation in an argument: model output runs."""
    task = loaded["simple"][0]
    marker = tmp_path / "ran"
    text = f"calculate_triangle_area(base=(__import__('os').mkdir({str(marker)!r}) or 10) + 0, height=5)"
    assert not marker.exists()
    assert bc.bfcl_ast(text, task) == 1.0
    assert marker.is_dir()


def test_tasks_not_from_bfcl_are_converted(bc):
    tools = [
        {
            "name": "get_weather",
            "description": "",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "scale": {"type": "number"},
                    "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "where": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}},
                },
                "required": ["city", "days"],
            },
        },
        {
            "name": "delete_city",
            "description": "",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    ]
    ref = [
        {
            "name": "get_weather",
            "arguments": {
                "city": "Paris",
                "days": 3,
                "scale": 1.5,
                "tags": ["a", "b"],
                "where": {"lat": 48.8, "lon": 2.3},
            },
        }
    ]
    alt = [
        [
            {
                "name": "get_weather",
                "arguments": {
                    "city": "Paris",
                    "days": 3,
                    "scale": 1.5,
                    "tags": ["a", "b"],
                    "where": {"lat": 48.8, "lon": 2.3},
                    "unit": "c",
                },
            }
        ]
    ]
    task = Task(
        id="w",
        domain="tool",
        prompt="weather",
        reference=json.dumps(ref),
        metadata={"tools": tools, "alternatives": alt, "kind": "multiple"},
    )
    docs, answer, category = bc.bfcl_view(task)
    assert category == "multiple" and docs[0]["parameters"]["properties"]["scale"]["type"] == "float"
    assert docs[0]["parameters"]["properties"]["where"]["type"] == "dict"
    good = _calls(ref)
    for syntax in SYNTAXES:
        assert bc.bfcl_ast(render_calls(good, syntax), task) == 1.0, syntax
    assert bc.bfcl_ast(render_calls(_calls(alt[0]), "python"), task) == 1.0  # the default given
    assert bc.bfcl_ast(render_calls(_changed(good, (0, "days"), 4), "python"), task) == 0.0
    assert bc.bfcl_ast(render_calls(_changed(good, (0, "unit"), "f"), "python"), task) == 0.0
    assert bc.bfcl_ast(render_calls([Call("delete_city", {"city": "Paris"})], "python"), task) == 0.0
    assert bc.bfcl_ast(render_calls(_changed(good, (0, "where"), {"lat": 48.8, "lon": 9.9}), "python"), task) == 0.0
    none = Task(id="n", domain="tool", prompt="hi", reference="[]", metadata={"tools": tools})
    assert bc.bfcl_ast("Hello!", none) == 1.0 and bc.bfcl_ast(render_calls(good, "python"), none) == 0.0


# -- the audit --------------------------------------------------------------------------------


def _tool_domain_registered() -> bool:
    from verifier_audit.domains import available

    return "tool" in available()


@pytest.mark.skipif(not _tool_domain_registered(), reason="the tool domain is not registered (pyproject entry point)")
def test_audit_of_the_bfcl_checker_on_its_own_data(tmp_path, monkeypatch):
    import socket

    from verifier_audit.api import audit

    connect = socket.socket.connect

    def no_network(sock, address):  # the loader, the generators and the oracle run here
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError("no network in this test")
        return connect(sock, address)  # the worker pool's own unix sockets

    monkeypatch.setattr(socket.socket, "connect", no_network)
    report = audit(
        f"{CHECKER}:bfcl_ast",
        suite="bfcl:simple",
        limit=20,
        probe_sample=0,
        workers=2,
        results=tmp_path / "results.jsonl",
    )
    assert report.suite == "bfcl:simple" and report.n_candidates > 0
    assert report.error_rate == 0.0
    rates = {c.name: c for c in report.categories if c.n}
    assert rates
    # A strict grader of names, counts and values ...
    for name in (
        "tool.near_miss.wrong_function",
        "tool.near_miss.dropped_call",
        "tool.near_miss.duplicated_call",
        "tool.near_miss.missing_required",
        "tool.hallucination.unknown_tool",
    ):
        if name in rates:
            assert rates[name].accepted == 0, name
    # ... that compares strings case-insensitively and wants an int where the docs say integer
    if "tool.near_miss.enum_case" in rates:
        assert rates["tool.near_miss.enum_case"].rate == 1.0
    if "tool.equivalent.number_form" in rates:
        assert rates["tool.equivalent.number_form"].accepted == 0


def _tool_suite_present() -> bool:
    from verifier_audit.suites import builtin_suites

    return "tool" in builtin_suites()


@pytest.mark.skipif(not _tool_suite_present(), reason="the built-in tool suite is not there")
def test_the_checker_runs_on_the_built_in_tool_suite(bc):
    suite = load_suite("tool")
    for task in suite.tasks:
        for answer in [task.reference, *task.metadata.get("alternatives", [])]:
            for syntax in ("python", "json_list"):
                text = render_calls(_calls(answer), syntax)
                assert bc.bfcl_ast(text, task) == 1.0, (task.id, syntax, bc.check(text, task))


def test_the_catalogs_canary_entry_runs_in_bfcls_decoder_and_not_in_the_oracle(bc, tmp_path, monkeypatch):
    from verifier_audit.domains import get_domain
    from verifier_audit.domains.kit import builtin_catalog
    from verifier_audit.domains.tool.generators import known_bad

    suite = load_suite("tool")
    entry = [e for e in builtin_catalog("tool") if e.category == "tool.security.exec_canary"]
    (candidate, *_) = [c for c in known_bad.generate(suite.tasks, 0, entry) if not c.text.startswith("[")]
    task = {t.id: t for t in suite.tasks}[candidate.task_id]
    monkeypatch.chdir(tmp_path)
    assert get_domain("tool").label(candidate.text, task).label == "incorrect"  # parsed, never run
    assert not list(tmp_path.glob("va_canary_*"))
    bc.bfcl_ast(candidate.text, task)
    assert list(tmp_path.glob("va_canary_*"))  # BFCL's decoder evaluated the argument
