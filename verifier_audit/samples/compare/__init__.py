"""``verifier-audit compare base.jsonl rl.jsonl``: did RL training lift the model's ceiling,
or only concentrate it on what the base model could already sample? ``docs/compare.md``
documents every figure.

    pipeline.py  run_compare (files in, report out), compute, write_json, read_json
    facts.py     what is kept of each sample (correct?, canonical answer, entropy, KL sums)
    figures.py   the figures' pieces, per problem and per split
    verdict.py   the figures read out in plain words
    models.py    the report (``CompareReport``, what ``--json`` writes): pydantic only
    render.py    text, one HTML page, PNGs

The formulas are ``samples/metrics.py`` and the tool-call authority figures
``samples/authority.py``. The names below are loaded on first use, so that importing one
module of this package (``models`` to read a saved report) does not import numpy or the
oracles with the rest.
"""

from importlib import import_module

_WHERE = {
    "run_compare": "pipeline",
    "compute": "pipeline",
    "write_json": "pipeline",
    "read_json": "pipeline",
    "PLAN_EPSILONS": "pipeline",
    "CompareReport": "models",
    "render_text": "render",
    "render_html": "render",
    "write_pngs": "render",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
