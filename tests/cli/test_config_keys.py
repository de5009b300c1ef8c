"""Issue 31 items 5 and 7 (the config half): every ``run`` option can be said in
[tool.verifier_audit] -- the field mapping included -- and means there what its flag means;
the declaration that ties keys to flags (config.KEYS) cannot drift from the parser, the
models or docs/config.md; an unknown key is an InputError naming pyproject.toml, the line
and the key meant."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from verifier_audit import argtypes
from verifier_audit.cli.app import build_parser
from verifier_audit.cli.options import given_options
from verifier_audit.cli.run import output_paths
from verifier_audit.config import (
    COMMAND_LINE_ONLY,
    KEYS,
    OPTION_NAMES,
    GateSection,
    ProjectConfig,
    VerifierEntry,
    Waiver,
    check_option_names,
    load_config,
    option_flags,
)
from verifier_audit.errors import InputError
from verifier_audit.plan import audit_options, inspection, pass_env, suite_choice, weights_path

ROOT = Path(__file__).resolve().parents[2]
RUN = build_parser().commands.choices["run"]
FLAGS = {flag: action for action in RUN._actions for flag in action.option_strings if flag.startswith("--")}
KEY_OF = {k.flag: k for k in KEYS}


def test_every_run_flag_is_a_key_or_command_line_only_with_a_reason():
    """A new flag of ``run`` fails here until it is given a key (one line in config.KEYS)
    or a reason to stay off the file."""
    missing = sorted(f for f in FLAGS if f not in KEY_OF and f not in COMMAND_LINE_ONLY and f != "--help")
    assert not missing, f"run flags with no key in config.KEYS and not in config.COMMAND_LINE_ONLY: {missing}"
    assert all(len(why) > 20 for why in COMMAND_LINE_ONLY.values())
    stale = sorted(f for f in [*KEY_OF, *COMMAND_LINE_ONLY] if f not in FLAGS)
    assert not stale, f"declared flags that run does not have: {stale}"
    assert not set(KEY_OF) & set(COMMAND_LINE_ONLY) and len(KEY_OF) == len(KEYS)


def _field(name: str):
    """The model field a dotted KEYS name is."""
    table, _, last = name.rpartition(".")
    model = {"": ProjectConfig, "gate": GateSection, "verifiers[]": VerifierEntry, "waivers[]": Waiver}[table]
    return model.model_fields.get(last)


def test_every_key_of_the_models_is_declared_and_every_declared_key_exists():
    assert all(_field(k.name) is not None for k in KEYS), [k.name for k in KEYS if _field(k.name) is None]
    declared = {k.name for k in KEYS}
    # Keys of the file with no flag: the tables that hold others, what a waiver says beside
    # its category, the monitor's alarms (another command), a verifier's per-entry overrides
    # of top-level keys.
    no_flag = {
        "gate",
        "verifiers",
        "waivers",
        "monitor",
        "path",
        "waivers[].reason",
        "waivers[].expires",
        "waivers[].verifier",
        "waivers[].max_rate",
        *(f"verifiers[].{k}" for k in ("suite", "format", "split", "limit", "threshold", "gate")),
    }
    fields = [
        *ProjectConfig.model_fields,
        *(f"gate.{k}" for k in GateSection.model_fields),
        *(f"verifiers[].{k}" for k in VerifierEntry.model_fields),
        *(f"waivers[].{k}" for k in Waiver.model_fields),
    ]
    undeclared = [f for f in fields if f not in declared and f not in no_flag]
    assert not undeclared, f"keys of config.py's models with no line in config.KEYS: {undeclared}"


def test_docs_config_md_is_generated_from_the_declaration():
    result = subprocess.run(
        [sys.executable, "scripts/make_config_docs.py", "--check"],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    page = (ROOT / "docs" / "config.md").read_text()
    assert all(f"`{k.name}` | `{k.flag}`" in page for k in KEYS)
    assert all(f"`{flag}`" in page for flag in COMMAND_LINE_ONLY)


# -- a key says what its flag says ------------------------------------------------------------

# A value of each flag's type, as typed on the command line (argparse converts it).
_SAMPLE_TEXT = {
    argtypes.rate: "0.25",
    argtypes.positive_int: "3",
    argtypes.nonnegative_int: "3",
    argtypes.positive_float: "2.5",
    int: "7",
    argtypes.workers: "3",
    argtypes.memory_mb: "512",
    argtypes.file_mb: "64",
    argtypes.max_processes: "64",
    argtypes.env_name: "MY_TOKEN",
}
# Keys that this comparison cannot make: they name verifiers or waivers (tests/cli/test_config.py
# and the plugin's tests audit with them), or need a Ray cluster (tests/engine/test_ray_executor.py).
_NOT_COMPARED = {"--verifier", "--style", "--verifier-option", "--waive", "--executor", "--ray-address"}


def _sample(flag: str, tmp_path: Path) -> tuple[list[str], object]:
    """(the command-line words, the TOML value) that say the same thing for ``flag``."""
    action = FLAGS[flag]
    if flag == "--field":
        return [flag, "reference=answer"], {"reference": "answer"}
    if flag == "--no-format-probe":
        return [flag], False
    if flag in ("--weights-from", "--report-dir"):
        path = tmp_path / ("tasks.jsonl" if flag == "--weights-from" else "reports")
        path.touch() if flag == "--weights-from" else path.mkdir(exist_ok=True)
        return [flag, str(path)], str(path)
    text = list(action.choices)[-1] if action.choices else _SAMPLE_TEXT.get(action.type, "value")
    value = action.type(text) if action.type else text
    if isinstance(action, type(FLAGS["--pass-env"])):  # repeatable: an array in the file
        return [flag, text], [value]
    return [flag, text], value


def _effect(args, config):
    """What the audit is configured to do: the suite choice, the options and gate, how the
    signature is read, the environment passed, the reweighting file, the report files."""
    given = given_options(args)
    options, timeout = audit_options(given, config)
    return (
        suite_choice(given, config),
        options,
        timeout,
        inspection(given, config),
        pass_env(given, config),
        weights_path(given, config),
        {kind: path for kind, (_, path) in output_paths(args, config).items()},
    )


@pytest.mark.parametrize("flag", sorted(f for f in KEY_OF if f not in _NOT_COMPARED))
def test_each_key_configures_the_audit_as_its_flag_does(flag, tmp_path):
    words, value = _sample(flag, tmp_path)
    head, _, last = KEY_OF[flag].name.rpartition(".")
    table = {head: {last: value}} if head else {last: value}
    config = ProjectConfig.model_validate(table, strict=True)  # strict, as load_config reads the file
    bare = build_parser().parse_args(["run"])
    by_flag = _effect(build_parser().parse_args(["run", *words]), None)
    by_key = _effect(bare, config)
    assert by_flag == by_key
    assert by_key != _effect(bare, None), f"{KEY_OF[flag].name} = {value!r} changed nothing"


def test_the_command_line_wins_and_field_mappings_merge():
    config = ProjectConfig.model_validate({"fields": {"prompt": "question", "reference": "answer"}, "limit": 5})
    given = given_options(build_parser().parse_args(["run", "--field", "reference=final", "--limit", "2"]))
    choice = suite_choice(given, config)
    assert choice.fields == ["prompt=question", "reference=final"] and choice.limit == 2


def test_option_flags_write_options_back_as_the_flags_that_say_them():
    flags = option_flags(
        {
            "fields": ["prompt=q", "reference=a"],
            "max_debt": 0.1,
            "answer_formats": False,
            "origins": ["near_miss"],
            "limit": 3,
            "waive": ["math.x.y"],
            "progress": False,
        },
        skip=("limit",),
    )
    assert flags == [
        "--field",
        "prompt=q",
        "--field",
        "reference=a",
        "--only",
        "near_miss",
        "--max-debt",
        "0.1",
        "--no-format-probe",
        "--waive",
        "math.x.y",
    ]
    assert build_parser().parse_args(["run", *flags])  # they parse


def test_option_names_are_the_keys_last_names_and_a_misspelt_one_is_an_input_error():
    assert {"fields", "max_debt", "origins", "waive", "answer_formats", "inspect_timeout"} <= set(OPTION_NAMES)
    check_option_names(["max_debt", "fields"], "here")
    with pytest.raises(InputError, match=r"here: unknown option max_dept \(did you mean max_debt\?\)"):
        check_option_names(["max_dept"], "here")


# -- unknown keys ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, hint",
    [
        ("workrs = 2", "(did you mean workers?)"),
        ('field = { reference = "answer" }', "(did you mean fields?)"),
        ("max_debt = 0.1", "(did you mean max_debt in [tool.verifier_audit.gate]?)"),
        ('style = "trl"', "(did you mean style in a [[tool.verifier_audit.verifiers]] entry?)"),
        ("max-processes = 8", "(did you mean max_processes?)"),
        ("resume = true", "(--resume is a command-line option only: continues one interrupted run"),
    ],
)
def test_an_unknown_key_names_the_file_the_line_and_the_key_meant(tmp_path, line, hint):
    path = tmp_path / "pyproject.toml"
    path.write_text(f'[project]\nname = "x"\n\n[tool.verifier_audit]\nsuite = "math"\n{line}\n')
    with pytest.raises(InputError) as info:
        load_config(path)
    message = str(info.value)
    assert f"{path}:6: unknown key tool.verifier_audit.{line.split()[0]} {hint}" in message, message


def test_a_field_mapping_of_no_task_field_names_the_line_and_the_field_meant(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.verifier_audit.fields]\nprompt = "question"\nrefrence = "answer"\n')
    with pytest.raises(
        InputError,
        match=r"pyproject.toml:3: tool.verifier_audit.fields.refrence: not a task field "
        r"\(did you mean reference\?\)",
    ):
        load_config(path)


def test_an_unknown_key_in_a_sub_table_gets_its_neighbour(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.verifier_audit.gate]\nmax_dept = 0.1\n")
    with pytest.raises(
        InputError,
        match=r"pyproject.toml:2: unknown key tool.verifier_audit.gate.max_dept "
        r"\(did you mean max_debt\?\)",
    ):
        load_config(path)


# -- end to end: the real command, a suite that needs a mapping, the mapping in the file ------


def _gsm_style_with_other_field_names(path: Path, n: int = 3) -> None:
    rows = (ROOT / "examples" / "verifier-repo" / "data" / "gsm_style.jsonl").read_text().splitlines()[:n]
    out = []
    for row in map(json.loads, rows):
        row["question"], row["final"] = row.pop("prompt"), row.pop("reference")
        out.append(json.dumps(row))
    path.write_text("\n".join(out) + "\n")


def test_cli_reads_the_field_mapping_and_the_run_options_from_the_file(cli, tmp_path):
    """The issue's case: a suite whose fields are named otherwise, the mapping (and a few
    other run options) in [tool.verifier_audit] only; the audit runs, honours them, and a
    misspelt key is exit 2 naming the line and the key meant."""
    _gsm_style_with_other_field_names(tmp_path / "tasks.jsonl")
    (tmp_path / "v.py").write_text("def exact(completion, reference):\n    return float(reference in completion)\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.verifier_audit]\nsuite = "tasks.jsonl"\nlimit = 2\nonly = ["near_miss"]\nprobe_sample = 0\n'
        'answer_formats = false\n\n[tool.verifier_audit.fields]\nprompt = "question"\nreference = "final"\n'
    )
    out = tmp_path / "report.json"
    r = cli(
        "run",
        "--config",
        str(tmp_path / "pyproject.toml"),
        "--verifier",
        f"{tmp_path}/v.py:exact",
        "--no-progress",
        "--json",
        str(out),
    )
    assert r.returncode in (0, 1), r.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["n_candidates"] > 0 and report["settings"]["origins"] == ["near_miss"]
    assert report["settings"]["limit"] == 2 and report["checks"]["sample"] == 0 and report["formats"] is None
    (tmp_path / "pyproject.toml").write_text('[tool.verifier_audit]\nsuite = "tasks.jsonl"\nfield = {}\n')
    r = cli("run", "--config", str(tmp_path / "pyproject.toml"), "--verifier", f"{tmp_path}/v.py:exact")
    assert r.returncode == 2
    assert "pyproject.toml:3: unknown key tool.verifier_audit.field (did you mean fields?)" in r.stderr
