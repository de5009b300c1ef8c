"""The built-in program suite (issue 35) as ``scripts/make_program_suite.py`` makes it:
the file is the script's output, made the same twice; every task has the layout (80 or
more tasks, two visible and four hidden cases, an input generator, train / heldout /
shifted with the shifted families absent from train). The script validates every
reference when it writes the file; here it validates three tasks (a float, a grid and a
special-judge task: about a second of sandboxed runs) and refuses a broken reference."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections import Counter

import pytest
from cli_support import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.code.programs.cases import check_layout
from verifier_audit.models import Task

SUITE = ROOT / "suites" / "programs" / "tasks.jsonl"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("make_program_suite", ROOT / "scripts" / "make_program_suite.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


@pytest.fixture(scope="module")
def rows(script):
    return script.rows()


def test_the_suite_file_is_what_its_script_makes_every_time(script, rows):
    """The rows only (no sandbox): the same twice, and the file on disk."""
    assert script.jsonl(script.rows()) == script.jsonl(rows) == SUITE.read_text(encoding="utf-8")


def test_every_task_has_the_layout_and_the_splits_keep_shifted_families_out_of_train(script, rows):
    assert len(rows) >= 80 and len({r["id"] for r in rows}) == len(rows)
    splits = Counter(r["split"] for r in rows)
    assert set(splits) == {"train", "heldout", "shifted"}, splits
    families = {split: {r["metadata"]["family"] for r in rows if r["split"] == split} for split in splits}
    assert families["shifted"] == set(script.SHIFTED_FAMILIES)
    assert not families["shifted"] & (families["train"] | families["heldout"])
    assert families["heldout"] <= families["train"]
    for row in rows:
        task = Task.model_validate(row)
        assert check_layout(task) is None, row["id"]
        cases = row["metadata"]["cases"]
        assert len(cases["visible"]) == 2 and len(cases["hidden"]) == 4, row["id"]
        assert "def make(rng, wide)" in row["metadata"]["input_generator"], row["id"]
        if row["metadata"].get("checker") == "special":
            assert row["metadata"]["family"] == "special" and row["metadata"]["alternatives"], row["id"]
    # The output shapes the issue names are all there.
    assert sum("float_tolerance" in r["metadata"] for r in rows) >= 8
    assert sum(r["metadata"].get("checker") == "special" for r in rows) >= 4
    assert sum(any("Case #" in c["output"] for c in r["metadata"]["cases"]["hidden"]) for r in rows) >= 4
    assert sum(r["metadata"]["cases"]["hidden"][0]["output"].count("\n") > 1 for r in rows) >= 20


@settings(max_examples=25, deadline=None)
@given(index=st.integers(0, 10**6), seed=st.integers(0, 2**32), wide=st.booleans())
def test_each_generator_makes_inputs_its_second_solution_reads(script, index, seed, wide):
    """In the parent, no sandbox: a task's generator (small or wide) and its ``solve``."""
    spec = script.SPECS[index % len(script.SPECS)]
    scope: dict = {}
    exec(compile(spec.generator, spec.id, "exec"), scope)
    text = scope["make"](random.Random(seed), wide)
    assert text.endswith("\n") and spec.solve(text).endswith("\n"), spec.id


def test_the_script_validates_references_and_refuses_a_broken_one(script, rows):
    chosen = [r for r in rows if r["id"] in ("programs/triangle_area", "programs/count_islands", "programs/topo_order")]
    assert len(chosen) == 3
    script.validate(chosen, workers=1)
    broken = dict(chosen[1], reference=chosen[1]["reference"].replace("print(count)", "print(count + (r > 3))"))
    with pytest.raises(SystemExit, match=r"programs/count_islands: (hidden|generated) case \d"):
        script.validate([broken], workers=1)
