"""``score``: real samples labelled by the oracle and scored by the verifier through the
engine. Fixture samples files are written here on math suite tasks; every count below is
worked out by hand from how the texts are built.

Per task with reference r (math-0001..0004 train, math-0013..0014 heldout):
  base model "base-7b":   "The answer is \\boxed{r}."  correct    substring accepts, strong accepts
                          "\\boxed{r+1}"                incorrect  both reject
                          "\\boxed{\\frac{2r}{2}}"      correct    (math-0001 and math-0013 only)
                                                                   substring rejects (no "r" in it), strong accepts
  RL model "qwen2.5-rl":  "\\boxed{r}"                  correct    both accept
                          "Not r; the answer is \\boxed{r+1}."  incorrect  substring accepts, strong rejects
                          "\\boxed{r} or \\boxed{r+1}"  incorrect (a hedge; math-0001..0004 only)
                                                                   substring accepts, strong rejects
substring: base FA 0/6, FR 2/8; RL FA 10/10, FR 0/6.   strong: all 0.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pytest

from verifier_audit.cli import score as score_cli
from verifier_audit.engine.audit import AuditOptions
from verifier_audit.errors import InputError
from verifier_audit.loading import resolve
from verifier_audit.metrics import wilson
from verifier_audit.report.diff import load_reports
from verifier_audit.samples.records import Manifest, Sample, SamplingParams, manifest_line
from verifier_audit.samples.score import BLIND_SPOT, score_samples
from verifier_audit.samples.score.comparison import compare, two_proportion
from verifier_audit.samples.score.section import rate_of
from verifier_audit.suites import load_suite

ROOT = Path(__file__).resolve().parents[2]
SUBSTRING = f"{ROOT}/examples/math_verifiers.py:substring"
STRONG = "verifier_audit.domains.math.verifiers:strong"
GSM8K_STRICT = f"{ROOT}/tests/fixtures/format_graders.py:gsm8k_strict"
TRAIN = ["math-0001", "math-0002", "math-0003", "math-0004"]
HELDOUT = ["math-0013", "math-0014"]


@pytest.fixture(scope="module")
def refs() -> dict[str, int]:
    tasks = {t.id: t for t in load_suite("math").tasks}
    assert all(tasks[t].split == "train" for t in TRAIN) and all(tasks[t].split == "heldout" for t in HELDOUT)
    return {t: int(tasks[t].reference) for t in TRAIN + HELDOUT}


def base_texts(refs) -> list[tuple[str, str]]:
    rows = []
    for t, r in refs.items():
        rows += [(t, f"The answer is \\boxed{{{r}}}."), (t, f"\\boxed{{{r + 1}}}")]
        if t in ("math-0001", "math-0013"):
            frac = f"\\boxed{{\\frac{{{2 * r}}}{{2}}}}"
            assert str(r) not in frac
            rows.append((t, frac))
    return rows


def rl_texts(refs) -> list[tuple[str, str]]:
    rows = []
    for t, r in refs.items():
        rows += [(t, f"\\boxed{{{r}}}"), (t, f"Not {r}; the answer is \\boxed{{{r + 1}}}.")]
        if t in TRAIN:
            rows.append((t, f"\\boxed{{{r}}} or \\boxed{{{r + 1}}}"))
    return rows


def write_samples_file(path: Path, model: str, rows, *, role=None, suite="math", split_of=None) -> Path:
    """An imported-style samples file (no token ids): manifest, then the rows in order."""
    manifest = Manifest(
        model=str(path),
        model_name=model,
        suite=suite,
        task_count=len({t for t, _ in rows}),
        tool_version="test",
        source="import:jsonl",
        role=role,
    )
    counter: dict[str, int] = {}
    lines = [manifest_line(manifest)]
    for task_id, text in rows:
        index = counter.get(task_id, 0)
        counter[task_id] = index + 1
        split = (split_of or {}).get(task_id) or ("heldout" if task_id in HELDOUT else "train")
        s = Sample(task_id=task_id, sample_index=index, split=split, model=model, prompt="p", text=text)
        lines.append(json.dumps(s.model_dump(mode="json", exclude_none=True)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def options(tmp_path: Path, name: str = "results.jsonl") -> AuditOptions:
    return AuditOptions(workers=2, probe_sample=0, progress=False, results=tmp_path / name)


@pytest.fixture(scope="module")
def files(refs, tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("samples")
    return {
        "base": write_samples_file(d / "base.jsonl", "base-7b", base_texts(refs)),
        "rl": write_samples_file(d / "rl.jsonl", "qwen2.5-rl", rl_texts(refs)),
    }


@pytest.fixture(scope="module")
def scored(files, tmp_path_factory):
    """Both verifiers on base (--base) and RL samples: one labelling, two audits."""
    return score_samples(
        [files["rl"]],
        [resolve(SUBSTRING), resolve(STRONG)],
        options(tmp_path_factory.mktemp("results")),
        base=[files["base"]],
    )


def cat(report, name):
    return next(c for c in report.categories if c.name == name)


def test_weak_verifier_false_acceptance_and_rejection_counts(scored):
    weak, strong = scored.reports
    assert weak.n_candidates == strong.n_candidates == 30  # 14 base + 16 RL, all decided
    assert (round(weak.false_acceptance_rate * 16), round(weak.false_rejection_rate * 14)) == (10, 2)
    assert weak.false_acceptance_ci == wilson(10, 16) and weak.false_rejection_ci == wilson(2, 14)
    assert weak.coverage_debt == 0.5  # mean FA of the four incorrect categories: 0, 0, 1, 1
    assert (strong.false_acceptance_rate, strong.false_rejection_rate, strong.coverage_debt) == (0.0, 0.0, 0.0)
    assert not weak.gate.passed and strong.gate.passed
    assert any("math.sampled.qwen2_5-rl.train.incorrect: false acceptance 1.00 (8/8)" in r for r in weak.gate.reasons)


def test_categories_per_model_split_and_truth(scored):
    weak = scored.reports[0]
    expected = {  # name: (n, misjudged)
        "math.sampled.base-7b.train.correct": (5, 1),
        "math.sampled.base-7b.train.incorrect": (4, 0),
        "math.sampled.base-7b.heldout.correct": (3, 1),
        "math.sampled.base-7b.heldout.incorrect": (2, 0),
        "math.sampled.qwen2_5-rl.train.correct": (4, 0),
        "math.sampled.qwen2_5-rl.train.incorrect": (8, 8),
        "math.sampled.qwen2_5-rl.heldout.correct": (2, 0),
        "math.sampled.qwen2_5-rl.heldout.incorrect": (2, 2),
    }
    assert {c.name for c in weak.categories} == set(expected)
    for name, (n, k) in expected.items():
        c = cat(weak, name)
        assert (c.n, round(c.rate * c.n), c.origin) == (n, k, "sampled")
        assert c.ci == wilson(k, n)
        assert c.label == name.rpartition(".")[2]


def test_rates_per_model_and_per_split(scored):
    weak_section = scored.sections[0]
    by_model = {g.name: g for g in weak_section.by_model}
    base, rl = by_model["base-7b"], by_model["qwen2.5-rl"]
    assert (base.role, rl.role) == ("base", "rl")
    assert (base.samples, base.correct, base.incorrect, base.undecidable) == (14, 8, 6, 0)
    assert (base.false_acceptance.k, base.false_acceptance.n, base.false_rejection.k, base.false_rejection.n) == (
        0,
        6,
        2,
        8,
    )
    assert (rl.false_acceptance.k, rl.false_acceptance.n, rl.false_rejection.k, rl.false_rejection.n) == (10, 10, 0, 6)
    assert rl.false_acceptance.ci.low == pytest.approx(10 / (10 + 1.959963984540054**2))  # Wilson at k = n: n/(n+z^2)
    assert rl.false_acceptance.ci.high == 1.0 and base.false_acceptance.ci.low == 0.0
    by_split = {g.name: g for g in weak_section.by_split}
    assert [g.name for g in weak_section.by_split] == ["train", "heldout"]
    train, held = by_split["train"], by_split["heldout"]
    assert (train.false_acceptance.k, train.false_acceptance.n, train.false_rejection.k, train.false_rejection.n) == (
        8,
        12,
        1,
        9,
    )
    assert (held.false_acceptance.k, held.false_acceptance.n, held.false_rejection.k, held.false_rejection.n) == (
        2,
        4,
        1,
        5,
    )
    assert held.false_acceptance.ci == wilson(2, 4)


def test_disagreeing_samples_listed(scored, refs, files):
    s = scored.sections[0]
    assert (s.accepted_but_wrong, s.rejected_but_right) == (10, 2)
    wrong = [d for d in s.disagreements if d.kind == "accepted_but_wrong"]
    right = [d for d in s.disagreements if d.kind == "rejected_but_right"]
    assert {(d.model, d.task_id) for d in wrong} == {("qwen2.5-rl", t) for t in refs}
    assert sorted((d.task_id, d.sample_index) for d in wrong if d.task_id == "math-0001") == [
        ("math-0001", 1),
        ("math-0001", 2),
    ]
    assert [(d.model, d.task_id, d.sample_index, d.split) for d in right] == [
        ("base-7b", "math-0001", 2, "train"),
        ("base-7b", "math-0013", 2, "heldout"),
    ]
    first = next(d for d in wrong if d.task_id == "math-0001" and d.sample_index == 1)
    assert first.text == "Not 2107; the answer is \\boxed{2108}." and first.reference == "2107" and first.score == 1.0
    assert first.source == f"{files['rl']}:3"  # manifest, then sample 0 of math-0001, then this one
    assert scored.sections[1].disagreements == []


def test_blind_spot_when_rl_false_acceptance_is_much_higher(scored):
    weak, strong = scored.sections
    assert len(weak.blind_spot) == 1
    c = weak.comparisons[0]
    assert (c.higher, c.lower, c.higher_role, c.lower_role) == ("qwen2.5-rl", "base-7b", "rl", "base")
    # pooled p = 10/16, se = sqrt(p(1-p)(1/10 + 1/6)) = 0.25, z = (1 - 0)/0.25
    assert c.z == pytest.approx(4.0) and c.p_value == pytest.approx(math.erfc(4 / math.sqrt(2)))
    assert c.intervals_disjoint and c.significant
    assert BLIND_SPOT in c.message and "100.0% (10/10)" in c.message and "0.0% (0/6)" in c.message
    assert strong.comparisons == [] and strong.blind_spot == []  # 0/10 vs 0/6: nothing to say


def test_no_blind_spot_when_false_acceptance_is_equal(refs, tmp_path):
    a = write_samples_file(tmp_path / "a.jsonl", "base", rl_texts(refs), role="base")
    b = write_samples_file(tmp_path / "b.jsonl", "policy", rl_texts(refs), role="rl")  # roles from the manifests
    result = score_samples([a, b], [resolve(SUBSTRING)], options(tmp_path))
    s = result.sections[0]
    assert {g.name: (g.role, g.false_acceptance.k, g.false_acceptance.n) for g in s.by_model} == {
        "base": ("base", 10, 10),
        "policy": ("rl", 10, 10),
    }
    assert s.comparisons == [] and s.blind_spot == []


def test_samples_section_of_rewritten_samples_has_their_verdicts(refs, tmp_path):
    # A grader that reads only '#### n' sees \\boxed{} samples rewritten by the format probe,
    # as candidates '<id>@gsm8k': the section must count those verdicts, not call every
    # sample a verifier error.
    rows = [(t, text) for t, r in refs.items() for text in (f"\\boxed{{{r}}}", f"\\boxed{{{r + 1}}}")]
    path = write_samples_file(tmp_path / "boxed.jsonl", "boxed-model", rows)
    result = score_samples([path], [resolve(GSM8K_STRICT)], options(tmp_path))
    report, section = result.reports[0], result.sections[0]
    assert report.formats.audited_in == "gsm8k" and report.formats.rewritten == len(rows)
    (group,) = section.by_model
    assert (group.samples, group.correct, group.incorrect, group.errors) == (12, 6, 6, 0)
    assert (group.false_acceptance.k, group.false_acceptance.n) == (0, 6)
    assert (group.false_rejection.k, group.false_rejection.n) == (0, 6)
    assert sum(g.errors for g in section.by_split) == 0
    assert (section.accepted_but_wrong, section.rejected_but_right) == (0, 0)
    assert section.labelled == section.samples == len(rows)


def test_two_proportion_test_and_comparison_by_hand():
    z, p = two_proportion(2, 10, 1, 10)  # pooled 0.15: se = sqrt(0.15 * 0.85 * 0.2)
    assert z == pytest.approx(0.1 / math.sqrt(0.0255)) and p == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert two_proportion(0, 5, 0, 7) == (0.0, 1.0)
    weak = compare("rl", rate_of(2, 10), "rl", "base", rate_of(1, 10), "base")
    assert weak is not None and not weak.significant and BLIND_SPOT not in weak.message
    assert "not significantly" in weak.message
    assert compare("base", rate_of(1, 10), "base", "rl", rate_of(2, 10), "rl") is None  # not the higher one
    unroled = compare("m1", rate_of(9, 10), None, "m2", rate_of(1, 10), None)
    assert unroled.significant and f"if m1 was trained against this verifier, {BLIND_SPOT}" in unroled.message
    reverse = compare("base", rate_of(9, 10), "base", "rl", rate_of(1, 10), "rl")
    assert reverse.significant and BLIND_SPOT not in reverse.message


def test_undecidable_samples_are_counted_apart(tmp_path):
    suite = tmp_path / "suite.jsonl"
    suite.write_text(
        json.dumps({"id": "u1", "domain": "math", "prompt": "What is 1+1?", "reference": "2"})
        + "\n"
        + json.dumps(
            {"id": "u2", "domain": "math", "prompt": "Pick 3 or 4.", "reference": "3 or 4", "split": "shifted"}
        )
        + "\n",
        encoding="utf-8",
    )
    f = write_samples_file(
        tmp_path / "s.jsonl",
        "m",
        [("u1", "\\boxed{2}"), ("u1", "\\boxed{3}"), ("u2", "\\boxed{3}")],
        suite=str(suite),
        split_of={"u2": "shifted"},
    )
    result = score_samples([f], [resolve(SUBSTRING)], options(tmp_path))
    s, report = result.sections[0], result.reports[0]
    assert (s.samples, s.labelled, s.undecidable, s.undecidable_reasons) == (3, 2, 1, {"oracle_unknown": 1})
    assert report.dropped == {"oracle_unknown": 1} and report.n_candidates == 2
    m = s.by_model[0]
    assert (m.samples, m.correct, m.incorrect, m.undecidable) == (3, 1, 1, 1)
    assert {g.name: g.undecidable for g in s.by_split} == {"train": 0, "shifted": 1}


def test_sampled_files_and_shared_model_names(refs, tmp_path):
    """A file as ``sample`` writes it (token ids, logprobs) beside an import; two files naming
    the same model are kept apart by their file names."""
    params = SamplingParams(n=2, temperature=0.6, top_p=0.95, max_tokens=8, top_k_logprobs=0, batch_size=2)
    manifest = Manifest(
        model="/models/ckpt",
        model_name="ckpt",
        model_fingerprint="ab",
        backend="hf",
        seed=0,
        sampling=params,
        template="plain",
        template_text="{prompt}",
        suite="math",
        task_count=1,
        tasks_hash="cd",
        tool_version="test",
    )
    lines = [manifest_line(manifest)] + [
        json.dumps(
            {
                "task_id": "math-0001",
                "sample_index": i,
                "split": "train",
                "model": "ckpt",
                "prompt": "p",
                "text": text,
                "token_ids": [5, 6],
                "logprobs": [-0.5, -0.25],
                "top_logprobs": [],
                "logprobs_kind": "raw",
                "finish_reason": "stop",
            }
        )
        for i, text in enumerate(["\\boxed{2107}", "\\boxed{2108}"])
    ]
    sampled = tmp_path / "sampled.jsonl"
    sampled.write_text("\n".join(lines) + "\n", encoding="utf-8")
    other = write_samples_file(tmp_path / "other.jsonl", "ckpt", [("math-0001", "2107 no: \\boxed{2108}")])
    result = score_samples([sampled, other], [resolve(SUBSTRING)], options(tmp_path))
    by_model = {g.name: g for g in result.sections[0].by_model}
    assert set(by_model) == {"ckpt@sampled", "ckpt@other"}
    assert (by_model["ckpt@sampled"].false_acceptance.k, by_model["ckpt@sampled"].false_acceptance.n) == (0, 1)
    assert (by_model["ckpt@other"].false_acceptance.k, by_model["ckpt@other"].false_acceptance.n) == (1, 1)
    assert {c.name for c in result.reports[0].categories} >= {"math.sampled.ckpt_sampled.train.incorrect"}


def test_samples_of_unknown_tasks_are_an_input_error(tmp_path):
    f = write_samples_file(tmp_path / "s.jsonl", "m", [("math-0001", "1"), ("gsm-7", "2")])
    with pytest.raises(InputError, match=r"1 samples are of tasks not in suite 'math': .*s.jsonl:3: 'gsm-7'"):
        score_samples([f], [resolve(SUBSTRING)], options(tmp_path))


def _cli(argv):
    parser = argparse.ArgumentParser(prog="verifier-audit")
    score_cli.add_parser(parser.add_subparsers(dest="command"))
    return score_cli.run(parser.parse_args(argv))


def test_cli_exit_codes_and_outputs(files, tmp_path, capsys):
    common = ["--probe-sample", "0", "--no-config", "--no-progress", "--workers", "2"]
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    rc = _cli(
        [
            "score",
            str(files["rl"]),
            "--base",
            str(files["base"]),
            "--verifier",
            SUBSTRING,
            *common,
            "--results",
            str(tmp_path / "a.jsonl"),
            "--json",
            str(out_json),
            "--markdown",
            str(out_md),
        ]
    )
    printed = capsys.readouterr().out
    assert rc == 1
    assert "BLIND SPOT: qwen2.5-rl (RL)" in printed and BLIND_SPOT in printed
    assert "Accepted but wrong: 10 (first 10)" not in printed and "Accepted but wrong: 10" in printed
    assert "Rejected but right: 2" in printed and "math-0013 #2 [base-7b, heldout]" in printed
    data = json.loads(out_json.read_text())
    assert data["samples"][0]["accepted_but_wrong"] == 10 and BLIND_SPOT in data["samples"][0]["blind_spot"][0]
    assert list(load_reports(out_json)) == [SUBSTRING]  # diff reads it as a report set
    md = out_md.read_text()
    assert "### Real samples" in md and "**blind spot**" in md and "| `qwen2.5-rl` (rl) | 16 |" in md

    rc = _cli(
        [
            "score",
            str(files["rl"]),
            str(files["base"]),
            "--verifier",
            STRONG,
            *common,
            "--results",
            str(tmp_path / "b.jsonl"),
        ]
    )
    printed = capsys.readouterr().out
    assert rc == 0 and BLIND_SPOT not in printed and "gate: PASSED" in printed
    assert printed.rstrip("\n").splitlines()[-1].startswith("gate: PASSED (coverage debt ")  # the verdict, last
    rc = _cli(
        [
            "score",
            str(files["rl"]),
            str(files["base"]),
            "--verifier",
            STRONG,
            *common,
            "-q",
            "--results",
            str(tmp_path / "b.jsonl"),
            "--resume",
        ]
    )
    quiet = capsys.readouterr()
    assert rc == 0 and quiet.out.count("\n") == 1 and quiet.out.startswith("gate: PASSED") and not quiet.err

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"manifest": {"format": "verifier-audit-samples"}}\n', encoding="utf-8")
    assert _cli(["score", str(bad), "--verifier", SUBSTRING, *common]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1: invalid manifest" in err and "Traceback" not in err
    assert _cli(["score", "--verifier", SUBSTRING, *common]) == 2
    assert "no samples file given" in capsys.readouterr().err
