"""Sampling throughput of the ``hf`` backend (and of vLLM when importable) on a ~100M model.

    python3 benchmarks/gpu_sampling.py --json gpu.json             # GPU: batch 1, 4, 16, 64, 256
    python3 benchmarks/gpu_sampling.py --quick --json cpu.json     # CPU: batch 1, 4, 16
    python3 benchmarks/gpu_sampling.py --breakdown ...             # + forward alone, _choose alone

Builds a random-initialised Llama-style model (hidden 768, 12 layers, 12 heads, MLP 2048,
vocabulary 32000: the tiny tokenizer of ``verifier_audit.samples.tiny``, the embedding
padded; about 110M parameters, tied embeddings) in a temporary directory, loads it through
the backend's normal path (bf16 on CUDA, float32 on CPU), and times one batch of
``--max-tokens`` new tokens per row for each batch size, end of sequence ignored so every
row makes exactly ``--max-tokens`` tokens (samples and tokens are comparable across batch
sizes). Prompts are the math suite's, left-padded. The first call (CUDA context, kernels)
is timed apart as the warm-up, and each batch size gets an untimed short warm-up of its
own. Prints a table and writes JSON with ``--json``.

Runs from the repository root without installing verifier-audit: it puts the root on
``sys.path`` and imports only ``verifier_audit.samples.tiny`` and ``.backends.hf``
(standard library, torch, transformers, tokenizers), bypassing the package's
``__init__`` (which needs pydantic).
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
if "verifier_audit" not in sys.modules:  # the package without its __init__ (pydantic)
    _pkg = types.ModuleType("verifier_audit")
    _pkg.__path__ = [str(ROOT / "verifier_audit")]
    sys.modules["verifier_audit"] = _pkg

import torch

from verifier_audit.samples.backends.hf import HFBackend
from verifier_audit.samples.seeding import sample_key
from verifier_audit.samples.tiny import build_tiny_model, parameter_count

GPU_BATCHES = (1, 4, 16, 64, 256)
QUICK_BATCHES = (1, 4, 16)


def math_prompts() -> list[str]:
    rows = []
    with (ROOT / "suites" / "math" / "tasks.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rows.append(json.loads(line)["prompt"])
    return rows


def sync(device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def run_hf(backend, prompt_ids, batch, args, *, max_tokens=None, seed=0):
    ids = [prompt_ids[i % len(prompt_ids)] for i in range(batch)]
    keys = [sample_key(seed, f"bench-{i}", 0) for i in range(batch)]
    sync(backend.device)
    t0 = time.perf_counter()
    gens = backend.generate(
        ids,
        keys,
        temperature=args.temperature,
        top_p=args.top_p,
        max_tokens=max_tokens or args.max_tokens,
        top_k_logprobs=args.top_k_logprobs,
        ignore_eos=True,
    )
    sync(backend.device)
    return time.perf_counter() - t0, gens


def run_generate(backend, prompt_ids, batch, args, *, max_tokens=None):
    """The baseline in the same process: transformers' own ``generate`` (sampling, same
    temperature/top-p, fixed length), with no logprobs recorded."""
    n = max_tokens or args.max_tokens
    rows = [prompt_ids[i % len(prompt_ids)] for i in range(batch)]
    width = max(len(r) for r in rows)
    ids = torch.full((batch, width), backend.pad_id, dtype=torch.long)
    mask = torch.zeros((batch, width), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, width - len(r) :] = torch.tensor(r)
        mask[i, width - len(r) :] = 1
    ids, mask = ids.to(backend.device), mask.to(backend.device)
    torch.manual_seed(0)
    sync(backend.device)
    t0 = time.perf_counter()
    with torch.inference_mode():
        backend.model.generate(
            input_ids=ids,
            attention_mask=mask,
            do_sample=True,
            temperature=args.temperature,
            top_p=args.top_p,
            top_k=0,
            max_new_tokens=n,
            min_new_tokens=n,
            pad_token_id=backend.pad_id,
        )
    sync(backend.device)
    return time.perf_counter() - t0


def _batch_tensors(backend, prompt_ids, batch, n):
    """Left-padded ids, the attention mask for prompt + n new tokens, and position ids, as
    the hf backend builds them."""
    rows = [prompt_ids[i % len(prompt_ids)] for i in range(batch)]
    width = max(len(r) for r in rows)
    ids = torch.full((batch, width), backend.pad_id, dtype=torch.long)
    mask = torch.zeros((batch, width + n), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, width - len(r) :] = torch.tensor(r)
        mask[i, width - len(r) :] = 1
    mask[:, width:] = 1
    ids, mask = ids.to(backend.device), mask.to(backend.device)
    return ids, mask, (mask[:, :width].cumsum(-1) - 1).clamp(min=0), width


def run_forward(backend, prompt_ids, batch, args) -> float:
    """The model alone, called exactly as the hf backend calls it (prefill, then one decode
    step per token on the KV cache), feeding back the argmax: no sampling, no logprobs."""
    n = args.max_tokens
    ids, mask, position, width = _batch_tensors(backend, prompt_ids, batch, n)
    model = backend.model
    kw = {backend._cache_kw: backend._new_cache(), "use_cache": True}
    sync(backend.device)
    t0 = time.perf_counter()
    with torch.inference_mode():
        out = model(
            input_ids=ids,
            attention_mask=mask[:, :width],
            position_ids=position,
            **kw,
            **({"logits_to_keep": 1} if backend._keep_kw else {}),
        )
        position = position[:, -1:] + 1
        for step in range(n - 1):
            token = out.logits[:, -1, :].argmax(-1)
            out = model(
                input_ids=token[:, None], attention_mask=mask[:, : width + step + 1], position_ids=position, **kw
            )
            position = position + 1
    sync(backend.device)
    return time.perf_counter() - t0


def run_choose(backend, batch, args) -> float:
    """The backend's per-step token choice alone (``_choose``: log-softmax, nucleus, inverse
    CDF, logprob and top-K) on fixed random logits, once per step."""
    vocab = backend.vocab_rows()
    gen = torch.Generator(device="cpu").manual_seed(0)
    logits = torch.randn(batch, vocab, generator=gen).to(backend.device, backend.torch_dtype)
    keys = [sample_key(0, f"bench-{i}", 0) for i in range(batch)]
    k1 = torch.tensor([a for a, _ in keys], dtype=torch.long, device=backend.device)
    k2 = torch.tensor([b for _, b in keys], dtype=torch.long, device=backend.device)
    sync(backend.device)
    t0 = time.perf_counter()
    with torch.inference_mode():
        u = backend._uniforms(args.max_tokens, k1, k2)
        for step in range(args.max_tokens):
            backend._choose(
                logits,
                u[:, step],
                temperature=args.temperature,
                top_p=args.top_p,
                k=args.top_k_logprobs,
                processed=False,
            )
    sync(backend.device)
    return time.perf_counter() - t0


def bench_vllm(model_dir: Path, prompts: list[str], batches, args) -> dict:
    try:
        import vllm
    except Exception as exc:  # noqa: BLE001 - any failure to import means: skip
        return {"status": f"skipped: vllm not importable ({type(exc).__name__}: {exc})"}
    try:
        llm = vllm.LLM(model=str(model_dir), dtype="bfloat16", seed=0, gpu_memory_utilization=0.3)
        params = vllm.SamplingParams(
            temperature=args.temperature,
            top_p=args.top_p,
            max_tokens=args.max_tokens,
            ignore_eos=True,
            logprobs=args.top_k_logprobs or None,
        )
        t0 = time.perf_counter()
        llm.generate(prompts[:4], params, use_tqdm=False)
        warm = time.perf_counter() - t0
        rows = []
        for b in batches:
            batch_prompts = [prompts[i % len(prompts)] for i in range(b)]
            t0 = time.perf_counter()
            outs = llm.generate(batch_prompts, params, use_tqdm=False)
            dt = time.perf_counter() - t0
            toks = sum(len(o.outputs[0].token_ids) for o in outs)
            rows.append(
                {
                    "backend": "vllm",
                    "batch_size": b,
                    "seconds": dt,
                    "tokens": toks,
                    "samples_per_s": b / dt,
                    "tokens_per_s": toks / dt,
                }
            )
        return {"status": "ok", "version": vllm.__version__, "warmup_s": warm, "results": rows}
    except Exception as exc:  # noqa: BLE001 - report, keep the hf figures
        return {"status": f"failed: {type(exc).__name__}: {exc}"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"CPU-sized run: batch sizes {QUICK_BATCHES}, 1 repeat")
    ap.add_argument(
        "--batch-sizes", default=None, help=f"comma-separated (default {GPU_BATCHES}; --quick {QUICK_BATCHES})"
    )
    ap.add_argument("--max-tokens", type=int, default=128, help="new tokens per row, EOS ignored (default 128)")
    ap.add_argument(
        "--repeats", type=int, default=None, help="timed runs per batch size, median kept (default 2; --quick 1)"
    )
    ap.add_argument("--temperature", type=float, default=0.6)
    ap.add_argument("--top-p", type=float, default=0.95)
    ap.add_argument("--top-k-logprobs", type=int, default=5)
    ap.add_argument("--hidden", type=int, default=768)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--intermediate", type=int, default=2048)
    ap.add_argument("--vocab", type=int, default=32000, help="model vocabulary (the tokenizer is padded to it)")
    ap.add_argument("--device", default=None, help="default: cuda when available, else cpu")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    ap.add_argument("--no-vllm", action="store_true", help="do not try vLLM")
    ap.add_argument(
        "--no-baseline", action="store_true", help="do not time transformers' own generate() (the in-process baseline)"
    )
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="also time the model's forward passes alone and the token choice alone, per batch size "
        "(where the hf loop's time goes)",
    )
    ap.add_argument(
        "--model-dir",
        type=Path,
        default=None,
        help="build the model here and keep it (default: a temporary directory, removed at the end)",
    )
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = ap.parse_args()
    if args.model_dir is not None:
        return bench(args, args.model_dir)
    tmp = Path(tempfile.mkdtemp(prefix="va-bench-model-"))
    try:
        return bench(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bench(args, model_dir: Path) -> int:
    if args.threads:
        torch.set_num_threads(args.threads)
    batches = (
        tuple(int(b) for b in args.batch_sizes.split(","))
        if args.batch_sizes
        else (QUICK_BATCHES if args.quick else GPU_BATCHES)
    )
    repeats = args.repeats or (1 if args.quick else 2)
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    t_start = time.perf_counter()

    t0 = time.perf_counter()
    build_tiny_model(
        model_dir,
        layers=args.layers,
        hidden=args.hidden,
        heads=args.heads,
        intermediate=args.intermediate,
        pad_vocab_to=args.vocab,
        max_positions=4096,
        dtype="bfloat16" if device.type == "cuda" else "float32",
    )
    build_s = time.perf_counter() - t0
    params = parameter_count(model_dir)
    print(
        f"model: {params / 1e6:.1f}M parameters (hidden {args.hidden}, {args.layers} layers, vocab {args.vocab}), "
        f"built in {build_s:.1f}s at {model_dir}",
        flush=True,
    )

    t0 = time.perf_counter()
    backend = HFBackend(model_dir, device=str(device))
    backend.load()
    load_s = time.perf_counter() - t0
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or platform.machine()
    print(
        f"hf backend: {backend.device} {backend.dtype_name}, torch {torch.__version__}, transformers "
        f"{backend.versions['transformers']}, threads {torch.get_num_threads()}, {gpu}; loaded in {load_s:.1f}s",
        flush=True,
    )

    prompts = math_prompts()
    prompt_ids = [backend.encode(p, add_special_tokens=True) for p in prompts]
    t0 = time.perf_counter()
    run_hf(backend, prompt_ids, 1, args, max_tokens=8)
    warmup_s = time.perf_counter() - t0
    print(f"warm-up (first call, 8 tokens): {warmup_s:.2f}s", flush=True)

    results = []
    first_rows: dict[int, list[int]] = {}  # row 0 (same prompt, same key) at every batch size
    check_batch = max(b for b in batches if b <= 16) if any(b <= 16 for b in batches) else batches[0]
    rerun_identical = None
    header = f"{'backend':<8} {'batch':>6} {'tokens':>8} {'seconds':>9} {'samples/s':>10} {'tokens/s':>10} {'ms/step':>8} {'peak GiB':>9}"
    print(header)
    print("-" * len(header), flush=True)
    for b in batches:
        run_hf(backend, prompt_ids, b, args, max_tokens=4)  # this shape's own warm-up, untimed
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        times, tokens = [], 0
        for r in range(repeats):
            dt, gens = run_hf(backend, prompt_ids, b, args, seed=r)
            times.append(dt)
            tokens = sum(len(g.token_ids) for g in gens)
            if r == 0:
                first_rows[b] = gens[0].token_ids
                if b == check_batch:  # the same batch again: the same tokens and logprobs?
                    _, again = run_hf(backend, prompt_ids, b, args, seed=0)
                    rerun_identical = all(
                        a.token_ids == g.token_ids and a.logprobs == g.logprobs for a, g in zip(again, gens)
                    )
        dt = statistics.median(times)
        peak = torch.cuda.max_memory_allocated(device) / 2**30 if device.type == "cuda" else None
        row = {
            "backend": "hf",
            "batch_size": b,
            "max_tokens": args.max_tokens,
            "tokens": tokens,
            "seconds": dt,
            "all_seconds": times,
            "samples_per_s": b / dt,
            "tokens_per_s": tokens / dt,
            "ms_per_step": 1000 * dt / args.max_tokens,
            "peak_gib": peak,
        }
        results.append(row)
        print(
            f"{'hf':<8} {b:>6} {tokens:>8} {dt:>9.2f} {b / dt:>10.1f} {tokens / dt:>10.0f} "
            f"{row['ms_per_step']:>8.1f} {'' if peak is None else f'{peak:.2f}':>9}",
            flush=True,
        )
        if args.breakdown:
            fwd = statistics.median(run_forward(backend, prompt_ids, b, args) for _ in range(repeats))
            choose = statistics.median(run_choose(backend, b, args) for _ in range(repeats))
            row.update(forward_seconds=fwd, choose_seconds=choose, rest_seconds=dt - fwd - choose)
            print(
                f"{'  split':<8} {b:>6}  forward alone {1000 * fwd / args.max_tokens:.1f} ms/step, "
                f"_choose alone {1000 * choose / args.max_tokens:.1f} ms/step, the rest of the loop "
                f"{1000 * (dt - fwd - choose) / args.max_tokens:.1f} ms/step",
                flush=True,
            )
        if not args.no_baseline:
            run_generate(backend, prompt_ids, b, args, max_tokens=4)
            base_s = statistics.median(run_generate(backend, prompt_ids, b, args) for _ in range(repeats))
            row["generate_seconds"] = base_s
            row["ratio_to_generate"] = dt / base_s
            print(
                f"{'generate':<8} {b:>6} {b * args.max_tokens:>8} {base_s:>9.2f} {b / base_s:>10.1f} "
                f"{b * args.max_tokens / base_s:>10.0f} {1000 * base_s / args.max_tokens:>8.1f}"
                f"   (hf backend {dt / base_s:.2f}x its time)",
                flush=True,
            )

    base = first_rows[batches[0]]
    same_prefix = {
        b: next((i for i, (x, y) in enumerate(zip(base, row)) if x != y), min(len(base), len(row)))
        for b, row in first_rows.items()
    }
    print(
        f"determinism: batch {check_batch} sampled twice, identical: {rerun_identical}; row 0 "
        f"(same prompt, same seed key) agrees with batch {batches[0]} for the first "
        + ", ".join(f"{n} tokens at batch {b}" for b, n in same_prefix.items()),
        flush=True,
    )

    if args.no_vllm:
        vllm_part = {"status": "skipped: --no-vllm"}
    elif device.type != "cuda":
        vllm_part = {"status": "skipped: no CUDA device"}
    else:
        del backend
        torch.cuda.empty_cache()
        vllm_part = bench_vllm(model_dir, prompts, batches, args)
    if vllm_part.get("status") == "ok":
        for row in vllm_part["results"]:
            print(
                f"{'vllm':<8} {row['batch_size']:>6} {row['tokens']:>8} {row['seconds']:>9.2f} "
                f"{row['samples_per_s']:>10.1f} {row['tokens_per_s']:>10.0f}"
            )
    else:
        print(f"vllm: {vllm_part['status']}")

    total_s = time.perf_counter() - t_start
    print(f"total {total_s:.1f}s")
    report = {
        "benchmark": "gpu_sampling",
        "device": str(device),
        "device_name": gpu,
        "dtype": "bfloat16" if device.type == "cuda" else "float32",
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": __import__("transformers").__version__,
        "threads": torch.get_num_threads(),
        "model": {
            "parameters": params,
            "hidden": args.hidden,
            "layers": args.layers,
            "heads": args.heads,
            "intermediate": args.intermediate,
            "vocab": args.vocab,
        },
        "sampling": {
            "max_tokens": args.max_tokens,
            "temperature": args.temperature,
            "top_p": args.top_p,
            "top_k_logprobs": args.top_k_logprobs,
            "ignore_eos": True,
            "repeats": repeats,
        },
        "build_s": build_s,
        "load_s": load_s,
        "warmup_s": warmup_s,
        "total_s": total_s,
        "results": results,
        "vllm": vllm_part,
        "determinism": {
            "rerun_batch": check_batch,
            "rerun_identical": rerun_identical,
            "row0_agreeing_prefix_by_batch": same_prefix,
        },
    }
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
