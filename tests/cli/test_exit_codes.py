"""Exit codes are ``errors.ExitCode``, and errors become them in one place
(``cli/exits.py``): no subcommand writes a number or the error line itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier_audit.cli import exits
from verifier_audit.cli.app import SUBCOMMANDS, main
from verifier_audit.engine.pool import PoolError
from verifier_audit.errors import ExitCode, InputError, Interrupted, VerifierLoadError

CLI = Path(__file__).resolve().parents[2] / "verifier_audit" / "cli"

# A code written as a number: ``return 2``, ``sys.exit(1)``, ``parser.exit(2, ...)``, or a
# constant of its own (EXIT_...): each is a second place that decides what a code means.
LITERAL = re.compile(r"\breturn\s+\(?\s*(0|1|2|3|130)\b(?!\.)|\bexit\(\s*\d|\bEXIT_[A-Z]+\s*=")


def test_exit_codes_are_the_documented_ones():
    assert [(c.name, int(c)) for c in ExitCode] == [
        ("OK", 0),
        ("GATE", 1),
        ("INPUT", 2),
        ("INTERNAL", 3),
        ("INTERRUPTED", 130),
    ]


def test_no_subcommand_writes_an_exit_code_as_a_number():
    found = [
        f"{path.name}:{n}: {line.strip()}"
        for path in sorted(CLI.glob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if LITERAL.search(line)
    ]
    assert found == []


def test_the_grep_finds_what_it_looks_for():
    for line in ("        return 130", "    return 2", "sys.exit(1)", "self.exit(2, message)", "EXIT_OK = 0"):
        assert LITERAL.search(line), line
    for line in ("    return ExitCode.OK", "sys.exit(main())", "return 1.0", "return 10"):
        assert not LITERAL.search(line), line


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_subcommand_runs_through_the_one_mapping(name):
    # run() is called on its own too (python -m verifier_audit.cli.scan, tests): it maps as main does.
    assert SUBCOMMANDS[name].run.__wrapped__ is not None


def _raising(exc: BaseException):
    def run(args) -> int:
        raise exc

    return run


@pytest.mark.parametrize(
    "exc, code, said",
    [
        (
            InputError("suite.jsonl:3: no reference"),
            ExitCode.INPUT,
            "verifier-audit: error: suite.jsonl:3: no reference",
        ),
        (VerifierLoadError("m:f: no such function"), ExitCode.INPUT, "verifier-audit: error: m:f: no such function"),
        (PoolError("worker setup failed: x"), ExitCode.INPUT, "verifier-audit: error: worker setup failed: x"),
        (
            KeyboardInterrupt(),
            ExitCode.INTERRUPTED,
            "\nverifier-audit: interrupted; run the same command with --resume to continue",
        ),
        (
            Interrupted("run the same command again to resume out.jsonl"),
            ExitCode.INTERRUPTED,
            "\nverifier-audit: interrupted; run the same command again to resume out.jsonl",
        ),
        (ZeroDivisionError("a bug"), ExitCode.INTERNAL, "internal error (exit 3)"),
    ],
)
def test_each_error_has_its_code_and_its_line(exc, code, said, capsys):
    assert exits.call(_raising(exc), None) == code
    assert said in capsys.readouterr().err


def test_the_mapping_passes_a_code_through():
    assert exits.mapped(lambda args: ExitCode.GATE)(None) == ExitCode.GATE


def test_main_maps_a_subcommand_input_error(tmp_path, capsys):
    code = main(["checklist", str(tmp_path / "missing.json")])
    assert code == ExitCode.INPUT and isinstance(code, ExitCode)
    assert capsys.readouterr().err.startswith("verifier-audit: error: ")
