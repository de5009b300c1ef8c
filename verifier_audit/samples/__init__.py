"""Model samples: sample a model on a suite's tasks and write a samples file.

    verifier-audit sample --model PATH --suite math --n 64 --out samples.jsonl

``sample.sample_suite`` is the entry point, ``records`` the file format (a manifest line,
then one sample per line), ``backends.hf`` the Hugging Face transformers backend and
``tiny`` a small random model built locally for tests and benchmarks. See
``docs/samples.md``.

This package's ``__init__`` imports nothing: ``backends.hf``, ``tiny`` and ``seeding`` need
only the standard library, torch, transformers and tokenizers (no pydantic), so the GPU
benchmark can load them on a machine where the rest of verifier-audit cannot be imported.
"""
