"""``verifier-audit monitor``: exit codes, the text, the JSON, the HTML page as Chromium
renders it (plots and alarm markers), the PNG files, thresholds from pyproject.toml, and
the verdict's words for each alarm.

The command runs in a subprocess, as a user runs it: ``verifier-audit monitor``
(``verifier_audit/cli/monitor.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from browser import decode_png, dump_dom, needs_browser, screenshot  # noqa: E402
from test_monitor_readers import (  # noqa: E402
    COLLAPSE_AT,
    curves,
    write_trl,
    write_verl_jsonl,
)

from verifier_audit.monitor import report as Rp  # noqa: E402
from verifier_audit.monitor.alarms import Thresholds  # noqa: E402
from verifier_audit.monitor.run import Run, Series  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


ENTRY = ["-m", "verifier_audit", "monitor"]


def monitor(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *ENTRY, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    d = tmp_path_factory.mktemp("logs")
    (d / "base").mkdir()
    (d / "lastnum").mkdir()
    healthy = write_trl(d / "base" / "trainer_state.json", curves())
    bad = write_trl(d / "lastnum" / "trainer_state.json", curves(collapse_at=COLLAPSE_AT, seed=1))
    verl = write_verl_jsonl(d / "verl-lastnum.jsonl", curves(collapse_at=COLLAPSE_AT, seed=2))
    return {"healthy": healthy, "bad": bad, "verl": verl, "dir": d}


def test_healthy_run_exits_0(logs, tmp_path):
    r = monitor(logs["healthy"], "--no-config", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "run base: healthy" in r.stdout and "alarms: none" in r.stdout
    assert "entropy–reward fit: R = -" in r.stdout and "ceiling -a + b" in r.stdout
    assert "0 alarms in 1 run (exit 0)" in r.stdout


def test_collapse_exits_1_with_json(logs, tmp_path):
    out = tmp_path / "out" / "report.json"
    r = monitor(logs["bad"], "--json", out, "--no-config", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "entropy_collapse" in r.stdout and "narrowing into a few trajectories" in r.stdout
    rep = json.loads(out.read_text())
    assert rep["format"] == "verifier-audit-monitor" and rep["exit_code"] == 1 and rep["alarms"] >= 1
    (run,) = rep["runs"]
    assert run["name"] == "lastnum" and run["format"] == "trl" and not run["healthy"]
    ent = [a for a in run["alarms"] if a["kind"] == "entropy_collapse"]
    assert ent and COLLAPSE_AT <= ent[0]["step"] <= COLLAPSE_AT + 30
    assert ent[0]["evidence"]["initial"] > 1.0 and ent[0]["message"]
    assert {a["kind"] for a in run["alarms"]} <= {"entropy_collapse", "reward_variance_collapse"}
    f = run["fit"]
    assert f["ceiling"] == pytest.approx(f["b"] - f["a"]) and f["n"] == 200
    assert f["gap"] == pytest.approx(f["ceiling"] - f["last_reward"])
    assert {m["name"]: m["logged_as"] for m in run["metrics"]}["length"] == "completions/mean_length"
    assert run["missing"] == [] and run["verdict"].startswith("run lastnum: entropy fell")
    assert rep["thresholds"] == Thresholds().model_dump()


def test_runs_side_by_side_with_names(logs, tmp_path):
    out = tmp_path / "r.json"
    r = monitor(
        logs["healthy"],
        logs["verl"],
        "--name",
        "qwen-base",
        "--name",
        "qwen-lastnum",
        "--json",
        out,
        "--no-config",
        cwd=tmp_path,
    )
    assert r.returncode == 1, r.stderr
    rep = json.loads(out.read_text())
    assert [x["name"] for x in rep["runs"]] == ["qwen-base", "qwen-lastnum"]
    assert rep["runs"][0]["healthy"] and not rep["runs"][1]["healthy"]
    assert rep["runs"][1]["format"] == "verl-jsonl"
    assert "side by side:" in r.stdout and "qwen-lastnum" in r.stdout
    # verl logs no group std: that alarm is reported as not checked, with the reason
    assert "reward_variance_collapse" in rep["runs"][1]["not_checked"]
    assert "reward_std" in rep["runs"][1]["missing"]


@pytest.mark.parametrize(
    "content,expect",
    [
        (
            '{"step": 1, "reward": 0.5}\n{"step": 2, "reward": 0.6,,}\n{"step": 3, "reward": 0.7}\n',
            r"bad.jsonl:2: not valid JSON",
        ),
        ('{"step": 1, "score_mean": 0.5}\n', "found: score_mean"),
    ],
)
def test_input_errors_exit_2(tmp_path, content, expect):
    p = tmp_path / "bad.jsonl"
    p.write_text(content)
    r = monitor(p, "--no-config", cwd=tmp_path)
    assert r.returncode == 2
    assert expect in r.stderr and "Traceback" not in r.stderr
    if "found" in expect:
        assert "known: reward, critic/score/mean" in r.stderr


def test_usage_errors_exit_2(logs, tmp_path):
    r = monitor(tmp_path / "nope.json", "--no-config", cwd=tmp_path)
    assert r.returncode == 2 and "no such file" in r.stderr
    r = monitor(logs["healthy"], "--metric", "entropy", "--no-config", cwd=tmp_path)
    assert r.returncode == 2 and "expected CANONICAL=NAME" in r.stderr
    r = monitor(logs["healthy"], logs["bad"], "--name", "one", "--no-config", cwd=tmp_path)
    assert r.returncode == 2 and "--name is given 1 time(s) but 2 run(s)" in r.stderr
    r = monitor(logs["healthy"], "--config", tmp_path / "missing.toml", cwd=tmp_path)
    assert r.returncode == 2 and "no such file" in r.stderr


def test_thresholds_from_pyproject(logs, tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.verifier_audit]\nsuite = "math"\n\n[tool.verifier_audit.monitor]\n'
        "entropy_loss = 0.97\nvariance_within = 0.2\n"
    )
    out = tmp_path / "r.json"
    r = monitor(logs["bad"], "--json", out, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr  # entropy never lost 97%; the spread collapsed after 20%
    rep = json.loads(out.read_text())
    assert rep["thresholds"]["entropy_loss"] == 0.97 and rep["config"].endswith("pyproject.toml")
    assert "config:" in r.stderr
    r = monitor(logs["bad"], "--no-config", cwd=tmp_path)
    assert r.returncode == 1


def test_unknown_config_key_exits_2_naming_it(logs, tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.verifier_audit]\n\n[tool.verifier_audit.monitor]\nentropy_loss = 0.5\nkl_levle = 0.2\n"
    )
    r = monitor(logs["bad"], cwd=tmp_path)
    assert r.returncode == 2
    assert "pyproject.toml:5: unknown key tool.verifier_audit.monitor.kl_levle (did you mean kl_level?)" in r.stderr
    assert "allowed keys here: smooth_window" in r.stderr and "kl_level" in r.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.verifier_audit.monitor]\nentropy_loss = 1.5\n")
    r = monitor(logs["bad"], cwd=tmp_path)
    assert r.returncode == 2 and "monitor.entropy_loss = 1.5" in r.stderr and "less than 1" in r.stderr


def test_config_monitor_section_checked_for_every_command(tmp_path):
    """load_config checks the section (so a typo fails `verifier-audit run` too, as the rest of the config)."""
    from verifier_audit.config import load_config
    from verifier_audit.errors import InputError

    p = tmp_path / "pyproject.toml"
    p.write_text("[tool.verifier_audit]\nworkers = 2\n\n[tool.verifier_audit.monitor]\nkl_level = 0.3\n")
    assert load_config(p).monitor == {"kl_level": 0.3}
    p.write_text("[tool.verifier_audit]\nmonitor = 3\n")
    with pytest.raises(InputError, match="monitor"):
        load_config(p)
    p.write_text("[tool.verifier_audit.monitor]\nwhatever = 1\n")
    with pytest.raises(InputError, match="unknown key tool.verifier_audit.monitor.whatever"):
        load_config(p)


@needs_browser
def test_html_in_chromium(logs, tmp_path):
    page = tmp_path / "report.html"
    r = monitor(logs["healthy"], logs["bad"], "--html", page, "--no-config", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html and "Content-Security-Policy" in html
    dom = dump_dom(page)
    import re

    sections = dict(re.findall(r'<section class="vm-run" id="[^"]+" data-run="([^"]+)" data-alarms="(\d+)"', dom))
    assert sections["base"] == "0" and int(sections["lastnum"]) >= 1
    for run in ("base", "lastnum"):
        for plot in ("entropy", "reward", "spread", "kl", "length", "reward_fns", "fit"):
            assert re.search(rf'<svg class="vm-plot"[^>]*data-plot="{plot}"[^>]*data-run="{run}"', dom), (run, plot)
    # the collapse is marked where it fired, on the run's plots and in the side-by-side ones
    marks = re.findall(
        r'<line class="vm-alarm" data-kind="entropy_collapse" data-step="([\d.]+)" data-run="lastnum"', dom
    )
    assert len(marks) >= 7 and all(COLLAPSE_AT <= float(s) <= COLLAPSE_AT + 30 for s in marks)
    assert 'data-run="base" x1' not in dom.split('<section class="vm-run"')[1]  # no marker on the healthy run
    assert re.search(r'<path class="vm-line" data-series="entropy" data-points="200"', dom)
    # rendered: the alarm lines are drawn in their red
    png = screenshot(page, tmp_path / "shot.png", size=(1200, 2600))
    w, h, bpp, rows = decode_png(png.read_bytes())
    red = sum(
        1
        for row in rows
        for i in range(0, len(row), bpp)
        if abs(row[i] - 0xB0) < 30 and abs(row[i + 1] - 0x2A) < 30 and abs(row[i + 2] - 0x1A) < 30
    )
    assert red > 200


def test_png_dir_writes_one_png_per_run_and_the_comparison(logs, tmp_path):
    pytest.importorskip("matplotlib", reason="the PNGs need matplotlib: pip install 'verifier-audit[plots]'")
    pngs = tmp_path / "png"
    r = monitor(logs["healthy"], logs["bad"], "--png-dir", pngs, "--no-config", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    files = sorted(p.name for p in pngs.iterdir())
    assert files == ["base.png", "comparison.png", "lastnum.png"]
    for name in files:
        width, height, _, _ = decode_png((pngs / name).read_bytes())
        assert width >= 500 and height >= 250


# --- in process: the verdict's words, escaping, a missing matplotlib ---------------------------


def _run(name="r", n=300, **over):
    t = np.arange(n, dtype=float)
    u = t / n
    base = {
        "entropy": 1.2 - 0.3 * u,
        "reward": 0.2 + 0.3 * u,
        "reward_std": 0.4 - 0.05 * u,
        "kl": 0.05 * u,
        "length": 300 + 100 * u,
        "val_accuracy": 0.3 + 0.2 * u,
    }
    base.update({k: f(t, u) for k, f in over.items()})
    rng = np.random.default_rng(0)
    metrics = {
        k.replace("__", "/"): Series(t, v + rng.normal(0, 0.002 * (abs(v).mean() + 1e-9), n)) for k, v in base.items()
    }
    return Run(name=name, source="synthetic", metrics=metrics)


@pytest.mark.parametrize(
    "over,words",
    [
        (dict(kl=lambda t, u: 0.5 * u**2 * 4), "drifting away from the reference model"),
        (dict(length=lambda t, u: 300 * (1 + 4 * u)), "completions are getting longer"),
        (dict(length=lambda t, u: 300 * (1 - 0.8 * u)), "skipping its reasoning"),
        (
            dict(reward=lambda t, u: 0.2 + 0.6 * u, val_accuracy=lambda t, u: 0.4 - 0.1 * u),
            "do not carry over to held-out",
        ),
        (
            dict(reward_fn__format=lambda t, u: 0.1 + 0.8 * u, reward_fn__accuracy=lambda t, u: 0.3 - 0.05 * u),
            "format is probably being gamed",
        ),
    ],
)
def test_verdict_words_per_alarm(over, words):
    report, fired = Rp.build_report([_run(**over)])
    assert report.exit_code == 1, [r.verdict for r in report.runs]
    assert words in report.runs[0].verdict, report.runs[0].verdict


def test_verdict_healthy_and_unchecked():
    report, _ = Rp.build_report([_run()])
    assert report.exit_code == 0 and report.runs[0].verdict.startswith("run r: healthy (entropy fell")
    only_reward = Run(name="bare", source="x", metrics={"reward": Series(np.arange(50.0), np.linspace(0, 1, 50))})
    report, _ = Rp.build_report([only_reward])
    v = report.runs[0].verdict
    assert report.exit_code == 0 and "no alarm, but none could run" in v and "no entropy metric" in v


def test_html_escapes_hostile_names():
    bad = _run(name='<script>alert(1)</script>"&', entropy=lambda t, u: np.where(t < 100, 1.2, 0.1))
    report, fired = Rp.build_report([bad])
    page = Rp.render_html(report, [bad], fired)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;" in page
    assert 'class="vm-alarm" data-kind="entropy_collapse"' in page


def test_png_without_matplotlib_is_a_clear_error(logs, tmp_path, monkeypatch, capsys):
    from verifier_audit.cli import monitor as cli
    from verifier_audit.report import png

    monkeypatch.setattr(png, "matplotlib_available", lambda: False)
    assert cli.main([str(logs["healthy"]), "--png-dir", str(tmp_path / "p"), "--no-config"]) == 2
    assert "--png-dir needs matplotlib, not installed here: pip install" in capsys.readouterr().err


def test_long_runs_are_drawn_reduced(tmp_path):
    n = 200_000
    t = np.arange(n, dtype=float)
    run = Run(
        name="long",
        source="x",
        metrics={"entropy": Series(t, 1.2 - 0.3 * t / n), "reward": Series(t, 0.2 + 0.3 * t / n)},
    )
    report, fired = Rp.build_report([run])
    page = Rp.render_html(report, [run], fired)
    assert len(page) < 400_000 and 'data-points="200000"' in page


def test_docs_list_every_threshold_with_its_default():
    import re

    text = (ROOT / "docs" / "monitor.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", text, re.MULTILINE))
    for name, field in Thresholds.model_fields.items():
        assert name in rows, f"docs/monitor.md does not list {name}"
        assert float(rows[name]) == float(field.default), name
