"""Model samples: the hf backend, the samples file, resume, templates and the CLI runner.

Everything runs on the CPU against a tiny random Llama and a BPE tokenizer built here
(``verifier_audit.samples.tiny``), loaded through the same path as a real model directory.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
import samples_support
from samples_support import CLI_ARGS, REASON, RUN, write

torch = pytest.importorskip("torch", reason=REASON)
pytest.importorskip("transformers", reason=REASON)

from verifier_audit.cli import sample as samples_cli
from verifier_audit.errors import InputError
from verifier_audit.samples import seeding, templates
from verifier_audit.samples.backends.hf import HFBackend
from verifier_audit.samples.records import read_samples
from verifier_audit.samples.sample import sample_suite
from verifier_audit.samples.tiny import (
    CHAT_TEMPLATE,
    EOS,
    build_tiny_model,
    parameter_count,
)
from verifier_audit.suites import load_suite, select

ROOT = Path(__file__).resolve().parents[2]
# One thread: the tiny model is far faster so on a busy machine, and every run of this file
# (the killed subprocess too) computes with the same thread count, hence the same bytes.
torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny-llama")


@pytest.fixture(scope="session")
def backend(tiny_model) -> HFBackend:
    be = HFBackend(tiny_model)
    be.load()
    return be


@pytest.fixture(scope="session")
def suite():
    return load_suite("math")


@pytest.fixture(scope="session")
def tasks(suite):
    return select(suite, limit=3)


def run(backend, tasks, suite, out, **overrides):
    kw = {**RUN, **overrides}
    return sample_suite(
        backend.path,
        tasks,
        out_path=out,
        backend=backend,
        suite_name=suite.name,
        suite_hash=suite.content_hash,
        progress=False,
        **kw,
    )


@pytest.fixture(scope="session")
def reference(backend, tasks, suite, tmp_path_factory) -> bytes:
    out = tmp_path_factory.mktemp("ref") / "samples.jsonl"
    result = run(backend, tasks, suite, out)
    assert (result.total, result.kept, result.written) == (9, 0, 9)
    return out.read_bytes()


# -- the file -------------------------------------------------------------------------------


def test_samples_file_validates(reference, tmp_path, backend, tasks):
    f = read_samples(write(tmp_path, reference), check_complete=True)
    m = f.manifest
    assert m.backend == "hf" and m.device == "cpu" and m.dtype == "float32"
    assert {"torch", "transformers"} <= set(m.backend_versions)
    assert m.sampling.n == 3 and m.sampling.top_k_logprobs == 3 and m.sampling.logprobs_kind == "raw"
    assert m.template == "plain" and m.template_text == "{prompt}" and m.suite == "math"
    assert m.task_count == 3 and m.seed == 7 and m.model_name == "tiny-llama"
    assert [(s.task_id, s.sample_index) for s in f.samples] == [(t.id, i) for t in tasks for i in range(3)]
    eos = backend.tokenizer.convert_tokens_to_ids(EOS)
    for s in f.samples:
        assert s.prompt == next(t.prompt for t in tasks if t.id == s.task_id)
        assert s.split == "train" and s.model == "tiny-llama" and s.logprobs_kind == "raw"
        assert 1 <= len(s.token_ids) <= 12
        assert len(s.logprobs) == len(s.top_logprobs) == len(s.token_ids)
        if s.finish_reason == "length":
            assert len(s.token_ids) == 12 and eos not in s.token_ids
        else:
            assert s.token_ids[-1] == eos and eos not in s.token_ids[:-1]
        ids = s.token_ids[:-1] if s.finish_reason == "stop" else s.token_ids
        assert s.text == backend.decode(ids)
        for tok, lp, top in zip(s.token_ids, s.logprobs, s.top_logprobs):
            assert math.isfinite(lp) and lp <= 0
            assert 1 <= len(top) <= 3
            assert all(math.isfinite(v) and v <= 0 for v in top.values())
            assert list(top.values()) == sorted(top.values(), reverse=True)
            if tok in top:
                assert abs(top[tok] - lp) <= 2e-6
            else:  # outside the top K: no more likely than the K-th
                assert lp <= min(top.values()) + 2e-6


def test_logprobs_match_teacher_forcing(reference, tmp_path, backend):
    """The recorded raw logprobs are the model's: recompute them with one full forward pass."""
    s = read_samples(write(tmp_path, reference)).samples[0]
    prompt = backend.encode(s.prompt, add_special_tokens=True)
    with torch.no_grad():
        logits = backend.model(torch.tensor([prompt + s.token_ids])).logits[0].float()
    lp = torch.log_softmax(logits, dim=-1)
    again = [lp[len(prompt) - 1 + i, t].item() for i, t in enumerate(s.token_ids)]
    assert max(abs(a - b) for a, b in zip(again, s.logprobs)) < 1e-4


def test_same_seed_same_bytes_other_seed_other_samples(reference, backend, tasks, suite, tmp_path):
    out = tmp_path / "again.jsonl"
    run(backend, tasks, suite, out)
    assert out.read_bytes() == reference
    other = tmp_path / "seed8.jsonl"
    run(backend, tasks, suite, other, seed=8)
    a = [s.token_ids for s in read_samples(write(tmp_path, reference, "r.jsonl")).samples]
    b = [s.token_ids for s in read_samples(other).samples]
    assert a != b


def test_draws_do_not_depend_on_the_batch(reference, backend, tasks, suite, tmp_path):
    """Per-sample random streams: batch size 1 samples the same tokens as batch size 4."""
    out = tmp_path / "b1.jsonl"
    run(backend, tasks, suite, out, batch_size=1)
    a = [s.token_ids for s in read_samples(write(tmp_path, reference, "r.jsonl")).samples]
    assert [s.token_ids for s in read_samples(out).samples] == a


def test_left_padding_does_not_change_greedy_output(backend):
    short = backend.encode("Compute 2+3.", add_special_tokens=True)
    long = backend.encode(
        "A much longer prompt, with many more tokens than the short one has.", add_special_tokens=True
    )
    alone = backend.generate([short], [(1, 2)], temperature=0, top_p=1, max_tokens=10, ignore_eos=True)[0]
    padded = backend.generate([long, short], [(3, 4), (1, 2)], temperature=0, top_p=1, max_tokens=10, ignore_eos=True)[
        1
    ]
    assert padded.token_ids == alone.token_ids
    assert max(abs(a - b) for a, b in zip(padded.logprobs, alone.logprobs)) < 1e-4


# -- resume ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cut", ["mid_line", "line_end", "mid_manifest", "manifest_only"])
def test_resume_after_truncation_gives_the_same_bytes(reference, backend, tasks, suite, tmp_path, cut):
    lines = reference.splitlines(keepends=True)
    if cut == "mid_line":  # manifest + 5 samples + half of the 6th (inside the second batch)
        data = b"".join(lines[:6]) + lines[6][: len(lines[6]) // 2]
    elif cut == "line_end":
        data = b"".join(lines[:3])
    elif cut == "mid_manifest":
        data = lines[0][:40]
    else:
        data = lines[0]
    out = write(tmp_path, data)
    result = run(backend, tasks, suite, out)
    assert out.read_bytes() == reference
    kept = {"mid_line": 5, "line_end": 2, "mid_manifest": 0, "manifest_only": 0}[cut]
    assert (result.kept, result.written) == (kept, 9 - kept)
    assert result.dropped_torn_line == (cut in ("mid_line", "mid_manifest"))


def test_resume_of_a_complete_file_samples_nothing(reference, backend, tasks, suite, tmp_path):
    out = write(tmp_path, reference)
    result = run(backend, tasks, suite, out)
    assert (result.kept, result.written) == (9, 0) and out.read_bytes() == reference


def test_kill_and_resume_gives_the_same_bytes(reference, tiny_model, backend, tasks, suite, tmp_path):
    """A real kill -9 of `sample` (the CLI runner in a subprocess, each batch slowed down so
    that the kill lands between writes), then a resume: the bytes of an uninterrupted run."""
    out = tmp_path / "killed.jsonl"
    script = (
        "import argparse, sys, time, torch\n"
        "torch.set_num_threads(1)\n"
        "from verifier_audit.cli import sample as cli\n"
        "from verifier_audit.samples.backends import hf\n"
        "orig = hf.HFBackend.generate\n"
        "def slow(self, *a, **k):\n"
        "    out = orig(self, *a, **k)\n"
        "    time.sleep(1.0)\n"
        "    return out\n"
        "hf.HFBackend.generate = slow\n"
        "ap = argparse.ArgumentParser(); cli.add_parser(ap.add_subparsers(dest='command'))\n"
        "sys.exit(cli.run(ap.parse_args(sys.argv[1:])))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script, "sample", "--model", str(tiny_model), "--out", str(out), *CLI_ARGS],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if out.is_file() and out.read_bytes().count(b"\n") >= 2:  # manifest + the first batch
                break
            time.sleep(0.02)
        assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    partial = out.read_bytes()
    assert 2 <= partial.count(b"\n") < 10
    result = run(backend, tasks, suite, out)
    assert result.kept >= 1 and result.kept + result.written == 9
    assert out.read_bytes() == reference


def test_manifest_mismatch_is_refused(reference, backend, tasks, suite, tmp_path):
    out = write(tmp_path, reference[: len(reference) // 2])
    before = out.read_bytes()
    with pytest.raises(InputError) as err:
        run(backend, tasks, suite, out, temperature=0.7)
    assert "different run" in str(err.value) and "temperature: file 0.8, now 0.7" in str(err.value)
    assert "--no-resume" in str(err.value)
    assert out.read_bytes() == before  # untouched
    run(backend, tasks[:1], suite, out, temperature=0.7, n=1, resume=False)  # --no-resume overwrites
    f = read_samples(out, check_complete=True)
    assert f.manifest.sampling.temperature == 0.7 and len(f.samples) == 1


def test_a_file_that_is_not_a_samples_file_is_left_alone(backend, tasks, suite, tmp_path):
    out = write(tmp_path, b'{"id": "math-0001", "prompt": "x"}\n')
    with pytest.raises(InputError, match=r"samples\.jsonl:1: not a samples file"):
        run(backend, tasks, suite, out)
    assert out.read_bytes() == b'{"id": "math-0001", "prompt": "x"}\n'


def test_read_errors_name_the_file_and_line(reference, tmp_path):
    lines = reference.splitlines(keepends=True)
    bad = write(tmp_path, lines[0] + lines[1] + b'{"task_id": "math-0001"}\n', "bad.jsonl")
    with pytest.raises(InputError, match=r"bad\.jsonl:3: invalid sample"):
        read_samples(bad)
    torn = write(tmp_path, lines[0] + lines[1][:30], "torn.jsonl")
    with pytest.raises(InputError, match=r"torn\.jsonl:2: incomplete last line.*resume"):
        read_samples(torn)
    dup = write(tmp_path, lines[0] + lines[1] + lines[1], "dup.jsonl")
    with pytest.raises(InputError, match=r"dup\.jsonl:3: duplicate sample"):
        read_samples(dup)
    short = write(tmp_path, b"".join(lines[:4]), "short.jsonl")
    assert len(read_samples(short).samples) == 3
    with pytest.raises(InputError, match="incomplete: 3 of 9 samples"):
        read_samples(short, check_complete=True)


# -- sampling semantics ---------------------------------------------------------------------


def test_uniforms_are_the_reference_hash(backend):
    keys = [seeding.sample_key(s, f"t{i}", i) for s in (0, 1) for i in range(5)]
    k1 = torch.tensor([k[0] for k in keys])
    k2 = torch.tensor([k[1] for k in keys])
    for step in (0, 1, 511):
        got = backend._uniform(step, k1, k2).tolist()
        assert got == [seeding.uniform(k, step) for k in keys]
        assert all(0 < u < 1 for u in got)


@pytest.mark.parametrize("temperature,top_p", [(1.0, 1.0), (0.5, 1.0), (1.0, 0.7)])
def test_sampled_frequencies_follow_the_processed_distribution(backend, temperature, top_p):
    probs = torch.tensor([0.4, 0.25, 0.15, 0.1, 0.06, 0.04])
    rows = 20000
    logits = probs.log().expand(rows, -1).clone()
    keys = [seeding.sample_key(0, "dist", i) for i in range(rows)]
    k1, k2 = torch.tensor([k[0] for k in keys]), torch.tensor([k[1] for k in keys])
    token, lp, _, _ = backend._choose(
        logits, backend._uniform(0, k1, k2), temperature=temperature, top_p=top_p, k=0, processed=True
    )
    expected = probs ** (1 / temperature)
    expected = expected / expected.sum()
    before = expected.cumsum(0) - expected
    expected = torch.where(before < top_p, expected, torch.zeros_like(expected))
    expected = expected / expected.sum()
    freq = torch.bincount(token, minlength=6).double() / rows
    assert torch.allclose(freq, expected.double(), atol=0.012), (freq, expected)
    assert torch.allclose(lp.exp(), expected[token], atol=1e-5)


def test_processed_and_raw_logprobs(backend):
    p = backend.encode("Compute 2+3.", add_special_tokens=True)
    keys = [seeding.sample_key(0, "pr", i) for i in range(4)]
    kw = {"max_tokens": 8, "top_k_logprobs": 4, "ignore_eos": True}
    raw = backend.generate([p] * 4, keys, temperature=1.0, top_p=1.0, logprobs_kind="raw", **kw)
    proc = backend.generate([p] * 4, keys, temperature=1.0, top_p=1.0, logprobs_kind="processed", **kw)
    for a, b in zip(raw, proc):  # temperature 1, no nucleus: the same distribution
        assert a.token_ids == b.token_ids
        assert max(abs(x - y) for x, y in zip(a.logprobs, b.logprobs)) < 1e-5
    raw = backend.generate([p] * 4, keys, temperature=1.0, top_p=0.3, logprobs_kind="raw", **kw)
    proc = backend.generate([p] * 4, keys, temperature=1.0, top_p=0.3, logprobs_kind="processed", **kw)
    for a, b in zip(raw, proc):  # the nucleus renormalised: every sampled token is more likely
        assert a.token_ids == b.token_ids
        assert all(y > x for x, y in zip(a.logprobs, b.logprobs))
        for top in b.top_logprobs:
            assert sum(math.exp(v) for v in top.values()) <= 1 + 1e-5
    greedy = backend.generate([p], keys[:1], temperature=0, top_p=1.0, logprobs_kind="processed", **kw)[0]
    assert greedy.logprobs == [0.0] * 8 and all(len(t) == 1 for t in greedy.top_logprobs)
    none = backend.generate([p], keys[:1], temperature=0.8, top_p=0.9, max_tokens=4, top_k_logprobs=0)[0]
    assert none.top_logprobs == [] and len(none.logprobs) == len(none.token_ids)


def test_processed_kind_is_recorded(backend, tasks, suite, tmp_path):
    out = tmp_path / "processed.jsonl"
    run(backend, tasks[:1], suite, out, n=2, logprobs_kind="processed")
    f = read_samples(out, check_complete=True)
    assert f.manifest.sampling.logprobs_kind == "processed"
    assert {s.logprobs_kind for s in f.samples} == {"processed"}


def test_stop_token_ends_the_row(backend):
    p = backend.encode("Compute 2+3.", add_special_tokens=True)
    first = backend.generate([p], [(5, 6)], temperature=0, top_p=1, max_tokens=6, ignore_eos=True)[0].token_ids[0]
    saved = backend.stop_token_ids
    backend.stop_token_ids = {first}
    try:
        rows = backend.generate([p, p], [(5, 6), (7, 8)], temperature=0, top_p=1, max_tokens=6)
        ignored = backend.generate([p], [(5, 6)], temperature=0, top_p=1, max_tokens=6, ignore_eos=True)[0]
    finally:
        backend.stop_token_ids = saved
    for g in rows:
        assert (g.token_ids, g.finish_reason) == ([first], "stop")
        assert backend.text_of(g) == ""
    assert ignored.finish_reason == "length" and len(ignored.token_ids) == 6


# -- templates, the tiny model ----------------------------------------------------------------


def test_chat_template(backend, tasks, suite, tmp_path):
    out = tmp_path / "chat.jsonl"
    run(backend, tasks[:1], suite, out, n=1, template="chat")
    f = read_samples(out, check_complete=True)
    assert f.manifest.template == "chat" and f.manifest.template_text == CHAT_TEMPLATE
    prompt = f.samples[0].prompt
    assert prompt == f"<|user|>{tasks[0].prompt}<|end|>\n<|assistant|>"


def test_no_chat_template_is_a_clear_error():
    tok = types.SimpleNamespace(chat_template=None, name_or_path="/models/base")
    with pytest.raises(InputError, match=r"/models/base has no chat template.*--template plain"):
        templates.render("chat", tok, "hi")
    with pytest.raises(InputError, match="--template 'fancy'"):
        templates.template_text("fancy", tok)


def test_tiny_model_is_a_model_directory(tiny_model, backend):
    names = {p.name for p in tiny_model.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"} <= names
    assert parameter_count(tiny_model) == sum(p.numel() for p in backend.model.parameters())
    assert backend.tokenizer.eos_token == EOS and backend.tokenizer.pad_token is not None


# -- the CLI runner -------------------------------------------------------------------------


def parse(*argv):
    return samples_support.parse(samples_cli, "sample", *argv)


def test_cli_run_writes_a_valid_file_and_resumes(reference, tiny_model, tmp_path, capsys):
    out = tmp_path / "cli.jsonl"
    assert samples_cli.run(parse("--model", str(tiny_model), "--out", str(out), *CLI_ARGS)) == 0
    assert out.read_bytes() == reference  # the CLI writes what the library writes
    assert "9 samples, 9 sampled now" in capsys.readouterr().err
    assert samples_cli.run(parse("--model", str(tiny_model), "--out", str(out), *CLI_ARGS)) == 0
    assert "(9 kept from an earlier run), 0 sampled now" in capsys.readouterr().err
    changed = [a if a != "0.8" else "0.5" for a in CLI_ARGS]
    assert samples_cli.run(parse("--model", str(tiny_model), "--out", str(out), *changed)) == 2
    assert "temperature: file 0.8, now 0.5" in capsys.readouterr().err


def test_cli_exit_codes(tiny_model, tmp_path, capsys, monkeypatch):
    out = str(tmp_path / "x.jsonl")
    assert samples_cli.run(parse("--model", str(tmp_path / "nope"), "--out", out)) == 2
    assert "no such directory" in capsys.readouterr().err
    assert samples_cli.run(parse("--model", str(tiny_model), "--backend", "vllm", "--out", out)) == 2
    assert "vllm is not installed" in capsys.readouterr().err
    assert samples_cli.run(parse("--model", str(tiny_model), "--backend", "tgi", "--out", out)) == 2
    assert "unknown" in capsys.readouterr().err
    assert samples_cli.run(parse("--model", str(tiny_model), "--suite", "nosuch", "--out", out)) == 2
    assert "nosuch" in capsys.readouterr().err
    assert samples_cli.run(parse("--model", str(tiny_model), "--device", "nodevice", "--out", out)) == 2
    assert "--device nodevice" in capsys.readouterr().err
    not_model = tmp_path / "empty"
    not_model.mkdir()
    assert samples_cli.run(parse("--model", str(not_model), "--limit", "1", "--out", out)) == 2
    assert "config.json" in capsys.readouterr().err
    assert (
        samples_cli.run(
            parse(
                "--model",
                str(tiny_model),
                "--limit",
                "1",
                "--template",
                "chat",
                "--n",
                "1",
                "--max-tokens",
                "2",
                "--out",
                out,
            )
        )
        == 0
    )
    monkeypatch.setitem(sys.modules, "transformers", None)  # `import transformers` raises ImportError
    assert samples_cli.run(parse("--model", str(tiny_model), "--out", out)) == 2
    assert "pip install 'verifier-audit[samples]'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        parse("--model", str(tiny_model), "--top-p", "0")
    assert exc.value.code == 2


def test_cli_chat_without_template_exits_2(tiny_model, tmp_path, capsys):
    plain = tmp_path / "no-chat"
    shutil.copytree(tiny_model, plain)
    (plain / "chat_template.jinja").unlink(missing_ok=True)
    config = json.loads((plain / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (plain / "tokenizer_config.json").write_text(json.dumps(config))
    assert (
        samples_cli.run(
            parse("--model", str(plain), "--template", "chat", "--limit", "1", "--out", str(tmp_path / "c.jsonl"))
        )
        == 2
    )
    assert "no chat template" in capsys.readouterr().err
