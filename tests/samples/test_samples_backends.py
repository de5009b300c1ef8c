"""The ``openai`` and ``vllm`` sampling backends and the backend registry.

``openai`` runs against ``tests/openai_server.py``: an OpenAI-compatible server on 127.0.0.1
that answers with our ``hf`` backend on the tiny model, so its samples are known exactly.
``vllm`` cannot run here (GPU only, not installed): its tests cover the not-installed path
and our conversion of vLLM-shaped outputs, with stand-in objects.
"""

from __future__ import annotations

import dataclasses
import math
import os
import signal
import socket
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

from openai_server import TinyOpenAIServer, key_of  # noqa: E402

from verifier_audit.cli import sample as samples_cli  # noqa: E402
from verifier_audit.errors import InputError  # noqa: E402
from verifier_audit.samples.backends import (  # noqa: E402
    REGISTRY,
    Prompt,
    SampleRequest,
    make_backend,
    request_seed,
)
from verifier_audit.samples.backends import vllm as vllm_backend  # noqa: E402
from verifier_audit.samples.backends.hf import HFBackend  # noqa: E402
from verifier_audit.samples.backends.openai import OpenAIBackend, normalize_base_url  # noqa: E402
from verifier_audit.samples.records import read_samples  # noqa: E402
from verifier_audit.samples.sample import sample_suite  # noqa: E402
from verifier_audit.samples.tiny import build_tiny_model  # noqa: E402
from verifier_audit.suites import load_suite, select  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
torch.set_num_threads(1)

FAST = {"retries": 3, "retry_base_s": 0.01, "retry_max_s": 0.05, "request_timeout": 30.0}


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny-llama")


@pytest.fixture(scope="module")
def hf(tiny_model) -> HFBackend:
    be = HFBackend(tiny_model)
    be.load()
    return be


@pytest.fixture(scope="module")
def suite():
    return load_suite("math")


@pytest.fixture(scope="module")
def tasks(suite):
    return select(suite, limit=3)


@pytest.fixture
def server(hf):
    with TinyOpenAIServer(hf) as s:
        yield s


def client(model, server, **kw) -> OpenAIBackend:
    options = {"served_model": "tiny-llama", **FAST, **kw}
    return OpenAIBackend(model, base_url=server.base_url, **options)


def run(be, tasks, suite, out, model=None, **overrides):
    return sample_suite(
        model or getattr(be, "model_dir", None) or be.model_id,
        tasks,
        out_path=out,
        backend=be,
        suite_name=suite.name,
        suite_hash=suite.content_hash,
        progress=False,
        **{**RUN, **overrides},
    )


@pytest.fixture(scope="module")
def reference(hf, tiny_model, tasks, suite, tmp_path_factory) -> bytes:
    """The openai run of RUN through a well-behaved server."""
    out = tmp_path_factory.mktemp("ref") / "samples.jsonl"
    with TinyOpenAIServer(hf) as srv:
        result = run(client(tiny_model, srv), tasks, suite, out)
    assert (result.total, result.kept, result.written) == (9, 0, 9)
    return out.read_bytes()


def expected(hf, tasks, *, template="plain", kind="raw", **overrides):
    """What the server must have sampled: hf.generate with each sample's request seed."""
    kw = {**RUN, **overrides}
    rows = {}
    for t in tasks:
        text = (
            t.prompt
            if template == "plain"
            else hf.tokenizer.apply_chat_template(
                [{"role": "user", "content": t.prompt}], tokenize=False, add_generation_prompt=True
            )
        )
        ids = hf.encode(text, add_special_tokens=template == "plain")
        for i in range(kw["n"]):
            gen = hf.generate(
                [ids],
                [key_of(request_seed(kw["seed"], t.id, i))],
                temperature=kw["temperature"],
                top_p=kw["top_p"],
                max_tokens=kw["max_tokens"],
                top_k_logprobs=kw["top_k_logprobs"],
                logprobs_kind=kind,
            )[0]
            rows[(t.id, i)] = gen
    return rows


def assert_same_as_hf(samples, rows, hf):
    for s in samples:
        gen = rows[(s.task_id, s.sample_index)]
        assert s.token_ids == gen.token_ids
        assert s.text == hf.text_of(gen) and s.finish_reason == gen.finish_reason
        assert max(abs(a - b) for a, b in zip(s.logprobs, gen.logprobs)) <= 1e-6
        assert [list(d) for d in s.top_logprobs] == [list(d) for d in gen.top_logprobs]
        for a, b in zip(s.top_logprobs, gen.top_logprobs):
            assert all(abs(a[t] - b[t]) <= 1e-6 for t in b)


# -- openai: the samples --------------------------------------------------------------------------


def test_openai_samples_validate_and_equal_the_hf_backend(reference, hf, tiny_model, tasks, tmp_path):
    """The server passes the seed through: every sample is what hf.generate draws with the
    sample's request seed (the server maps seed s to the hf key of s)."""
    f = read_samples(write(tmp_path, reference), check_complete=True)
    m = f.manifest
    assert m.backend == "openai" and m.device == "server" and m.model == str(tiny_model.resolve())
    assert m.backend_versions["token_ids"] == "server" and m.backend_versions["served_model"] == "tiny-llama"
    assert m.backend_versions["seeded"] == "yes" and m.sampling.logprobs_kind == "raw"
    assert [(s.task_id, s.sample_index) for s in f.samples] == [(t.id, i) for t in tasks for i in range(3)]
    assert_same_as_hf(f.samples, expected(hf, tasks), hf)
    for s in f.samples:
        assert all(math.isfinite(v) and v <= 0 for v in s.logprobs)


def test_openai_request_shape(hf, tiny_model, tasks, suite, server, tmp_path):
    run(client(tiny_model, server), tasks[:1], suite, tmp_path / "s.jsonl", n=2)
    preflight, *calls = server.requests
    assert preflight["max_tokens"] == 1
    ids = hf.encode(tasks[0].prompt, add_special_tokens=True)
    assert len(calls) == 2
    for i, body in enumerate(sorted(calls, key=lambda b: b["seed"])):  # sent concurrently: any order
        assert body["prompt"] == ids  # token ids: the local tokenizer made them
        assert (body["n"], body["seed"], body["logprobs"], body["echo"]) == (
            1,
            request_seed(7, tasks[0].id, i),
            3,
            False,
        )
        assert body["return_tokens_as_token_ids"] is True and body["model"] == "tiny-llama"
        assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.8, 0.9, 12)


def test_samples_per_request_gives_the_same_samples(reference, tiny_model, tasks, suite, server, tmp_path):
    """n samples of a task in one request (seed of the first, children seed + j as vLLM V1
    does): the same draws; the server computes rows together, so logprobs agree to float
    precision rather than to the byte."""
    out = tmp_path / "grouped.jsonl"
    run(client(tiny_model, server, samples_per_request=3), tasks, suite, out)
    got = read_samples(out, check_complete=True).samples
    ref = read_samples(write(tmp_path, reference, "ref.jsonl")).samples
    assert [s.token_ids for s in got] == [s.token_ids for s in ref]
    assert max(abs(a - b) for x, y in zip(got, ref) for a, b in zip(x.logprobs, y.logprobs)) < 1e-5
    ns = [b["n"] for b in server.requests[1:]]
    assert max(ns) > 1 and sum(ns) == 9 and len(ns) < 9


def test_model_by_name_without_a_local_tokenizer(reference, hf, tasks, suite, server, tmp_path):
    """--model is the server's name: prompts go as text, ids come from the server."""
    out = tmp_path / "byname.jsonl"
    be = client("tiny-llama", server)
    assert be.tokenizer is None and be.model_dir is None
    run(be, tasks, suite, out)
    f = read_samples(out, check_complete=True)
    assert f.manifest.model == "tiny-llama" and f.manifest.model_fingerprint == ""
    assert isinstance(server.requests[-1]["prompt"], str)
    ref = read_samples(write(tmp_path, reference, "ref.jsonl")).samples
    assert [s.token_ids for s in f.samples] == [s.token_ids for s in ref]
    with pytest.raises(InputError, match="--template chat.*no local tokenizer"):
        run(be, tasks, suite, tmp_path / "chat.jsonl", template="chat")


def test_chat_template_and_processed_logprobs(hf, tiny_model, tasks, suite, tmp_path):
    with TinyOpenAIServer(hf, logprobs_kind="processed") as srv:
        out = tmp_path / "chat.jsonl"
        run(client(tiny_model, srv), tasks[:2], suite, out, template="chat", logprobs_kind="processed", n=2)
    f = read_samples(out, check_complete=True)
    assert f.manifest.template == "chat" and f.manifest.sampling.logprobs_kind == "processed"
    assert f.samples[0].prompt.startswith("<|user|>")
    assert_same_as_hf(f.samples, expected(hf, tasks[:2], template="chat", kind="processed", n=2), hf)


def test_server_without_token_ids_uses_the_local_vocabulary(reference, hf, tiny_model, tasks, suite, tmp_path):
    """A server that refuses return_tokens_as_token_ids (400) and returns vocabulary strings:
    the field is dropped and the strings are looked up in the local tokenizer."""
    with TinyOpenAIServer(hf, accept_extra=False, tokens_as="vocab") as srv:
        out = tmp_path / "vocab.jsonl"
        run(client(tiny_model, srv), tasks, suite, out)
        assert "return_tokens_as_token_ids" not in srv.requests[-1]
    f = read_samples(out, check_complete=True)
    assert f.manifest.backend_versions["token_ids"] == "local-vocab"
    ref = read_samples(write(tmp_path, reference, "ref.jsonl")).samples
    assert [(s.token_ids, s.logprobs, s.top_logprobs) for s in f.samples] == [
        (s.token_ids, s.logprobs, s.top_logprobs) for s in ref
    ]


def test_no_token_ids_anywhere_writes_samples_without_them(hf, tasks, suite, tmp_path, capsys):
    with TinyOpenAIServer(hf, accept_extra=False, tokens_as="text") as srv:
        out = tmp_path / "noids.jsonl"
        run(client("tiny-llama", srv), tasks[:1], suite, out, n=2)
    assert "without token_ids" in capsys.readouterr().err
    f = read_samples(out, check_complete=True)
    assert f.manifest.backend_versions["token_ids"] == "unavailable"
    for s in f.samples:
        assert s.token_ids == [] and s.logprobs == [] and s.top_logprobs == [] and s.text


def test_piece_lookup(hf, tiny_model, server):
    be = client(tiny_model, server)
    assert be._piece_id("token_id:17") == 17
    mapped = 0
    for tid in range(len(hf.tokenizer)):
        raw = hf.tokenizer.convert_ids_to_tokens(tid)
        text = hf.tokenizer.decode([tid])
        assert be._piece_id(raw) in (tid, None)  # None: ambiguous, never another token
        assert be._piece_id(text) in (tid, None)  # decoded text, byte-level encoded back
        mapped += be._piece_id(raw) == tid and (be._piece_id(text) == tid or "\ufffd" in text)
    assert mapped > 0.9 * len(hf.tokenizer)
    assert be._piece_id("\ufffd") is None and be._piece_id("token_id:x") is None


def test_no_server_seed_packs_prompts(hf, tiny_model, tasks, suite, tmp_path):
    with TinyOpenAIServer(hf, accept_seed=False) as srv:
        with pytest.raises(InputError, match="--no-server-seed"):
            run(client(tiny_model, srv), tasks, suite, tmp_path / "a.jsonl")
        out = tmp_path / "b.jsonl"
        run(client(tiny_model, srv, server_seed=False, prompts_per_request=4), tasks, suite, out, batch_size=9)
        calls = srv.requests[2:]  # after the refused preflight and this run's preflight
    f = read_samples(out, check_complete=True)
    assert f.manifest.backend_versions["seeded"] == "no"

    def prompts(body):  # one prompt of token ids is a list of ints; several, a list of lists
        return body["prompt"] if isinstance(body["prompt"][0], list) else [body["prompt"]]

    assert sorted(len(prompts(b)) for b in calls) == [1, 4, 4]  # 9 samples, 4 prompts a request at most
    for body in calls:
        assert "seed" not in body and body["n"] == 1 and all(isinstance(p[0], int) for p in prompts(body))


# -- openai: resume --------------------------------------------------------------------------------


@pytest.mark.parametrize("cut", ["mid_line", "manifest_only"])
def test_resume_after_truncation_gives_the_same_bytes(reference, tiny_model, tasks, suite, server, tmp_path, cut):
    lines = reference.splitlines(keepends=True)
    data = b"".join(lines[:6]) + lines[6][: len(lines[6]) // 2] if cut == "mid_line" else lines[0]
    out = write(tmp_path, data)
    result = run(client(tiny_model, server), tasks, suite, out)
    assert out.read_bytes() == reference
    assert result.kept == (5 if cut == "mid_line" else 0)


def parse(*argv):
    return samples_support.parse(samples_cli, "sample", *argv)


def test_cli_kill_and_resume_gives_the_same_bytes(reference, hf, tiny_model, tmp_path, capsys):
    """`sample --backend openai` in a subprocess, killed with SIGKILL while the (slowed) server
    works, then resumed through the CLI runner: the bytes of an uninterrupted run."""
    out = tmp_path / "killed.jsonl"
    with TinyOpenAIServer(hf, delay_s=0.25) as srv:
        args = [
            "--model",
            str(tiny_model),
            "--backend",
            "openai",
            "--base-url",
            srv.base_url,
            "--served-model",
            "tiny-llama",
            "--out",
            str(out),
            *CLI_ARGS,
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "verifier_audit", "sample", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and proc.poll() is None:
                if out.is_file() and out.read_bytes().count(b"\n") >= 2:  # manifest + the first batch
                    break
                time.sleep(0.02)
            assert proc.poll() is None, f"ended before the kill: {proc.stderr.read().decode()[-2000:]}"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stderr.close()
        partial = out.read_bytes()
        assert 2 <= partial.count(b"\n") < 10
        srv.delay_s = 0.0
        assert samples_cli.run(parse(*args)) == 0
    assert out.read_bytes() == reference
    assert "kept from an earlier run" in capsys.readouterr().err


# -- openai: failures ------------------------------------------------------------------------------


def test_retries_on_5xx_and_429(reference, tiny_model, tasks, suite, server, tmp_path):
    server.fail_next(2, 503)
    server.fail_next(1, 429, retry_after="0")
    out = tmp_path / "retried.jsonl"
    run(client(tiny_model, server), tasks, suite, out)
    assert out.read_bytes() == reference


def test_persistent_5xx_is_an_input_error_naming_the_url(tiny_model, tasks, suite, server, tmp_path):
    server.fail_next(10, 500)
    with pytest.raises(InputError, match=rf"{server.base_url}/completions kept failing \(HTTP 500.*4 attempts"):
        run(client(tiny_model, server), tasks, suite, tmp_path / "x.jsonl")


def test_4xx_is_not_retried(tiny_model, tasks, suite, server, tmp_path):
    server.fail_next(1, 400)
    with pytest.raises(InputError, match=rf"{server.base_url}/completions answered HTTP 400: injected failure"):
        run(client(tiny_model, server), tasks, suite, tmp_path / "x.jsonl")
    assert len(server.requests) == 1
    with pytest.raises(InputError, match="does not serve 'nope'; it serves: tiny-llama.*--served-model"):
        run(client(tiny_model, server, served_model="nope"), tasks, suite, tmp_path / "y.jsonl")


def test_api_key(hf, tiny_model, tasks, suite, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with TinyOpenAIServer(hf, api_key="sekret") as srv:
        with pytest.raises(InputError, match="HTTP 401"):
            run(client(tiny_model, srv), tasks[:1], suite, tmp_path / "a.jsonl", n=1)
        monkeypatch.setenv("OPENAI_API_KEY", "sekret")
        run(client(tiny_model, srv), tasks[:1], suite, tmp_path / "b.jsonl", n=1)
        assert len(read_samples(tmp_path / "b.jsonl").samples) == 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_server(tiny_model, tasks, suite, tmp_path, capsys):
    url = f"http://127.0.0.1:{free_port()}"
    be = OpenAIBackend(tiny_model, base_url=url, retries=1, retry_base_s=0.01)
    with pytest.raises(InputError, match=rf"cannot reach the server at {url}/v1/models .*2 attempts"):
        run(be, tasks, suite, tmp_path / "x.jsonl")
    assert not (tmp_path / "x.jsonl").exists()  # refused before any file is written
    rc = samples_cli.run(
        parse(
            "--model",
            str(tiny_model),
            "--backend",
            "openai",
            "--base-url",
            url,
            "--retries",
            "0",
            "--out",
            str(tmp_path / "y.jsonl"),
            "--limit",
            "1",
            "--no-progress",
        )
    )
    assert rc == 2 and f"cannot reach the server at {url}/v1/models" in capsys.readouterr().err


def test_base_url_forms():
    assert normalize_base_url("http://h:8000") == "http://h:8000/v1"
    assert normalize_base_url("http://h:8000/v1/") == "http://h:8000/v1"
    with pytest.raises(InputError, match="expected http"):
        normalize_base_url("h:8000")


# -- the registry and the CLI ----------------------------------------------------------------------


def test_registry_and_cli_errors(tiny_model, tmp_path, capsys, monkeypatch):
    assert set(REGISTRY) == {"hf", "vllm", "openai"}
    with pytest.raises(InputError, match="unknown backend; available: hf, vllm, openai"):
        make_backend("tgi", tiny_model)
    be = make_backend("hf", tiny_model, device="cpu", base_url="ignored", dtype=None)  # options it does not take
    assert isinstance(be, HFBackend)
    out = str(tmp_path / "x.jsonl")
    assert samples_cli.run(parse("--model", str(tiny_model), "--backend", "openai", "--out", out)) == 2
    assert "--backend openai needs --base-url" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "vllm", None)  # not importable, installed or not
    assert samples_cli.run(parse("--model", str(tiny_model), "--backend", "vllm", "--out", out)) == 2
    assert "vllm is not installed (pip install vllm; GPU only)" in capsys.readouterr().err


# -- vllm: our conversion of its outputs ------------------------------------------------------------
# Stand-ins shaped like vllm.outputs.RequestOutput / CompletionOutput and vllm.logprobs.Logprob.
# They test OUR conversion and request-building code, not vLLM.


@dataclasses.dataclass
class FakeLogprob:
    logprob: float
    rank: int | None = None
    decoded_token: str | None = None


@dataclasses.dataclass
class FakeCompletion:
    index: int
    text: str
    token_ids: list[int]
    cumulative_logprob: float | None
    logprobs: list[dict[int, FakeLogprob]] | None
    finish_reason: str | None = None
    stop_reason: int | str | None = None


@dataclasses.dataclass
class FakeRequestOutput:
    request_id: str
    prompt: str | None
    prompt_token_ids: list[int]
    outputs: list[FakeCompletion]
    finished: bool = True


def completion(index=0, finish="stop"):
    # token 5 sampled at rank 1; token 9 sampled at rank 7 (outside K=2, vLLM still returns it);
    # token 2 (EOS) sampled at rank 2, with an -inf entry among the others
    return FakeCompletion(
        index=index,
        text=f"text {index}",
        token_ids=[5, 9, 2],
        cumulative_logprob=-5.0,
        logprobs=[
            {5: FakeLogprob(-0.1, 1, "a"), 6: FakeLogprob(-2.5, 2, "b")},
            {3: FakeLogprob(-0.5, 1), 4: FakeLogprob(-1.0, 2), 9: FakeLogprob(-3.25, 7)},
            {7: FakeLogprob(-0.2, 1), 2: FakeLogprob(-1.7, 2), 8: FakeLogprob(float("-inf"), 3)},
        ],
        finish_reason=finish,
    )


def test_vllm_conversion():
    out = FakeRequestOutput("r", "p", [1, 2], [completion(1, "length"), completion(0)])
    g0, g1 = vllm_backend.convert_output(out, 2)
    assert (g0.text, g0.finish_reason, g1.finish_reason) == ("text 0", "stop", "length")
    assert g0.token_ids == [5, 9, 2] and g0.logprobs == [-0.1, -3.25, -1.7]
    assert g0.top_logprobs == [{5: -0.1, 6: -2.5}, {3: -0.5, 4: -1.0}, {7: -0.2, 2: -1.7}]
    assert [list(d) for d in g0.top_logprobs] == [[5, 6], [3, 4], [7, 2]]  # best first
    g = vllm_backend.convert_output(FakeRequestOutput("r", "p", [1], [completion()]), 0)[0]
    assert g.top_logprobs == [] and g.logprobs == [-0.1, -3.25, -1.7]
    # no ranks (a plain float per token): the K best by value
    bare = FakeCompletion(0, "t", [4], None, [{4: -1.0, 3: -0.5, 8: -4.0}], "stop")
    assert vllm_backend.convert_completion(bare, 2).top_logprobs == [{3: -0.5, 4: -1.0}]
    with pytest.raises(InputError, match="finish_reason 'abort'"):
        vllm_backend.convert_completion(completion(finish="abort"), 2)
    broken = completion()
    broken.logprobs = broken.logprobs[:2]
    with pytest.raises(InputError, match="3 tokens but 2 logprob entries"):
        vllm_backend.convert_completion(broken, 2)
    broken.logprobs = None
    with pytest.raises(InputError, match="no logprobs"):
        vllm_backend.convert_completion(broken, 2)


def test_vllm_backend_requests_with_a_stand_in_engine(tiny_model, monkeypatch):
    """VLLMBackend against a stand-in ``vllm`` module: prompts go as token ids, one request per
    sample with its request seed, the engine is built once with the logprobs mode asked for."""
    calls = {}

    class FakeSamplingParams:
        def __init__(self, **kw):
            self.kw = kw

    class FakeLLM:
        def __init__(self, **kw):
            calls["engine"] = kw

        def generate(self, prompts, params, use_tqdm=True):
            calls["generate"] = (prompts, [p.kw for p in params], use_tqdm)
            return [
                FakeRequestOutput(str(i), None, p["prompt_token_ids"], [completion()]) for i, p in enumerate(prompts)
            ]

    monkeypatch.setitem(
        sys.modules,
        "vllm",
        types.SimpleNamespace(LLM=FakeLLM, SamplingParams=FakeSamplingParams, __version__="0.0-fake"),
    )
    be = make_backend("vllm", tiny_model)
    prompt = Prompt("Compute 2+3.", tuple(be.encode("Compute 2+3.", add_special_tokens=True)), True)
    be.prepare(prompt, temperature=0.6, top_p=0.95, top_k_logprobs=2, logprobs_kind="processed", seed=3)
    assert calls["engine"]["logprobs_mode"] == "processed_logprobs" and calls["engine"]["max_logprobs"] == 20
    reqs = [SampleRequest(prompt, "math-0001", 4), SampleRequest(prompt, "math-0001", 5)]
    gens = be.sample(
        reqs, seed=3, temperature=0.6, top_p=0.95, max_tokens=8, top_k_logprobs=2, logprobs_kind="processed"
    )
    prompts, params, use_tqdm = calls["generate"]
    assert prompts == [{"prompt_token_ids": list(prompt.token_ids)}] * 2 and use_tqdm is False
    assert [p["seed"] for p in params] == [request_seed(3, "math-0001", 4), request_seed(3, "math-0001", 5)]
    assert params[0] | {"seed": 0} == {
        "n": 1,
        "temperature": 0.6,
        "top_p": 0.95,
        "max_tokens": 8,
        "logprobs": 2,
        "seed": 0,
    }
    assert [g.token_ids for g in gens] == [[5, 9, 2]] * 2 and be.text_of(gens[0]) == "text 0"
    assert be.versions["vllm"] == "0.0-fake" and be.device == "cuda"
    with pytest.raises(InputError, match="needs a new process"):
        be.sample(reqs, seed=3, temperature=0.6, top_p=0.95, max_tokens=8, top_k_logprobs=2, logprobs_kind="raw")


def test_request_seed():
    a, b = request_seed(0, "t", 0), request_seed(0, "t", 5)
    assert b == a + 5 and 0 <= a < 2**52
    assert request_seed(1, "t", 0) != a and request_seed(0, "u", 0) != a
