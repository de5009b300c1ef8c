"""The switch for the answer-format probe (docs/answer-formats.md): ``--no-format-probe`` on
``run`` and ``answer_formats = false`` in [tool.verifier_audit] reach AuditOptions, and a
run with the probe off shows a one-format grader its candidates as generated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier_audit.cli import build_parser, main
from verifier_audit.cli.options import given_options
from verifier_audit.config import load_config
from verifier_audit.errors import InputError
from verifier_audit.plan import audit_options

ROOT = Path(__file__).resolve().parents[2]
GSM8K_STRICT = f"{ROOT / 'tests' / 'fixtures' / 'format_graders.py'}:gsm8k_strict"


def _options(argv: list[str], config=None):
    args = build_parser().parse_args(["run", *argv])
    return audit_options(given_options(args), config)[0]


def _config(tmp_path: Path, body: str):
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[tool.verifier_audit]\n{body}")
    return load_config(path)


def test_the_flag_and_the_config_key_reach_audit_options(tmp_path):
    assert _options([]).answer_formats is True  # on by default
    assert _options(["--no-format-probe"]).answer_formats is False
    assert _options([], _config(tmp_path, "answer_formats = false\n")).answer_formats is False
    on = _config(tmp_path, "answer_formats = true\n")
    assert _options([], on).answer_formats is True
    assert _options(["--no-format-probe"], on).answer_formats is False  # the command line wins


def test_a_value_that_is_not_a_boolean_names_the_key(tmp_path):
    with pytest.raises(InputError, match="answer_formats"):
        _config(tmp_path, 'answer_formats = "no"\n')


def test_with_the_probe_off_a_one_format_grader_is_shown_the_boxed_candidates(tmp_path, capsys):
    # verl's strict gsm8k regex reads only '#### n': with the probe it is audited in that
    # format (Report.formats says so); without, every boxed right answer is refused.
    reports = {}
    for name, extra in (("on", []), ("off", ["--no-format-probe"])):
        out = tmp_path / f"{name}.json"
        code = main(
            [
                "run",
                "--verifier",
                GSM8K_STRICT,
                "--limit",
                "3",
                "--probe-sample",
                "0",
                "--no-progress",
                "--no-config",
                "--json",
                str(out),
                *extra,
            ]
        )
        assert code in (0, 1), capsys.readouterr().err
        reports[name] = json.loads(out.read_text())
    assert reports["on"]["formats"]["audited_in"] == "gsm8k", reports["on"]["formats"]
    assert reports["off"]["formats"] is None
    assert reports["off"]["false_rejection_rate"] == 1.0 and reports["on"]["false_rejection_rate"] < 1.0
