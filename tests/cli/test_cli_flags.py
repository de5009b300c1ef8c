"""Habits of the ecosystem on the command line (issue 31, item 7): ``-q/--quiet`` prints the
verdict line alone, ``--color auto|always|never`` honours NO_COLOR and FORCE_COLOR and never
reaches a file, and a misspelt flag is answered with "did you mean"."""

from __future__ import annotations

import os
import re
from argparse import Namespace

import pytest
from cli_support import run_cli

from verifier_audit.cli import options
from verifier_audit.cli.app import main

SUBSTRING = "examples/math_verifiers.py:substring"  # fails its gate on any suite
ESC = "\x1b["
QUICK = ("--limit", "2", "--probe-sample", "0", "--no-progress", "--no-config")


def _run(factory, *args: str, env: dict | None = None):
    env = {
        "VERIFIER_AUDIT_CACHE": str(factory.getbasetemp() / "va-cache"),
        "NO_COLOR": "",
        "FORCE_COLOR": "",
        **(env or {}),
    }
    r = run_cli("run", "--verifier", SUBSTRING, *QUICK, *args, env=env)
    assert r.returncode == 1, r.stderr[-3000:]
    return r


# -------------------------------------------------------------------------------- did you mean


@pytest.mark.parametrize(
    "command, typo, meant",
    [
        ("run", "--limt", "--limit"),
        ("run", "--verifer", "--verifier"),
        ("run", "--colour", "--color"),
        ("run", "--max-dept", "--max-debt"),
        ("generate", "--sed", "--seed"),
        ("checklist", "--markdwn", "--markdown"),
    ],
)
def test_a_misspelt_flag_gets_did_you_mean(capsys, command, typo, meant):
    with pytest.raises(SystemExit) as exit_:
        main([command, typo, "3"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert re.search(rf"unrecognized arguments: {typo}( 3)?; did you mean {meant}\?", err), err
    assert f"try 'verifier-audit {command} --help'" in err


def test_several_misspelt_flags_each_get_theirs_and_an_unlike_one_none(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--limt=3", "--jsn", "x"])
    err = capsys.readouterr().err
    assert "--limt: did you mean --limit?" in err and "--jsn: did you mean --json?" in err
    with pytest.raises(SystemExit):
        main(["run", "--zzzzzz"])
    assert "did you mean" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, meant",
    [(["rn"], "'run'"), (["run", "--style", "verll"], "'verl'"), (["run", "--format", "gsm8"], "'gsm8k'")],
)
def test_a_misspelt_choice_gets_did_you_mean(capsys, argv, meant):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert f"invalid choice: '{argv[-1]}'" in (err := capsys.readouterr().err) and f"; did you mean {meant}?" in err


# ------------------------------------------------------------------------------------- colour


def test_use_color_follows_the_flag_then_no_color_then_force_color_then_the_tty(monkeypatch):
    master, slave = os.openpty()  # a real terminal
    try:
        with os.fdopen(slave, "w", closefd=False) as tty, open(os.devnull, "w") as pipe:
            for name in ("NO_COLOR", "FORCE_COLOR"):
                monkeypatch.delenv(name, raising=False)
            auto = Namespace(color="auto")
            assert options.use_color(auto, tty) and not options.use_color(auto, pipe)
            assert options.use_color(Namespace(color="always"), pipe) and not options.use_color(
                Namespace(color="never"), tty
            )
            monkeypatch.setenv("NO_COLOR", "1")
            assert not options.use_color(auto, tty) and options.use_color(Namespace(color="always"), tty)
            monkeypatch.setenv("FORCE_COLOR", "1")
            assert not options.use_color(auto, pipe)  # NO_COLOR wins over FORCE_COLOR
            monkeypatch.setenv("NO_COLOR", "")  # empty: not set (no-color.org)
            assert options.use_color(auto, pipe)
            monkeypatch.setenv("FORCE_COLOR", "0")
            assert not options.use_color(auto, pipe)
    finally:
        os.close(master)
        os.close(slave)


@pytest.fixture(scope="module")
def coloured(tmp_path_factory):
    folder = tmp_path_factory.mktemp("colour")
    r = _run(
        tmp_path_factory,
        "--color",
        "always",
        "--json",
        str(folder / "r.json"),
        "--markdown",
        str(folder / "r.md"),
        "--html",
        str(folder / "r.html"),
    )
    return r, folder


def test_color_always_paints_the_verdict_and_the_gate_red(coloured):
    r, _ = coloured
    last = r.stdout.rstrip("\n").splitlines()[-1]
    assert last.startswith(f"gate: {ESC}31;1mFAILED{ESC}0m")
    assert ESC not in r.stderr


def test_colour_never_reaches_a_file(coloured):
    _, folder = coloured
    for name in ("r.json", "r.md", "r.html"):
        text = (folder / name).read_text()
        assert "\x1b" not in text and "\\u001b[3" not in text, name


def test_force_color_colours_a_pipe_and_no_color_wins(tmp_path_factory):
    forced = _run(tmp_path_factory, "-q", env={"FORCE_COLOR": "1"})
    assert ESC in forced.stdout
    plain = _run(tmp_path_factory, "-q", env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert ESC not in plain.stdout and plain.stdout.startswith("gate: FAILED")
    default = _run(tmp_path_factory, "-q")  # a pipe, nothing set: no colour
    assert ESC not in default.stdout


# -------------------------------------------------------------------------------------- quiet


def test_quiet_prints_the_verdict_line_alone(tmp_path_factory):
    folder = tmp_path_factory.mktemp("quiet")
    r = _run(tmp_path_factory, "-q", "--json", str(folder / "r.json"))
    assert r.stdout.count("\n") == 1 and re.match(r"gate: FAILED \(coverage debt \d\.\d{3}\): ", r.stdout)
    assert "results:" not in r.stderr and "gate FAILED for" not in r.stderr
    assert (folder / "r.json").is_file()  # the files are written as usual


def test_quiet_still_says_what_is_wrong_with_the_input(tmp_path_factory):
    r = run_cli(
        "run",
        "--verifier",
        "no/such/file.py:f",
        "-q",
        *QUICK,
        env={"VERIFIER_AUDIT_CACHE": str(tmp_path_factory.getbasetemp() / "va-cache")},
    )
    assert r.returncode == 2 and "no/such/file.py" in r.stderr
