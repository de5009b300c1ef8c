"""Issue 32 item 2: every option of an audit is declared once (settings.AUDIT_SETTINGS), and
the front ends cannot drift from it: the flags of run, score and generate, the keys of
[tool.verifier_audit] with their ranges, plan's ranges and defaults, and the API's keyword
arguments. The API goes through plan like the CLI: the same code-domain timeout, the same
waiver check, and suite files of every format."""

from __future__ import annotations

import argparse
import inspect
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from verifier_audit import api, argtypes
from verifier_audit.cli.app import build_parser
from verifier_audit.cli.options import add_settings, given_options
from verifier_audit.config import OPTION_NAMES, GateSection, ProjectConfig
from verifier_audit.errors import InputError
from verifier_audit.loading import STYLES
from verifier_audit.plan import audit_options, check_ranges, inspection, pass_env, suite_choice
from verifier_audit.settings import (
    API,
    AUDIT_SETTINGS,
    GENERATE,
    KEYS,
    PLUGIN,
    RANGES,
    RUN,
    SCORE,
    Setting,
    default,
    setting,
    settings_of,
)
from verifier_audit.suites import FORMATS

PARSERS = build_parser().commands.choices
DECLARED = {s.flag: s for s in AUDIT_SETTINGS}
#: the API's keywords that are no option of an audit: the verifier, and how this one call
#: streams, caches and shows (the CLI's --results, --no-cache, --no-progress)
API_ONLY = {"verifier", "results", "cache", "progress"}


def _flags(front: str) -> dict[str, argparse.Action]:
    return {f: a for a in PARSERS[front]._actions for f in a.option_strings if f.startswith("--")}


@pytest.mark.parametrize("front", [RUN, SCORE, GENERATE])
def test_each_front_ends_flags_are_its_settings_with_their_ranges(front):
    """A front end has the flag of every setting that names it and of no other; each flag
    checks the setting's range, is repeatable when the setting is, and leaves its default
    to plan (None) unless it is the setting's own."""
    flags = _flags(front)
    # score writes the report formats of report/writers.py, --report-dir included, but does
    # not read the config's report_dir (that folder is run's: score would overwrite it).
    have = {f for f in flags if f in DECLARED and not (front == SCORE and f == "--report-dir")}
    assert have == {s.flag for s in settings_of(front)}, (front, have ^ {s.flag for s in settings_of(front)})
    for flag in have:
        s, action = DECLARED[flag], flags[flag]
        if s.check is not None:
            assert action.type is s.check, flag
        assert s.many == isinstance(action, argparse._AppendAction), flag
        switch = isinstance(action, argparse._StoreTrueAction) and action.default is False  # --no-format-probe
        assert switch or action.default in (None, [], s.value), (flag, action.default)


def test_keys_and_plugin_options_are_views_of_the_table():
    assert KEYS == AUDIT_SETTINGS and len({s.flag for s in KEYS}) == len(KEYS)
    assert len({s.option_name for s in AUDIT_SETTINGS}) == len(AUDIT_SETTINGS)
    assert set(OPTION_NAMES) == {s.option_name for s in settings_of(PLUGIN)} - {"style"}
    assert set(RANGES) == {s.option_name for s in AUDIT_SETTINGS if s.check is not None}


def test_the_config_models_defaults_are_the_tables():
    config = ProjectConfig()
    for name in ("suite", "format", "seed", "threshold"):
        assert getattr(config, name) == default(name)


# -- one range: the flag, the key, plan (the plugin, the API) ---------------------------------


def _config_accepts(s: Setting, value) -> bool:
    table, _, last = s.name.rpartition(".")
    model = GateSection if table == "gate" else ProjectConfig
    try:
        model.model_validate({last: [value] if s.many else value}, strict=True)
    except ValueError:
        return False
    return True


def _flag_accepts(s: Setting, value) -> bool:
    try:
        s.check(str(value))
    except (argparse.ArgumentTypeError, ValueError):
        return False
    return True


def _plan_accepts(s: Setting, value) -> bool:
    try:
        check_ranges({s.option_name: [value] if s.many else value})
    except InputError:
        return False
    return True


_NUMERIC = [s for s in RANGES.values() if s.value_type in (int, float)]


@hypothesis_settings(max_examples=300, deadline=None)
@given(st.sampled_from(_NUMERIC), st.one_of(st.integers(-(10**6), 10**6), st.floats(allow_nan=True)))
def test_a_number_is_in_range_for_the_flag_iff_for_the_key_and_for_plan(s, value):
    """Whatever the number, the command line, [tool.verifier_audit] and plan (through which
    the plugin and the API go) take it or refuse it together. The file takes a whole number
    where a number goes, never a fraction where a whole number goes (strict TOML types)."""
    if s.value_type is int and isinstance(value, float):
        assert not _config_accepts(s, value)
        return
    flag = _flag_accepts(s, value)
    assert flag == _config_accepts(s, value) == _plan_accepts(s, value), (s.name, value)


@given(st.text(max_size=12))
def test_an_environment_name_is_taken_by_the_flag_the_key_and_plan_alike(name):
    s = RANGES["pass_env"]
    assert _flag_accepts(s, name) == _config_accepts(s, name) == _plan_accepts(s, name), name


# -- the API: its keywords are the table's, its defaults the command line's -------------------


def test_the_apis_keywords_are_the_api_settings():
    params = inspect.signature(api.audit).parameters
    assert set(params) == {s.option_name for s in settings_of(API)} | API_ONLY, set(params) ^ (
        {s.option_name for s in settings_of(API)} | API_ONLY
    )
    for s in settings_of(API):
        d = params[s.option_name].default
        assert d is None or d == s.value or s.value is None or (s.many and not d), (s.option_name, d, s.value)


def _effect(given):
    options, timeout = audit_options(given, None)
    return suite_choice(given, None), options, timeout, inspection(given, None), pass_env(given, None)


def test_the_apis_defaults_configure_the_audit_as_a_bare_run():
    """``audit(fn)`` with no keyword is ``verifier-audit run --no-progress`` with no flag:
    the same suite choice, options, gate, timeout (None: the domain's), signature reading
    and environment."""
    bare = given_options(build_parser().parse_args(["run", "--no-progress"]))
    assert _effect(api._given({**api._DEFAULTS, "verifier": None})) == _effect(bare)
    # and a keyword means what its flag means
    said = api._given(
        {
            **api._DEFAULTS,
            "verifier": None,
            "max_debt": 0.2,
            "timeout": 3.0,
            "origins": ("near_miss",),
            "format": "gsm8k",
            "db_dir": Path("dbs"),
            "answer_formats": False,
            "cache": False,
        }
    )
    flags = given_options(
        build_parser().parse_args(
            [
                "run",
                "--no-progress",
                "--max-debt",
                "0.2",
                "--timeout",
                "3",
                "--only",
                "near_miss",
                "--format",
                "gsm8k",
                "--db-dir",
                "dbs",
                "--no-format-probe",
                "--no-cache",
            ]
        )
    )
    assert _effect(said) == _effect(flags)


def test_the_api_checks_ranges_as_the_command_line_does():
    with pytest.raises(InputError, match=r"max_debt = 1.5: must be in \[0, 1\]"):
        api.audit("tests/fixtures/does_not_matter.py:f", max_debt=1.5)


def test_the_apis_code_domain_timeout_is_the_clis(cli, tmp_path):
    """The issue's drift: ``audit(fn, suite="code")`` used 10 s where the CLI and the plugin
    use the code domain's own (4 s)."""
    (tmp_path / "v.py").write_text("def never(completion, reference):\n    return 0.0\n")
    spec = f"{tmp_path}/v.py:never"
    quick = {
        "suite": "code",
        "limit": 1,
        "probe_sample": 0,
        "answer_formats": False,
        "workers": 2,
        "origins": ("known_bad",),
    }
    by_api = api.audit(spec, **quick)
    out = tmp_path / "report.json"
    r = cli(
        "run",
        "--no-config",
        "--verifier",
        spec,
        "--suite",
        "code",
        "--limit",
        "1",
        "--probe-sample",
        "0",
        "--no-format-probe",
        "--workers",
        "2",
        "--only",
        "known_bad",
        "--no-progress",
        "-q",
        "--json",
        str(out),
    )
    assert r.returncode in (0, 1), r.stderr[-3000:]
    by_cli = json.loads(out.read_text())
    assert by_api.settings["timeout"] == by_cli["settings"]["timeout"] == 4.0


def _gsm8k_file(path: Path) -> None:
    rows = [
        {"question": "Tom has 3 apples and buys 4 more. How many apples does he have?", "answer": "3 + 4 = 7\n#### 7"},
        {"question": "A box holds 12 eggs. How many eggs are in 2 boxes?", "answer": "2 * 12 = 24\n#### 24"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_the_api_reads_a_suite_file_of_another_format_and_checks_waivers(tmp_path):
    """``format=`` (and ``db_dir=``) reach the suite reader as ``--format`` does; a waiver of
    a category the domain does not have is an InputError naming the nearest, as on the
    command line."""
    _gsm8k_file(tmp_path / "gsm.jsonl")
    (tmp_path / "v.py").write_text("def exact(completion, reference):\n    return float(reference in completion)\n")
    spec = f"{tmp_path}/v.py:exact"
    quick = {
        "suite": str(tmp_path / "gsm.jsonl"),
        "format": "gsm8k",
        "probe_sample": 0,
        "answer_formats": False,
        "workers": 2,
    }
    report = api.audit(spec, **quick)
    assert report.settings["format"] == "gsm8k" and report.settings["domain"] == "math" and report.n_candidates > 0
    with pytest.raises(
        InputError,
        match=r"waive=: waiver of unknown category 'math.near_miss.roundng' "
        r"\(nearest: math.near_miss.rounding",
    ):
        api.audit(spec, waive=("math.near_miss.roundng",), **quick)


# -- the flags are built from the table (cli/options.py add_settings) -------------------------


@pytest.mark.parametrize("front", [RUN, SCORE, GENERATE])
def test_each_flags_help_is_its_rows(front):
    """The help is part of the declaration: what --help (and docs/config.md) says of a
    setting is its row's ``help`` (``score_help`` in score where the row has one)."""
    flags = _flags(front)
    for s in settings_of(front):
        if s.name == "report_dir":  # added with the report formats (report/writers.py)
            continue
        assert flags[s.flag].help == (s.score_help if front == SCORE and s.score_help else s.help), s.flag
        assert s.help, f"{s.name}: a setting with a flag says what it does"


_NEW = Setting(
    "answer_cache_mb",
    "--answer-cache-mb",
    "64",
    check=argtypes.positive_int,
    value=64,
    fronts=frozenset({RUN, GENERATE, API}),
    group="suite",
    metavar="MB",
    help="memory the answer cache may hold, MiB (default 64)",
)


@pytest.mark.parametrize(
    "front, groups, first",
    [
        (RUN, ("suite",), ()),
        (GENERATE, ("suite",), ()),
        (RUN, ("verdicts",), ("timeout", "threshold")),
        (SCORE, ("suite", "verdicts"), ("threshold",)),
    ],
)
def test_a_row_added_to_the_table_is_a_flag_of_its_front_ends(front, groups, first):
    """One row is the whole declaration of a new option's flag: add_settings makes it a flag
    of each front end it names (with its range, metavar, help and plan's default, None),
    in the group it names, after the others; and of no other front end or group."""
    parser = argparse.ArgumentParser(prog=front)
    add_settings(
        parser, front, groups, first=first, table=AUDIT_SETTINGS + (_NEW,), extra={"format": {"choices": ("jsonl",)}}
    )
    actions = {a.option_strings[0]: a for a in parser._actions if a.option_strings}
    wanted = front in _NEW.fronts and _NEW.group in groups
    assert (_NEW.flag in actions) == wanted
    if wanted:
        action = actions[_NEW.flag]
        assert (action.type, action.metavar, action.help, action.default) == (
            argtypes.positive_int,
            "MB",
            _NEW.help,
            None,
        )
        assert list(actions)[-1] == _NEW.flag  # the table's order: the new row is the last
        assert parser.parse_args([_NEW.flag, "8"]).answer_cache_mb == 8
        with pytest.raises(SystemExit):
            parser.parse_args([_NEW.flag, "0"])
    # the first named come first, in their order; the rest of the groups' rows follow
    assert list(actions)[1 : 1 + len(first)] == [setting(name).flag for name in first]


def test_add_settings_builds_the_same_flags_as_the_front_ends():
    """The table alone, outside any subcommand, gives the flags run has: every option
    string, type, action class, choices, metavar, default and help."""
    parser = argparse.ArgumentParser()
    add_settings(
        parser,
        RUN,
        ("verifier", "suite", "verdicts"),
        extra={"style": {"choices": ("auto",) + STYLES}, "format": {"choices": FORMATS}},
    )
    run = _flags(RUN)
    for action in parser._actions[1:]:
        have = run[action.option_strings[0]]
        assert (
            type(action),
            action.type,
            action.choices,
            action.metavar,
            action.default,
            action.help,
            action.dest,
        ) == (type(have), have.type, have.choices, have.metavar, have.default, have.help, have.dest)
