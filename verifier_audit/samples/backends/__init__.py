"""Sampling backends. Only ``hf`` exists; ``vllm`` and ``openai`` are planned (issue 6)."""

AVAILABLE = ("hf",)
PLANNED = ("vllm", "openai")


def make_backend(name: str, model_path, **options):
    """The backend called ``name``, its tokenizer loaded (the model itself loads lazily)."""
    from ...errors import InputError

    if name == "hf":
        from .hf import HFBackend

        return HFBackend(model_path, **options)
    if name in PLANNED:
        raise InputError(f"--backend {name}: planned but not available yet; use --backend hf")
    raise InputError(f"--backend {name!r}: unknown backend; available: {', '.join(AVAILABLE)} "
                     f"(planned: {', '.join(PLANNED)})")
