"""``verifier-audit logprobs``: a base model's raw logprobs of sampled tokens by teacher forcing.

The strong check: the sampling model scoring its own samples gives back the raw logprobs
recorded while sampling (a KV-cache decoding loop, left-padded batches) from one batched
forward pass per batch (other padding, no cache), within 1e-4.
"""

from __future__ import annotations

import json
import math

import pytest
import samples_support
from samples_support import REASON, write

torch = pytest.importorskip("torch", reason=REASON)
pytest.importorskip("transformers", reason=REASON)

from verifier_audit.cli import logprobs as cli_logprobs  # noqa: E402
from verifier_audit.errors import InputError  # noqa: E402
from verifier_audit.samples import logprobs as lp_mod  # noqa: E402
from verifier_audit.samples.backends.hf import HFBackend  # noqa: E402
from verifier_audit.samples.logprobs import add_ref_logprobs  # noqa: E402
from verifier_audit.samples.records import read_samples  # noqa: E402
from verifier_audit.samples.sample import sample_suite  # noqa: E402
from verifier_audit.samples.tiny import build_tiny_model  # noqa: E402
from verifier_audit.suites import load_suite, select  # noqa: E402

torch.set_num_threads(1)

# Long enough for rows of different lengths in a batch (padding) and for a few stops.
RUN = {"n": 4, "temperature": 1.0, "top_p": 1.0, "max_tokens": 24, "batch_size": 5, "top_k_logprobs": 2, "seed": 3}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return {"base": build_tiny_model(root / "tiny-base"), "other": build_tiny_model(root / "tiny-other", seed=1)}


@pytest.fixture(scope="module")
def base(models) -> HFBackend:
    be = HFBackend(models["base"])
    be.load()
    return be


@pytest.fixture(scope="module")
def samples_file(base, tmp_path_factory) -> bytes:
    suite = load_suite("math")
    out = tmp_path_factory.mktemp("samples") / "samples.jsonl"
    saved = base.stop_token_ids
    base.stop_token_ids = set(range(10, 40))  # extra stop tokens: samples of several lengths
    try:
        sample_suite(
            base.path,
            select(suite, limit=3),
            out_path=out,
            backend=base,
            suite_name=suite.name,
            suite_hash=suite.content_hash,
            progress=False,
            **RUN,
        )
    finally:
        base.stop_token_ids = saved
    return out.read_bytes()


def test_the_model_scoring_its_own_samples_gives_its_recorded_logprobs(base, samples_file, tmp_path):
    path = write(tmp_path, samples_file)
    result = add_ref_logprobs(base.path, path, batch_size=4, backend=base, progress=False)
    assert (result.path, result.total, result.computed, result.kept) == (path, 12, 12, 0)
    assert not path.with_name(path.name + ".partial").exists()
    f = read_samples(path, check_complete=True)
    lengths = {len(s.token_ids) for s in f.samples}
    assert len(lengths) > 3 and {s.finish_reason for s in f.samples} == {"stop", "length"}  # padding at work
    for s in f.samples:
        assert s.ref_model == "tiny-base" and len(s.ref_logprobs) == len(s.token_ids)
        assert max(abs(a - b) for a, b in zip(s.ref_logprobs, s.logprobs)) < 1e-4
    # everything else is the input, byte for byte in meaning
    before = [json.loads(line) for line in samples_file.splitlines()[1:]]
    after = [json.loads(line) for line in path.read_bytes().splitlines()[1:]]
    assert [{k: v for k, v in a.items() if not k.startswith("ref_")} for a in after] == before
    assert all(list(a)[-2:] == ["ref_logprobs", "ref_model"] for a in after)
    assert path.read_bytes().splitlines()[0] == samples_file.splitlines()[0]


def test_chat_prompts_are_tokenized_as_the_sampler_did(base, tmp_path):
    suite = load_suite("math")
    out = tmp_path / "chat.jsonl"
    sample_suite(
        base.path,
        select(suite, limit=2),
        out_path=out,
        backend=base,
        template="chat",
        progress=False,
        **{**RUN, "n": 2},
    )
    add_ref_logprobs(base.path, out, backend=base, progress=False)
    for s in read_samples(out).samples:
        assert max(abs(a - b) for a, b in zip(s.ref_logprobs, s.logprobs)) < 1e-4


def test_another_model_gives_other_finite_logprobs(models, samples_file, tmp_path):
    path = write(tmp_path, samples_file)
    out = tmp_path / "scored.jsonl"
    add_ref_logprobs(models["other"], path, out_path=out, progress=False)
    assert path.read_bytes() == samples_file  # the input is untouched with --out
    f = read_samples(out, check_complete=True)
    diffs = []
    for s in f.samples:
        assert s.ref_model == "tiny-other"
        assert all(math.isfinite(v) and v <= 0 for v in s.ref_logprobs)
        diffs += [abs(a - b) for a, b in zip(s.ref_logprobs, s.logprobs)]
    assert max(diffs) > 0.1


def test_a_scored_file_is_kept_and_an_interrupted_run_resumes(base, samples_file, tmp_path, monkeypatch):
    done = write(tmp_path, samples_file, "done.jsonl")
    add_ref_logprobs(base.path, done, backend=base, batch_size=4, progress=False)
    expected = done.read_bytes()
    again = add_ref_logprobs(base.path, done, backend=base, batch_size=4, progress=False)
    assert (again.computed, again.kept) == (0, 12) and done.read_bytes() == expected

    path = write(tmp_path, samples_file)
    calls = []
    real = HFBackend.score

    def dies_on_the_second_batch(self, prompts, conts):
        calls.append(len(prompts))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, prompts, conts)

    monkeypatch.setattr(HFBackend, "score", dies_on_the_second_batch)
    with pytest.raises(KeyboardInterrupt):
        add_ref_logprobs(base.path, path, backend=base, batch_size=4, progress=False)
    monkeypatch.setattr(HFBackend, "score", real)
    partial = path.with_name(path.name + ".partial")
    assert path.read_bytes() == samples_file  # nothing replaced yet
    assert partial.read_bytes().count(b"\n") == 5  # manifest + the first batch
    with partial.open("ab") as fh:
        fh.write(b'{"task_id": "math-00')  # and a torn write
    result = add_ref_logprobs(base.path, path, backend=base, batch_size=4, progress=False)
    assert (result.resumed, result.computed) == (4, 8)
    assert path.read_bytes() == expected and not partial.exists()


def test_samples_without_token_ids_are_refused(samples_file, base, tmp_path):
    lines = samples_file.splitlines(keepends=True)
    row = json.loads(lines[2])
    row.update(token_ids=[], logprobs=[], top_logprobs=[])
    path = write(tmp_path, lines[0] + lines[1] + json.dumps(row).encode() + b"\n")
    with pytest.raises(InputError, match=r"samples\.jsonl:3: sample 'math-0001' #1 has no token_ids .*1 of 2"):
        add_ref_logprobs(base.path, path, backend=base, progress=False)


def test_another_tokenizer_is_refused(samples_file, tmp_path):
    other = build_tiny_model(tmp_path / "tiny-small-vocab", vocab=300)
    path = write(tmp_path, samples_file)
    with pytest.raises(InputError, match=r"tokenizer is not the one that made .*vocabularies of 300 and 512"):
        add_ref_logprobs(other, path, progress=False)
    # the sampler's directory gone: the texts do not round-trip through the other tokenizer
    lines = samples_file.splitlines(keepends=True)
    manifest = json.loads(lines[0])
    manifest["manifest"]["model"] = "/nowhere/tiny-base"
    moved = write(tmp_path, json.dumps(manifest).encode() + b"\n" + b"".join(lines[1:]), "moved.jsonl")
    with pytest.raises(InputError, match="decodes the sampled token ids to other texts"):
        add_ref_logprobs(other, moved, progress=False)
    assert moved.with_name("moved.jsonl.partial").exists() is False


def test_check_tokenizer_tolerates_a_few_spacing_differences(base, samples_file, tmp_path, capsys):
    lines = samples_file.splitlines(keepends=True)
    row = json.loads(lines[1])
    row["text"] = row["text"] + " "
    path = write(tmp_path, lines[0] + json.dumps(row).encode() + b"\n" + b"".join(lines[2:]))
    add_ref_logprobs(base.path, path, backend=base, progress=False)
    assert "1 of 12 samples' token ids decode to a text other than the recorded one" in capsys.readouterr().err
    assert lp_mod.MISMATCH_LIMIT == 0.5


def parse(*argv):
    return samples_support.parse(cli_logprobs, "logprobs", *argv)


def test_cli(models, samples_file, tmp_path, capsys):
    path = write(tmp_path, samples_file)
    out = tmp_path / "out.jsonl"
    assert (
        cli_logprobs.run(
            parse(str(path), "--model", str(models["base"]), "--out", str(out), "--batch-size", "3", "--no-progress")
        )
        == 0
    )
    assert "12 samples, 12 scored now" in capsys.readouterr().err
    assert all(s.ref_logprobs for s in read_samples(out).samples)
    assert cli_logprobs.run(parse(str(path), "--model", str(tmp_path / "nope"))) == 2
    assert "no such directory" in capsys.readouterr().err
    assert cli_logprobs.run(parse(str(tmp_path / "none.jsonl"), "--model", str(models["base"]))) == 2
    assert "no such file" in capsys.readouterr().err
    torn = write(tmp_path, samples_file[:-10], "torn.jsonl")
    assert cli_logprobs.run(parse(str(torn), "--model", str(models["base"]))) == 2
    assert "incomplete last line" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse(str(path), "--model", "x", "--batch-size", "0")
