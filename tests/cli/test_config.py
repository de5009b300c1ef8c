"""[tool.verifier_audit] in pyproject.toml: validation, precedence, waivers, and a bare
`verifier-audit run` in a verifier repository."""

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from verifier_audit.cli import main
from verifier_audit.config import ProjectConfig, find_config, load_config
from verifier_audit.errors import InputError
from verifier_audit.metrics import gate
from verifier_audit.models import CategoryResult, GateConfig, Interval

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "verifier-repo"


def _project(tmp_path: Path, body: str, tasks: int = 6) -> Path:
    """A small verifier repository: the example's rewards, a few of its tasks, this config."""
    shutil.copy(EXAMPLE / "rewards.py", tmp_path / "rewards.py")
    lines = (EXAMPLE / "data" / "gsm_style.jsonl").read_text().splitlines()
    (tmp_path / "tasks.jsonl").write_text("\n".join(lines[:tasks]) + "\n")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.verifier_audit]\nsuite = "tasks.jsonl"\nworkers = 2\n' + body
    )
    return tmp_path / "pyproject.toml"


def _error(path: Path) -> str:
    with pytest.raises(InputError) as info:
        load_config(path)
    return str(info.value)


def test_unknown_key_names_file_line_and_allowed_keys(tmp_path):
    path = _project(tmp_path, "workrs = 3\n")
    message = _error(path)
    assert f"{path}:7:" in message and "workrs" in message
    assert "allowed keys here: suite, format" in message and "waivers" in message


def test_unknown_key_in_a_verifier_entry_lists_that_tables_keys(tmp_path):
    path = _project(
        tmp_path, '\n[[tool.verifier_audit.verifiers]]\nspec = "rewards.py:accuracy_reward"\nstlye = "pair"\n'
    )
    message = _error(path)
    assert "verifiers[0].stlye" in message and ":10:" in message
    assert "allowed keys here: spec, style, suite" in message


def test_bad_values_name_the_allowed_ones(tmp_path):
    path = _project(
        tmp_path, '\n[[tool.verifier_audit.verifiers]]\nspec = "rewards.py:accuracy_reward"\nstyle = "pari"\n'
    )
    message = _error(path)
    assert "'pari' is not allowed" in message and "'pair'" in message and "'verl'" in message
    path = _project(tmp_path, "\n[tool.verifier_audit.gate]\nmax_debt = 1.5\n")
    message = _error(path)
    assert "gate.max_debt = 1.5: must be in [0, 1]" in message
    path = _project(tmp_path, '\n[[tool.verifier_audit.waivers]]\ncategory = "math.hedge.or"\n')
    assert "waivers[0].reason is required" in _error(path)


def test_not_toml_and_missing_table(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.verifier_audit\nsuite = 1\n")
    assert "not valid TOML" in _error(path) and "line 1" in _error(path)
    path.write_text("[project]\nname = 'x'\n")
    assert "no [tool.verifier_audit] table" in _error(path)


def test_find_config_walks_up_to_the_nearest_table(tmp_path):
    _project(tmp_path, "")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text("[project]\nname = 'inner, no table'\n")
    assert find_config(deep) == tmp_path / "pyproject.toml"


def _category(name: str, rate: float, n: int = 10) -> CategoryResult:
    return CategoryResult(
        name=name,
        origin="known_bad",
        severity="high",
        label="incorrect",
        n=n,
        accepted=round(rate * n),
        rate=rate,
        ci=Interval(low=0, high=1),
    )


def test_a_waiver_silences_exactly_its_category_until_it_expires():
    cats = [_category("math.hedge.or", 1.0), _category("math.trap.last_number", 1.0)] + [
        _category(f"math.near_miss.k{i}", 0.0) for i in range(30)
    ]
    config = ProjectConfig.model_validate(
        {"waivers": [{"category": "math.hedge.or", "reason": "known, fixed in v2", "expires": dt.date(2026, 12, 31)}]}
    )
    before = config.gate_for("r.py:f", today=dt.date(2026, 12, 31))
    assert before.waived_categories == ["math.hedge.or"]
    reasons = gate(0.06, cats, 0.0, 0, before).reasons
    assert not any("math.hedge.or" in r for r in reasons)
    assert any("math.trap.last_number" in r for r in reasons)  # the other hole still fails
    after = config.gate_for("r.py:f", today=dt.date(2027, 1, 1))
    assert after.waived_categories == []
    assert any("math.hedge.or" in r for r in gate(0.06, cats, 0.0, 0, after).reasons)
    assert config.expired_waivers(dt.date(2027, 1, 1))[0].category == "math.hedge.or"


def test_waived_categories_leave_the_gated_debt():
    # Debt 1.0 in one of two categories: waived, the gate sees the other one only.
    cats = [_category("math.hedge.or", 1.0), _category("math.trap.last_number", 0.0)]
    assert not gate(0.5, cats, 0.0, 0, GateConfig()).passed
    assert gate(0.5, cats, 0.0, 0, GateConfig(waived_categories=["math.hedge.or"])).passed


def test_a_waiver_with_max_rate_and_one_for_another_verifier():
    cats = [_category("math.hedge.or", 0.3), _category("math.trap.last_number", 0.0)]
    config = ProjectConfig.model_validate(
        {
            "gate": {"max_category": 0.1},
            "waivers": [
                {"category": "math.hedge.or", "reason": "tolerated up to 40%", "max_rate": 0.4},
                {"category": "math.trap.last_number", "reason": "other verifier", "verifier": "other.py:g"},
            ],
        }
    )
    mine = config.gate_for("r.py:f")
    assert mine.category_limits == {"math.hedge.or": 0.4} and mine.waived_categories == []
    assert gate(0.0, cats, 0.0, 0, mine).passed
    stricter = ProjectConfig.model_validate(
        {"waivers": [{"category": "math.hedge.or", "reason": "tolerated up to 20%", "max_rate": 0.2}]}
    ).gate_for("r.py:f")
    assert "waiver max_rate 0.2" in gate(0.0, cats, 0.0, 0, stricter).reasons[0]
    assert config.gate_for("other.py:g").waived_categories == ["math.trap.last_number"]


def test_bare_run_gates_from_the_config_and_writes_every_report(tmp_path, monkeypatch, capsys):
    _project(
        tmp_path,
        'report_dir = "out"\n\n[[tool.verifier_audit.verifiers]]\nspec = "rewards.py:accuracy_reward"\n'
        '\n[[tool.verifier_audit.verifiers]]\nspec = "rewards.py:last_number_reward"\n',
    )
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert f"config: {tmp_path / 'pyproject.toml'}" in err
    payload = json.loads((tmp_path / "out" / "report.json").read_text())
    verdicts = {r["verifier"].rpartition(":")[2]: r["gate"]["passed"] for r in payload["reports"]}
    assert verdicts == {"accuracy_reward": True, "last_number_reward": False}
    for name in ("report.md", "junit.xml", "report.html", "report.sarif"):
        assert (tmp_path / "out" / name).stat().st_size > 200, name
    # The command line wins over the file: one verifier, and exit 0 since it is sound.
    assert main(["run", "--no-progress", "--verifier", "rewards.py:accuracy_reward"]) == 0
    # --no-config: the built-in demo, which never gates.
    assert main(["run", "--no-progress", "--no-config", "--limit", "2"]) == 0


def test_waivers_in_the_file_gate_exactly_their_categories(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    body = '\n[[tool.verifier_audit.verifiers]]\nspec = "rewards.py:last_number_reward"\n'
    _project(tmp_path, body)
    main(["run", "--no-progress", "--json", "before.json"])
    failing = {
        r.split(":")[0].removeprefix("category ")
        for r in json.loads(Path("before.json").read_text())["gate"]["reasons"]
        if r.startswith("category ")
    }
    assert "math.trap.last_number" in failing and len(failing) > 1
    waivers = "".join(
        f'\n[[tool.verifier_audit.waivers]]\ncategory = "{c}"\nreason = "accepted for the test"\nexpires = 2999-01-01\n'
        for c in sorted(failing - {"math.trap.last_number"})
    )
    _project(tmp_path, body + waivers)
    main(["run", "--no-progress", "--json", "after.json", "--max-debt", "1", "--max-false-rejection", "1"])
    after = json.loads(Path("after.json").read_text())
    assert len(after["gate"]["reasons"]) == 1 and not after["gate"]["passed"]
    assert after["gate"]["reasons"][0].startswith("category math.trap.last_number:")
    assert set(after["settings"]["waived_categories"]) == failing - {"math.trap.last_number"}
    # Expired: every category is gated again, and the run says so.
    _project(tmp_path, body + waivers.replace("2999-01-01", "2020-01-01"))
    capsys.readouterr()
    main(["run", "--no-progress", "--json", "expired.json", "--max-debt", "1", "--max-false-rejection", "1"])
    assert "expired on 2020-01-01" in capsys.readouterr().err
    expired = json.loads(Path("expired.json").read_text())
    assert len(expired["gate"]["reasons"]) == len(failing)


def test_invalid_config_is_exit_2_naming_the_key(tmp_path, monkeypatch, capsys):
    _project(tmp_path, "seed = 'zero'\n")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "pyproject.toml:7: tool.verifier_audit.seed = 'zero'" in err and "valid integer" in err
    assert main(["run", "--config", "nope.toml"]) == 2
    assert "--config nope.toml: no such file" in capsys.readouterr().err
