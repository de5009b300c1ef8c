"""Canaries a blacklist stops (issue 30, item 4), and the scan that misses a built-up eval.

A grader that refuses answers holding ``__``, ``import``, ``chr``, ``os.``, ``open`` or
``system`` and then ``eval``s the rest stopped every canary form the audit had, so it was
audited as safe while ``exec(bytes.fromhex('...').decode())`` ran a shell command through
it. The encoded forms (``verifier_audit/canary.py``: hex, bytes, getattr, nfkc) and the
catalog entries that place them (``math.security.encoded_canary``, boxed, ``\\pi``-suffixed
and ``\\text{}``-wrapped; ``tool.security.encoded_canary``) must make each such grader
fire, in a real audit run by the real command. And ``verifier-audit scan`` must see an
``eval`` whose name is built (``getattr(builtins, "ev" + "al")`` and its kin) as it sees a
written one, without firing on the shipped verifiers.

Every grader here is written by the test into its temporary directory, as an attacker
(or a careless author) would write it.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import textwrap
import unicodedata
from pathlib import Path

import pytest
from cli_support import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier_audit import canary
from verifier_audit.scan import scan_source, scan_text

ROOT = Path(__file__).resolve().parents[2]
ISSUE_BLACKLIST = ("__", "import", "chr", "os.", "open", "system")  # the issue's grader, word for word
ENCODED = "math.security.encoded_canary"

# The graders under audit. Each extracts the last \boxed{} the way PRIME does (braces
# matched), sanitises in its own way, and eval()s what is left.
GRADERS = r'''
import ast
import json
import math
import re
import unicodedata

BLACKLIST = ("__", "import", "chr", "os.", "open", "system")


def _last_box(text):
    start = text.rfind("\\boxed")
    if start < 0:
        return None
    depth, opened = 0, None
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
            opened = i if opened is None else opened
        elif text[i] == "}":
            depth -= 1
            if depth == 0 and opened is not None:
                return text[opened + 1:i].strip()
    return None


def _close(value, reference):
    return math.isclose(float(value), float(reference), rel_tol=1e-9)


def issue_blacklist(completion, reference):
    """The issue's grader: refuses the usual words, then evals the rest."""
    answer = _last_box(completion)
    if answer is None or any(word in answer for word in BLACKLIST):
        return False
    try:
        return _close(eval(answer), reference)
    except Exception:
        return False


def nfkc_then_eval(completion, reference):
    """A longer ASCII blacklist (every name that runs or decodes code), then NFKC so that
    full-width digits read as digits, then eval."""
    answer = _last_box(completion)
    words = BLACKLIST + ("exec", "eval", "getattr", "bytes", "fromhex", "decode", "compile", "vars", "globals", "'")
    if answer is None or any(word in answer for word in words):
        return False
    try:
        return _close(eval(unicodedata.normalize("NFKC", answer)), reference)
    except Exception:
        return False


def prime_with_blacklist(completion, reference):
    """verl PRIME's order behind the issue's blacklist: an answer holding "_" is a number
    in a base (float(x.split("_")[0])); only one holding \pi is eval()'d, \pi substituted."""
    answer = _last_box(completion)
    if answer is None or any(word in answer for word in BLACKLIST):
        return False
    try:
        if "_" in answer:
            return _close(float(answer.split("_")[0]), reference)
        if "\\pi" in answer:
            return _close(eval(answer.replace("\\pi", "1*3.141592653589793")), reference)
        return _close(answer, reference)
    except Exception:
        return False


def latex_stripping(completion, reference):
    """Strips the LaTeX a model writes (an enclosing \text{}, \left/\right, \pi), then
    applies the issue's blacklist to what is left and evals it."""
    answer = _last_box(completion)
    if answer is None:
        return False
    answer = re.sub(r"^\\text\{(.*)\}$", r"\1", answer)
    answer = answer.replace("\\left", "").replace("\\right", "").replace("\\pi", "pi").replace("^", "**")
    if any(word in answer for word in BLACKLIST):
        return False
    try:
        return _close(eval(answer, {"pi": math.pi}), reference)
    except Exception:
        return False


def tool_decoder(completion, reference):
    """A function-call grader that refuses the issue's words, then decodes the calls as
    BFCL's resolve_ast_by_type does: literals as such, a binary operation by eval."""
    if any(word in completion for word in BLACKLIST):
        return False
    try:
        tree = ast.parse(completion.strip(), mode="eval")
    except SyntaxError:
        return False
    calls = tree.body.elts if isinstance(tree.body, ast.List) else [tree.body]
    try:
        for call in calls:
            for kw in getattr(call, "keywords", []):
                if isinstance(kw.value, ast.BinOp):
                    eval(ast.unparse(kw.value))
                else:
                    ast.literal_eval(kw.value)
    except Exception:
        return False
    return False
'''


MATH_GRADERS = ("issue_blacklist", "nfkc_then_eval", "prime_with_blacklist", "latex_stripping")
STRONG = "verifier_audit.domains.math.verifiers:strong"


@pytest.fixture(scope="module")
def graders(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("graders") / "blacklisting_graders.py"
    path.write_text(GRADERS)
    return path


def _entry(candidate_id: str) -> str:
    return re.sub(r"-\d+$", "", candidate_id.split("/")[-1])


def _audit(folder: Path, specs: list[str], *extra: str) -> tuple[dict[str, dict], int]:
    """The real command on the known-bad candidates of 12 tasks, every verifier of ``specs``
    side by side in one run (one start-up, one generation; each verifier its own workers and
    its own report): the report JSON of each by function name, and the exit code."""
    out = folder / "report.json"
    r = run_cli(
        "run",
        *(a for spec in specs for a in ("--verifier", spec)),
        "--only",
        "known_bad",
        "--limit",
        "12",
        "--no-progress",
        "--no-config",
        "--no-cache",
        "--probe-sample",
        "0",
        "--workers",
        "1",
        "--json",
        str(out),
        *extra,
        timeout=600,
    )
    assert r.returncode in (0, 1), r.stderr[-3000:]
    data = json.loads(out.read_text())
    reports = data["reports"] if "reports" in data else [data]
    by_name = {rep["verifier"].rpartition(":")[2]: rep for rep in reports}
    assert len(by_name) == len(specs), list(by_name)
    return by_name, r.returncode


@pytest.fixture(scope="module")
def math_reports(graders) -> tuple[dict[str, dict], int]:
    """The four blacklisting graders and the reference verifier, in one audit."""
    return _audit(graders.parent, [*(f"{graders}:{name}" for name in MATH_GRADERS), STRONG])


def _fired(report: dict) -> dict[str, int]:
    """entry id -> candidates of it with an executes_model_output finding."""
    out: dict[str, int] = {}
    for f in report["security_findings"]:
        if f["kind"] == "executes_model_output":
            out[_entry(f["candidate_id"])] = out.get(_entry(f["candidate_id"]), 0) + 1
    return out


def _tried(report: dict, category: str) -> int:
    return sum(c["n"] for c in report["categories"] if c["name"] == category)


# ------------------------------------------------------------------ the payloads themselves


def _in_fresh_dir(fn):
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        try:
            return fn(d)
        finally:
            os.chdir(here)


_TOKENS = st.one_of(
    st.from_regex(r"[0-9a-f]{16}", fullmatch=True),
    st.builds(canary.make_token, st.text(max_size=30), st.text(max_size=30)),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TOKENS)
def test_every_form_is_python_that_evaluates_to_zero_and_leaves_the_marker(token):
    for form in canary.FORMS:
        text = canary.payload(token, form)
        if form == "import":  # a statement: its effect is the import of the marker's name
            code = compile(text, "<answer>", "exec")
            with pytest.raises(ModuleNotFoundError, match=f"{canary.MODULE_PREFIX}{token}"):
                exec(code, {})  # noqa: S102 - the payload only imports a module that does not exist
            continue
        code = compile(text, "<answer>", "eval")

        def run(d, code=code):
            assert eval(code, {}) == 0  # the payload only makes a marker in d
            return canary.fired(d), os.listdir(d)

        assert _in_fresh_dir(run) == ([token], []), (form, text)


@settings(max_examples=30, deadline=None)
@given(_TOKENS)
def test_the_encoded_forms_hold_no_word_the_issues_blacklist_refuses(token):
    for form in canary.ENCODED_FORMS:
        text = canary.payload(token, form)
        assert not [w for w in ISSUE_BLACKLIST if w in text], (form, text)
        assert "exec" not in text or form in ("hex", "bytes"), (form, text)
    # Before these forms, every expression form held one of the words.
    for form in ("mkdir", "open", "exec", "system"):
        assert [w for w in ISSUE_BLACKLIST if w in canary.payload(token, form)], form
    # bytes: no quote, "_" or space (quote-refusing graders, PRIME's split("_")).
    assert not re.search(r"[_'\"\s]", canary.payload(token, "bytes"))
    # nfkc: no ASCII letter but the keyword "or"; NFKC (what the parser does) gives bytes.
    nfkc = canary.payload(token, "nfkc")
    assert re.sub(r"[^A-Za-z]", "", nfkc) == "or"
    assert unicodedata.normalize("NFKC", nfkc) == canary.payload(token, "bytes")


# ------------------------------------------------------------------ real audits of blacklisting graders


def test_the_issues_blacklisting_grader_fires_the_encoded_canaries_and_fails_the_gate(math_reports, graders):
    reports, returncode = math_reports
    report = reports["issue_blacklist"]
    fired = _fired(report)
    # Every boxed encoded form runs through it; the old forms are all refused (the issue's
    # point: before the encoded forms, this grader gave no finding).
    assert {"hex_canary", "bytes_canary", "getattr_canary", "nfkc_canary"} <= set(fired), fired
    assert all(
        _entry(f["candidate_id"]) in fired and f["candidate_id"].split("/")[1] == ENCODED
        for f in report["security_findings"]
    ), report["security_findings"]
    for old in ("math.security.eval_canary", "math.security.sympify_canary", "math.security.process_canary"):
        assert _tried(report, old) > 0, old  # tried, and stopped by the blacklist
    details = [f["detail"] for f in report["security_findings"]]
    assert all("a canary fired" in d and "os.mkdir (audit hook)" in d for d in details), details
    assert report["gate"]["passed"] is False and returncode == 1
    assert any("security finding" in reason for reason in report["gate"]["reasons"])
    for where in (ROOT, graders.parent):  # the command's directory and the graders': nothing left behind
        assert not list(where.glob(f"{canary.PREFIX}*")), where


def test_a_grader_that_nfkc_normalises_before_eval_is_caught_by_the_full_width_form(math_reports):
    report = math_reports[0]["nfkc_then_eval"]
    assert set(_fired(report)) == {"nfkc_canary"}, _fired(report)
    assert report["gate"]["passed"] is False


def test_prime_behind_a_blacklist_is_caught_by_the_pi_suffixed_bytes_form(math_reports):
    report = math_reports[0]["prime_with_blacklist"]
    # The open form of prime_pi_eval_canary is refused ("open"); the bytes form has no "_".
    assert set(_fired(report)) == {"pi_bytes_canary"}, _fired(report)
    assert _tried(report, "math.security.pi_eval_canary") > 0
    assert report["gate"]["passed"] is False


def test_a_latex_stripping_grader_is_caught_by_the_wrapped_forms(math_reports):
    report = math_reports[0]["latex_stripping"]
    fired = _fired(report)
    assert {"text_wrapped_bytes_canary", "pi_bytes_canary"} <= set(fired), fired
    assert report["gate"]["passed"] is False


def test_a_tool_call_decoder_behind_a_blacklist_is_caught(tmp_path, graders):
    reports, _ = _audit(tmp_path, [f"{graders}:tool_decoder"], "--suite", "tool")
    report = reports["tool_decoder"]
    fired = _fired(report)
    # The mkdir form of argument_expression_canary holds "__" and "import": refused.
    assert set(fired) == {"argument_expression_encoded_canary"}, fired
    assert _tried(report, "tool.security.exec_canary") > 0
    assert report["gate"]["passed"] is False


def test_the_reference_verifiers_fire_no_encoded_canary(math_reports):
    # Run beside the four graders that fire: no marker of theirs is credited to it.
    report = math_reports[0]["strong"]
    assert _tried(report, ENCODED) > 0
    assert report["security_findings"] == []


# ------------------------------------------------------------------ the scan


BUILT_UP = {
    "concatenated": 'return getattr(builtins, "ev" + "al")(completion)',
    "module_dict": 'return builtins.__dict__["exec"](completion)',
    "dict_get": 'return builtins.__dict__.get("eval")(completion)',
    "vars": 'return vars(builtins)["eval"](completion)',
    "globals": 'return globals()["__builtins__"]["eval"](completion)',
    "dunder_builtins": 'return getattr(__builtins__, "eval")(completion)',
    "dunder_import": 'return __import__("builtins").eval(completion)',
    "import_module": 'return importlib.import_module("o" + "s").system(completion)',
    "alias": "run = eval\n    return run(completion)",
    "alias_of_getattr": 'fn = getattr(builtins, "ex" + "ec")\n    return fn(completion)',
    "module_alias": "return RUN(completion)",
    "named_pieces": 'name = "ev" + "al"\n    return getattr(builtins, name)(completion)',
    "nfkc": "return ｅｖａｌ(completion)",
    "passed_to_map": "return list(map(eval, [completion]))",
    "sympify": "return sympy.sympify(completion) == sympy.sympify(reference)",
    "parse_expr": "return parse_expr(completion) == parse_expr(reference)",
    "latex_then_sympify": "expr = parse_latex(completion)\n    return sympy.sympify(str(expr)) == 0",
    "built_sympify": 'return getattr(sympy, "symp" + "ify")(completion) == 0',
}
SAFE = {
    "sympify_constant": 'return sympy.sympify("x**2 + 1") == sympy.sympify("1 + x**2")',
    "getattr_other": 'return getattr(completion, "st" + "rip")() == reference',
    "dict_of_other": 'return {"eval": len}["eval"](completion) == 3',
    "map_of_other": "return list(map(str.strip, [completion])) == [reference]",
}


def _grader_module(bodies: dict[str, str]) -> str:
    head = textwrap.dedent("""\
        import builtins
        import importlib

        import sympy
        from sympy.parsing.latex import parse_latex
        from sympy.parsing.sympy_parser import parse_expr

        RUN = getattr(builtins, "e" + "val")
        """)
    return head + "".join(f"\n\ndef {name}(completion, reference):\n    {body}\n" for name, body in bodies.items())


def test_scan_flags_every_built_up_eval_and_sympy_parse_of_model_output(tmp_path):
    path = tmp_path / "hidden_eval.py"
    path.write_text(_grader_module({**BUILT_UP, **SAFE}), encoding="utf-8")
    findings = [f for f in scan_source(str(path)) if f.rule == "exec-model-output"]
    by_function = {f.function: f for f in findings}
    assert set(by_function) == set(BUILT_UP), sorted(by_function)
    for name, f in by_function.items():
        assert (f.severity.value, f.confidence) == ("critical", "high"), (name, f.message)
        assert "`completion`" in f.message, (name, f.message)
    assert "eval (as `getattr(builtins, 'ev' + 'al')`)" in by_function["concatenated"].message
    assert "builtins.exec" in by_function["module_dict"].message
    assert "os.system" in by_function["import_module"].message
    assert "eval (as `run`)" in by_function["alias"].message
    assert "sympy.sympify" in by_function["built_sympify"].message
    assert "eval (passed to map())" in by_function["passed_to_map"].message


def test_scan_command_exits_1_on_a_hidden_eval(cli, tmp_path):
    path = tmp_path / "grader.py"
    path.write_text(_grader_module({"score": BUILT_UP["concatenated"]}))
    r = cli("scan", str(path))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "exec-model-output [critical]" in r.stdout and "getattr(builtins, 'ev' + 'al')" in r.stdout


def _concatenation(pieces: list[str]) -> str:
    return " + ".join(repr(p) for p in pieces)


def _split(word: str):
    """``word`` cut into 1..len(word) non-empty pieces, anywhere."""
    return st.sets(st.integers(1, len(word) - 1), max_size=len(word) - 1).map(
        lambda cuts: [word[i:j] for i, j in zip([0, *sorted(cuts)], [*sorted(cuts), len(word)])]
    )


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["eval", "exec"]).flatmap(lambda w: st.tuples(st.just(w), _split(w))),
    st.sampled_from(["builtins", "__builtins__"]),
)
def test_any_concatenation_of_eval_through_getattr_is_flagged(word_pieces, module):
    word, pieces = word_pieces
    assert "".join(pieces) == word
    source = (
        f"import builtins\n\ndef score(completion, reference):\n    return getattr({module}, "
        f"{_concatenation(pieces)})(completion)\n"
    )
    findings = [f for f in scan_text(source, "g.py") if f.rule == "exec-model-output"]
    assert len(findings) == 1 and findings[0].severity.value == "critical", (source, findings)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["strip", "lower", "split", "evaluate", "executor", "format"]).flatmap(_split))
def test_a_concatenated_harmless_name_is_not_flagged(pieces):
    source = (
        f"import builtins\n\ndef score(completion, reference):\n    return getattr(completion, "
        f"{_concatenation(pieces)})() == getattr(builtins, {_concatenation(pieces)}, len)(reference)\n"
    )
    assert [f for f in scan_text(source, "g.py") if f.rule == "exec-model-output"] == []


@pytest.mark.parametrize("target", ["verifier_audit/domains", "examples"])
def test_no_built_up_finding_in_the_shipped_verifiers_and_examples(target):
    # The shipped code has one eval route, examples/executes_output.py's sympify, written
    # plainly: the built-name path must find nothing there.
    findings = scan_source(str(ROOT / target))
    assert not [f.message for f in findings if "(as `" in f.message]
