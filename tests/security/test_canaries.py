"""Canaries for every execution route (verifier_audit/canary.py) and the tripwires that see
them fire (verifier_audit/isolation/_tripwires.py), against real graders' ways of running
model output: eval after PRIME's split("_"), \\text{} unwrapping, word blacklists, exec of
code blocks in a forked process, DuckDB's COPY/ATTACH/read_csv/read_text. No mocks: real
worker processes, real audit hooks, real DuckDB."""

from __future__ import annotations

import dataclasses
import math
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier_audit import canary
from verifier_audit.engine import pool
from verifier_audit.engine.audit import AuditOptions, prepare
from verifier_audit.loading import resolve
from verifier_audit.plan import audit
from verifier_audit.report.checklist import evaluate
from verifier_audit.suites import load_suite, select

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "canary_verifiers.py"
EXPRESSION_FORMS = ("mkdir", "open", "exec", "system")


def _in_dir(fn):
    """Run ``fn(directory)`` with a fresh empty cwd (payloads write relative names)."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        try:
            return fn(d)
        finally:
            os.chdir(here)


# ------------------------------------------------------------------ the payloads themselves


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(min_size=1, max_size=30), st.text(max_size=30))
def test_every_expression_form_fires_once_and_evaluates_to_zero(entry, task):
    token = canary.make_token(entry, task)
    assert re.fullmatch(r"[0-9a-f]{16}", token)  # no "_": the import form's module name is an identifier
    for form in EXPRESSION_FORMS:
        text = canary.payload(token, form)

        def run(d):
            assert eval(text) == 0  # noqa: S307, B023 - the payload only makes a marker in d; run in this iteration
            return canary.fired(d), os.listdir(d)

        assert _in_dir(run) == ([token], []), form


@settings(max_examples=25, deadline=None)
@given(st.text(min_size=1, max_size=30))
def test_sanitiser_proof_forms_have_no_underscore_quote_or_space(entry):
    token = canary.make_token(entry)
    for form in ("open", "exec"):
        text = canary.payload(token, form)
        assert not re.search(r"[_'\"\s]", text), (form, text)
    assert not re.search(r"[_'\"()]", canary.payload(token, "import"))
    # The words a blacklist looks for are nowhere in the exec form.
    assert not re.search(r"import|\bos\b|open|mkdir", canary.payload(token, "exec"))


def test_the_underscore_form_dies_in_primes_split_and_the_open_form_does_not():
    """Issue item 4: verl PRIME runs float(x.split("_")[0]) before its eval."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("canary_verifiers", FIXTURES)
    fixtures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixtures)
    token = canary.make_token("prime")
    old = rf"\boxed{{{canary.payload(token, 'mkdir')} or \pi}}"
    new = rf"\boxed{{{canary.payload(token, 'open')}or(\pi)}}"
    assert _in_dir(lambda d: (fixtures.prime_like(old, "1"), canary.fired(d))) == (False, [])
    assert _in_dir(lambda d: (fixtures.prime_like(new, "1"), canary.fired(d))) == (False, [token])
    # It evaluates to pi: a grader comparing with a gold of pi pays for it.
    assert _in_dir(lambda d: fixtures.prime_like(new, str(math.pi)))


# ------------------------------------------------------------------ the tripwires in a worker

_TOKEN = canary.make_token("tripwires")


class _Fires:
    """Item i: one route by which a verifier runs a canary (or, for the last, none does)."""

    ROUTES = (
        "eval_mkdir",
        "eval_open",
        "eval_exec",
        "eval_system",
        "exec_import",
        "import_in_child",
        "in_removed_tempdir",
        "duckdb_copy",
        "parse_only",
    )

    def setup(self) -> None:
        pass

    def __call__(self, i: int):
        route = self.ROUTES[i]
        if route.startswith("eval_"):
            return eval(canary.payload(_TOKEN, route[5:]))  # noqa: S307
        if route == "exec_import":
            try:
                exec(canary.payload(_TOKEN, "import"))  # noqa: S102
            except ImportError:
                return "import failed, as it should"
        if route == "import_in_child":
            import multiprocessing

            def child():
                try:
                    exec(canary.payload(_TOKEN, "import"))  # noqa: S102
                except ImportError:
                    pass

            proc = multiprocessing.get_context("fork").Process(target=child)
            proc.start()
            proc.join(20)
            return proc.exitcode
        if route == "in_removed_tempdir":
            here = os.getcwd()
            with tempfile.TemporaryDirectory() as d:  # gone before the worker looks
                os.chdir(d)
                eval(canary.payload(_TOKEN, "open"))  # noqa: S307
                os.chdir(here)
            return "cleaned up"
        if route == "duckdb_copy":  # C code writes the file: no Python event, the effect is seen
            import duckdb

            con = duckdb.connect()
            con.execute(f"COPY (SELECT 1 AS x) TO '{canary.PREFIX}{_TOKEN}.csv'")
            return "copied"
        import ast

        ast.parse(canary.payload(_TOKEN, "mkdir"))  # parsing model output is not executing it
        compile(canary.payload(_TOKEN, "exec"), "<answer>", "eval", flags=ast.PyCF_ONLY_AST)
        return "parsed"


def test_each_route_is_seen_by_its_effect_and_nothing_else_is():
    outs = {o.index: o for o in pool.run(_Fires(), range(len(_Fires.ROUTES)), workers=2, timeout=30)}
    found = {_Fires.ROUTES[i]: o.security for i, o in outs.items()}
    assert all(o.ok for o in outs.values()), [o.error for o in outs.values()]
    for route, security in found.items():
        if route == "parse_only":
            assert security == [], security
            continue
        assert len(security) == 1 and security[0].startswith("executes_model_output:"), (route, security)
    marker = f"{canary.PREFIX}{_TOKEN}"
    assert found["eval_mkdir"][0].startswith(f"executes_model_output:{marker}: ")
    assert "os.mkdir (audit hook)" in found["eval_mkdir"][0]
    assert "opened (audit hook)" in found["eval_open"][0]
    assert "exec of code compiled from a string" in found["eval_exec"][0]
    assert "os.system (audit hook)" in found["eval_system"][0]
    assert "working directory" in found["eval_system"][0]  # the shell's mkdir left it
    module = f"{canary.MODULE_PREFIX}{_TOKEN}"
    assert found["exec_import"][0].startswith(f"executes_model_output:{module}: ")
    assert "imported (audit hook)" in found["import_in_child"][0]  # seen from the forked child
    assert "opened (audit hook)" in found["in_removed_tempdir"][0]
    assert found["duckdb_copy"] == [f"executes_model_output:{marker}.csv: left in the verifier's working directory"]


# ------------------------------------------------------------------ math audits

_MATH_CANARIES = {
    "math.security.eval_canary",
    "math.security.sympify_canary",
    "math.security.pi_eval_canary",
    "math.security.text_eval_canary",
    "math.security.process_canary",
    "math.security.exec_canary",
}


@pytest.fixture(scope="module")
def math_audit():
    """name -> Report: each fixture verifier (or a reference one) on the canary categories
    plus two ordinary ones, every call in real workers."""
    options = AuditOptions(
        workers=2, timeout=20.0, cache_dir=None, probe_sample=0, progress=False, origins=("known_bad",)
    )
    loaded = load_suite("math")
    prepared = prepare(loaded.name, loaded.content_hash, select(loaded, None, 12), options)
    keep = _MATH_CANARIES | {"math.hedge.two_boxes", "math.hostile.empty_box"}
    prepared = dataclasses.replace(prepared, candidates=[c for c in prepared.candidates if c.category in keep])
    assert {c.category for c in prepared.candidates} >= _MATH_CANARIES
    done = {}

    def get(spec: str):
        if spec not in done:
            done[spec] = audit(prepared, [resolve(spec)], options)[0]
        return done[spec]

    return get


def _fired(report) -> dict[str, int]:
    """category -> number of candidates of it with an executes_model_output finding."""
    cats = {}
    for f in report.security_findings:
        if f.kind == "executes_model_output":
            category = f.candidate_id.split("/")[1]
            cats[category] = cats.get(category, 0) + 1
    return cats


def _n(report, category):
    return next(c.n + c.errors for c in report.categories if c.name == category)


def test_a_prime_like_verifier_gives_a_canary_finding(math_audit):
    report = math_audit(f"{FIXTURES}:prime_like")
    fired = _fired(report)
    # It evals only answers with \pi, after its split("_"): the one route it has, every time.
    assert fired == {"math.security.pi_eval_canary": _n(report, "math.security.pi_eval_canary")}, fired
    finding = next(f for f in report.security_findings if f.kind == "executes_model_output")
    assert "a canary fired" in finding.detail and "opened (audit hook)" in finding.detail
    assert not report.gate.passed and any("security" in r for r in report.gate.reasons)
    item = next(i for i in evaluate(report) if i.key == "executes_model_output")
    assert item.status == "open" and "math.security.pi_eval_canary" in item.evidence


def test_an_eval_everything_verifier_fires_every_expression_route(math_audit):
    report = math_audit(f"{FIXTURES}:eval_everything")
    fired = _fired(report)
    # Not \pi: left in, it is a SyntaxError, so nothing runs. The sympify form fails on x
    # before its payload, but the code eval() ran held the canary: the audit hook saw it.
    assert set(fired) == _MATH_CANARIES - {"math.security.pi_eval_canary"}, fired
    sympify = [f.detail for f in report.security_findings if "sympify_canary" in f.candidate_id]
    assert sympify and all("exec of code compiled from a string" in d and "opened" not in d for d in sympify)


def test_a_word_blacklist_is_passed_by_the_chr_form_only(math_audit):
    report = math_audit(f"{FIXTURES}:blacklisting_eval")
    ids = {f.candidate_id.split("/")[-1].rsplit("-", 1)[0] for f in report.security_findings}
    assert ids == {"exec_chr_canary"}, ids


def test_code_blocks_run_in_a_forked_process_are_caught_by_the_import(math_audit):
    report = math_audit(f"{FIXTURES}:blocks_in_a_process")
    assert _fired(report) == {"math.security.exec_canary": _n(report, "math.security.exec_canary")}
    assert all("imported (audit hook)" in f.detail for f in report.security_findings)


@pytest.mark.parametrize(
    "spec", ["verifier_audit.domains.math.verifiers:strong", "verifier_audit.domains.math.verifiers:last_number"]
)
def test_verifiers_that_never_execute_output_give_no_finding(math_audit, spec):
    report = math_audit(spec)
    assert report.security_findings == []
    item = next(i for i in evaluate(report) if i.key == "executes_model_output")
    assert item.status == "checked" and "no canary fired" in item.evidence


# ------------------------------------------------------------------ SQL routes

_SQL_ROUTES = (
    "copy_to_file",
    "attach_file",
    "read_csv_copy_out",
    "read_text_copy_out",
    "select_then_copy",
    "read_csv_secret",
)


@pytest.fixture(scope="module")
def sql_prepared():
    options = AuditOptions(workers=2, timeout=10.0, probe_sample=0, progress=False, origins=("known_bad",))
    loaded = load_suite("sql")
    from verifier_audit.engine.audit import default_cache_dir

    options.cache_dir = default_cache_dir()
    prepared = prepare(loaded.name, loaded.content_hash, select(loaded, None, 4), options)
    keep = [c for c in prepared.candidates if c.id.split("/")[-1].rsplit("-", 1)[0] in _SQL_ROUTES]
    return dataclasses.replace(prepared, candidates=keep), options


def _entry(candidate_id: str) -> str:
    return candidate_id.split("/")[-1].rsplit("-", 1)[0]


def test_sql_routes_leave_their_marker_under_a_default_connection(sql_prepared):
    prepared, options = sql_prepared
    assert {_entry(c.id) for c in prepared.candidates} == set(_SQL_ROUTES)
    report = audit(prepared, [resolve(f"{ROOT / 'examples' / 'sql_unsafe_verifier.py'}:read_write_executor")], options)[
        0
    ]
    by_entry: dict[str, set] = {}
    for f in report.security_findings:
        by_entry.setdefault(_entry(f.candidate_id), set()).add(f.kind)
    for route in _SQL_ROUTES[:-1]:  # every write route, and the reads that write their loot out
        assert "executes_model_output" in by_entry.get(route, set()), (route, by_entry)
    for route in ("read_csv_copy_out", "read_text_copy_out", "read_csv_secret"):
        assert "read_outside" in by_entry.get(route, set()), (route, by_entry)
    detail = next(
        f.detail
        for f in report.security_findings
        if _entry(f.candidate_id) == "attach_file" and f.kind == "executes_model_output"
    )
    assert "va_canary_attach_file" in detail and "working directory" in detail


def test_the_hardened_sql_verifier_gives_no_finding(sql_prepared):
    prepared, options = sql_prepared
    report = audit(prepared, [resolve("verifier_audit.domains.sql.verifiers:strong")], options)[0]
    assert report.security_findings == []
