"""Sampling backends: the interface they share and the registry ``--backend`` picks from.

A backend turns a batch of sample requests (a templated prompt, the task id, the sample's
index) into generations: the sampled token ids, each one's log-probability, the top-K
log-probabilities and the finish reason. ``sample.sample_suite`` owns everything else (the
plan, the file, resume), so a backend is small:

==========  ==============================================================================
``hf``      ``backends/hf.py``: Hugging Face transformers, our own decoding loop, per-sample
            counter-based random draws (``seeding``)
``vllm``    ``backends/vllm.py``: vLLM's offline engine (``LLM.generate``), GPU only
``openai``  ``backends/openai.py``: any OpenAI-compatible ``/v1/completions`` server
==========  ==============================================================================

Adding one: write a class with the attributes and methods of ``Backend`` and ``register``
a ``BackendSpec`` for it; the command line lists it and passes it the options it names.

This module imports only the standard library (the GPU benchmark imports ``backends.hf``
where pydantic is not installed).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...errors import InputError

# -- the interface --------------------------------------------------------------------------


@dataclass(frozen=True)
class Prompt:
    """A task's prompt as the model sees it (after the template)."""

    text: str
    token_ids: tuple[int, ...] | None  # None: the backend has no local tokenizer (openai)
    add_special_tokens: bool  # how ``text`` is tokenized (False for a chat template)


@dataclass(frozen=True)
class SampleRequest:
    """One sample to draw: the pair (task id, sample index) keys its randomness."""

    prompt: Prompt
    task_id: str
    sample_index: int


@dataclass
class Generation:
    token_ids: list[int]
    logprobs: list[float]
    top_logprobs: list[dict[int, float]]
    finish_reason: str  # "stop" | "length"
    text: str | None = None  # set by backends that get the text from elsewhere (a server, vLLM)


class Backend(Protocol):
    """What ``sample_suite`` needs from a backend."""

    name: str
    versions: dict[str, str]  # manifest ``backend_versions``: library versions, server facts
    device: Any  # manifest ``device`` (str() of it)
    dtype_name: str  # manifest ``dtype``
    tokenizer: Any | None  # a Hugging Face tokenizer, or None when there is none locally
    model_dir: Path | None  # the local model directory, when there is one
    model_id: str  # how the model is named when there is no local directory

    def encode(self, text: str, *, add_special_tokens: bool) -> list[int]:
        """Token ids of ``text`` (only called when ``tokenizer`` is not None)."""

    def prepare(
        self, prompt: Prompt, *, temperature: float, top_p: float, top_k_logprobs: int, logprobs_kind: str, seed: int
    ) -> None:
        """Called once before the manifest is written: load what is needed, check that the
        parameters are supported, fill ``versions``. Raise ``InputError`` to refuse."""

    def sample(
        self,
        requests: Sequence[SampleRequest],
        *,
        seed: int,
        temperature: float,
        top_p: float,
        max_tokens: int,
        top_k_logprobs: int,
        logprobs_kind: str,
    ) -> list[Generation]:
        """One generation per request, in order. Same requests, same seed: same generations
        (as far as the backend can promise it; docs/samples-backends.md)."""

    def text_of(self, gen: Generation) -> str:
        """The completion's text, without the stop token."""


# -- seeds for backends that take an integer seed per request ---------------------------------

SEED_BITS = 52  # base seeds below 2**52: with the sample index added, still an exact JSON number


def request_seed(seed: int, task_id: str, sample_index: int) -> int:
    """The integer seed of sample ``sample_index`` of task ``task_id`` for servers and engines
    that take one seed per request (vLLM, the OpenAI API): a per-task base plus the index.

    Base plus index, not a hash of the pair: vLLM's parallel sampling seeds a request's
    ``n`` children ``seed + j``, so a request for samples i..i+n-1 with seed
    ``request_seed(seed, task, i)`` draws each sample with the seed it would get alone.
    """
    digest = hashlib.sha256(f"verifier-audit/request-seed\0{seed}\0{task_id}".encode()).digest()
    return (int.from_bytes(digest[:8], "little") & ((1 << SEED_BITS) - 1)) + int(sample_index)


# -- the registry -----------------------------------------------------------------------------


@dataclass(frozen=True)
class BackendSpec:
    name: str
    module: str  # relative to this package
    cls: str
    summary: str
    requires: tuple[str, ...] = ()  # importable modules it needs
    missing: str = ""  # the message when one is missing; {missing} is replaced by their names
    options: tuple[str, ...] = ()  # keyword options of its constructor that the command line sets


REGISTRY: dict[str, BackendSpec] = {}


def register(spec: BackendSpec) -> None:
    REGISTRY[spec.name] = spec


INSTALL_HINT = "pip install 'verifier-audit[samples]'"

register(
    BackendSpec(
        "hf",
        ".hf",
        "HFBackend",
        "Hugging Face transformers, our decoding loop (CPU or GPU)",
        requires=("torch", "transformers"),
        missing="sampling needs {missing}, not installed here: " + INSTALL_HINT,
        options=("device", "dtype"),
    )
)
register(
    BackendSpec(
        "vllm",
        ".vllm",
        "VLLMBackend",
        "vLLM's offline engine (GPU)",
        requires=("vllm",),
        missing="--backend vllm: vllm is not installed (pip install vllm; GPU only)",
        options=("dtype",),
    )
)
register(
    BackendSpec(
        "openai",
        ".openai",
        "OpenAIBackend",
        "an OpenAI-compatible /v1/completions server (vLLM, SGLang, TGI)",
        options=(
            "base_url",
            "api_key",
            "served_model",
            "samples_per_request",
            "prompts_per_request",
            "server_seed",
            "concurrency",
            "request_timeout",
            "retries",
        ),
    )
)

AVAILABLE = tuple(REGISTRY)


def _importable(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is not None  # None: import blocked (tests do that)
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def spec_of(name: str) -> BackendSpec:
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(f"--backend {name!r}: unknown backend; available: {', '.join(AVAILABLE)}") from None


def missing_requirements(name: str) -> str | None:
    """The error message when backend ``name`` cannot run here, else None."""
    spec = spec_of(name)
    missing = [m for m in spec.requires if not _importable(m)]
    if missing:
        return spec.missing.format(missing=" and ".join(missing))
    return None


def backend_class(name: str):
    spec = spec_of(name)
    return getattr(importlib.import_module(spec.module, __name__), spec.cls)


def make_backend(name: str, model_path, **options):
    """The backend called ``name``. ``options`` it does not take, or that are None, are
    dropped, so a caller can pass every command-line option it has."""
    spec = spec_of(name)
    problem = missing_requirements(name)
    if problem:
        raise InputError(problem)
    kwargs = {k: v for k, v in options.items() if k in spec.options and v is not None}
    return backend_class(name)(model_path, **kwargs)
