"""``verifier-audit compare``: fixture samples files written here (math tasks; a base model
with broad support and low pass@1, an RL model with high pass@1 and narrow support), the
printed figures, the verdict, the JSON, the PNGs and the HTML in headless Chromium.

The fixture is built from four kinds of problem, n = 16 samples per model, alpha = 0.05, so
epsilon = 1 - 0.05^(1/16) = 0.1707 and an answer is in a model's support from 3 samples on
(3/16 = 0.1875 > epsilon > 2/16):

    kind  reference  base correct            RL correct        problem        answers
    A     1/2        3 x \\frac{1}{2}, 3 x 0.5  16 x \\frac{1}{2}   preservation   \\frac{1}{2}: P, 0.5: S
    B     7          3 x 7                   0 (16 x 8)        shrinkage      7: S
    C     12         0                       5 x 12            expansion      12: E
    D     5          1 x 5                   1 x 5             out of support 5: O

with 6 A, 3 B, 1 C and 2 D problems (12 in all).
"""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from browser import dump_dom, needs_browser  # noqa: E402

from verifier_audit.cli import compare as cli_compare  # noqa: E402
from verifier_audit.report import png  # noqa: E402
from verifier_audit.samples import compare as C  # noqa: E402
from verifier_audit.samples.compare import render as R  # noqa: E402
from verifier_audit.samples.records import (  # noqa: E402
    Manifest,
    Sample,
    SamplingParams,
    dumps,
    manifest_line,
)

N = 16
KINDS = {  # kind: (reference, count, base texts, rl texts)
    "A": (
        "1/2",
        6,
        [r"\boxed{\frac{1}{2}}"] * 3
        + [r"\boxed{0.5}"] * 3
        + [rf"\boxed{{{v}}}" for v in range(20, 28)]
        + [r"\boxed{2} or \boxed{3}", ""],
        [r"so \boxed{\frac12}"] * 16,
    ),
    "B": ("7", 3, [r"\boxed{7}"] * 3 + [rf"\boxed{{{v}}}" for v in range(30, 43)], [r"\boxed{8}"] * 16),
    "C": ("12", 1, [rf"\boxed{{{v}}}" for v in range(40, 56)], [r"\boxed{12}"] * 5 + [r"\boxed{13}"] * 11),
    "D": (
        "5",
        2,
        [r"\boxed{5}"] + [rf"\boxed{{{v}}}" for v in range(60, 74)] + [""],
        [r"\boxed{5}"] + [r"\boxed{6}"] * 15,
    ),
}
SPLITS = {
    "A": ["train"] * 4 + ["heldout"] * 2,
    "B": ["train", "train", "heldout"],
    "C": ["heldout"],
    "D": ["train", "shifted"],
}
VOCAB = 50
BASE_TOP = [0.9, 0.05, 0.03]  # per token: peaked (low token entropy)
RL_TOP = [0.4, 0.3, 0.2]  # per token: flatter (higher token entropy)
TOKENS = 5
RL_LP, REF_LP = -0.5, -1.0  # the RL model's logprob of each sampled token, the base's


def problems():
    out = []
    for kind, (ref, count, base, rl) in KINDS.items():
        assert len(base) == N and len(rl) == N, kind
        for i in range(count):
            out.append((f"{kind}{i}", kind, ref, SPLITS[kind][i]))
    return out


def _manifest(name: str, suite: Path, n_tasks: int) -> Manifest:
    return Manifest(
        model=f"/nonexistent/{name}",
        model_name=name,
        model_fingerprint="0" * 16,
        backend="hf",
        seed=0,
        sampling=SamplingParams(
            n=N, temperature=1.0, top_p=1.0, max_tokens=8, top_k_logprobs=3, logprobs_kind="raw", batch_size=4
        ),
        template="plain",
        template_text="{prompt}",
        suite=str(suite),
        task_count=n_tasks,
        tasks_hash="f" * 16,
        tool_version="0.1.0",
    )


def write_fixture(tmp_path: Path) -> tuple[Path, Path, Path]:
    probs = problems()
    suite = tmp_path / "suite.jsonl"
    suite.write_text(
        "".join(
            json.dumps({"id": tid, "domain": "math", "prompt": f"Problem {tid}?", "reference": ref, "split": split})
            + "\n"
            for tid, _, ref, split in probs
        ),
        encoding="utf-8",
    )
    paths = []
    for side, top in (("base", BASE_TOP), ("rl", RL_TOP)):
        lines = [manifest_line(_manifest(f"{side}-model", suite, len(probs)))]
        for tid, kind, _, split in probs:
            texts = KINDS[kind][2] if side == "base" else KINDS[kind][3]
            for j, text in enumerate(texts):
                lp = math.log(top[0]) if side == "base" else RL_LP
                entry = {7: math.log(top[0]), 8: math.log(top[1]), 9: math.log(top[2])}
                s = Sample(
                    task_id=tid,
                    sample_index=j,
                    split=split,
                    model=f"{side}-model",
                    prompt=f"Problem {tid}?",
                    text=text,
                    token_ids=[7] * TOKENS,
                    logprobs=[lp] * TOKENS,
                    top_logprobs=[entry] * TOKENS,
                    logprobs_kind="raw",
                    finish_reason="stop",
                    ref_logprobs=[REF_LP] * TOKENS if side == "rl" else None,
                    ref_model="base-model" if side == "rl" else None,
                )
                lines.append(dumps(s))
        path = tmp_path / f"{side}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1], suite


def hand_pass_at_k(n: int, c: int, k: int) -> float:
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def expected_mean_pass(side: int, k: int) -> float:
    """side 2: base texts, 3: RL texts, counted by hand from the table above."""
    correct = {"A": (6, 16), "B": (3, 0), "C": (0, 5), "D": (1, 1)}
    total = sum(KINDS[kd][1] for kd in KINDS)
    return sum(KINDS[kd][1] * hand_pass_at_k(N, correct[kd][side - 2], k) for kd in KINDS) / total


@pytest.fixture(scope="module")
def run_cli(tmp_path_factory):
    """The command once, with every output; returns (exit code, stdout, stderr, out dir)."""
    tmp = tmp_path_factory.mktemp("compare")
    base, rl, _ = write_fixture(tmp)
    parser = argparse.ArgumentParser(prog="verifier-audit")
    sub = parser.add_subparsers(dest="command")
    cli_compare.add_parser(sub)
    args = [
        "compare",
        str(base),
        str(rl),
        "--workers",
        "2",
        "--bootstrap",
        "400",
        "--vocab-size",
        str(VOCAB),
        "--json",
        str(tmp / "cmp.json"),
        "--html",
        str(tmp / "cmp.html"),
    ]
    if png.matplotlib_available():
        args += ["--png-dir", str(tmp / "png")]
    ns = parser.parse_args(args)
    capture = pytest.MonkeyPatch()
    import io
    import sys

    out, err = io.StringIO(), io.StringIO()
    capture.setattr(sys, "stdout", out)
    capture.setattr(sys, "stderr", err)
    try:
        code = cli_compare.run(ns)
    finally:
        capture.undo()
    return code, out.getvalue(), err.getvalue(), tmp


def test_exit_code_and_printed_figures(run_cli):
    code, out, err, _ = run_cli
    assert code == 0, err
    assert "12 problems compared" in out and "correctness: oracle" in out
    # pass@1 and pass@16, by hand: base (6*6/16 + 3*3/16 + 2*1/16) / 12, RL (6*16/16 + 5/16 + 2*1/16) / 12
    p1b, p1r = expected_mean_pass(2, 1), expected_mean_pass(3, 1)
    assert p1b == pytest.approx((6 * 6 + 3 * 3 + 2) / 16 / 12)
    assert p1r == pytest.approx((6 * 16 + 5 + 2) / 16 / 12)
    row1 = next(line for line in out.splitlines() if line.strip().startswith("1 "))
    assert f"{100 * p1b:.1f}%" in row1 and f"{100 * p1r:.1f}%" in row1
    row16 = next(line for line in out.splitlines() if line.strip().startswith("16 "))
    assert f"{100 * 11 / 12:.1f}%" in row16 and f"{100 * 9 / 12:.1f}%" in row16
    assert "preservation 6, shrinkage 3, expansion 1, out of support 2" in out  # problems
    assert "preservation 6, shrinkage 9, expansion 1, out of support 2" in out  # answers: six 0.5 forms shrink too
    assert "epsilon = 1 - alpha^(1/n): base 0.1707" in out
    assert "epsilon 0.01 needs 299" in out
    assert "KL(RL || base) from 192 RL samples, 960 tokens" in out


def test_verdict_text(run_cli):
    _, out, _, _ = run_cli
    verdict = out.split("verdict: ", 1)[1]
    d1 = 100 * (expected_mean_pass(3, 1) - expected_mean_pass(2, 1))
    d16 = 100 * (9 / 12 - 11 / 12)
    assert verdict.startswith(
        f"pass@1 {d1:+.1f} points, pass@16 {d16:+.1f} points, support shrinkage 3 problems "
        "vs expansion 1: mostly search compression."
    )
    k_star = next(k for k in range(1, N + 1) if expected_mean_pass(2, k) >= expected_mean_pass(3, k))
    assert f"The base model catches up at k = {k_star} " in verdict
    ratio = (expected_mean_pass(3, 1) - expected_mean_pass(2, 1)) / (11 / 12 - expected_mean_pass(2, 1))
    assert f"(compression ratio {ratio:.2f})" in verdict
    assert "token entropy rose: local stochasticity without global exploration" in verdict
    assert "Only 12 problems: treat these figures as indicative." in verdict


def test_json_report(run_cli):
    _, _, _, tmp = run_cli
    r = C.read_json(tmp / "cmp.json")
    assert r.format == "verifier-audit-compare" and r.problems == 12 and r.k_max == N
    assert r.pass_at_k.ks == list(range(1, N + 1))
    for k in (1, 2, 5, 16):
        assert r.pass_at_k.base[k - 1] == pytest.approx(expected_mean_pass(2, k))
        assert r.pass_at_k.rl[k - 1] == pytest.approx(expected_mean_pass(3, k))
        assert r.pass_at_k.base_low[k - 1] <= r.pass_at_k.base[k - 1] <= r.pass_at_k.base_high[k - 1]
        assert r.pass_at_k.diff[k - 1] == pytest.approx(expected_mean_pass(2, k) - expected_mean_pass(3, k))
    assert r.verdict.kind == "search_compression"
    assert r.headroom.value == pytest.approx(11 / 12 - expected_mean_pass(3, 1))
    sp = r.support.problems
    assert (sp.preservation, sp.shrinkage, sp.expansion, sp.out_of_support) == (6, 3, 1, 2)
    assert sp.srr.value == pytest.approx(6 / 9) and sp.ndr.value == pytest.approx(1 / 7)
    assert sp.nscr.value == pytest.approx((1 - 3) / 10)
    rows = {row.task_id: row for row in r.problem_rows}
    assert rows["A0"].answers == {r"\frac{1}{2}": "preservation", "0.5": "shrinkage"}
    assert rows["B0"].category == "shrinkage" and rows["C0"].category == "expansion"
    assert rows["D1"].category == "out_of_support" and rows["D1"].split == "shifted"
    # answer entropy of a B problem, RL side: one answer (8) -> 0; base: 7 x3 and thirteen singletons
    assert rows["B0"].entropy_rl == pytest.approx(0.0)
    h = -(3 / 16) * math.log(3 / 16) - 13 * (1 / 16) * math.log(1 / 16)
    assert rows["B0"].entropy_base == pytest.approx(h + (14 - 1) / (2 * 16))
    # unparseable: A base has a hedge and an empty text (2 x 6), D base an empty text (1 x 2) -> 14 of 192
    assert r.entropy.base.unparseable_rate == pytest.approx(14 / 192)
    assert r.entropy.rl.unparseable_rate == 0.0

    # token entropy, by hand: top-3 then the tail (vocabulary 50)
    def bounds(top):
        h_top = -sum(p * math.log(p) for p in top)
        rest, pmin = 1 - sum(top), min(top)
        m = math.floor(rest / pmin)
        r_ = rest - m * pmin
        low = h_top - m * pmin * math.log(pmin) - (r_ * math.log(r_) if r_ > 0 else 0)
        high = h_top + rest * math.log((VOCAB - 3) / rest)
        return low, high

    bl, bh = bounds(BASE_TOP)
    rl_lo, rl_hi = bounds(RL_TOP)
    assert r.entropy.base.token_low == pytest.approx(bl) and r.entropy.base.token_high == pytest.approx(bh)
    assert r.entropy.rl.token_low == pytest.approx(rl_lo) and r.entropy.rl.token_high == pytest.approx(rl_hi)
    assert r.entropy.vocab_size == VOCAB and r.entropy.vocab_source == "--vocab-size"
    # KL: log r = -1.0 - (-0.5) = -0.5 on every token
    assert r.kl.available and r.kl.tokens == 192 * TOKENS
    assert r.kl.per_token_k1.value == pytest.approx(0.5)
    assert r.kl.per_token_k3.value == pytest.approx(math.exp(-0.5) - 1 + 0.5)
    assert r.kl.per_sequence_k1.value == pytest.approx(TOKENS * 0.5)
    splits = {s.split: s for s in r.splits}
    assert list(splits) == ["train", "heldout", "shifted"]
    assert splits["train"].problems == 7 and splits["heldout"].problems == 4 and splits["shifted"].problems == 1
    tr = splits["train"]
    assert tr.pass1_base == pytest.approx((4 * 6 / 16 + 2 * 3 / 16 + 1 / 16) / 7)
    assert tr.pass1_rl == pytest.approx((4 * 16 / 16 + 1 / 16) / 7)
    assert (tr.preservation, tr.shrinkage, tr.expansion, tr.out_of_support) == (4, 2, 0, 1)
    ho = splits["heldout"]
    assert ho.delta_pass1_vs_train == pytest.approx(ho.delta_pass1.value - tr.delta_pass1.value)
    assert tr.delta_pass1_vs_train is None


def test_pngs(run_cli):
    if not png.matplotlib_available():
        pytest.skip("matplotlib is not installed: pip install 'verifier-audit[plots]'")
    _, _, _, tmp = run_cli
    for name in ("passk.png", "support.png", "entropy.png", "kl.png"):
        data = (tmp / "png" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000, name


def test_html_is_self_contained(run_cli):
    _, _, _, tmp = run_cli
    page = (tmp / "cmp.html").read_text(encoding="utf-8")
    assert "<script" not in page.lower() and "default-src 'none'" in page
    for plot in ("passk", "support", "entropy", "entropy-splits", "kl"):
        assert f'data-plot="{plot}"' in page


@needs_browser
def test_html_renders_plots_in_chromium(run_cli):
    _, _, _, tmp = run_cli
    dom = dump_dom(tmp / "cmp.html")
    for plot in ("passk", "support", "entropy", "entropy-splits", "kl"):
        assert f'data-plot="{plot}"' in dom, plot
    # both pass@k series, each a band and a line with one point per k
    for series in ("base", "rl"):
        assert f'<polygon class="vc-band vc-{series}" data-series="{series}"' in dom
        assert f'class="vc-line vc-{series}" data-series="{series}" data-points="{N}"' in dom
    assert 'class="vc-cross" data-k="' in dom
    for cat, count in (("preservation", 6), ("shrinkage", 3), ("expansion", 1), ("out_of_support", 2)):
        assert f'data-level="problems" data-category="{cat}" data-count="{count}"' in dom
    assert dom.count('class="vc-bar vc-base"') >= 3 and dom.count('class="vc-bar vc-rl"') >= 3
    assert "mostly search compression" in dom


def test_hostile_model_name_is_escaped(tmp_path):
    base, rl, _ = write_fixture(tmp_path)
    for path in (base, rl):
        lines = path.read_text(encoding="utf-8").splitlines()
        man = json.loads(lines[0])
        man["manifest"]["model_name"] = "</svg><script>alert(1)</script>"
        lines[0] = json.dumps(man)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = C.run_compare(base, rl, n_boot=50, workers=2)
    page = R.render_html(r)
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_input_errors(tmp_path, capsys):
    base, rl, _ = write_fixture(tmp_path)
    parser = argparse.ArgumentParser()
    cli_compare.add_parser(parser.add_subparsers(dest="command"))
    assert cli_compare.run(parser.parse_args(["compare", str(base), str(tmp_path / "missing.jsonl")])) == 2
    assert "missing.jsonl: cannot read" in capsys.readouterr().err
    assert cli_compare.run(parser.parse_args(["compare", str(base), str(rl), "--k", "17", "--bootstrap", "20"])) == 2
    assert "--k 17: must be between 1 and 16" in capsys.readouterr().err
    assert cli_compare.run(parser.parse_args(["compare", str(base), str(rl), "--suite", "no-such-suite"])) == 2
    capsys.readouterr()


def test_processed_logprobs_refuse_kl(tmp_path):
    base, rl, _ = write_fixture(tmp_path)
    text = rl.read_text(encoding="utf-8").replace('"logprobs_kind":"raw"', '"logprobs_kind":"processed"')
    rl.write_text(text, encoding="utf-8")
    r = C.run_compare(base, rl, n_boot=50, workers=2)
    assert not r.kl.available and "refused" in r.kl.reason and "--logprobs raw" in r.kl.reason
    assert "KL(RL || base): not computed: refused" in R.render_text(r)


def test_by_verifier_labels(tmp_path):
    """A verifier that pays for any boxed answer: every boxed sample is "correct"."""
    base, rl, _ = write_fixture(tmp_path)
    (tmp_path / "lenient.py").write_text(
        "def verify(completion, reference):\n    return '\\\\boxed' in completion\n", encoding="utf-8"
    )
    r = C.run_compare(base, rl, by_verifier=f"{tmp_path / 'lenient.py'}:verify", n_boot=50, workers=2)
    assert r.labels.startswith("verifier ") and "not the oracle's" in r.verdict.text
    rows = {row.task_id: row for row in r.problem_rows}
    assert rows["B0"].c_rl == 16 and rows["A0"].c_base == 15  # all but the empty text


def test_imported_rl_file_without_logprobs(tmp_path):
    """An imported file (no sampling parameters, no tokens or logprobs): pass@k and support
    as usual; token entropy and KL say why they are not there."""
    if "source" not in Manifest.model_fields:
        pytest.skip("this records.py has no imported files")
    base, rl, suite = write_fixture(tmp_path)
    lines = rl.read_text(encoding="utf-8").splitlines()
    man = {
        "manifest": {
            "model": str(tmp_path / "dump.jsonl"),
            "model_name": "rl-import",
            "suite": str(suite),
            "task_count": 12,
            "tool_version": "0.1.0",
            "source": "import:jsonl",
        }
    }
    out = [json.dumps(man)]
    for line in lines[1:]:
        s = json.loads(line)
        out.append(json.dumps({k: s[k] for k in ("task_id", "sample_index", "split", "model", "prompt", "text")}))
    rl.write_text("\n".join(out) + "\n", encoding="utf-8")
    r = C.run_compare(base, rl, n_boot=50, workers=2)
    assert r.support.problems.shrinkage == 3 and r.pass_at_k.rl[0] == pytest.approx(expected_mean_pass(3, 1))
    assert r.rl.logprobs_kind is None and r.rl.temperature is None
    assert not r.kl.available and "records no logprobs" in r.kl.reason
    assert r.entropy.rl.token_low is None and r.entropy.rl.answer_miller_madow is not None
    assert "tokens: n/a" in R.render_text(r)


def test_each_png_draws_the_same_description_as_its_svg(run_cli, monkeypatch):
    """passk, support, entropy (per model and per split) and KL are described once; the SVG
    and the PNG show the same rows, series, values and marks (before, the PNGs were a
    second, hand-kept drawing: KL's rows in another order, no token-entropy range)."""
    pytest.importorskip("matplotlib", reason="the PNGs need matplotlib: pip install 'verifier-audit[plots]'")
    from chart_support import record_figures

    from verifier_audit.report import _html as H

    _, _, _, tmp = run_cli
    r = C.CompareReport.model_validate_json((tmp / "cmp.json").read_text(encoding="utf-8"))
    seen = record_figures(monkeypatch, R)
    R.write_pngs(r, tmp / "png-again")
    assert sorted(seen) == ["entropy.png", "kl.png", "passk.png", "support.png"]

    panel, (ax,) = R.passk_panel(r), seen["passk.png"]
    svg = R.svg_pass_at_k(r)
    assert ax["title"] == panel.title and ax["marks"] == [r.crossover.k] and f'data-k="{r.crossover.k}"' in svg
    for line in panel.lines:
        assert ax["curves"][f"{line.label}: {line.name}"] == list(line.ys)
        assert f'data-pass1="{H.num(line.ys[0])}" data-passk="{H.num(line.ys[-1])}"' in svg

    chart, (ax,) = R.support_chart(r), seen["support.png"]
    svg = R.svg_support(r)
    counts = [row[c] for _, row, _ in chart.rows for c in chart.categories]
    assert ax["bars"] == counts and ax["legend"] == [chart.label(c) for c in chart.categories]
    for level, row, _ in chart.rows:
        for cat, n in row.items():
            assert f'data-level="{level}" data-category="{cat}" data-count="{n}"' in svg

    for chart, svg, ax in (
        (R.entropy_chart(r), R.svg_entropy(r), seen["entropy.png"][0]),
        (R.entropy_splits_chart(r), R.svg_entropy_splits(r), seen["entropy.png"][1]),
        (R.kl_chart(r), R.svg_kl(r), seen["kl.png"][0]),
    ):
        values = [b.value for _, bars in chart.rows for b in bars if b.value is not None]
        assert ax["title"] == chart.title and ax["yticks"] == [label for label, _ in chart.rows]
        assert ax["bars"] == pytest.approx(values)
        assert re.findall(r'data-value="([^"]+)"', svg) == [H.num(v) for v in values]
