"""`verifier-audit diff` compares like with like (issue 31 item 2): what changed in what was
measured comes first; a category on one side only, or unmeasured on one side, is "not
compared", never better or worse; one verifier audited from two checkouts pairs by its
project-relative spec, and ``--match OLD=NEW`` pairs any two."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.models import SCHEMA_VERSION, CategoryResult, GateResult, Interval, Report
from verifier_audit.report.diff import (
    diff,
    measured,
    measurement_changes,
    pair_verifiers,
    project_spec,
    render,
)

ROOT = Path(__file__).resolve().parents[2]
VERIFIER = '''def f(completion, reference):
    """Pays any completion that contains the reference (a hole on purpose)."""
    return 1.0 if reference in completion else 0.0
'''


def _category(name: str, rate: float = 0.0, n: int = 4, errors: int = 0, label: str = "incorrect") -> CategoryResult:
    return CategoryResult(
        name=name,
        origin="near_miss",
        severity="medium",
        label=label,
        n=n,
        accepted=round(rate * n),
        rate=rate,
        ci=Interval(low=0.0, high=1.0),
        errors=errors,
        measured=n > 0 or not errors,
    )


def _report(
    categories: list[CategoryResult], verifier: str = "rewards:f", n_candidates: int = 5464, **settings
) -> Report:
    base = {
        "suite": "math",
        "suite_hash": "f815edaea8af9db3",
        "split": None,
        "limit": 90,
        "seed": 0,
        "n_candidates": n_candidates,
        "origins": None,
        "candidates_hash": f"set-{n_candidates}",
    }
    return Report(
        tool_version="0.1.0",
        verifier=verifier,
        style="pair",
        suite="math",
        seed=0,
        threshold=0.5,
        n_candidates=n_candidates,
        coverage_debt=0.3,
        coverage_debt_ci=Interval(low=0.2, high=0.4),
        false_acceptance_rate=0.3,
        false_acceptance_ci=Interval(low=0.2, high=0.4),
        false_rejection_rate=0.0,
        false_rejection_ci=Interval(low=0.0, high=0.1),
        error_rate=0.0,
        errors=0,
        categories=categories,
        gate=GateResult(passed=False),
        settings={**base, **settings},
    )


def _diff_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "verifier_audit", "diff", *args],
        check=False,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _write(path: Path, report: Report) -> Path:
    path.write_text(report.model_dump_json())
    return path


# --- the issue's case: a new report that measured half as much -------------------------------


def test_categories_the_new_report_never_measured_are_not_better(tmp_path):
    """Old: 90 categories on 5,464 candidates, bare_list paid every time. New: 47 of them on
    1,690 candidates, bare_list among those left out. Today's diff listed it as `better
    (60): math.equivalent.bare_list: 1.000 -> 0.000` and never said the candidates changed."""
    names = [f"math.c{i:02d}" for i in range(89)] + ["math.equivalent.bare_list"]
    old = _report([_category(n, rate=1.0) for n in names])
    kept = names[:47]
    unmeasured = kept[-5:]  # present in the new report, every call errored
    new_categories = [_category(n, rate=0.5) for n in kept[:-5]] + [_category(n, n=0, errors=3) for n in unmeasured]
    new = _report(new_categories, n_candidates=1690, limit=47)
    r = _diff_cli(str(_write(tmp_path / "old.json", old)), str(_write(tmp_path / "new.json", new)))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    better_at = out.index("better (42 of 42 compared):")
    # What changed in what was measured comes first, each with its old and new value.
    for line in (
        "limit          90 -> 47",
        "candidates     5464 -> 1690",
        "candidate set  set-5464 -> set-1690",
        "the candidate sets differ: the rates below are not like for like",
    ):
        assert 0 <= out.index(line) < better_at, line
    better = out[better_at : out.index("not compared (48):")]
    assert "bare_list" not in better and not any(f"{n}:" in better for n in unmeasured)
    not_compared = out[out.index("not compared (48):") :].splitlines()
    assert not_compared[1] == f"    {unmeasured[0]}: not measured in new (every call errored)"  # the errors first
    assert "and 28 more (--all lists them)" in out  # 48 not compared, 20 shown
    assert "on the 42 categories both measured  1.000 -> 0.500" in out
    assert "and 22 more" in out  # better: 42, 20 shown
    every = _diff_cli(str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--all").stdout
    assert "more (--all lists them)" not in every and "    math.equivalent.bare_list: only in old\n" in every


def test_a_category_that_stopped_being_measured_fails_the_regression_gate(tmp_path):
    """Every call of a category errored in the new audit: today it read as 1.000 -> 0.000,
    better, exit 0 under --fail-on-regression; now it is not compared and a regression."""
    old = _report([_category("math.a", rate=1.0), _category("math.b", rate=0.0)])
    new = _report([_category("math.a", n=0, errors=4), _category("math.b", rate=0.0)])
    r = _diff_cli(
        str(_write(tmp_path / "old.json", old)), str(_write(tmp_path / "new.json", new)), "--fail-on-regression"
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert "better (" not in r.stdout and "math.a: not measured in new (every call errored)" in r.stdout
    assert "categories no longer measured (every call errored): 1 (math.a)" in r.stderr
    worse = _report([_category("math.a", rate=1.0), _category("math.b", rate=0.5)])
    r = _diff_cli(str(tmp_path / "old.json"), str(_write(tmp_path / "worse.json", worse)), "--fail-on-regression")
    assert r.returncode == 1 and "worse (1 of 2 compared):" in r.stdout and "worse categories: 1 (math.b)" in r.stderr
    # Across candidate sets the debt is judged like with like, over the categories both
    # measured: an overall debt that rose only through a category on one side is no regression...
    other = _report([_category("math.a", rate=1.0), _category("math.new", rate=1.0)], n_candidates=99)
    other = other.model_copy(update={"coverage_debt": 0.6})
    r = _diff_cli(str(tmp_path / "old.json"), str(_write(tmp_path / "other.json", other)), "--fail-on-regression")
    assert r.returncode == 0 and "math.new: only in new" in r.stdout and "worse (" not in r.stdout
    # ... while a rise there fails, saying where it was measured.
    shared = _report(
        [_category("math.a", rate=1.0), _category("math.b", rate=1.0), _category("math.new", rate=1.0)], n_candidates=99
    )
    r = _diff_cli(str(tmp_path / "old.json"), str(_write(tmp_path / "shared.json", shared)), "--fail-on-regression")
    assert r.returncode == 1, r.stdout + r.stderr
    assert (
        "on the 2 categories both measured" in r.stderr and "the candidate sets differ (not like for like)" in r.stderr
    )


@pytest.mark.parametrize(
    "field, value, shown",
    [
        ("suite", "sql", "suite          math -> sql"),
        ("suite_hash", "0123456789abcdef", "suite hash     f815edaea8af9db3 -> 0123456789abcdef"),
        ("split", "heldout", "split          all -> heldout"),
        ("limit", None, "limit          90 -> none"),
        ("seed", 7, "seed           0 -> 7"),
        ("threshold", 0.7, "threshold      0.5 -> 0.7"),
        ("tool_version", "0.2.0", "tool version   0.1.0 -> 0.2.0"),
        ("schema_version", "2.0", f"schema         {SCHEMA_VERSION} -> 2.0"),
    ],
)
def test_each_thing_measured_differently_is_named_first(field, value, shown):
    old = _report([_category("math.a", rate=1.0)])
    if field in ("suite", "seed", "threshold", "tool_version", "schema_version"):
        new = old.model_copy(update={field: value, "categories": [_category("math.a", rate=0.0)]})
    else:
        new = old.model_copy(
            update={"settings": {**old.settings, field: value}, "categories": [_category("math.a", rate=0.0)]}
        )
    d = diff(old, new)
    text = render([d], pair_verifiers({old.verifier: old}, {new.verifier: new}), {old.verifier: old})
    lines = text.splitlines()
    assert lines[0] == "measured differently (old -> new):"
    assert lines.index(f"  {shown}") < lines.index("  better (1 of 1 compared):")


def test_the_same_measurement_says_so_in_one_line():
    old = _report([_category("math.a", rate=1.0)])
    d = diff(old, old)
    assert measurement_changes(old, old) == [] and d.like
    text = render([d], pair_verifiers({"rewards:f": old}, {"rewards:f": old}), {"rewards:f": old})
    assert text.splitlines()[0] == (
        "measured alike: suite math, split all, limit 90, seed 0, 5464 candidates, threshold 0.5"
    )
    assert "no category changed (1 compared)" in text


# --- which verifier is which ---------------------------------------------------------------


@pytest.fixture(scope="module")
def checkouts(tmp_path_factory):
    """One verifier file in two checkouts (each a project: a pyproject.toml), audited alike."""
    base = tmp_path_factory.mktemp("checkouts")
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "VERIFIER_AUDIT_CACHE": str(tmp_path_factory.getbasetemp() / "va-cache"),
    }
    reports = {}
    for side in ("a", "b"):
        repo = base / side / "repo"
        (repo / "rewards").mkdir(parents=True)
        (repo / "pyproject.toml").write_text("[project]\nname = 'rewards'\n")
        (repo / "rewards" / "score.py").write_text(VERIFIER)
        out = base / f"{side}.json"
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "verifier_audit",
                "run",
                "--verifier",
                f"{repo}/rewards/score.py:f",
                "--limit",
                "2",
                "--no-progress",
                "--no-config",
                "--probe-sample",
                "0",
                "--no-format-probe",
                "--json",
                str(out),
            ],
            check=False,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode in (0, 1), r.stderr[-2000:]
        reports[side] = out
    return reports


def test_two_checkouts_of_one_verifier_are_compared(checkouts):
    a, b = checkouts["a"], checkouts["b"]
    r = _diff_cli(str(a), str(b), "--fail-on-regression")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "share no verifier" not in r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("measured alike: suite math, split all, limit 2, seed 0, ")
    assert lines[1] == f"{a.parent}/a/repo/rewards/score.py:f -> {b.parent}/b/repo/rewards/score.py:f"
    assert "no category changed" in r.stdout and "not compared" not in r.stdout


def test_match_pairs_two_verifiers_that_share_no_spec(checkouts, tmp_path):
    old = Report.model_validate_json(checkouts["a"].read_text())
    elsewhere = tmp_path / "loose" / "grader.py"  # in no project: its spec stays absolute
    renamed = old.model_copy(update={"verifier": f"{elsewhere}:g"})
    new = _write(tmp_path / "renamed.json", renamed)
    r = _diff_cli(str(checkouts["a"]), str(new))
    assert r.returncode == 2
    assert "share no verifier" in r.stderr and f"--match {old.verifier}={elsewhere}:g" in r.stderr
    r = _diff_cli(str(checkouts["a"]), str(new), "--match", f"{old.verifier}={elsewhere}:g")
    assert r.returncode == 0, r.stderr
    assert f"{old.verifier} -> {elsewhere}:g" in r.stdout and "no category changed" in r.stdout
    r = _diff_cli(str(checkouts["a"]), str(new), "--match", f"nothing.here:f={elsewhere}:g")
    assert r.returncode == 2 and "--match: 'nothing.here:f' names no verifier of the old report" in r.stderr
    r = _diff_cli(str(checkouts["a"]), str(new), "--match", "rewards/score.py:f")
    assert r.returncode == 2 and "expected OLD=NEW" in r.stderr


def test_an_unpaired_verifier_is_named_with_the_fix(checkouts, tmp_path):
    old = Report.model_validate_json(checkouts["a"].read_text())
    extra = old.model_copy(update={"verifier": "verifier_audit.domains.math.verifiers:strong"})
    both = tmp_path / "both.json"
    both.write_text(
        json.dumps(
            {
                "schema_version": old.schema_version,
                "tool_version": old.tool_version,
                "reports": [json.loads(old.model_dump_json()), json.loads(extra.model_dump_json())],
            }
        )
    )
    r = _diff_cli(str(both), str(checkouts["b"]))
    assert r.returncode == 0, r.stderr
    assert (
        "not compared (1 verifier):\n  verifier_audit.domains.math.verifiers:strong: only in old\n"
        "  pair an old and a new verifier with --match OLD=NEW" in r.stdout
    )


def test_project_spec(tmp_path):
    repo = tmp_path / "checkout"
    (repo / "pkg").mkdir(parents=True)
    (repo / ".git").mkdir()
    assert project_spec(f"{repo}/pkg/rewards.py:f[content]") == "pkg/rewards.py:f[content]"
    assert project_spec("my_rewards.math:score") == "my_rewards.math:score"  # a module: its dotted name
    assert project_spec("http:127.0.0.1:8000/reward") == "http:127.0.0.1:8000/reward"
    assert project_spec("reasoning-gym") == "reasoning-gym"


# --- the property --------------------------------------------------------------------------

NAMES = [f"math.k{i}" for i in range(8)]
_side = st.dictionaries(
    st.sampled_from(NAMES), st.tuples(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.integers(0, 3), st.integers(0, 2))
)


@given(_side, _side)
def test_absent_or_unmeasured_categories_are_never_better_or_worse(old_cats, new_cats):
    old = _report([_category(name, rate if n else 0.0, n, errors) for name, (rate, n, errors) in old_cats.items()])
    new = _report([_category(name, rate if n else 0.0, n, errors) for name, (rate, n, errors) in new_cats.items()])
    d = diff(old, new)
    before, after = {c.name: c for c in old.categories}, {c.name: c for c in new.categories}
    both = {n for n in set(before) & set(after) if measured(before[n]) and measured(after[n])}
    moved = {name for name, _, _ in d.worse + d.better}
    assert moved <= both
    assert {name for name, _ in d.not_compared} == (set(before) | set(after)) - both
    assert d.compared == len(both)
