"""Model samples: sample a model on a suite's tasks and write a samples file.

    verifier-audit sample --model PATH --suite math --n 64 --out samples.jsonl

Grouped by job:

* making samples: ``sample.sample_suite`` (the entry point), ``backends/`` (hf, vllm,
  openai), ``templates``, ``seeding``, ``tiny`` (a small random model built locally for
  tests and benchmarks), ``logprobs`` (a base model's teacher forcing); docs/samples.md;
* the samples file: ``records`` (a manifest line, then one sample per line) and
  ``importers`` (other tools' samples into it);
* reading samples: ``labels`` (the oracle's correctness, shared), ``score/`` (a verifier's
  false acceptance and rejection on them), ``compare/`` (base against RL: pass@k, support,
  entropy, KL; its formulas ``metrics``), ``authority`` (tools and privileges of tool-call
  samples) and ``evidence`` (those figures read back for the checklist).

The subcommands are ``verifier_audit/cli/`` (sample, logprobs, import_, score, compare).

This package's ``__init__`` imports nothing: ``backends.hf``, ``tiny`` and ``seeding`` need
only the standard library, torch, transformers and tokenizers (no pydantic), so the GPU
benchmark can load them on a machine where the rest of verifier-audit cannot be imported.
"""
