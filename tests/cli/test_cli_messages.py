"""Say why, every time: a non-zero exit prints its reasons, a usage error is one line, an
option out of range is refused (on the command line and in the config, the same ranges),
a misspelled waiver is an input error naming the nearest real categories, the terminal
report shows false rejections, and catalog lists every domain."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from verifier_audit import argtypes
from verifier_audit.cli import main
from verifier_audit.config import ProjectConfig, load_config
from verifier_audit.domains import get_domain
from verifier_audit.errors import InputError
from verifier_audit.models import Example, GateConfig, GateResult, Report
from verifier_audit.plan import audit_options, check_waivers, make_groups
from verifier_audit.report.terminal import render_gate_failures, render_report, worst_first
from verifier_audit.suites import load_suite

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
SUBSTRING = "examples/math_verifiers.py:substring"
STRONG = "examples/math_verifiers.py:strong"
QUICK = ["--no-progress", "--no-config", "--limit", "2", "--workers", "2", "--probe-sample", "0"]


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # the example verifiers' specs are relative to the repository


def _usage_error(capsys, *argv: str) -> list[str]:
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err.splitlines()


# ---------------------------------------------------------------- usage errors: one line


@pytest.mark.parametrize(
    "argv,message",
    [
        (["run", "--threshold", "2"], "argument --threshold: must be in [0, 1], got 2"),
        (["run", "--workers", "0"], "argument --workers: must be in [1, 256], got 0"),
        (["run", "--limit", "0"], "argument --limit: must be >= 1, got 0"),
        (["run", "--probe-sample", "-1"], "argument --probe-sample: must be >= 0, got -1"),
        (["run", "--memory-mb", "10"], "argument --memory-mb: must be 0 (no limit) or >= 64, got 10"),
        (["run", "--max-error-rate", "1.5"], "argument --max-error-rate: must be in [0, 1], got 1.5"),
        (["run", "--timeout", "inf"], "argument --timeout: must be > 0 and at most 86400 (a day), got inf"),
        (["run", "--threshold", "nan"], "argument --threshold: must be in [0, 1], got nan"),
        (["generate", "--workers", "-3"], "argument --workers: must be in [1, 256], got -3"),
        (
            ["score", "x.jsonl", "--verifier", "a.py:f", "--threshold", "1.01"],
            "argument --threshold: must be in [0, 1]",
        ),
        (["score", "x.jsonl", "--verifier", "a.py:f", "--workers", "0"], "argument --workers: must be in [1, 256]"),
        (["run", "--bogus", "x"], "unrecognized arguments: --bogus x"),
        (["diff"], "the following arguments are required: old, new"),
    ],
)
def test_a_usage_error_is_one_line_and_where_the_help_is(capsys, argv, message):
    lines = _usage_error(capsys, *argv)
    command = f"verifier-audit {argv[0]}"
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"{command}: error: ") and message in lines[0]
    assert lines[1] == f"try '{command} --help'"


def test_an_unknown_command_points_at_the_top_help(capsys):
    lines = _usage_error(capsys, "rnu")
    assert len(lines) == 2 and "invalid choice: 'rnu'" in lines[0] and lines[1] == "try 'verifier-audit --help'"


# ------------------------------------------------- the same ranges in the config, named


_RANGED = {  # config key -> the command line's type
    "workers": argtypes.workers,
    "limit": argtypes.positive_int,
    "memory_mb": argtypes.memory_mb,
    "probe_sample": argtypes.nonnegative_int,
    "threshold": argtypes.rate,
    "timeout": argtypes.positive_float,
    "oracle_timeout": argtypes.positive_float,
}


def _cli_accepts(check, value) -> bool:
    try:
        check(str(value))
        return True
    except (Exception, SystemExit):  # noqa: BLE001 - argparse's ArgumentTypeError or a bad cast
        return False


def _config_accepts(key, value) -> bool:
    try:
        ProjectConfig.model_validate({key: value})
        return True
    except ValidationError:
        return False


@settings(max_examples=300, deadline=None)
@given(
    key=st.sampled_from(sorted(_RANGED)),
    value=st.one_of(
        st.integers(-1000, 100_000),
        st.floats(-10, 200_000),
        st.sampled_from([float("nan"), float("inf"), 0.0, 1.0, 64, 63, 256, 257, 86_400, 86_400.5]),
    ),
)
def test_the_config_and_the_command_line_accept_the_same_values(key, value):
    if isinstance(value, float) and _RANGED[key].__name__ == "int":
        value = round(value) if value == value and abs(value) != float("inf") else 0  # TOML ints are ints
    assert _config_accepts(key, value) == _cli_accepts(_RANGED[key], value), (key, value)


@settings(max_examples=100, deadline=None)
@given(
    key=st.sampled_from(["max_debt", "max_category", "max_false_rejection", "max_error_rate"]),
    value=st.one_of(st.floats(-2, 3), st.just(float("nan"))),
)
def test_gate_rates_in_both_gate_tables_are_checked_like_the_options(key, value):
    ok = _cli_accepts(argtypes.rate, value)
    for table in ({"gate": {key: value}}, {"verifiers": [{"spec": "r.py:f", "gate": {key: value}}]}):
        try:
            ProjectConfig.model_validate(table)
            accepted = True
        except ValidationError:
            accepted = False
        assert accepted == ok, (table, value)


def test_a_config_value_out_of_range_names_file_line_key_and_range(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(
        '[tool.verifier_audit]\nsuite = "math"\nworkers = 0\nmemory_mb = 10\n\n'
        "[tool.verifier_audit.gate]\nmax_error_rate = 2\n"
    )
    with pytest.raises(InputError) as info:
        load_config(path)
    message = str(info.value)
    assert f"{path}:3: tool.verifier_audit.workers = 0: must be in [1, 256]" in message
    assert f"{path}:4: tool.verifier_audit.memory_mb = 10: must be 0 (no limit) or >= 64" in message
    assert f"{path}:7: tool.verifier_audit.gate.max_error_rate = 2: must be in [0, 1]" in message


def test_options_passed_as_values_are_range_checked_too():
    # The pytest plugin and the API hand options over as values, not as command-line text.
    with pytest.raises(InputError, match=r"workers = 0: must be in \[1, 256\]"):
        audit_options({"workers": 0}, None)
    with pytest.raises(InputError, match=r"max_error_rate = 1.5: must be in \[0, 1\]"):
        audit_options({"max_error_rate": 1.5}, None)


# ------------------------------------------------------------ --max-error-rate reaches the gate


def _config(tmp_path: Path, body: str) -> ProjectConfig:
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.verifier_audit]\nsuite = "math"\n' + body)
    return load_config(path)


def test_max_error_rate_from_the_option_and_both_gate_tables(tmp_path):
    assert audit_options({}, None)[0].gate.max_error_rate == GateConfig().max_error_rate == 0.05
    assert audit_options({"max_error_rate": 0.2}, None)[0].gate.max_error_rate == 0.2
    config = _config(
        tmp_path,
        "\n[tool.verifier_audit.gate]\nmax_error_rate = 0.3\n\n"
        f'[[tool.verifier_audit.verifiers]]\nspec = "{ROOT}/{STRONG}"\n'
        "[tool.verifier_audit.verifiers.gate]\nmax_error_rate = 0.01\n\n"
        f'[[tool.verifier_audit.verifiers]]\nspec = "{ROOT}/{SUBSTRING}"\n',
    )
    groups = make_groups({}, config, [])
    by_name = {s.name.rpartition(":")[2]: g.options.gate.max_error_rate for g in groups for s in g.specs}
    assert by_name == {"strong": 0.01, "substring": 0.3}  # the verifier's own [gate] wins over [gate]
    groups = make_groups({"max_error_rate": 0.5}, config, [])  # ...and the command line over both
    assert {g.options.gate.max_error_rate for g in groups} == {0.5}


def test_max_error_rate_on_the_command_line_decides_the_errors_gate(tmp_path):
    # exits_process crashes on the candidates with its trigger word: 10 of 130 calls here.
    reasons = {}
    for limit in (None, "0.1"):
        out = tmp_path / f"r{limit}.json"
        extra = ["--max-error-rate", limit] if limit else []
        assert (
            main(
                ["run", "--verifier", "examples/hostile_verifiers.py:exits_process", *QUICK, *extra, "--json", str(out)]
            )
            == 1
        )
        report = Report.model_validate_json(out.read_text())
        assert 0.05 < report.error_rate < 0.1
        assert report.settings["max_error_rate"] == float(limit or 0.05)
        reasons[limit] = [r for r in report.gate.reasons if r.startswith("error rate ")]
    assert len(reasons[None]) == 1 and "> max-error-rate 0.05" in reasons[None][0]
    assert reasons["0.1"] == []


# --------------------------------------------------------------------- waivers


def test_a_misspelled_waiver_is_exit_2_naming_the_nearest_categories(capsys):
    assert main(["run", "--verifier", SUBSTRING, *QUICK, "--waive", "math.hedge.orr"]) == 2
    err = capsys.readouterr().err
    assert "--waive: waiver of unknown category 'math.hedge.orr'" in err
    assert re.search(r"nearest: math\.hedge\.or\b", err) and "verifier-audit catalog --domain math" in err


def test_a_waiver_of_a_real_category_without_candidates_in_this_run_is_valid(capsys):
    # math.hostile.giant_integer exists in the domain; a two-task run may well not have one.
    names = {c.name for c in get_domain("math").categories()}
    assert "math.hostile.giant_integer" in names
    rc = main(["run", "--verifier", STRONG, *QUICK, "--waive", "math.hostile.giant_integer"])
    assert rc == 0, capsys.readouterr().err


def test_a_misspelled_waiver_in_the_config_names_its_file_and_line(tmp_path, monkeypatch, capsys):
    path = tmp_path / "pyproject.toml"
    path.write_text(
        f'[tool.verifier_audit]\nsuite = "math"\nlimit = 2\nworkers = 2\nprobe_sample = 0\n\n'
        f'[[tool.verifier_audit.verifiers]]\nspec = "{ROOT}/{STRONG}"\n\n'
        '[[tool.verifier_audit.waivers]]\ncategory = "math.hedge.or"\nreason = "a real one"\n\n'
        '[[tool.verifier_audit.waivers]]\nreason = "a typo"\ncategory = "math.near_miss.sign_flp"\n'
    )
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "pyproject.toml:16: waiver of unknown category 'math.near_miss.sign_flp'" in err
    assert "nearest: math.near_miss.sign_flip" in err and "math.hedge.or" not in err.split("error:")[1]


def test_check_waivers_knows_candidates_categories_and_other_domains():
    gate = GateConfig(
        waived_categories=["math.sampled.m.train.incorrect", "sql.hack.gold_string"],
        category_limits={"math.hedge.or": 0.2},
    )
    check_waivers(gate, "math", {"math.sampled.m.train.incorrect"}, {})  # present in the candidates: fine
    with pytest.raises(InputError, match="math.sampled.m.train.incorrect"):
        check_waivers(gate, "math", set(), {})
    with pytest.raises(
        InputError,
        match=r"pyproject.toml:9: waiver of unknown category 'sql.hack.gold_strin'.*"
        r"nearest: sql.hack.gold_string.*--domain sql",
    ):
        check_waivers(
            GateConfig(waived_categories=["sql.hack.gold_strin"]),
            "math",
            set(),
            {"sql.hack.gold_strin": "pyproject.toml:9"},
        )


def test_the_plugin_fails_a_test_on_a_misspelled_config_waiver(pytester):
    pytester.makepyprojecttoml(
        '[tool.verifier_audit]\nsuite = "math"\nworkers = 2\nprobe_sample = 0\n\n'
        '[[tool.verifier_audit.waivers]]\ncategory = "math.hedge.orr"\nreason = "typo"\n'
    )
    pytester.makepyfile(
        test_r=f'''
def test_strong(verifier_audit):
    verifier_audit.assert_coverage("{ROOT}/{STRONG}")
'''
    )
    result = pytester.runpytest("--verifier-audit-limit", "2")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*pyproject.toml:7: waiver of unknown category 'math.hedge.orr' (nearest: math.hedge.or*"]
    )


# ------------------------------------------------------- exit 1 always says why


def test_run_exit_1_prints_each_failing_verifiers_reasons(capsys):
    assert main(["run", "--verifier", SUBSTRING, "--verifier", STRONG, *QUICK]) == 1
    out, err = capsys.readouterr()
    assert "examples/math_verifiers.py:substring: gate: FAILED\n  - coverage debt" in out  # side by side: reasons too
    assert "examples/math_verifiers.py:strong: gate: PASSED" in out
    lines = [line for line in err.splitlines() if "gate FAILED" in line]
    assert len(lines) == 1 and lines[0].startswith(
        "verifier-audit: gate FAILED for examples/math_verifiers.py:substring: coverage debt "
    )
    assert "> max-debt 0.05" in lines[0]


def test_run_of_one_verifier_says_why_on_stderr_too(capsys):
    assert main(["run", "--verifier", SUBSTRING, *QUICK]) == 1
    out, err = capsys.readouterr()
    assert "gate: FAILED" in out
    assert "verifier-audit: gate FAILED for examples/math_verifiers.py:substring: coverage debt" in err
    assert re.search(r"; and \d+ more$", err.strip().splitlines()[-1])  # long lists are cut, not dropped


def test_a_bare_run_with_a_config_says_why(tmp_path, monkeypatch, capsys):
    path = tmp_path / "pyproject.toml"
    path.write_text(
        f'[tool.verifier_audit]\nsuite = "math"\nlimit = 2\nworkers = 2\nprobe_sample = 0\n\n'
        f'[[tool.verifier_audit.verifiers]]\nspec = "{ROOT}/{SUBSTRING}"\n'
    )
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--no-progress"]) == 1
    assert "gate FAILED for " in capsys.readouterr().err


def test_score_exit_1_prints_why(tmp_path, capsys):
    task = load_suite("math").tasks[0]
    rows = tmp_path / "rows.jsonl"
    wrong = f"Not {task.reference}; the answer is \\boxed{{{task.reference}1}}."  # substring pays for it
    rows.write_text(
        "\n".join(
            json.dumps({"task_id": task.id, "text": t, "model": "m"})
            for t in (wrong, wrong + " ", f"\\boxed{{{task.reference}}}")
        )
        + "\n"
    )
    samples = tmp_path / "s.jsonl"
    assert main(["import", str(rows), "--format", "jsonl", "--suite", "math", "--out", str(samples)]) == 0
    capsys.readouterr()
    common = ["--no-config", "--no-progress", "--workers", "2", "--probe-sample", "0"]
    assert main(["score", str(samples), "--verifier", SUBSTRING, *common, "--results", str(tmp_path / "a.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "verifier-audit: gate FAILED for examples/math_verifiers.py:substring: " in err
    assert (
        main(
            [
                "score",
                str(samples),
                "--verifier",
                SUBSTRING,
                *common,
                "--waive",
                "math.sampled.n.train.incorrect",
                "--results",
                str(tmp_path / "b.jsonl"),
            ]
        )
        == 2
    )
    assert "nearest: math.sampled.m." in capsys.readouterr().err


def test_diff_fail_on_regression_says_what_regressed(tmp_path, capsys):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert main(["run", "--verifier", STRONG, *QUICK, "--json", str(old)]) == 0
    report = Report.model_validate_json(old.read_text())
    worse = report.model_copy(update={"coverage_debt": report.coverage_debt + 0.2})
    new.write_text(worse.model_dump_json())
    capsys.readouterr()
    assert main(["diff", str(old), str(new), "--fail-on-regression"]) == 1
    err = capsys.readouterr().err
    assert "verifier-audit: regression in " in err and "coverage debt rose 0.000 -> 0.200" in err
    assert main(["diff", str(old), str(new)]) == 0  # without the flag: shown, not failed


def test_checklist_exit_1_names_the_open_items(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["run", "--verifier", "examples/executes_output.py:sympify_grader", *QUICK, "--json", str(out)]) == 1
    capsys.readouterr()
    assert main(["checklist", str(out)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"verifier-audit: checklist: \d+ item\(s\) open: .*executes_model_output open", err), err


# -------------------------------------------- the terminal report: false rejections shown


@pytest.fixture(scope="module")
def substring_report(tmp_path_factory) -> Report:
    """substring on two tasks: it refuses some right answers written differently."""
    out = tmp_path_factory.mktemp("substring") / "r.json"
    with pytest.MonkeyPatch.context() as mp:  # the session's cache, as conftest's autouse fixture sets it
        mp.setenv("VERIFIER_AUDIT_CACHE", str(tmp_path_factory.getbasetemp() / "va-cache"))
        main(["run", "--verifier", str(ROOT / SUBSTRING), *QUICK, "--json", str(out)])
    return Report.model_validate_json(out.read_text())


def test_the_terminal_report_shows_false_rejections_beside_the_reference(substring_report):
    refused = [c for c in substring_report.categories if c.label == "correct" and c.rate > 0]
    assert refused, "substring refuses some right answers written differently"
    text = render_report(substring_report)
    title = f"Worst false rejections, right answers refused ({min(5, len(refused))} of {len(refused)} categor"
    assert title in text and text.index("Worst escapes") < text.index(title)
    block = text.split(title)[1].split("\n", 1)[1].strip("\n").split("\n\n")[0].splitlines()
    worst = sorted(refused, key=worst_first)[:5]
    assert [line.split(" [")[0].strip() for line in block[::2]] == [c.name for c in worst]
    ex = worst[0].examples[0]
    assert block[0].endswith(f"reference {ex.reference}")
    assert block[1].startswith("      refused: ") and (ex.answer or ex.text.strip()[-10:]) in block[1]


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(st.characters(blacklist_categories=()), max_size=300).map(
        lambda s: s + "\x1b[2J\x00\u202e\ud800" + "9" * 5000 + "\r\n\t"
    )
)
def test_false_rejection_examples_are_clipped_and_escaped(substring_report, text):
    cats = [
        c.model_copy(update={"examples": [Example(candidate_id="x", task_id="t", text=text, reference=text)]})
        for c in substring_report.categories
    ]
    rendered = render_report(substring_report.model_copy(update={"categories": cats}))
    block = rendered.split("Worst false rejections, right answers refused")[1].split("\n", 1)[1].split("\n\n")[0]
    assert block.strip()
    for line in block.splitlines():
        assert len(line) < 200
        assert line.isprintable(), repr(line)


def test_gate_failure_lines_escape_hostile_reasons(substring_report):
    hostile = substring_report.model_copy(
        update={
            "verifier": "a.py:f\x1b",
            "gate": GateResult(passed=False, enforced=True, reasons=["boom '\x1b[31m\x00'"] * 5),
        }
    )
    passed = substring_report.model_copy(update={"gate": GateResult(passed=True, enforced=True, reasons=[])})
    assert render_gate_failures([hostile, passed]) == [
        "verifier-audit: gate FAILED for a.py:f\\x1b: boom '\\x1b[31m\\x00'; boom '\\x1b[31m\\x00'; "
        "boom '\\x1b[31m\\x00'; and 2 more"
    ]


# ----------------------------------------------------------------------- catalog


def test_catalog_without_domain_lists_every_domain_under_a_heading(capsys):
    assert main(["catalog"]) == 0
    out = capsys.readouterr().out
    headings = re.findall(r"^== (\w+) \((\d+) categories\) ==$", out, re.MULTILINE)
    assert [h[0] for h in headings] == ["math", "sql", "code", "tool", "program", "repo"]
    for name, count in headings:
        assert int(count) == len(get_domain(name).categories()) and f"{name}.near_miss." in out
    assert main(["catalog", "--domain", "sql"]) == 0
    only = capsys.readouterr().out
    assert "==" not in only and "sql.near_miss." in only and "math.near_miss." not in only
    assert main(["catalog", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["domain"] for r in rows} == {"math", "sql", "code", "tool", "program", "repo"}


def test_catalog_help_says_what_it_lists(capsys):
    with pytest.raises(SystemExit):
        main(["catalog", "--help"])
    assert "every installed domain" in " ".join(capsys.readouterr().out.split())
