"""The toy JSON domain end to end, in fresh processes (no registry cache, no import of
this test run): installed by entry point it is audited by the real command on its own
suite scheme (``--suite toy_json:4``), with the format probe and the search; not
installed, the command does not know it."""

from __future__ import annotations

import json
import os

import pytest
from cli_support import ROOT, run_cli
from toy_json_support import install


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One audit of the loose reference verifier on four tasks, with a small search."""
    tmp = tmp_path_factory.mktemp("toy_json_e2e")
    path = os.pathsep.join(str(p) for p in [*install(tmp / "site"), ROOT])
    args = ["run", "--suite", "toy_json:4", "--verifier", "toy_json_domain.verifiers:loads_equal"]
    out = tmp / "report.json"
    env = {"PYTHONPATH": path, "VERIFIER_AUDIT_CACHE": str(tmp / "cache")}
    done = run_cli(*args, "--search", "16", "--workers", "2", "--no-progress", "--json", str(out), env=env, timeout=300)
    assert done.returncode == 1, done.stderr[-3000:]  # the gate fails: the verifier has debt
    return json.loads(out.read_text())  # one verifier: the report itself


@pytest.mark.slow
def test_the_toy_domain_is_audited_through_every_part(report):
    # generation through the kit and labelling by the toy's oracle: three origins, none dropped
    assert {c["origin"] for c in report["categories"]} >= {"near_miss", "equivalent", "known_bad"}
    assert report["dropped"] == {} and report["coverage_debt"] > 0
    # the hostile catalog catches the loose parse: a key given twice, the last one right
    by_name = {c["name"]: c for c in report["categories"]}
    assert by_name["toy_json.parser.duplicate_keys"]["accepted"] > 0
    # slices from the domain, the formats probed, the search ran on the domain's operators
    assert {s["slice"] for s in report["slices"]} >= {"shape:flat", "shape:list", "shape:nested"}
    assert report["formats"]["read"] == ["bare"] and report["formats"]["probes"]
    assert report["search"]["calls"] > 0 and report["search"]["stopped_early"] is None


def test_without_its_entry_point_the_command_does_not_know_the_toy(tmp_path):
    done = run_cli(
        "run", "--suite", "toy_json:2", "--no-progress", env={"VERIFIER_AUDIT_CACHE": str(tmp_path)}, timeout=120
    )
    assert done.returncode == 2 and "toy_json" in done.stderr
